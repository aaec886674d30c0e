// The inspected head's heatmap in the import view (web/import/detail.js): a canvas of the core's
// thumbnail at up to DETAIL_SIDE cells a side with token labels on both axes (the first index of
// each pooled cell when pooled). Hover names the query, key and weight in the readout; a click,
// Enter or Space locks it, Esc unlocks it (ui.unlockReadout); the arrow keys move the cell.
import { h, mount } from '../views/dom.js';
import { fmtMetric, showToken, tData } from '../views/format.js';
import { t } from '../i18n/i18n.js';
import { paintGrid } from '../views/overview.js';
import { LABEL_PX, axisStrip, elide } from '../views/axes.js';
import { tnData, tokenOf } from './text.js';

/**
 * The heatmap of head `d` (the worker's 'rows' answer) of source `s`, named `name`.
 * @returns {{frame: HTMLElement, readout: HTMLElement, hi: number, saturates: boolean, pooled: boolean}}
 *   the axes with the canvas, the readout under them, and the colour scale's top
 */
export function detailCanvas(ui, s, d, name) {
  const { nQ, nK } = s.layout;
  const pooled = d.thumbRows !== nQ || d.thumbCols !== nK;
  const canvas = h('canvas', {
    width: d.thumbCols,
    height: d.thumbRows,
    id: 'detail-canvas',
    class: 'detail-canvas',
    tabindex: 0,
    role: 'img',
    'aria-label': t(pooled ? 'import.detail.canvasAriaPooled' : 'import.detail.canvasAria', { name, nQ, nK }),
  });
  const { hi, saturates } = paintGrid(canvas, d.thumbnail, d.thumbRows, d.thumbCols);
  // 360 px a side, more (up to 600) so that every token gets its label up to 50 tokens.
  const side = Math.min(600, Math.max(360, Math.max(d.thumbRows, d.thumbCols) * LABEL_PX));
  const scale = side / Math.max(d.thumbRows, d.thumbCols);
  canvas.style.setProperty('width', `${Math.round(d.thumbCols * scale)}px`);
  canvas.style.setProperty('height', `${Math.round(d.thumbRows * scale)}px`);
  const range = (c, cells, n) => {
    const a = Math.floor((c * n) / cells);
    const b = Math.floor(((c + 1) * n) / cells) - 1;
    return [a, Math.max(a, b)];
  };
  // Token labels on both axes: tokens at full resolution, the first index of each pooled cell.
  const axisLabel = (tokens, cells, n) => (c) => {
    if (pooled) {
      const [a, b] = range(c, cells, n);
      return { text: String(a), full: a === b ? String(a) : `${a}–${b}` };
    }
    const tok = tokenOf(tokens, c);
    return { text: elide(tok), full: `${c} ${tok}` };
  };
  const keyAxis = axisStrip({
    orient: 'top',
    id: 'detail-keys',
    cells: d.thumbCols,
    px: scale,
    label: axisLabel(s.keyTokens, d.thumbCols, nK),
  });
  const queryAxis = axisStrip({
    orient: 'left',
    id: 'detail-queries',
    cells: d.thumbRows,
    px: scale,
    label: axisLabel(s.queryTokens, d.thumbRows, nQ),
  });
  const mark = h('div', { class: 'detail-mark', hidden: true });
  const readout = h('p', { id: 'detail-readout', class: 'readout', 'aria-live': 'polite' }, tnData('import.detail.readoutHelp'));
  const cellAt = (ev) => {
    const rect = canvas.getBoundingClientRect();
    const i = Math.min(d.thumbRows - 1, Math.max(0, Math.floor(((ev.clientY - rect.top) / rect.height) * d.thumbRows)));
    const j = Math.min(d.thumbCols - 1, Math.max(0, Math.floor(((ev.clientX - rect.left) / rect.width) * d.thumbCols)));
    return [i, j];
  };
  let cursor = [0, 0];
  const show = ([i, j], locked) => {
    cursor = [i, j];
    const w = d.thumbnail[i * d.thumbCols + j];
    const value = Number.isNaN(w) ? t('import.detail.notVisible') : fmtMetric(w, 4);
    let text;
    if (!pooled) {
      text = tData(
        'import.detail.readout',
        { i, qt: showToken(tokenOf(s.queryTokens, i)), j, kt: showToken(tokenOf(s.keyTokens, j)), value },
        ['qt', 'kt'],
      );
    } else {
      const [q0, q1] = range(i, d.thumbRows, nQ);
      const [k0, k1] = range(j, d.thumbCols, nK);
      text = t('import.detail.readoutPooled', { q0, q1, k0, k1, value });
    }
    mount(readout, locked ? t('import.detail.locked') : null, text);
    mark.hidden = false;
    mark.style.setProperty('top', `${i * scale}px`);
    mark.style.setProperty('left', `${j * scale}px`);
    mark.style.setProperty('width', `${scale}px`);
    mark.style.setProperty('height', `${scale}px`);
    mark.classList.toggle('locked', Boolean(locked));
    queryAxis.setCurrent(i);
    keyAxis.setCurrent(j);
  };
  ui.unlockReadout = () => show(cursor, false);
  const toggleLock = (c) => {
    if (ui.locked) {
      ui.locked = null;
      show(c, false);
    } else {
      ui.locked = c;
      show(c, true);
    }
  };
  canvas.addEventListener('mousemove', (ev) => {
    if (!ui.locked) show(cellAt(ev), false);
  });
  canvas.addEventListener('mouseleave', () => {
    if (!ui.locked) {
      mark.hidden = true;
      queryAxis.setCurrent(null);
      keyAxis.setCurrent(null);
    }
  });
  canvas.addEventListener('click', (ev) => toggleLock(cellAt(ev)));
  canvas.addEventListener('keydown', (ev) => {
    const step = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] }[ev.key];
    if (step && !ui.locked) {
      ev.preventDefault();
      show(
        [Math.min(d.thumbRows - 1, Math.max(0, cursor[0] + step[0])), Math.min(d.thumbCols - 1, Math.max(0, cursor[1] + step[1]))],
        false,
      );
    } else if (ev.key === 'Enter' || ev.key === ' ') {
      ev.preventDefault();
      toggleLock(cursor);
    }
  });
  canvas.addEventListener('focus', () => {
    if (!ui.locked) show(cursor, false);
  });
  const frame = h(
    'div',
    { class: 'detail-axes' },
    h('span', { class: 'axis-title key' }, `${t('views.axis.key')} →`),
    h('span', { class: 'axis-corner' }),
    keyAxis.el,
    h('span', { class: 'axis-title query' }, `${t('views.axis.query')} →`),
    queryAxis.el,
    h('div', { class: 'detail-frame' }, canvas, mark),
  );
  return { frame, readout, hi, saturates, pooled };
}
