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
 * @param {(row: number, col: number) => void} [o.onCellClick]  when set, a click on a cell calls
 *   it (with indices within this table) instead of selecting the row
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
  const digits = o.digits ?? 2;
  const rowClass = (i) => [i === o.selectedRow ? 'selected' : '', o.emptyRows?.[i] ? 'empty' : ''].join(' ').trim();
  const rowHeader = (i) => [h('span', { class: 'idx' }, String(r0 + i)), ' ', showToken(o.rowLabels[i]),
    o.emptyRows?.[i] ? h('span', { class: 'badge' }, 'empty') : null];

  // Same shape and labels as what is on screen: repaint the cells in place. Rebuilding thousands
  // of cells (and re-laying out the table) on every slider step is what made 64 tokens sluggish.
  const key = JSON.stringify([o.id, o.matrix.length, n, r0, c0, o.showNumbers, o.rowLabels, o.colLabels]);
  const existing = container.querySelector(`table#${CSS.escape(o.id)}`);
  if (existing && container.dataset.heatmapKey === key) {
    container.querySelector('.legend').replaceWith(renderLegend(lo, hi, digits));
    container.querySelector('.view-head h3').textContent = o.title;
    const note = container.querySelector('.view-head .note');
    if (note) note.textContent = o.note ?? '';
    const rows = existing.tBodies[0].rows;
    o.matrix.forEach((row, i) => {
      const tr = rows[i];
      const cls = rowClass(i);
      if (tr.className !== cls) {
        tr.className = cls;
        tr.cells[0].replaceChildren(...rowHeader(i).filter(Boolean));
      }
      row.forEach((x, j) => paintCell(tr.cells[j + 1], x, o.visible[i][j], lo, hi, o.showNumbers, digits));
    });
    container.onSelectRow = o.onSelectRow;
    container.onCellClick = o.onCellClick ?? null;
    return;
  }

  const head = h('tr', {},
    h('th', { class: 'corner', scope: 'col' }, 'query \\ key'),
    o.colLabels.map((label, j) =>
      h('th', { scope: 'col', class: vertical ? 'col vertical' : 'col', title: `key ${c0 + j}: ${label}` },
        h('span', {}, showToken(label)))));
  const body = o.matrix.map((row, i) => h('tr', { class: rowClass(i) || null, dataset: { row: i } },
    h('th', { scope: 'row', class: 'rowlabel', title: `query ${r0 + i}: ${o.rowLabels[i]}` }, rowHeader(i)),
    row.map((x, j) => {
      const td = h('td', { id: `${o.id}-r${i}-c${j}` });
      paintCell(td, x, o.visible[i][j], lo, hi, o.showNumbers, digits);
      return td;
    })));
  const table = h('table', { class: `heatmap${o.showNumbers ? '' : ' compact'}`, id: o.id },
    h('thead', {}, head), h('tbody', {}, body));
  container.onSelectRow = o.onSelectRow;
  container.onCellClick = o.onCellClick ?? null;
  // Tooltips are written when the pointer reaches a cell, not for every cell on every repaint.
  table.addEventListener('mouseover', (ev) => {
    const td = ev.target.closest('td');
    if (!td) return;
    const i = td.parentElement.sectionRowIndex;
    const j = td.cellIndex - 1;
    const value = td.dataset.value;
    td.title = `query ${r0 + i} "${o.rowLabels[i]}", key ${c0 + j} "${o.colLabels[j]}": ${value === '' ? 'not visible (masked)' : value}`;
  });
  table.addEventListener('click', (ev) => {
    const td = ev.target.closest('td');
    if (td && container.onCellClick) {
      container.onCellClick(td.parentElement.sectionRowIndex, td.cellIndex - 1);
      return;
    }
    const tr = ev.target.closest('tr[data-row]');
    if (tr && container.onSelectRow) container.onSelectRow(Number(tr.dataset.row));
  });
  mount(container,
    h('div', { class: 'view-head' },
      h('h3', {}, o.title),
      h('p', { class: 'note' }, o.note ?? '')),
    renderLegend(lo, hi, digits),
    h('div', { class: 'scroll' }, table));
  container.dataset.heatmapKey = key;
}

/** Writes one cell: its colour, number and data-value; × and hatching when not visible. */
function paintCell(td, x, visible, lo, hi, showNumbers, digits) {
  if (!visible || x === null) {
    td.className = 'masked';
    td.dataset.value = '';
    td.style.removeProperty('background-color');
    td.style.removeProperty('color');
    td.textContent = showNumbers ? '×' : '';
    return;
  }
  const { bg, fg } = cellColours(x, lo, hi);
  td.className = '';
  td.dataset.value = String(x);
  td.style.setProperty('background-color', bg);
  td.style.setProperty('color', fg);
  td.textContent = showNumbers ? fmtCell(x, digits) : '';
}

/** A horizontal colour bar with its end values and the masked-cell key. */
export function renderLegend(lo, hi, digits = 2, maskedText = null) {
  const stops = [];
  for (let i = 0; i <= 10; i++) stops.push(`${interpolateCividis(i / 10)} ${i * 10}%`);
  return h('div', { class: 'legend', 'aria-label': `colour scale from ${lo} to ${hi}` },
    h('span', { class: 'legend-num' }, fmtCell(lo, digits)),
    h('span', { class: 'legend-bar', style: { 'background-image': `linear-gradient(to right, ${stops.join(', ')})` } }),
    h('span', { class: 'legend-num' }, fmtCell(hi, digits)),
    maskedText
      ? h('span', { class: 'legend-masked' }, h('span', { class: 'swatch grey' }), ` ${maskedText}`)
      : h('span', { class: 'legend-masked' }, h('span', { class: 'swatch masked' }, '×'), ' not visible (masked)'));
}
