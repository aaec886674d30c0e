// The seed lesson's three 常见误区 as short checks on the live state (docs/lesson.md "常见误区"):
// each quotes the statement, asks whether it is right (a prediction, myth1..myth3), and once
// answered shows on the current numbers why it is wrong. The numbers come from the results and
// the core's sensitivity analysis (steps.js answerMyths); nothing is computed here.
//   DOM ids: #lesson-myths, #lesson-myth-<k> (fieldset), #lesson-p-myth<k>-right|wrong,
//   #lesson-myth-<k>-why (the explanation, data-correct), #lesson-myth3-tau (try: double τ).
import { t } from '../i18n/i18n.js';
import { h } from '../views/dom.js';
import { rich } from './rich.js';
import { MYTHS, answerMyths } from './steps.js';
import { data, f, keyList, kk, qk, vec } from './lesson-text.js';
import { SCHEMA } from '../generated/schema.js';

/** The section for the current state: three statements, each with its check. */
export function renderMyths({ state, results, ctx, setP }) {
  const p = state.lesson.predictions;
  // The checks' numbers (the core's sensitivity analysis among them) are computed only when an
  // answer shows them: an unanswered section costs no core call on a render (a tau step, the start).
  let answers = null;
  const answered = () => {
    if (answers) return answers;
    let sens = null;
    try {
      sens = state.heads[state.head].V ? ctx.lab({ ...state, lab: { view: 'sensitivity', params: {} } }) : null;
    } catch {
      sens = null;
    }
    answers = answerMyths(state, results, sens, ctx.core);
    return answers;
  };
  const tr = state.row;
  const why = (k) => {
    const a = answered();
    if (k === 1) {
      if (!a.myth1) return t('lesson.myth1.noLive');
      return rich(t, a.myth1.agree ? 'lesson.myth1.liveAgree' : 'lesson.myth1.liveDiffer', {
        query: qk(state, tr),
        top: kk(state, a.myth1.top),
        weight: data(f(a.myth1.topWeight), { id: 'lesson-myth1-weight' }),
        topShift: data(f(a.myth1.topShift), { id: 'lesson-myth1-top-shift' }),
        mover: kk(state, a.myth1.mover),
        shift: data(f(a.myth1.moverShift), { id: 'lesson-myth1-shift' }),
      });
    }
    if (k === 2) {
      // The keys the row can see: with a mask, fewer than the input's (the row's visible flags).
      const seen = state.tokens.keys.map((_, j) => j).filter((j) => results.visible[tr][j]);
      const masked = a.myth2.n < a.myth2.nK;
      return rich(t, masked ? 'lesson.myth2.liveMasked' : 'lesson.myth2.live', {
        query: qk(state, tr),
        n: data(String(a.myth2.nK), { id: 'lesson-myth2-n' }),
        m: data(String(a.myth2.n), { id: 'lesson-myth2-visible' }),
        keys: keyList(state, seen),
        sum: data(f(a.myth2.sum), { id: 'lesson-myth2-sum' }),
        output: data(a.myth2.output ? vec(a.myth2.output) : '—', { id: 'lesson-myth2-output' }),
      });
    }
    return [
      rich(t, 'lesson.myth3.live', {
        query: qk(state, tr),
        max: data(a.myth3.max === null ? '—' : f(a.myth3.max), { id: 'lesson-myth3-max', dataset: { value: String(a.myth3.max) } }),
        key: a.myth3.argmax >= 0 ? kk(state, a.myth3.argmax) : '—',
        entropy: data(f(a.myth3.entropy), { id: 'lesson-myth3-entropy' }),
      }),
      t('lesson.gap'),
      h(
        'button',
        {
          type: 'button',
          id: 'lesson-myth3-tau',
          onclick: () =>
            ctx.update((x) => {
              x.tau = Math.min(SCHEMA.limits.maxTau, x.tau * 2);
            }),
        },
        t('lesson.myth3.try'),
      ),
    ];
  };
  return h(
    'section',
    { id: 'lesson-myths', class: 'lesson-myths', 'aria-labelledby': 'lesson-myths-title' },
    h('h3', { id: 'lesson-myths-title' }, t('lesson.myths.title')),
    h('p', { class: 'note' }, t('lesson.myths.intro')),
    MYTHS.map((name, i) => {
      const k = i + 1;
      const chosen = p[name];
      return h(
        'fieldset',
        { class: 'lesson-q lesson-myth', id: `lesson-myth-${k}`, dataset: { prediction: name } },
        h('legend', {}, t(`lesson.${name}.statement`)),
        SCHEMA.lesson.choices[name].map((c) =>
          h(
            'label',
            { class: 'check' },
            h('input', {
              type: 'radio',
              name: `lesson-p-${name}`,
              id: `lesson-p-${name}-${c}`,
              value: c,
              checked: chosen === c,
              disabled: chosen !== undefined, // locked while its answer shows
              onchange: () => setP(name, c),
            }),
            ` ${t(`lesson.myth.${c}`)}`,
          ),
        ),
        chosen === undefined
          ? null
          : h(
              'div',
              { class: 'lesson-verdict', id: `lesson-myth-${k}-why`, dataset: { correct: String(chosen === 'wrong') } },
              h(
                'p',
                { class: `lesson-mark ${chosen === 'wrong' ? 'right' : 'wrong'}` },
                t(chosen === 'wrong' ? 'lesson.myth.gotIt' : 'lesson.myth.notSo'),
              ),
              h('p', {}, t(`lesson.${name}.seed`)),
              h('p', {}, why(k)),
              h(
                'button',
                {
                  type: 'button',
                  id: `lesson-myth-${k}-again`,
                  onclick: () =>
                    ctx.update((x) => {
                      delete x.lesson.predictions[name];
                    }),
                },
                t('lesson.myth.again'),
              ),
            ),
      );
    }),
  );
}
