// Step 3's live part (web/lesson/live.js): the causal mask's switch, the selected row's weights,
// the grid of every weight of the head, and worked example 2.
import { t } from '../i18n/i18n.js';
import { h } from '../views/dom.js';
import { rich } from './rich.js';
import { GRID_MAX, example2Facts, fitLesson } from './steps.js';
import { LESSON_PRESETS } from '../presets/presets.js';
import { readOnly } from './read-only.js';
import { data, exactLogit, f, fraction, qk, qtok, sp, tok, vec } from './lesson-text.js';

/** @param {object} ctx the panel's context (web/lesson/live.js createLive) */
export function step3Live(ctx, s, r) {
  const tr = s.row;
  return [
    h(
      'label',
      { class: 'check' },
      h('input', {
        type: 'checkbox',
        id: 'lesson-s3-causal',
        checked: s.mask.causal,
        onchange: (ev) =>
          ctx.update((x) => {
            x.mask.causal = ev.target.checked;
          }),
      }),
      ` ${t('lesson.s3.causal')}`,
    ),
    h(
      'p',
      { class: 'note' },
      rich(t, 'lesson.s3.rowWeights', { query: qk(s, tr) }),
      sp(),
      data(vec(r.weights[tr]), { id: 'lesson-s3-weights' }),
    ),
    weightGrid(s, r),
    example2Box(ctx, s, r),
  ];
}

/** The causal grid beside step 3: every weight of the head, zero cells marked (from the results). */
function weightGrid(s, r) {
  const nQ = r.weights.length;
  const nK = r.weights[0].length;
  if (nQ > GRID_MAX || nK > GRID_MAX) return null;
  return h(
    'table',
    { class: 'lesson-table lesson-weight-grid', id: 'lesson-s3-grid' },
    h('caption', {}, t('lesson.s3.gridCaption')),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('td', {}),
        s.tokens.keys.map((_, j) => h('th', { scope: 'col', translate: 'no' }, tok(s, j))),
      ),
    ),
    h(
      'tbody',
      {},
      r.weights.map((row, i) =>
        h(
          'tr',
          { class: i === s.row ? 'selected' : null },
          h('th', { scope: 'row', translate: 'no' }, qtok(s, i)),
          row.map((w, j) =>
            // A masked cell as in the heatmaps: ×, its weight 0 in its accessible name.
            r.visible[i][j]
              ? h('td', { dataset: { value: String(w) } }, f(w))
              : h('td', { class: 'masked', dataset: { value: String(w) }, 'aria-label': t('lesson.s3.maskedCell') }, '×'),
          ),
        ),
      ),
    ),
  );
}

/** Worked example 2 (seed "例题二"): its exact logits, A, the outputs and both take-aways. */
function example2Box(ctx, s, r) {
  const facts = example2Facts(s, r);
  const load = h(
    'button',
    {
      type: 'button',
      id: 'lesson-ex2-load',
      class: 'lesson-main',
      onclick: () => {
        const next = LESSON_PRESETS.example2.make();
        next.lesson = fitLesson(s.lesson, s, next);
        ctx.commit(next, { structural: true });
      },
    },
    t('lesson.e2.load'),
  );
  if (!facts)
    return h('div', { class: 'lesson-box', id: 'lesson-e2' }, h('h4', {}, t('lesson.e2.title')), h('p', {}, t('lesson.e2.intro')), load);
  const hd = s.heads[s.head];
  const matrix = (rows, fmt, id) =>
    h(
      'table',
      { class: 'lesson-table lesson-matrix', id },
      h(
        'tbody',
        {},
        rows.map((row) =>
          h(
            'tr',
            {},
            row.map((x) => h('td', { translate: 'no', dataset: { value: String(x) } }, fmt(x))),
          ),
        ),
      ),
    );
  const outputs = facts.rows.map((x) => x.output);
  return h(
    'div',
    { class: 'lesson-box', id: 'lesson-e2' },
    h('h4', {}, t('lesson.e2.title')),
    h('p', {}, t('lesson.e2.logits')),
    matrix(hd.logits, exactLogit, 'lesson-e2-logits'),
    h('p', {}, t('lesson.e2.weights')),
    matrix(
      facts.rows.map((x) => x.weights),
      fraction,
      'lesson-e2-weights',
    ),
    h(
      'p',
      {},
      rich(t, 'lesson.e2.outputs', {
        v: data(vec(hd.V.map((v) => v[0])), { id: 'lesson-e2-values' }),
        o: data(outputs.map((x) => f(x)).join(t('lesson.listSep')), {
          id: 'lesson-e2-outputs',
          dataset: { value: JSON.stringify(outputs) },
        }),
      }),
    ),
    h(
      'p',
      { id: 'lesson-e2-same', dataset: { ok: String(facts.same23 && facts.differ23) } },
      facts.same23 && facts.differ23 ? t('lesson.e2.same23') : t('lesson.e2.notSame23'),
    ),
    h(
      'p',
      { id: 'lesson-e2-row1', dataset: { value: String(outputs[0]) } },
      rich(t, 'lesson.e2.row1', { o: data(f(outputs[0])), v1: data(f(hd.V[0][0])) }),
    ),
    h(
      'button',
      {
        type: 'button',
        id: 'lesson-e2-future',
        onclick: () =>
          ctx.update((x) => {
            const V = x.heads[x.head].V;
            V[1][0] += 10;
            V[2][0] += 10;
          }),
      },
      t('lesson.e2.future'),
    ),
    // Undo is locked in a read-only link: only the button brings the values back there.
    h('p', { class: 'note', id: 'lesson-e2-back' }, t(readOnly() ? 'lesson.e2.backReadonly' : 'lesson.e2.back')),
    load,
  );
}
