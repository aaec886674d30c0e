// The revealed answer of each lesson step (web/lesson/panel.js): the student's prediction beside
// the answer computed from the live state (web/lesson/steps.js, with the core's numbers), marked
// right or wrong; nothing is marked for a prediction a link revealed without recording it.
import { statesEqual } from '../core/state-schema.js';
import { t } from '../i18n/i18n.js';
import { h } from '../views/dom.js';
import { rich } from './rich.js';
import { answerStep1, answerStep2, answerStep3, answerStep4, answerStep5 } from './steps.js';
import { data, f, keyList, kk, qk, qtok, sp, tok, vec } from './lesson-text.js';

/** One line of the answer: the prediction beside the answer, marked. */
function verdict(name, predictionText, answerText, correct) {
  return h(
    'div',
    { class: 'lesson-verdict', dataset: { prediction: name, correct: correct === null ? '' : String(correct) } },
    h('p', {}, h('span', { class: 'lesson-label' }, t('lesson.yourPrediction')), sp(), predictionText),
    h('p', {}, h('span', { class: 'lesson-label' }, t('lesson.answer')), sp(), answerText),
    correct === null
      ? null
      : h('p', { class: `lesson-mark ${correct ? 'right' : 'wrong'}` }, correct ? t('lesson.right') : t('lesson.wrong')),
  );
}

const sameSet = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * The answer of step n.
 * @param {object} ctx the panel's context: lab, shareUrl, compute
 * @param {import('../core/core.js').Core} core the core (the answers' sums, norms, renormalisations)
 */
export function answer(n, s, r, ref, ctx, core) {
  const p = s.lesson.predictions;
  const tr = s.row;
  // A link may reveal a step without its prediction: then nothing is marked.
  const choice = (name) => (p[name] === undefined ? t('lesson.notRecorded') : t(`lesson.q.${name}.${p[name]}`));
  const mark = (name, ok) => (p[name] === undefined ? null : ok);
  if (n === 1) {
    const a = answerStep1(s, r, ref, core);
    if (a.unavailable) return [h('p', {}, t('lesson.s1.unavailable'))];
    const mine = p.rise ? keyList(s, p.rise) : t('lesson.notRecorded');
    if (!a.moved)
      return [
        verdict('rise', mine, t('lesson.s1.notMoved'), null),
        verdict('redistribute', choice('redistribute'), t('lesson.s1.notMoved'), null),
      ];
    const changes = a.keys
      .filter((k) => a.rise.includes(k.j) || a.fall.includes(k.j))
      .map((k) =>
        t('lesson.s1.change', { key: tok(s, k.j), from: f(k.refWeight), to: f(k.weight), sFrom: f(k.refScore), sTo: f(k.score) }),
      );
    return [
      verdict(
        'rise',
        mine,
        [
          rich(t, 'lesson.s1.rise', {
            keys: keyList(s, a.rise),
            fall: keyList(s, a.fall),
            changes: data(changes.join(t('lesson.listSep')), { id: 'lesson-a1-changes' }),
          }),
          sp(),
          t('lesson.s1.sum', { sum: f(a.sum) }),
        ],
        mark('rise', p.rise && sameSet(p.rise, a.rise)),
      ),
      verdict(
        'redistribute',
        choice('redistribute'),
        rich(t, `lesson.s1.redistribute.${a.redistribute}`, { sum: data(f(a.sum), { id: 'lesson-a1-sum' }) }),
        mark('redistribute', p.redistribute === a.redistribute),
      ),
    ];
  }
  if (n === 2) {
    const a = answerStep2(s, r, ref);
    const entropyText = a.changed
      ? [
          t('lesson.s2.factor', { from: f(a.refFactor), to: f(a.factor) }),
          sp(),
          rich(t, 'lesson.s2.entropyChange', { query: qk(s, tr), from: f(a.refEntropy), to: f(a.entropy) }),
          sp(),
          t(`lesson.s2.answer.${a.answer}`),
        ]
      : t('lesson.s2.notChanged', { factor: f(a.factor) });
    return [
      verdict('entropy', choice('entropy'), entropyText, a.changed ? mark('entropy', p.entropy === a.answer) : null),
      verdict(
        'sums',
        choice('sums'),
        [
          t(a.allOne ? 'lesson.s2.sumsYes' : 'lesson.s2.sumsNo'),
          sp(),
          data(a.sums.map((x) => (x === null ? '—' : f(x))).join(', '), { id: 'lesson-a2-sums' }),
        ],
        mark('sums', p.sums === a.sumsAnswer),
      ),
    ];
  }
  if (n === 3) {
    const a = answerStep3(s, r, ref, core);
    const nK = s.tokens.keys.length;
    const inGrid = (list) => list.filter((c) => Number.isInteger(c) && c >= 0 && c < s.tokens.queries.length * nK);
    const cells = (whole) => {
      const list = inGrid(whole); // never a cell outside this grid
      return list.length
        ? h('span', { translate: 'no' }, list.map((c) => `(${qtok(s, Math.floor(c / nK))}, ${tok(s, c % nK)})`).join(t('lesson.listSep')))
        : t('lesson.none');
    };
    const mineZeros = p.zeros ? cells(p.zeros) : t('lesson.notRecorded');
    if (a.causalOff) {
      return [verdict('zeros', mineZeros, t('lesson.s3.off'), null), verdict('renorm', choice('renorm'), t('lesson.s3.off'), null)];
    }
    const out = [
      verdict(
        'zeros',
        mineZeros,
        [t('lesson.s3.zeros', { n: a.zeros.length }), sp(), h('span', { id: 'lesson-a3-zeros' }, cells(a.zeros))],
        p.zeros ? sameSet(p.zeros, a.zeros) : null,
      ),
    ];
    out.push(
      verdict(
        'renorm',
        choice('renorm'),
        [
          rich(t, `lesson.s3.renorm.${a.renorm}`, { query: qk(s, tr), kept: f(a.kept) }),
          sp(),
          rich(t, 'lesson.s3.rows', {
            before: data(vec(a.before), { id: 'lesson-a3-before' }),
            after: data(vec(a.after), { id: 'lesson-a3-after' }),
            expected: data(vec(a.expected), { id: 'lesson-a3-expected' }),
            sums: data(a.sums.map((x) => (x === null ? '—' : f(x))).join(', '), { id: 'lesson-a3-sums' }),
          }),
        ],
        mark('renorm', p.renorm === a.renorm),
      ),
    );
    return out;
  }
  if (n === 4) {
    const a = answerStep4(s, r, ref, core);
    if (a.unavailable) return [h('p', {}, t('lesson.s4.noValues'))];
    let sens = null;
    try {
      sens = ctx.lab({ ...s, lab: { view: 'sensitivity', params: {} } });
    } catch {
      sens = null;
    }
    const largestText =
      sens && sens.supported && !sens.empty
        ? rich(t, sens.agrees.value ? 'lesson.s4.largestYes' : 'lesson.s4.largestNo', {
            key: keyList(s, sens.leaders.weight),
            weight: f(sens.keys.find((k) => k.key === sens.leaders.weight[0]).weight),
          })
        : t('lesson.s4.largestUndefined');
    const largestAnswer = sens && sens.supported && !sens.empty ? (sens.agrees.value ? 'yes' : 'no') : null;
    if (!a.changed.length) {
      return [
        verdict('scores', choice('scores'), t('lesson.s4.notChanged'), null),
        verdict('largest', choice('largest'), largestText, largestAnswer === null ? null : mark('largest', p.largest === largestAnswer)),
      ];
    }
    const shifts = a.dv.flatMap((d, i) => [
      i ? t('lesson.listSep') : '',
      rich(t, 'lesson.s4.dv', { key: kk(s, d.j), size: f(d.size), weight: f(d.weight) }),
    ]);
    return [
      verdict(
        'scores',
        choice('scores'),
        [
          t(a.scoresAnswer === 'same' ? 'lesson.s4.scoresSame' : 'lesson.s4.scoresChanged', { diff: f(a.scoresDiff) }),
          sp(),
          rich(t, 'lesson.s4.outputShift', {
            query: qk(s, tr),
            output: data(`${vec(a.refOutput)} → ${vec(a.output)}`, { id: 'lesson-a4-output' }),
            size: f(a.shiftSize),
            changes: shifts,
          }),
          a.ratio === null
            ? ''
            : [sp(), rich(t, 'lesson.s4.ratio', { ratio: f(a.ratio), key: kk(s, a.dv[0].j), weight: f(a.dv[0].weight) })],
        ],
        mark('scores', p.scores === a.scoresAnswer),
      ),
      verdict('largest', choice('largest'), largestText, largestAnswer === null ? null : mark('largest', p.largest === largestAnswer)),
    ];
  }
  let fragment = '';
  let linkLength = 0; // the whole link's length: the one number of characters step 5 quotes
  try {
    const url = ctx.shareUrl();
    fragment = url.split('#')[1] ?? '';
    linkLength = url.length;
  } catch {
    fragment = '';
  }
  const a = answerStep5(s, r, fragment, (f) => ctx.core.decodeLink(f), statesEqual, ctx.compute);
  const same = (ok) => (ok ? t('lesson.s5.same') : t('lesson.s5.differs'));
  const text = a.error
    ? t('lesson.s5.error', { message: a.error })
    : h(
        'ul',
        { class: 'lesson-checks', id: 'lesson-a5-checks' },
        h('li', { dataset: { ok: String(a.matrix) } }, t('lesson.s5.matrix'), sp(), same(a.matrix)),
        h('li', { dataset: { ok: String(a.mask) } }, t('lesson.s5.mask'), sp(), same(a.mask)),
        h('li', { dataset: { ok: String(a.step) } }, t('lesson.s5.step', { n: s.lesson.step }), sp(), same(a.step)),
        h('li', { dataset: { ok: String(a.whole) } }, t('lesson.s5.whole', { length: linkLength }), sp(), same(a.whole)),
      );
  return [verdict('reproduce', choice('reproduce'), text, mark('reproduce', p.reproduce === a.answer))];
}
