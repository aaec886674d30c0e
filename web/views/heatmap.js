// Heatmap of a score or weight matrix: an HTML table, one cell per (query, key), coloured on a
// colour-blind-safe scale (cividis) with the number written in the cell, so colour is never the
// only encoding. A function of its inputs: no maths beyond mapping a value to a colour.
import { interpolateCividis } from '../vendor/vendor.js';
import { h, mount } from './dom.js';
import { fmtCell, showToken } from './format.js';

/** Colour of value x on [lo, hi] and a readable text colour for it. */
export function cellColours(x, lo, hi) {
  const t = hi > lo ? Math.min(1, Math.max(0, (x - lo) / (hi - lo))) : 0.5;
  const bg = interpolateCividis(t);
  const [r, g, b] = bg.match(/\d+/g).map(Number);
  const luminance = (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
  return { bg, fg: luminance > 0.55 ? '#111' : '#fff' };
}

/**
 * @param {HTMLElement} container
 * @param {object} o
 * @param {string} o.id              stable id prefix (tests select cells by `${id}-r${i}-c${j}`)
 * @param {string} o.title
 * @param {(number|null)[][]} o.matrix   n_q x n_k, null = not visible
 * @param {boolean[][]} o.visible
 * @param {string[]} o.rowLabels
 * @param {string[]} o.colLabels
 * @param {[number, number]} o.domain    colour domain
 * @param {number} o.selectedRow
 * @param {boolean[]} [o.emptyRows]
 * @param {boolean} o.showNumbers
 * @param {number} [o.digits]
 * @param {(row: number) => void} [o.onSelectRow]
 * @param {string} [o.note]              a line under the title (e.g. what the numbers are)
 * @param {number} [o.rowIndex]          index of the first row in the full matrix (zoomed tiles)
 * @param {number} [o.colIndex]          index of the first column in the full matrix
 */
export function renderHeatmap(container, o) {
  const [lo, hi] = o.domain;
  const n = o.colLabels.length;
  const vertical = n > 6;
  const r0 = o.rowIndex ?? 0;
  const c0 = o.colIndex ?? 0;
  const head = h('tr', {},
    h('th', { class: 'corner', scope: 'col' }, 'query \\ key'),
    o.colLabels.map((label, j) =>
      h('th', { scope: 'col', class: vertical ? 'col vertical' : 'col', title: `key ${c0 + j}: ${label}` },
        h('span', {}, showToken(label)))));
  const body = o.matrix.map((row, i) => {
    const empty = o.emptyRows?.[i];
    return h('tr', {
      class: [i === o.selectedRow ? 'selected' : '', empty ? 'empty' : ''].join(' ').trim() || null,
      dataset: { row: i },
    },
    h('th', { scope: 'row', class: 'rowlabel', title: `query ${r0 + i}: ${o.rowLabels[i]}` },
      h('span', { class: 'idx' }, String(r0 + i)), ' ', showToken(o.rowLabels[i]),
      empty ? h('span', { class: 'badge' }, 'empty') : null),
    row.map((x, j) => {
      const id = `${o.id}-r${i}-c${j}`;
      const label = `query ${r0 + i} "${o.rowLabels[i]}", key ${c0 + j} "${o.colLabels[j]}": `;
      if (!o.visible[i][j] || x === null) {
        return h('td', { id, class: 'masked', title: `${label}not visible (masked)`, dataset: { value: '' } },
          o.showNumbers ? '×' : '');
      }
      const { bg, fg } = cellColours(x, lo, hi);
      return h('td', {
        id, title: label + String(x), dataset: { value: String(x) },
        style: { 'background-color': bg, color: fg },
      }, o.showNumbers ? fmtCell(x, o.digits ?? 2) : '');
    }));
  });
  const table = h('table', { class: `heatmap${o.showNumbers ? '' : ' compact'}`, id: o.id },
    h('thead', {}, head), h('tbody', {}, body));
  if (o.onSelectRow) {
    table.addEventListener('click', (ev) => {
      const tr = ev.target.closest('tr[data-row]');
      if (tr) o.onSelectRow(Number(tr.dataset.row));
    });
  }
  mount(container,
    h('div', { class: 'view-head' },
      h('h3', {}, o.title),
      o.note ? h('p', { class: 'note' }, o.note) : null),
    renderLegend(lo, hi, o.digits ?? 2),
    h('div', { class: 'scroll' }, table));
}

/** A horizontal colour bar with its end values and the masked-cell key. */
export function renderLegend(lo, hi, digits = 2) {
  const stops = [];
  for (let i = 0; i <= 10; i++) stops.push(`${interpolateCividis(i / 10)} ${i * 10}%`);
  return h('div', { class: 'legend', 'aria-label': `colour scale from ${lo} to ${hi}` },
    h('span', { class: 'legend-num' }, fmtCell(lo, digits)),
    h('span', { class: 'legend-bar', style: { 'background-image': `linear-gradient(to right, ${stops.join(', ')})` } }),
    h('span', { class: 'legend-num' }, fmtCell(hi, digits)),
    h('span', { class: 'legend-masked' }, h('span', { class: 'swatch masked' }, '×'), ' not visible (masked)'));
}
