// The guided lesson panel (seed lesson 003 "注意力机制：从加权平均到自注意力", its interactive
// experiment; docs/lesson.md). Shown while the state has a `lesson` part: five steps, each with an
// action on the live state, a prediction the student records first (radio buttons, checkboxes),
// and a Reveal that puts the answer computed from the live state beside the prediction, marked
// right or not. The step, the predictions and the revealed steps are state, so in the link: a
// reloaded link continues where it was, and Undo takes back a step change like any other edit.
//
// API
//   initLesson(ctx) -> {render()}
//     ctx.container  the <section id="lesson-panel">
//     ctx.toggle     the header button that starts or closes the lesson (optional)
//     ctx.getState(), ctx.getResults()  the page's current state and results
//     ctx.update(fn, opts)   edits a copy of the state and commits it (the page's undo path)
//     ctx.commit(next, opts) commits a whole state (entering a step loads its starting state)
//     ctx.compute(state)     the core's results for another state (the references of the answers)
//     ctx.lab(state)         the core's lab analysis (sensitivity for step 4 and exercise 3)
//     ctx.shareUrl()         the link of the current state (step 5 shows it and copies it itself)
//   render() is called by the page after every state change; it rebuilds the panel (keeping the
//   focused control focused), except while a key is being dragged.
//
// DOM ids (for tests): #lesson-title, #lesson-step-<n> (step buttons), #lesson-prev, #lesson-next,
// #lesson-reset, #lesson-close, #lesson-reveal, #lesson-hide, #lesson-answer (the revealed answer,
// data-correct="true|false|" per prediction on [data-prediction]), prediction inputs
// #lesson-p-<name>-<value> (rise: key index; zeros: cell t_j), #lesson-s1-table, #lesson-s2-*,
// #lesson-s3-causal, #lesson-s4-key, #lesson-s4-change, #lesson-s5-copy, #lesson-s5-status, #lesson-s5-link,
// #lesson-exercises.
import { decodeLink, statesEqual } from '../state.js';
import { onLangChange, t } from '../i18n.js';
import { h, mount } from '../views/dom.js';
import { fmtMetric, showToken } from '../views/format.js';
import { katexRender } from '../vendor/vendor.js';
import { ensureKatexCss } from '../views/formulas.js';
import { createPlane } from './plane.js';
import { renderExercises } from './exercises.js';
import { rich } from './rich.js';
import {
  GRID_MAX, STEPS, STEP_PREDICTIONS, answerStep1, answerStep2, answerStep3, answerStep4, answerStep5,
  atStep, predicted, referenceState, setupState,
} from './steps.js';

const f = (x) => fmtMetric(x, 4);
const vec = (xs) => `(${xs.map((x) => fmtMetric(x, 4)).join(', ')})`;
const tok = (state, j) => showToken(state.tokens.keys[j] ?? '');
const qtok = (state, i) => showToken(state.tokens.queries[i] ?? '');
// Tokens are data, not interface text: in sentences they sit in their own translate="no" span.
const kk = (state, j) => h('span', { translate: 'no' }, tok(state, j));
const qk = (state, i) => h('span', { translate: 'no' }, qtok(state, i));
/** The space between two sentences or a label and its text: none in Chinese. */
const sp = () => t('lesson.gap');
const data = (text, attrs = {}) => h('span', { translate: 'no', class: 'lesson-num', ...attrs }, text);

/** A formula rendered by KaTeX (the same in both languages). */
function tex(source, id) {
  const el = h('span', { class: 'lesson-tex', id, dataset: { tex: source } });
  katexRender(source, el, { displayMode: false, throwOnError: false, output: 'htmlAndMathml', trust: false, strict: 'ignore' });
  return el;
}

const FORMULAS = {
  1: 's_j = c\\,\\mathbf q\\cdot\\mathbf k_j,\\qquad a_j = \\dfrac{e^{s_j/\\tau}}{\\sum_\\ell e^{s_\\ell/\\tau}}',
  2: 'H = -\\sum_j a_j \\ln a_j,\\qquad \\sum_j a_j = 1',
  3: 'a_j = \\dfrac{e^{s_j/\\tau}}{\\sum_{\\ell\\le t} e^{s_\\ell/\\tau}}\\ (j\\le t),\\qquad a_j = 0\\ (j>t)',
  4: '\\mathbf o_t = \\sum_j a_{tj}\\,\\mathbf v_j,\\qquad \\dfrac{\\partial \\mathbf o_t}{\\partial \\mathbf v_j} = a_{tj} I',
  5: null,
};

export function initLesson(ctx) {
  const { container } = ctx;
  let plane = null;
  let planeKey = '';
  let lastStep = 0;
  ensureKatexCss(container.ownerDocument);
  onLangChange(() => { plane = null; render(); });

  const state = () => ctx.getState();
  const results = () => ctx.getResults();
  const editLesson = (fn) => ctx.update((s) => {
    s.lesson = atStep(s.lesson, s.lesson.step);
    fn(s.lesson, s);
  });

  /** Enters step n: its starting state, the lesson kept (and an open analysis view). */
  function goTo(n) {
    const s = state();
    const next = setupState(n);
    next.lesson = atStep(s.lesson, n);
    if (s.lab) next.lab = structuredClone(s.lab);
    return ctx.commit(next, { structural: true });
  }

  if (ctx.toggle) {
    ctx.toggle.addEventListener('click', () => {
      const s = state();
      if (s?.lesson) ctx.update((x) => { delete x.lesson; });
      else ctx.commit({ ...setupState(1), lesson: { step: 1, predictions: {}, revealed: [] } }, { structural: true });
    });
  }

  // ------------------------------------------------------------------------------------------
  // Step 1: the key plane and the scores beside the weights.

  function moveKey(j, at, { final }) {
    ctx.update((s) => { s.heads[s.head].K[j] = at; }, { kind: final ? 'lesson-key' : 'lesson-drag', report: false });
    if (final && plane) plane.announce(state(), results(), j);
  }

  function homeKey(j) {
    const start = setupState(1).heads[0].K[j];
    if (start) moveKey(j, [...start], { final: true });
  }

  function step1Live(s, r, ref) {
    const hd = s.heads[s.head];
    const ok = s.mode === 'qkv' && hd.Q[0].length === 2 && hd.K.length <= GRID_MAX;
    const parts = [];
    if (ok) {
      const key = `${s.lesson.step}|${hd.K.length}`;
      if (!plane || planeKey !== key) {
        plane = createPlane({ onMove: moveKey, onHome: homeKey, t });
        planeKey = key;
      }
      plane.update(s, r);
      parts.push(plane.el, h('p', { class: 'note' }, t('lesson.plane.help')));
    } else {
      parts.push(h('p', { class: 'note' }, t('lesson.plane.unavailable')));
    }
    if (s.mode === 'qkv') parts.push(step1Table(s, r, ref));
    return parts;
  }

  function step1Table(s, r, ref) {
    const tr = s.row;
    return h('div', { id: 'lesson-s1-readout' }, h('table', { id: 'lesson-s1-table', class: 'lesson-table' },
      h('caption', {}, rich(t, 'lesson.s1.tableCaption', { query: qk(s, tr) })),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('lesson.col.key')), h('th', { scope: 'col' }, 'k_j'),
        h('th', { scope: 'col' }, t('lesson.col.score')), h('th', { scope: 'col' }, t('lesson.col.weight')))),
      h('tbody', {}, s.heads[s.head].K.map((k, j) => h('tr', {},
        h('th', { scope: 'row', translate: 'no' }, tok(s, j)),
        h('td', {}, data(vec(k))),
        h('td', {}, data(ref ? `${f(ref.scores[tr][j])} → ${f(r.scores[tr][j])}` : f(r.scores[tr][j]), { id: `lesson-s1-score-${j}`, dataset: { value: String(r.scores[tr][j]) } })),
        h('td', {}, data(ref ? `${f(ref.weights[tr][j])} → ${f(r.weights[tr][j])}` : f(r.weights[tr][j]), { id: `lesson-s1-weight-${j}`, dataset: { value: String(r.weights[tr][j]) } })))))));
  }

  // ------------------------------------------------------------------------------------------
  // The steps' live parts, questions and answers.

  function live(n, s, r, ref) {
    const tr = s.row;
    if (n === 1) return step1Live(s, r, ref);
    if (n === 2) {
      const setTau = (tau) => ctx.update((x) => { x.tau = tau; });
      return [
        h('div', { class: 'lesson-actions' },
          h('button', { type: 'button', id: 'lesson-s2-up', onclick: () => setTau(Math.min(1000, s.tau * 2)) }, t('lesson.s2.tauUp')),
          h('button', { type: 'button', id: 'lesson-s2-down', onclick: () => setTau(s.tau / 2) }, t('lesson.s2.tauDown'))),
        h('dl', { class: 'lesson-facts' },
          h('dt', {}, t('lesson.s2.tau')), h('dd', {}, data(String(s.tau), { id: 'lesson-s2-tau' })),
          h('dt', {}, t('lesson.s2.scale')), h('dd', {}, data(f(r.scale), { id: 'lesson-s2-scale' })),
          h('dt', {}, rich(t, 'lesson.s2.entropy', { query: qk(s, tr) })),
          h('dd', {}, data(ref ? `${f(ref.rows[tr].entropy)} → ${f(r.rows[tr].entropy)}` : f(r.rows[tr].entropy), { id: 'lesson-s2-entropy', dataset: { value: String(r.rows[tr].entropy) } })),
          h('dt', {}, t('lesson.s2.sums')),
          h('dd', {}, data(r.rows.map((m) => (m.empty ? '—' : f(m.rowSum))).join(', '), { id: 'lesson-s2-sums' }))),
      ];
    }
    if (n === 3) {
      return [
        h('label', { class: 'check' }, h('input', {
          type: 'checkbox', id: 'lesson-s3-causal', checked: s.mask.causal,
          onchange: (ev) => ctx.update((x) => { x.mask.causal = ev.target.checked; }),
        }), ` ${t('lesson.s3.causal')}`),
        h('p', { class: 'note' }, rich(t, 'lesson.s3.rowWeights', { query: qk(s, tr) }), sp(),
          data(vec(r.weights[tr]), { id: 'lesson-s3-weights' })),
      ];
    }
    if (n === 4) {
      const hd = s.heads[s.head];
      if (!hd.V) return [h('p', { class: 'note' }, t('lesson.s4.noValues'))];
      const sel = h('select', { id: 'lesson-s4-key' }, hd.V.map((_, j) => h('option', { value: String(j), translate: 'no' }, `v_${j + 1} (${tok(s, j)})`)));
      sel.value = String(chosenValue < hd.V.length ? chosenValue : 0);
      sel.addEventListener('change', () => { chosenValue = Number(sel.value); });
      return [
        h('div', { class: 'lesson-actions' },
          h('label', {}, `${t('lesson.s4.which')} `, sel),
          h('button', {
            type: 'button', id: 'lesson-s4-change',
            onclick: () => { const j = Number(sel.value); ctx.update((x) => { x.heads[x.head].V[j] = x.heads[x.head].V[j].map((v) => v + 1); }); },
          }, t('lesson.s4.change'))),
        h('dl', { class: 'lesson-facts' },
          h('dt', {}, rich(t, 'lesson.s4.scoresRow', { query: qk(s, tr) })), h('dd', {}, data(vec(r.scores[tr].map((x) => x ?? NaN)), { id: 'lesson-s4-scores' })),
          h('dt', {}, rich(t, 'lesson.s4.output', { query: qk(s, tr) })),
          h('dd', {}, data(ref ? `${vec(ref.output[tr])} → ${vec(r.output[tr])}` : vec(r.output[tr]), { id: 'lesson-s4-output' }))),
      ];
    }
    // Step 5: the link.
    let link = '';
    try { link = ctx.shareUrl(); } catch (e) { link = e.message; }
    return [
      h('div', { class: 'lesson-actions' },
        h('button', { type: 'button', id: 'lesson-s5-copy', onclick: copyStepLink }, t('lesson.s5.copy')),
        h('span', { class: 'status', id: 'lesson-s5-status', role: 'status', 'aria-live': 'polite' })),
      h('label', { class: 'lesson-link' }, t('lesson.s5.linkLabel'),
        h('input', { type: 'text', id: 'lesson-s5-link', readonly: true, value: link, translate: 'no', onfocus: (ev) => ev.target.select() })),
    ];
  }

  let chosenValue = 1;

  /**
   * Step 5's Copy link: copies the link shown beside the button. Where the clipboard is refused
   * (an iframe whose course page does not allow clipboard-write, an insecure context) the link box
   * beside it is selected for Ctrl+C, so a keyboard user stays in the step; the page's header
   * button would move the focus to the top of the page (and may be hidden by share_hide=1).
   */
  async function copyStepLink() {
    const box = container.querySelector('#lesson-s5-link');
    const status = container.querySelector('#lesson-s5-status');
    if (!box || !status) return;
    const policy = document.permissionsPolicy ?? document.featurePolicy;
    try {
      // Asking while the permissions policy forbids it logs an error in Chromium: don't ask.
      if (policy?.allowsFeature && !policy.allowsFeature('clipboard-write')) throw new Error('clipboard-write not allowed');
      await navigator.clipboard.writeText(box.value);
      status.textContent = t('embed.copied', { n: box.value.length });
    } catch {
      box.focus();
      box.select();
      status.textContent = t('embed.copyByHand');
    }
  }

  /** The prediction controls of step n. */
  function questions(n, s, r, lesson, locked) {
    const p = lesson.predictions;
    const setP = (name, value) => editLesson((l) => { l.predictions[name] = value; });
    const radios = (name, choices, vars = {}) => h('fieldset', { class: 'lesson-q', dataset: { prediction: name } },
      h('legend', {}, rich(t, `lesson.q.${name}`, vars)),
      choices.map((c) => h('label', { class: 'check' }, h('input', {
        type: 'radio', name: `lesson-p-${name}`, id: `lesson-p-${name}-${c}`, value: c, checked: p[name] === c, disabled: locked,
        onchange: () => setP(name, c),
      }), ` ${t(`lesson.q.${name}.${c}`)}`)));
    const tr = s.row;
    if (n === 1) {
      const chosen = new Set(p.rise ?? []);
      return [h('fieldset', { class: 'lesson-q', dataset: { prediction: 'rise' } },
        h('legend', {}, rich(t, 'lesson.q.rise', { key: kk(s, Math.min(1, s.tokens.keys.length - 1)), query: qk(s, tr) })),
        s.tokens.keys.map((_, j) => h('label', { class: 'check' }, h('input', {
          type: 'checkbox', id: `lesson-p-rise-${j}`, checked: chosen.has(j), disabled: locked,
          onchange: (ev) => {
            const next = new Set(p.rise ?? []);
            if (ev.target.checked) next.add(j); else next.delete(j);
            setP('rise', [...next].sort((a, b) => a - b));
          },
        }), ' ', h('span', { translate: 'no' }, tok(s, j)))),
        h('p', { class: 'note' }, t('lesson.q.riseNone')))];
    }
    if (n === 2) return [radios('entropy', ['up', 'down', 'same'], { query: qk(s, tr) }), radios('sums', ['yes', 'no'])];
    if (n === 3) {
      const nQ = s.tokens.queries.length;
      const nK = s.tokens.keys.length;
      const parts = [];
      if (nQ <= GRID_MAX && nK <= GRID_MAX) {
        const chosen = new Set(p.zeros ?? []);
        parts.push(h('fieldset', { class: 'lesson-q', dataset: { prediction: 'zeros' } },
          h('legend', {}, t('lesson.q.zeros')),
          h('table', { class: 'lesson-grid-table', id: 'lesson-zeros-grid' },
            h('thead', {}, h('tr', {}, h('td', {}, t('lesson.q.zerosCorner')), s.tokens.keys.map((k) => h('th', { scope: 'col', translate: 'no' }, showToken(k))))),
            h('tbody', {}, s.tokens.queries.map((q, i) => h('tr', {}, h('th', { scope: 'row', translate: 'no' }, showToken(q)),
              s.tokens.keys.map((k, j) => h('td', {}, h('input', {
                type: 'checkbox', id: `lesson-p-zeros-${i}_${j}`, checked: chosen.has(i * nK + j), disabled: locked,
                'aria-label': t('lesson.q.zerosCell', { query: showToken(q), key: showToken(k) }),
                onchange: (ev) => {
                  const next = new Set(p.zeros ?? []);
                  if (ev.target.checked) next.add(i * nK + j); else next.delete(i * nK + j);
                  setP('zeros', [...next].sort((a, b) => a - b));
                },
              }))))))),
          h('p', { class: 'note' }, t('lesson.q.zerosNone'))));
      } else {
        parts.push(h('p', { class: 'note' }, t('lesson.q.zerosTooLarge', { max: GRID_MAX })));
      }
      parts.push(radios('renorm', ['same', 'renormalised', 'less'], { query: qk(s, tr) }));
      return parts;
    }
    if (n === 4) return [radios('scores', ['change', 'same']), radios('largest', ['yes', 'no'], { query: qk(s, tr) })];
    return [radios('reproduce', ['yes', 'no'])];
  }

  /** One line of the answer: the prediction beside the answer, marked. */
  function verdict(name, predictionText, answerText, correct) {
    return h('div', { class: 'lesson-verdict', dataset: { prediction: name, correct: correct === null ? '' : String(correct) } },
      h('p', {}, h('span', { class: 'lesson-label' }, t('lesson.yourPrediction')), sp(), predictionText),
      h('p', {}, h('span', { class: 'lesson-label' }, t('lesson.answer')), sp(), answerText),
      correct === null ? null : h('p', { class: `lesson-mark ${correct ? 'right' : 'wrong'}` }, correct ? t('lesson.right') : t('lesson.wrong')));
  }

  const keyList = (s, js) => (js.length ? h('span', { translate: 'no' }, js.map((j) => tok(s, j)).join(t('lesson.listSep'))) : t('lesson.none'));
  const sameSet = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

  function answer(n, s, r, ref) {
    const p = s.lesson.predictions;
    const tr = s.row;
    // A link may reveal a step without its prediction: then nothing is marked.
    const choice = (name) => (p[name] === undefined ? t('lesson.notRecorded') : t(`lesson.q.${name}.${p[name]}`));
    const mark = (name, ok) => (p[name] === undefined ? null : ok);
    if (n === 1) {
      const a = answerStep1(s, r, ref);
      if (a.unavailable) return [h('p', {}, t('lesson.s1.unavailable'))];
      const mine = p.rise ? keyList(s, p.rise) : t('lesson.notRecorded');
      if (!a.moved) return [verdict('rise', mine, t('lesson.s1.notMoved'), null)];
      const changes = a.keys.filter((k) => a.rise.includes(k.j) || a.fall.includes(k.j))
        .map((k) => t('lesson.s1.change', { key: tok(s, k.j), from: f(k.refWeight), to: f(k.weight), sFrom: f(k.refScore), sTo: f(k.score) }));
      return [verdict('rise', mine, [
        rich(t, 'lesson.s1.rise', { keys: keyList(s, a.rise), fall: keyList(s, a.fall), changes: data(changes.join(t('lesson.listSep')), { id: 'lesson-a1-changes' }) }), sp(),
        t('lesson.s1.sum', { sum: f(a.sum) })], mark('rise', p.rise && sameSet(p.rise, a.rise)))];
    }
    if (n === 2) {
      const a = answerStep2(s, r, ref);
      const entropyText = a.changed
        ? [t('lesson.s2.factor', { from: f(a.refFactor), to: f(a.factor) }), sp(),
          rich(t, 'lesson.s2.entropyChange', { query: qk(s, tr), from: f(a.refEntropy), to: f(a.entropy) }), sp(),
          t(`lesson.s2.answer.${a.answer}`)]
        : t('lesson.s2.notChanged', { factor: f(a.factor) });
      return [
        verdict('entropy', choice('entropy'), entropyText, a.changed ? mark('entropy', p.entropy === a.answer) : null),
        verdict('sums', choice('sums'),
          [t(a.allOne ? 'lesson.s2.sumsYes' : 'lesson.s2.sumsNo'), sp(), data(a.sums.map((x) => (x === null ? '—' : f(x))).join(', '), { id: 'lesson-a2-sums' })],
          mark('sums', p.sums === a.sumsAnswer)),
      ];
    }
    if (n === 3) {
      const a = answerStep3(s, r, ref);
      const nK = s.tokens.keys.length;
      const cells = (list) => (list.length ? h('span', { translate: 'no' }, list.map((c) => `(${qtok(s, Math.floor(c / nK))}, ${tok(s, c % nK)})`).join(t('lesson.listSep'))) : t('lesson.none'));
      const mineZeros = p.zeros ? cells(p.zeros) : t('lesson.notRecorded');
      if (a.causalOff) {
        return [verdict('zeros', mineZeros, t('lesson.s3.off'), null), verdict('renorm', choice('renorm'), t('lesson.s3.off'), null)];
      }
      const out = [verdict('zeros', mineZeros,
        [t('lesson.s3.zeros', { n: a.zeros.length }), sp(), h('span', { id: 'lesson-a3-zeros' }, cells(a.zeros))],
        p.zeros ? sameSet(p.zeros, a.zeros) : null)];
      out.push(verdict('renorm', choice('renorm'), [
        rich(t, `lesson.s3.renorm.${a.renorm}`, { query: qk(s, tr), kept: f(a.kept) }), sp(),
        rich(t, 'lesson.s3.rows', {
          before: data(vec(a.before), { id: 'lesson-a3-before' }),
          after: data(vec(a.after), { id: 'lesson-a3-after' }),
          expected: data(vec(a.expected), { id: 'lesson-a3-expected' }),
          sums: data(a.sums.map((x) => (x === null ? '—' : f(x))).join(', '), { id: 'lesson-a3-sums' }),
        })],
      mark('renorm', p.renorm === a.renorm)));
      return out;
    }
    if (n === 4) {
      const a = answerStep4(s, r, ref);
      if (a.unavailable) return [h('p', {}, t('lesson.s4.noValues'))];
      let sens = null;
      try { sens = ctx.lab({ ...s, lab: { view: 'sensitivity', params: {} } }); } catch { sens = null; }
      const largestText = sens && sens.supported && !sens.empty
        ? rich(t, sens.agrees.value ? 'lesson.s4.largestYes' : 'lesson.s4.largestNo', {
          key: keyList(s, sens.leaders.weight), weight: f(sens.keys.find((k) => k.key === sens.leaders.weight[0]).weight),
        })
        : t('lesson.s4.largestUndefined');
      const largestAnswer = sens && sens.supported && !sens.empty ? (sens.agrees.value ? 'yes' : 'no') : null;
      if (!a.changed.length) {
        return [verdict('scores', choice('scores'), t('lesson.s4.notChanged'), null),
          verdict('largest', choice('largest'), largestText, largestAnswer === null ? null : mark('largest', p.largest === largestAnswer))];
      }
      const shifts = a.dv.flatMap((d, i) => [i ? t('lesson.listSep') : '', rich(t, 'lesson.s4.dv', { key: kk(s, d.j), size: f(d.size), weight: f(d.weight) })]);
      return [
        verdict('scores', choice('scores'),
          [t(a.scoresAnswer === 'same' ? 'lesson.s4.scoresSame' : 'lesson.s4.scoresChanged', { diff: f(a.scoresDiff) }), sp(),
            rich(t, 'lesson.s4.outputShift', {
              query: qk(s, tr), output: data(`${vec(a.refOutput)} → ${vec(a.output)}`, { id: 'lesson-a4-output' }),
              size: f(a.shiftSize), changes: shifts,
            }),
            a.ratio === null ? '' : [sp(), rich(t, 'lesson.s4.ratio', { ratio: f(a.ratio), key: kk(s, a.dv[0].j), weight: f(a.dv[0].weight) })]],
          mark('scores', p.scores === a.scoresAnswer)),
        verdict('largest', choice('largest'), largestText, largestAnswer === null ? null : mark('largest', p.largest === largestAnswer)),
      ];
    }
    let fragment = '';
    try { fragment = ctx.shareUrl().split('#')[1] ?? ''; } catch { fragment = ''; }
    const a = answerStep5(s, r, fragment, decodeLink, statesEqual, ctx.compute);
    const same = (ok) => (ok ? t('lesson.s5.same') : t('lesson.s5.differs'));
    const text = a.error ? t('lesson.s5.error', { message: a.error }) : h('ul', { class: 'lesson-checks', id: 'lesson-a5-checks' },
      h('li', { dataset: { ok: String(a.matrix) } }, t('lesson.s5.matrix'), sp(), same(a.matrix)),
      h('li', { dataset: { ok: String(a.mask) } }, t('lesson.s5.mask'), sp(), same(a.mask)),
      h('li', { dataset: { ok: String(a.step) } }, t('lesson.s5.step', { n: s.lesson.step }), sp(), same(a.step)),
      h('li', { dataset: { ok: String(a.whole) } }, t('lesson.s5.whole', { length: a.length }), sp(), same(a.whole)));
    return [verdict('reproduce', choice('reproduce'), text, mark('reproduce', p.reproduce === a.answer))];
  }

  // ------------------------------------------------------------------------------------------

  function build(s, r) {
    const lesson = s.lesson;
    const n = lesson.step;
    let ref = null;
    const refState = referenceState(n, s);
    if (refState) {
      try { ref = ctx.compute(refState); } catch { ref = null; }
    }
    const revealed = lesson.revealed.includes(n);
    const ready = predicted(lesson, n, s);
    const formula = FORMULAS[n];
    return [
      h('div', { class: 'lesson-head' },
        h('h2', { id: 'lesson-title' }, t('lesson.title')),
        h('button', { type: 'button', id: 'lesson-close', class: 'small', onclick: () => ctx.update((x) => { delete x.lesson; }) }, t('lesson.close'))),
      h('nav', { 'aria-label': t('lesson.stepsNav') }, h('ol', { class: 'lesson-steps' }, STEPS.map((k) => h('li', {},
        h('button', {
          type: 'button', id: `lesson-step-${k}`, 'aria-current': k === n ? 'step' : null, class: lesson.revealed.includes(k) ? 'done' : null,
          onclick: () => { if (k !== n) goTo(k); },
        }, t('lesson.stepShort', { n: k }), h('span', { class: 'visually-hidden' }, ` ${t(`lesson.s${k}.title`)}${lesson.revealed.includes(k) ? `, ${t('lesson.revealedMark')}` : ''}`)))))),
      h('h3', { id: 'lesson-step-title', tabindex: -1 }, t('lesson.stepOf', { n, total: STEPS.length }), sp(), t(`lesson.s${n}.title`)),
      h('p', {}, t(`lesson.s${n}.do`)),
      formula ? h('p', { class: 'lesson-formula' }, tex(formula, `lesson-formula-${n}`)) : null,
      h('div', { class: 'lesson-live', id: 'lesson-live' }, live(n, s, r, ref)),
      h('div', { class: 'lesson-predict' },
        h('h4', {}, t('lesson.predictTitle')),
        h('p', { class: 'note' }, t(revealed ? 'lesson.lockedNote' : 'lesson.predictNote')),
        questions(n, s, r, lesson, revealed)),
      h('div', { class: 'lesson-actions' },
        revealed
          ? h('button', { type: 'button', id: 'lesson-hide', onclick: () => editLesson((l) => { l.revealed = l.revealed.filter((k) => k !== n); }) }, t('lesson.hide'))
          : h('button', {
            type: 'button', id: 'lesson-reveal', class: 'primary', disabled: !ready, 'aria-describedby': ready ? null : 'lesson-reveal-why',
            onclick: () => editLesson((l) => { l.revealed = [...new Set([...l.revealed, n])].sort((a, b) => a - b); }),
          }, t('lesson.reveal')),
        ready || revealed ? null : h('span', { id: 'lesson-reveal-why', class: 'note' }, t('lesson.revealWhy'))),
      h('div', { id: 'lesson-answer', class: 'lesson-answer', role: 'status', 'aria-live': 'polite' },
        revealed ? [h('h4', {}, t('lesson.answerTitle')), answer(n, s, r, ref)] : null),
      h('div', { class: 'lesson-nav' },
        h('button', { type: 'button', id: 'lesson-prev', disabled: n === 1, onclick: () => goTo(n - 1) }, t('lesson.prev')),
        h('button', { type: 'button', id: 'lesson-reset', onclick: () => goTo(n), title: t('lesson.resetTitle') }, t('lesson.reset')),
        h('button', { type: 'button', id: 'lesson-next', disabled: n === STEPS.length, onclick: () => goTo(n + 1) }, t('lesson.next'))),
      renderExercises({ state: s, results: r, ctx, t }),
    ];
  }

  function render() {
    const s = state();
    const r = results();
    const on = Boolean(s?.lesson) && r && !r.large;
    if (ctx.toggle) {
      ctx.toggle.setAttribute('aria-pressed', String(Boolean(s?.lesson)));
    }
    container.closest('.layout')?.classList.toggle('lesson-on', Boolean(s?.lesson));
    container.hidden = !s?.lesson;
    if (!s?.lesson) {
      container.replaceChildren();
      plane = null;
      return;
    }
    if (!on) {
      mount(container, h('h2', { id: 'lesson-title' }, t('lesson.title')), h('p', { class: 'note' }, t('lesson.large')));
      return;
    }
    if (plane?.dragging()) { // keep the element under the pointer; redraw it and the numbers only
      plane.update(s, r);
      const table = container.querySelector('#lesson-s1-readout');
      if (table && s.mode === 'qkv') table.replaceWith(step1Table(s, r, (() => { try { return ctx.compute(referenceState(1, s)); } catch { return null; } })()));
      return;
    }
    let focused = container.contains(document.activeElement) ? document.activeElement.id : '';
    // A new step: the focus goes to its heading (read first), unless it was on a step's own control.
    if (s.lesson.step !== lastStep && /^lesson-(prev|next|step-\d)$/.test(focused)) focused = 'lesson-step-title';
    lastStep = s.lesson.step;
    try {
      mount(container, build(s, r));
    } catch (e) { // a teaching panel must never stop the page's own views
      mount(container, h('h2', { id: 'lesson-title' }, t('lesson.title')), h('p', { class: 'note' }, t('lesson.failed', { message: e.message })),
        h('button', { type: 'button', id: 'lesson-reset', onclick: () => goTo(s.lesson.step) }, t('lesson.reset')));
      return;
    }
    if (focused) {
      const again = container.querySelector(`#${CSS.escape(focused)}`);
      if (again && !again.disabled) again.focus({ preventScroll: true });
      else if (focused === 'lesson-reveal') container.querySelector('#lesson-hide')?.focus({ preventScroll: true });
      else if (focused === 'lesson-hide') container.querySelector('#lesson-reveal')?.focus({ preventScroll: true });
      else container.querySelector('#lesson-step-title')?.focus({ preventScroll: true });
    }
  }

  return { render };
}

export { STEP_PREDICTIONS };
