// What the table heatmap (views/heatmap.js) and the canvas heatmap (views/heatmap-canvas.js) share:
// the grid's state kept on its container (the active cell, focus, the last selected row), the
// callbacks, the sizes read from the options, the heading with its legend and how it is brought up
// to date in place, and how a token is quoted in the cells' names.
import { h } from './dom.js';
import { showToken } from './format.js';
import { getPalette } from './palette.js';
import { renderLegend } from './legend.js';

export const quote = (token) => `'${showToken(token ?? '')}'`;

/**
 * Reads renderHeatmap's options and puts the grid's state on `container` (container.heatmapGrid,
 * kept across repaints; onSelectRow, onCellClick), the active cell clamped to the matrix.
 * @returns {{lo: number, hi: number, nRows: number, n: number, r0: number, c0: number, digits: number, grid: object}}
 */
export function setupGrid(container, o) {
  const [lo, hi] = o.domain;
  const nRows = o.matrix.length;
  const n = o.colLabels.length;
  const grid = (container.heatmapGrid ??= { i: Math.max(0, o.selectedRow), j: 0, focused: false, lastRow: null });
  container.onSelectRow = o.onSelectRow;
  container.onCellClick = o.onCellClick ?? null;
  // The active cell follows a row chosen elsewhere (the row select) while the grid has no focus.
  if (!grid.focused && o.selectedRow >= 0 && o.selectedRow < nRows) grid.i = o.selectedRow;
  grid.i = Math.min(Math.max(0, grid.i), Math.max(0, nRows - 1));
  grid.j = Math.min(Math.max(0, grid.j), Math.max(0, n - 1));
  return { lo, hi, nRows, n, r0: o.rowIndex ?? 0, c0: o.colIndex ?? 0, digits: o.digits ?? 2, grid };
}

/** What the legend shows: its colours and numbers depend on these. */
export const legendKey = (lo, hi, digits) => `${lo} ${hi} ${digits} ${getPalette()}`;

/** The title and the note under it. */
export function viewHead(o) {
  return h('div', { class: 'view-head' }, h('h3', {}, o.title), h('p', { class: 'note' }, o.note ?? ''));
}

/** Brings the heading and the legend of a heatmap drawn before up to date (a repaint in place). */
export function refreshHead(container, o, lo, hi, digits) {
  const key = legendKey(lo, hi, digits);
  if (container.dataset.legendKey !== key) {
    container.querySelector('.legend').replaceWith(renderLegend(lo, hi, digits));
    container.dataset.legendKey = key;
  }
  setText(container.querySelector('.view-head h3'), o.title);
  const note = container.querySelector('.view-head .note');
  if (note) setText(note, o.note ?? '');
}

/** Sets an element's text when it differs (an equal write still replaces its text node). */
export function setText(el, text) {
  if (el && el.textContent !== text) el.textContent = text;
}
