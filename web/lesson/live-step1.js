// Step 1's live part (web/lesson/live.js): the key plane (web/lesson/plane.js), whose keys the
// student drags, the table of the selected row's scores and weights, and worked example 1's swap
// of the values. Owns the plane, kept across rebuilds of the panel while its step and key count stay.
import { t } from '../i18n/i18n.js';
import { h } from '../views/dom.js';
import { createPlane } from './plane.js';
import { rich } from './rich.js';
import { GRID_MAX, setupState } from './steps.js';
import { valueSwapBox } from './value-swap.js';
import { data, f, qk, tok, vec } from './lesson-text.js';

/**
 * @param {object} ctx the panel's context (web/lesson/live.js createLive)
 * @returns {{live: (s, r, ref) => Node[], table: (s, r, ref) => Node, plane: () => object|null,
 *   dropPlane: () => void}}
 */
export function createStep1(ctx) {
  const state = () => ctx.getState();
  const results = () => ctx.getResults();
  let plane = null;
  let planeKey = '';

  function moveKey(j, at, { final }) {
    ctx.update(
      (s) => {
        s.heads[s.head].K[j] = at;
      },
      { kind: final ? 'lesson-key' : 'lesson-drag', report: false },
    );
    if (final && plane) plane.announce(state(), results(), j);
  }

  function homeKey(j) {
    const start = setupState(1).heads[0].K[j];
    if (start) moveKey(j, [...start], { final: true });
  }

  function live(s, r, ref) {
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
    if (s.mode === 'qkv') parts.push(table(s, r, ref));
    if (s.mode === 'qkv' && hd.V?.length === 2) {
      // Worked example 1: swapping v1 and v2 moves the output, not the weights.
      parts.push(
        valueSwapBox(ctx, s, r, {
          id: 'lesson-s1-swap',
          title: 'lesson.s1.swapTitle',
          button: 'lesson.s1.swap',
          note: 'lesson.s1.swapNote',
          swap: (V) => [V[1], V[0]],
        }),
      );
    }
    return parts;
  }

  function table(s, r, ref) {
    const tr = s.row;
    return h(
      'div',
      { id: 'lesson-s1-readout' },
      h(
        'table',
        { id: 'lesson-s1-table', class: 'lesson-table' },
        h('caption', {}, rich(t, 'lesson.s1.tableCaption', { query: qk(s, tr) })),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            h('th', { scope: 'col' }, t('lesson.col.key')),
            h('th', { scope: 'col' }, 'kⱼ'),
            h('th', { scope: 'col' }, t('lesson.col.score')),
            h('th', { scope: 'col' }, t('lesson.col.weight')),
          ),
        ),
        h(
          'tbody',
          {},
          s.heads[s.head].K.map((k, j) =>
            h(
              'tr',
              {},
              h('th', { scope: 'row', translate: 'no' }, tok(s, j)),
              h('td', {}, data(vec(k))),
              h(
                'td',
                {},
                data(ref ? `${f(ref.scores[tr][j])} → ${f(r.scores[tr][j])}` : f(r.scores[tr][j]), {
                  id: `lesson-s1-score-${j}`,
                  dataset: { value: String(r.scores[tr][j]) },
                }),
              ),
              h(
                'td',
                {},
                data(ref ? `${f(ref.weights[tr][j])} → ${f(r.weights[tr][j])}` : f(r.weights[tr][j]), {
                  id: `lesson-s1-weight-${j}`,
                  dataset: { value: String(r.weights[tr][j]) },
                }),
              ),
            ),
          ),
        ),
      ),
    );
  }

  return {
    live,
    table,
    plane: () => plane,
    dropPlane: () => {
      plane = null;
    },
  };
}
