// Heatmap of a score or weight matrix: an HTML table, one cell per (query, key), coloured on the
// page's colour-blind-safe palette (views/palette.js) with the number written in the cell, so
// colour is never the only encoding. A function of its inputs: no maths beyond mapping a value to
// a colour and ranking a row's weights for its text summary.
//
// Accessibility (docs/accessibility.md): the table is an ARIA grid with one tab stop (roving
// tabindex). Arrow keys move the active cell, Home/End go to the start/end of the row,
// Ctrl+Home/End to the first/last cell, PageUp/PageDown five rows; moving into another row selects
// that query row (onSelectRow). Enter or Space on a cell does what a click does (toggles the cell
// in mask-edit mode, otherwise selects the row). Every cell's accessible name gives its query
// token, key token and value (or "masked"). With rowMetrics, each row has a text summary (entropy,
// N_eff, the largest weights, masked keys) in a collapsible list, and the selected row's summary
// is announced in a polite live region when the selected row changes.
//
// The parts: the keys (views/heatmap-keys.js), the summaries and the live region
// (views/heatmap-summaries.js), the legend (views/legend.js), the canvas drawn above CANVAS_CELLS
// cells (views/heatmap-canvas.js) and what the table and the canvas share (views/heatmap-setup.js).
import { h, mount } from './dom.js';
import { fmtCell, showToken } from './format.js';
import { paletteColour, textColourOn } from './palette.js';
import { t, template } from '../i18n/i18n.js';
import { renderLegend } from './legend.js';
import { announce, fillSummaries, rowSummary } from './heatmap-summaries.js';
import { legendKey, quote, refreshHead, setupGrid, viewHead } from './heatmap-setup.js';
import { onGridKey } from './heatmap-keys.js';
import { renderCanvasHeatmap } from './heatmap-canvas.js';

/** Above this many cells (64 x 64) a heatmap is drawn on a canvas instead of a table of cells. */
export const CANVAS_CELLS = 64 * 64;

/**
 * @param {HTMLElement} container
 * @param {object} o
 * @param {string} o.id              stable id prefix (tests select cells by `${id}-r${i}-c${j}`)
 * @param {string} o.title
 * @param {string} [o.label]         accessible name of the grid (default: the title)
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
 * @param {(row: number, col: number) => void} [o.onCellClick]  when set, a click on a cell (or
 *   Enter/Space on the active cell) calls it (with indices within this table) instead of
 *   selecting the row
 * @param {string} [o.note]              a line under the title (e.g. what the numbers are)
 * @param {number} [o.rowIndex]          index of the first row in the full matrix (zoomed tiles)
 * @param {number} [o.colIndex]          index of the first column in the full matrix
 * @param {object[]} [o.rowMetrics]      per-row metrics ({entropy, nEff, empty}): adds the rows'
 *   text summaries (weights heatmaps)
 * @param {boolean} [o.announce]         announce the selected row's summary when it changes
 */
export function renderHeatmap(container, o) {
  if (o.matrix.length * o.colLabels.length > CANVAS_CELLS) {
    renderCanvasHeatmap(container, o);
    return;
  }
  const { lo, hi, nRows, n, r0, c0, digits, grid } = setupGrid(container, o);
  const vertical = n > 6;
  const rowClass = (i) => [i === o.selectedRow ? 'selected' : '', o.emptyRows?.[i] ? 'empty' : ''].join(' ').trim();
  const rowHeader = (i) => [
    h('span', { class: 'idx' }, String(r0 + i)),
    ' ',
    h('span', { translate: 'no' }, showToken(o.rowLabels[i])),
    o.emptyRows?.[i] ? h('span', { class: 'badge' }, t('a11y.emptyBadge')) : null,
  ];
  // A cell's accessible name from its value as written ("0.42", or "masked").
  const maskedWord = t('a11y.masked');
  // (The labels are quoted once and the string compiled once: a 33 x 33 head repaints 1,089 names.)
  const cellName = template('a11y.cellName', ['query', 'key', 'value']);
  const quotedRows = o.rowLabels.map(quote);
  const quotedCols = o.colLabels.map(quote);
  const nameOf = (i, j) => (value) => cellName({ query: quotedRows[i], key: quotedCols[j], value });
  // The rows' text summaries are made when they are read: the selected one when it is announced,
  // the list when it is open (a closed list is filled when it opens), not on every repaint.
  const summaryOf = o.rowMetrics
    ? (i) =>
        rowSummary({
          index: r0 + i,
          token: o.rowLabels[i],
          weights: o.matrix[i],
          visible: o.visible[i],
          keys: o.colLabels,
          metrics: o.rowMetrics[i],
        })
    : null;
  container.heatmapSummaries = summaryOf ? { of: summaryOf, rows: nRows, selectedRow: o.selectedRow } : null;
  if (o.announce && summaryOf && grid.lastRow !== null && grid.lastRow !== o.selectedRow && o.selectedRow >= 0 && o.selectedRow < nRows) {
    announce(summaryOf(o.selectedRow));
  }
  grid.lastRow = o.selectedRow;

  // Same shape, labels and language as what is on screen: repaint the cells in place. Rebuilding
  // thousands of cells (and re-laying out the table) on every slider step is what made 64 tokens
  // sluggish.
  const key = JSON.stringify([o.id, nRows, n, r0, c0, o.showNumbers, o.rowLabels, o.colLabels, t('a11y.cellName', {})]);
  const existing = container.querySelector(`table#${CSS.escape(o.id)}`);
  if (existing && container.dataset.heatmapKey === key && existing.cellMemo) {
    refreshHead(container, o, lo, hi, digits);
    if (existing.getAttribute('aria-label') !== (o.label ?? o.title)) existing.setAttribute('aria-label', o.label ?? o.title);
    const rows = existing.tBodies[0].rows;
    const memo = existing.cellMemo;
    // The colours, numbers and names of every cell depend on the domain and the palette too.
    const scale = legendKey(lo, hi, digits);
    const rescaled = memo.scale !== scale;
    memo.scale = scale;
    for (let i = 0; i < nRows; i++) {
      const row = o.matrix[i];
      const vis = o.visible[i];
      const tr = rows[i];
      const cls = rowClass(i);
      if (tr.className !== cls) {
        tr.className = cls;
        tr.setAttribute('aria-selected', String(i === o.selectedRow));
        tr.cells[0].replaceChildren(...rowHeader(i).filter(Boolean));
      }
      for (let j = 0; j < n; j++) {
        const m = memo.cells[i * n + j];
        const x = row[j];
        // An unchanged value on an unchanged scale: nothing to write, nothing to compute.
        if (!rescaled && m.x === x && m.visible === vis[j]) continue;
        paintCell(tr.cells[j + 1], m, nameOf(i, j), maskedWord, x, vis[j], lo, hi, o.showNumbers, digits);
      }
    }
    const list = container.querySelector('.row-summaries');
    if (summaryOf && list?.open) fillSummaries(list.querySelector('ul'), container.heatmapSummaries);
    return;
  }

  const hadFocus =
    grid.focused && (!document.activeElement || document.activeElement === document.body || !!existing?.contains(document.activeElement));
  const head = h(
    'tr',
    { role: 'row' },
    h('th', { class: 'corner', scope: 'col', role: 'columnheader' }, t('a11y.corner')),
    o.colLabels.map((label, j) =>
      h(
        'th',
        {
          scope: 'col',
          role: 'columnheader',
          class: vertical ? 'col vertical' : 'col',
          title: t('a11y.keyTitle', { index: c0 + j, token: label }),
          translate: 'no',
        },
        h('span', {}, showToken(label)),
      ),
    ),
  );
  const memo = { scale: legendKey(lo, hi, digits), cells: new Array(nRows * n) };
  const body = o.matrix.map((row, i) =>
    h(
      'tr',
      { class: rowClass(i) || null, role: 'row', 'aria-selected': String(i === o.selectedRow), dataset: { row: i } },
      h(
        'th',
        { scope: 'row', role: 'rowheader', class: 'rowlabel', title: t('a11y.queryTitle', { index: r0 + i, token: o.rowLabels[i] }) },
        rowHeader(i),
      ),
      row.map((x, j) => {
        const td = h('td', { id: `${o.id}-r${i}-c${j}`, role: 'gridcell', tabindex: i === grid.i && j === grid.j ? '0' : '-1' });
        const m = (memo.cells[i * n + j] = newMemo());
        paintCell(td, m, nameOf(i, j), maskedWord, x, o.visible[i][j], lo, hi, o.showNumbers, digits);
        return td;
      }),
    ),
  );
  const table = h(
    'table',
    {
      class: `heatmap${o.showNumbers ? '' : ' compact'}`,
      id: o.id,
      role: 'grid',
      'aria-label': o.label ?? o.title,
      'aria-rowcount': String(nRows + 1),
      'aria-colcount': String(n + 1),
      'aria-describedby': summaryOf ? `${o.id}-keys-help` : null,
    },
    h('thead', {}, head),
    h('tbody', {}, body),
  );
  table.cellMemo = memo;
  // Tooltips are written when the pointer reaches a cell, not for every cell on every repaint.
  table.addEventListener('mouseover', (ev) => {
    const td = ev.target.closest('td');
    if (td) td.title = td.getAttribute('aria-label') ?? '';
  });
  table.addEventListener('click', (ev) => {
    const td = ev.target.closest('td');
    if (td) setActive(table, grid, td.parentElement.sectionRowIndex, td.cellIndex - 1, false);
    if (td && container.onCellClick) {
      container.onCellClick(td.parentElement.sectionRowIndex, td.cellIndex - 1);
      return;
    }
    const tr = ev.target.closest('tr[data-row]');
    if (tr && container.onSelectRow) container.onSelectRow(Number(tr.dataset.row));
  });
  table.addEventListener('focusin', (ev) => {
    grid.focused = true;
    // Focus that lands on another cell (a click, a script) makes that cell the active one.
    const td = ev.target.closest?.('td');
    if (td && td !== activeCell(table, grid)) setActive(table, grid, td.parentElement.sectionRowIndex, td.cellIndex - 1, false);
  });
  table.addEventListener('focusout', (ev) => {
    if (ev.relatedTarget && !table.contains(ev.relatedTarget)) grid.focused = false;
  });
  table.addEventListener('keydown', (ev) => {
    if (ev.target.closest?.('td'))
      onGridKey(ev, grid, table.tBodies[0].rows.length, n, container, (i, j) => setActive(table, grid, i, j, true));
  });
  const parts = [viewHead(o), renderLegend(lo, hi, digits), h('div', { class: 'scroll' }, table)];
  if (summaryOf) {
    const list = h('ul', { class: 'row-summaries-list' });
    const fill = () => fillSummaries(list, container.heatmapSummaries);
    parts.push(h('p', { class: 'visually-hidden', id: `${o.id}-keys-help` }, t(o.onCellClick ? 'a11y.gridHelpMask' : 'a11y.gridHelp')));
    // Filled as it opens: a click (or Enter) on the summary fills the list before it shows, the
    // toggle event covers an opening by script.
    const details = h(
      'details',
      { class: 'row-summaries', id: `${o.id}-summaries`, ontoggle: () => details.open && fill() },
      h('summary', { onclick: () => !details.open && fill() }, t('a11y.summariesTitle')),
      list,
    );
    parts.push(details);
  }
  const open = container.querySelector('.row-summaries')?.open;
  mount(container, ...parts);
  if (open) {
    container.querySelector('.row-summaries').open = true;
    fillSummaries(container.querySelector('.row-summaries ul'), container.heatmapSummaries);
  }
  container.dataset.heatmapKey = key;
  container.dataset.legendKey = legendKey(lo, hi, digits);
  // A rebuild (new labels, numbers switched on) must not drop the keyboard user's place.
  if (hadFocus) activeCell(table, grid)?.focus();
}

function activeCell(table, grid) {
  return table.tBodies[0].rows[grid.i]?.cells[grid.j + 1] ?? null;
}

/** Moves the roving tab stop to cell (i, j); focuses it when `focus`. */
function setActive(table, grid, i, j, focus) {
  const old = activeCell(table, grid);
  grid.i = i;
  grid.j = j;
  const cell = activeCell(table, grid);
  if (old && old !== cell) old.tabIndex = -1;
  if (cell) {
    cell.tabIndex = 0;
    if (focus) cell.focus();
  }
}

/** What a cell of a table heatmap shows, as last written (paintCell compares with it). */
function newMemo() {
  return { x: undefined, visible: undefined, label: null, cls: null, value: null, text: null, bg: null };
}

const fgOf = new Map(); // background colour -> black or white text on it

/**
 * Writes one cell: its colour, number, data-value and accessible name; × and hatching when not
 * visible. Only what changed is written, compared with the cell's memo `m` (not read back from the
 * DOM): an unchanged cell costs no DOM mutation, no style recalculation and no relayout.
 * nameOf(value) is the cell's accessible name for its value as written.
 */
function paintCell(td, m, nameOf, maskedWord, x, visible, lo, hi, showNumbers, digits) {
  m.x = x;
  m.visible = visible;
  const masked = !visible || x === null;
  const label = masked ? maskedWord : fmtCell(x, Math.max(digits, 2));
  if (m.label !== label) {
    m.label = label;
    td.setAttribute('aria-label', nameOf(label));
  }
  const cls = masked ? 'masked' : '';
  if (m.cls !== cls) {
    m.cls = cls;
    td.className = cls;
  }
  const value = masked ? '' : String(x);
  if (m.value !== value) {
    m.value = value;
    td.setAttribute('data-value', value);
  }
  const text = masked ? (showNumbers ? '×' : '') : showNumbers ? (digits === Math.max(digits, 2) ? label : fmtCell(x, digits)) : '';
  if (m.text !== text) {
    m.text = text;
    td.textContent = text;
  }
  const bg = masked ? null : paletteColour(hi > lo ? Math.min(1, Math.max(0, (x - lo) / (hi - lo))) : 0.5);
  if (m.bg !== bg) {
    m.bg = bg;
    if (bg === null) {
      td.style.removeProperty('background-color');
      td.style.removeProperty('color');
    } else {
      let fg = fgOf.get(bg);
      if (!fg) fgOf.set(bg, (fg = textColourOn(bg)));
      td.style.setProperty('background-color', bg);
      td.style.setProperty('color', fg);
    }
  }
}
