// The canvas heatmap: what renderHeatmap (views/heatmap.js) draws above CANVAS_CELLS cells.
import { h, mount } from './dom.js';
import { fmtCell } from './format.js';
import { t } from '../i18n/i18n.js';
import { axisStrip, elide } from './axes.js';
import { cellColours, renderLegend } from './legend.js';
import { legendKey, quote, refreshHead, setupGrid, viewHead } from './heatmap-setup.js';
import { activate, onGridKey } from './heatmap-keys.js';

/**
 * A heatmap of more than CANVAS_CELLS cells: the same options as renderHeatmap, drawn on a canvas
 * (a table of 16k cells is too slow to lay out and repaint) with token labels on both axes
 * (web/views/axes.js). Same behaviour: the pointer names the cell under it, a click selects its
 * row (or calls onCellClick); the canvas takes the focus as one tab stop and the arrow keys,
 * Home/End, Ctrl+Home/End and PageUp/PageDown move the active cell, moving into another row
 * selects it, Enter or Space does what a click does. The active cell's accessible name (query,
 * key, value) is written into a polite live readout; its value is in the readout's data-value.
 * Only values changed: the canvas is repainted in place.
 */
export function renderCanvasHeatmap(container, o) {
  const { lo, hi, nRows, n, r0, c0, digits, grid } = setupGrid(container, o);
  const px = Math.max(3, Math.min(12, Math.floor(720 / Math.max(nRows, n))));
  container.heatmapData = o;
  const key = JSON.stringify(['canvas', o.id, nRows, n, r0, c0, o.rowLabels, o.colLabels, t('a11y.cellName', {})]);
  let canvas = container.querySelector(`canvas#${CSS.escape(o.id)}`);
  if (!canvas || container.dataset.heatmapKey !== key) {
    const label = (tokens, index0) => (c) => ({ text: elide(tokens[c]), full: `${index0 + c} ${tokens[c] ?? ''}` });
    const keys = axisStrip({ orient: 'top', id: `${o.id}-keys`, cells: n, px, label: label(o.colLabels, c0) });
    const queries = axisStrip({ orient: 'left', id: `${o.id}-queries`, cells: nRows, px, label: label(o.rowLabels, r0) });
    canvas = h('canvas', {
      id: o.id,
      class: 'heatmap-canvas',
      tabindex: '0',
      role: 'img',
      'aria-roledescription': 'grid',
      'aria-label': o.label ?? o.title,
      'aria-describedby': `${o.id}-readout`,
      dataset: { rows: nRows, cols: n },
    });
    const ratio = Math.max(1, Math.min(2, globalThis.devicePixelRatio || 1));
    canvas.width = Math.round(n * px * ratio);
    canvas.height = Math.round(nRows * px * ratio);
    canvas.style.setProperty('width', `${n * px}px`);
    canvas.style.setProperty('height', `${nRows * px}px`);
    const mark = h('div', { class: 'detail-mark', hidden: true });
    const readout = h('p', { class: 'readout', id: `${o.id}-readout`, 'aria-live': 'polite' });
    const cellAt = (ev) => {
      const rect = canvas.getBoundingClientRect();
      return [
        Math.min(nRows - 1, Math.max(0, Math.floor(((ev.clientY - rect.top) / rect.height) * nRows))),
        Math.min(n - 1, Math.max(0, Math.floor(((ev.clientX - rect.left) / rect.width) * n))),
      ];
    };
    const show = (i, j) => {
      const d = container.heatmapData;
      const x = d.matrix[i]?.[j];
      const visible = d.visible[i]?.[j] && x !== null && x !== undefined;
      readout.textContent = t('a11y.cellName', {
        query: quote(d.rowLabels[i]),
        key: quote(d.colLabels[j]),
        value: visible ? fmtCell(x, Math.max(d.digits ?? 2, 2)) : t('a11y.masked'),
      });
      readout.dataset.value = visible ? String(x) : '';
      readout.dataset.row = String(i);
      readout.dataset.col = String(j);
      mark.hidden = false;
      mark.style.setProperty('top', `${i * px}px`);
      mark.style.setProperty('left', `${j * px}px`);
      mark.style.setProperty('width', `${px}px`);
      mark.style.setProperty('height', `${px}px`);
      queries.setCurrent(i);
      keys.setCurrent(j);
    };
    container.heatmapShow = show;
    canvas.addEventListener('mousemove', (ev) => {
      const [i, j] = cellAt(ev);
      show(i, j);
      canvas.title = readout.textContent;
    });
    canvas.addEventListener('click', (ev) => {
      const [i, j] = cellAt(ev);
      grid.i = i;
      grid.j = j;
      show(i, j);
      activate(container, i, j);
    });
    canvas.addEventListener('focus', () => {
      grid.focused = true;
      show(grid.i, grid.j);
    });
    canvas.addEventListener('blur', () => {
      grid.focused = false;
    });
    canvas.addEventListener('keydown', (ev) =>
      onGridKey(ev, grid, nRows, n, container, (i, j) => {
        grid.i = i;
        grid.j = j;
        show(i, j);
      }),
    );
    mount(
      container,
      viewHead(o),
      renderLegend(lo, hi, digits),
      h(
        'div',
        { class: 'scroll' },
        h(
          'div',
          { class: 'detail-axes heatmap-axes' },
          h('span', { class: 'axis-title key' }, `${t('views.axis.key')} →`),
          h('span', { class: 'axis-corner' }),
          keys.el,
          h('span', { class: 'axis-title query' }, `${t('views.axis.query')} →`),
          queries.el,
          h('div', { class: 'detail-frame' }, canvas, mark),
        ),
      ),
      readout,
    );
    container.dataset.heatmapKey = key;
    container.dataset.legendKey = legendKey(lo, hi, digits);
    if (grid.focused) canvas.focus();
  } else {
    refreshHead(container, o, lo, hi, digits);
  }
  paintCanvas(canvas, o, lo, hi, px);
  if (grid.focused) container.heatmapShow?.(grid.i, grid.j);
}

/** Paints the cells (hatched grey where not visible) and outlines the selected row. */
function paintCanvas(canvas, o, lo, hi, px) {
  const ctx = canvas.getContext('2d');
  const ratio = canvas.width / (o.colLabels.length * px);
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  for (let i = 0; i < o.matrix.length; i++) {
    const row = o.matrix[i];
    for (let j = 0; j < row.length; j++) {
      const x = row[j];
      ctx.fillStyle = !o.visible[i][j] || x === null ? '#dde2e8' : cellColours(x, lo, hi).bg;
      ctx.fillRect(j * px, i * px, px, px);
    }
  }
  if (o.selectedRow >= 0 && o.selectedRow < o.matrix.length) {
    ctx.strokeStyle = '#111';
    ctx.lineWidth = 1.5;
    ctx.strokeRect(0.75, o.selectedRow * px + 0.75, o.colLabels.length * px - 1.5, px - 1.5);
  }
}
