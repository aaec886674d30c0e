// The box of steps 1 and 4 (web/lesson/live-step1.js, live-step4.js): the selected row now beside
// the row after a change of the values only, both computed by the core (ctx.compute), and the
// button that makes the change (ctx.update).
import { t } from '../i18n/i18n.js';
import { h } from '../views/dom.js';
import { rich } from './rich.js';
import { statesEqual } from '../core/state-schema.js';
import { data, qk, sp, vec } from './lesson-text.js';

/**
 * A box that compares the row now with the row after a change of the values only (the core
 * computes both): weights equal, output moved. Its button makes the change.
 */
export function valueSwapBox(ctx, s, r, { id, title, button, note, swap }) {
  const tr = s.row;
  const other = structuredClone(s);
  delete other.lesson;
  other.heads[other.head].V = swap(structuredClone(s.heads[s.head].V));
  let alt = null;
  try {
    alt = ctx.compute(other);
  } catch {
    alt = null;
  }
  const sameWeights = alt ? statesEqual(alt.weights[tr], r.weights[tr]) : null;
  return h(
    'div',
    { class: 'lesson-box', id },
    h('h4', {}, t(title)),
    h(
      'button',
      {
        type: 'button',
        id: `${id}-do`,
        class: 'lesson-main',
        onclick: () =>
          ctx.update((x) => {
            x.heads[x.head].V = swap(x.heads[x.head].V);
          }),
      },
      t(button),
    ),
    alt
      ? h(
          'dl',
          { class: 'lesson-facts' },
          h('dt', {}, rich(t, 'lesson.swap.weightsNow', { query: qk(s, tr) })),
          h('dd', {}, data(vec(r.weights[tr]), { id: `${id}-weights`, dataset: { value: JSON.stringify(r.weights[tr]) } })),
          h('dt', {}, t('lesson.swap.weightsAfter')),
          h('dd', {}, data(vec(alt.weights[tr]), { id: `${id}-weights-after` }), sp(), sameWeights ? t('lesson.swap.same') : ''),
          h('dt', {}, rich(t, 'lesson.swap.outputNow', { query: qk(s, tr) })),
          h('dd', {}, data(vec(r.output[tr]), { id: `${id}-output`, dataset: { value: JSON.stringify(r.output[tr]) } })),
          h('dt', {}, t('lesson.swap.outputAfter')),
          h('dd', {}, data(vec(alt.output[tr]), { id: `${id}-output-after`, dataset: { value: JSON.stringify(alt.output[tr]) } })),
        )
      : null,
    h('p', { class: 'note' }, t(note)),
  );
}
