// One step of the lesson panel as nodes (web/lesson/panel.js renders them and keeps the panel's
// state): the panel's head and one-off notes, the step buttons, the step's title, task and
// formula, its predictions (questions.js), what it acts on (live.js), Reveal or Hide, the revealed
// answer (answers.js), Previous / Reset / Next, the myths and the exercises. Two parts, `top` and
// `bottom`, around step 5's frame (live.js frameSlot), which is never rebuilt.
import { t } from '../i18n/i18n.js';
import { h } from '../views/dom.js';
import { renderTex } from '../views/tex.js';
import { STEP_TEX } from './step-tex.js';
import { answer } from './answers.js';
import { renderExercises } from './exercises.js';
import { readOnly } from './read-only.js';
import { questions } from './questions.js';
import { sp } from './lesson-text.js';
import { renderMyths } from './myths.js';
import { STEPS, predicted, referenceState, untouchedBoxes } from './steps.js';

/** A formula rendered by KaTeX (the same in both languages). */
function tex(source, id) {
  const el = h('span', { class: 'lesson-tex', id, dataset: { tex: source } });
  renderTex(el, source);
  return el;
}

const FORMULAS = STEP_TEX;

/**
 * The nodes of the state's step.
 * @param {object} s the state (with its `lesson`)
 * @param {object} r its results
 * @param {object} o what the panel gives: ctx (its context), steps (createLive), core(), notes()
 *   (the one-off notes), and the actions goTo(n), startOver(), close(), editLesson(fn), setP(name, value)
 * @returns {{top: Node[], bottom: Node[]}}
 */
export function buildStep(s, r, { ctx, steps, core, notes, goTo, startOver, close, editLesson, setP }) {
  const lesson = s.lesson;
  const n = lesson.step;
  let ref = null;
  const refState = referenceState(n, s);
  if (refState) {
    try {
      ref = ctx.compute(refState);
    } catch {
      ref = null;
    }
  }
  const revealed = lesson.revealed.includes(n);
  const ready = predicted(lesson, n);
  const formula = FORMULAS[n];
  // Two parts around step 5's frame (live.js frameSlot): the frame is never rebuilt.
  const predict = h(
    'div',
    { class: 'lesson-predict', id: 'lesson-predict' },
    h('h4', {}, t('lesson.predictTitle')),
    h('p', { class: 'note' }, t(revealed ? 'lesson.lockedNote' : 'lesson.predictNote')),
    questions(n, s, lesson, revealed, setP),
  );
  // Every step's predictions come before what the step acts on: predict first, then act (step
  // 3's mask switch above its question showed the masked weights before the prediction; on a
  // phone a tap on predictions below step 1's key plane scrolled the plane away).
  const top = [
    h(
      'div',
      { class: 'lesson-head' },
      h('h2', { id: 'lesson-title' }, t('lesson.title')),
      h(
        'button',
        {
          type: 'button',
          id: 'lesson-start-over',
          onclick: startOver,
          title: t('lesson.startOverTitle'),
        },
        t('lesson.startOver'),
      ),
      h('button', { type: 'button', id: 'lesson-close', onclick: close }, t('lesson.close')),
    ),
    notes(),
    h(
      'nav',
      { 'aria-label': t('lesson.stepsNav') },
      h(
        'ol',
        { class: 'lesson-steps' },
        STEPS.map((k) =>
          h(
            'li',
            {},
            h(
              'button',
              {
                type: 'button',
                id: `lesson-step-${k}`,
                'aria-current': k === n ? 'step' : null,
                class: lesson.revealed.includes(k) ? 'done' : null,
                onclick: () => {
                  if (k !== n) goTo(k);
                },
              },
              t('lesson.stepShort', { n: k }),
              h(
                'span',
                { class: 'visually-hidden' },
                ` ${t(`lesson.s${k}.title`)}${lesson.revealed.includes(k) ? `, ${t('lesson.revealedMark')}` : ''}`,
              ),
            ),
          ),
        ),
      ),
    ),
    h('h3', { id: 'lesson-step-title', tabindex: -1 }, t('lesson.stepOf', { n, total: STEPS.length }), sp(), t(`lesson.s${n}.title`)),
    h('p', { id: 'lesson-step-do' }, t(n === 2 && readOnly() ? 'lesson.s2.doReadonly' : `lesson.s${n}.do`)),
    formula ? h('p', { class: 'lesson-formula' }, tex(formula, `lesson-formula-${n}`)) : null,
    predict,
    h('div', { class: 'lesson-live', id: 'lesson-live' }, steps.live(n, s, r, ref)),
  ];
  const bottom = [
    h(
      'div',
      { class: 'lesson-actions' },
      revealed
        ? h(
            'button',
            {
              type: 'button',
              id: 'lesson-hide',
              onclick: () =>
                editLesson((l) => {
                  l.revealed = l.revealed.filter((k) => k !== n);
                }),
            },
            t('lesson.hide'),
          )
        : h(
            'button',
            {
              type: 'button',
              id: 'lesson-reveal',
              class: 'primary',
              disabled: !ready,
              'aria-describedby': ready ? null : 'lesson-reveal-why',
              onclick: () =>
                editLesson((l, next) => {
                  // A box question left untouched is the answer "none" (it says so).
                  for (const name of untouchedBoxes(l, n, next)) l.predictions[name] = [];
                  l.revealed = [...new Set([...l.revealed, n])].sort((a, b) => a - b);
                }),
            },
            t('lesson.reveal'),
          ),
      ready || revealed ? null : h('span', { id: 'lesson-reveal-why', class: 'note' }, t('lesson.revealWhy')),
    ),
    h(
      'div',
      { id: 'lesson-answer', class: 'lesson-answer', role: 'status', 'aria-live': 'polite' },
      revealed ? [h('h4', {}, t('lesson.answerTitle')), answer(n, s, r, ref, ctx, core())] : null,
    ),
    h(
      'div',
      { class: 'lesson-nav' },
      h('button', { type: 'button', id: 'lesson-prev', disabled: n === 1, onclick: () => goTo(n - 1) }, t('lesson.prev')),
      h('button', { type: 'button', id: 'lesson-reset', onclick: () => goTo(n), title: t('lesson.resetTitle') }, t('lesson.reset')),
      h('button', { type: 'button', id: 'lesson-next', disabled: n === STEPS.length, onclick: () => goTo(n + 1) }, t('lesson.next')),
    ),
    renderMyths({ state: s, results: r, ctx, setP }),
    renderExercises({ state: s, results: r, ctx, t, editLesson }),
  ];
  return { top, bottom };
}
