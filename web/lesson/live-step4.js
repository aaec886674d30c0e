// Step 4's live part (web/lesson/live.js): the value the student changes (a select and a button),
// the selected row's scores and output, and the box that keeps the weights and replaces the
// values. Owns the value chosen in the select.
import { t } from '../i18n/i18n.js';
import { h } from '../views/dom.js';
import { rich } from './rich.js';
import { valueSwapBox } from './value-swap.js';
import { data, qk, subscript, tok, vec } from './lesson-text.js';

/**
 * @param {object} ctx the panel's context (web/lesson/live.js createLive)
 * @returns {{live: (s, r, ref) => Node[]}}
 */
export function createStep4(ctx) {
  let chosenValue = 1;

  function live(s, r, ref) {
    const tr = s.row;
    const hd = s.heads[s.head];
    if (!hd.V) return [h('p', { class: 'note' }, t('lesson.s4.noValues'))];
    if (chosenValue >= hd.V.length) chosenValue = 0;
    // Listeners through h(): the panel is patched in place, and the select on screen may be an
    // older element than this one.
    const sel = h(
      'select',
      {
        id: 'lesson-s4-key',
        value: String(chosenValue),
        onchange: (e) => {
          chosenValue = Number(e.currentTarget.value);
        },
      },
      hd.V.map((_, j) => h('option', { value: String(j), translate: 'no' }, `v${subscript(j + 1)} (${tok(s, j)})`)),
    );
    return [
      h(
        'div',
        { class: 'lesson-actions' },
        h('label', {}, `${t('lesson.s4.which')} `, sel),
        h(
          'button',
          {
            type: 'button',
            id: 'lesson-s4-change',
            onclick: () => {
              const j = chosenValue;
              ctx.update((x) => {
                x.heads[x.head].V[j] = x.heads[x.head].V[j].map((v) => v + 1);
              });
            },
          },
          t('lesson.s4.change'),
        ),
      ),
      h(
        'dl',
        { class: 'lesson-facts' },
        h('dt', {}, rich(t, 'lesson.s4.scoresRow', { query: qk(s, tr) })),
        h('dd', {}, data(vec(r.scores[tr].map((x) => x ?? NaN)), { id: 'lesson-s4-scores' })),
        h('dt', {}, rich(t, 'lesson.s4.output', { query: qk(s, tr) })),
        h('dd', {}, data(ref ? `${vec(ref.output[tr])} → ${vec(r.output[tr])}` : vec(r.output[tr]), { id: 'lesson-s4-output' })),
      ),
      // The parameter experiment's third part: keep the weights, replace the values.
      hd.V.length > 1
        ? valueSwapBox(ctx, s, r, {
            id: 'lesson-s4-replace',
            title: 'lesson.s4.replaceTitle',
            button: 'lesson.s4.replace',
            note: 'lesson.s4.replaceNote',
            swap: (V) => [...V].reverse(),
          })
        : null,
    ];
  }

  return { live };
}
