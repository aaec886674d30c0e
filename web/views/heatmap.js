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
import { h, mount } from './dom.js';
import { fmtCell, showToken } from './format.js';
import { getPalette, paletteColour, paletteGradient, textColourOn } from './palette.js';
import { t, template } from '../i18n/i18n.js';
import { axisStrip, elide } from './axes.js';

/** Colour of value x on [lo, hi] in the current palette, and black or white text for it. */
export function cellColours(x, lo, hi) {
  const u = hi > lo ? Math.min(1, Math.max(0, (x - lo) / (hi - lo))) : 0.5;
  const bg = paletteColour(u);
  return { bg, fg: textColourOn(bg) };
}

const PAGE_ROWS = 5; // PageUp / PageDown move this many rows
/** Above this many cells (64 x 64) a heatmap is drawn on a canvas instead of a table of cells. */
export const CANVAS_CELLS = 64 * 64;

/** A number as the summaries write it: 3 significant digits, identical in every language. */
function num3(x) {
  if (x === null || x === undefined || !Number.isFinite(x)) return '—';
  return String(Number(x.toPrecision(3)));
}

const quote = (token) => `'${showToken(token ?? '')}'`;

/**
 * The text summary of one row of weights, e.g. "Row 2 (query 'sat'): entropy 0.93 nats, N_eff 2.5,
 * the largest weights on 'cat' 0.51, 'sat' 0.3; 1 key masked."
 * @param {object} o
 * @param {number} o.index           the row's index in the full matrix
 * @param {string} o.token           its query token
 * @param {(number|null)[]} o.weights the row (null = not visible)
 * @param {boolean[]} o.visible
 * @param {string[]} o.keys          key tokens
 * @param {{entropy: number|null, nEff: number|null, empty?: boolean}} [o.metrics]
 * @param {number} [o.top]           how many of the largest weights to name (3)
 */
export function rowSummary(o) {
  const masked = o.visible.filter((v) => !v).length;
  const maskedText = masked ? t('a11y.summaryMasked', { n: masked }) : '';
  const head = t('a11y.summaryHead', { row: o.index, token: quote(o.token) });
  const live = o.weights.map((w, j) => [w, j]).filter(([w, j]) => o.visible[j] && w !== null && Number.isFinite(w));
  if (o.metrics?.empty || !live.length) return t('a11y.summaryEmpty', { head, masked: maskedText });
  const top = live
    .filter(([w]) => w > 0)
    .sort((a, b) => b[0] - a[0] || a[1] - b[1])
    .slice(0, o.top ?? 3)
    .map(([w, j]) => t('a11y.summaryWeight', { token: quote(o.keys[j]), w: num3(w) }));
  return t('a11y.summary', {
    head,
    entropy: num3(o.metrics?.entropy),
    neff: num3(o.metrics?.nEff),
    top: top.join(t('a11y.listSep')),
    masked: maskedText,
  });
}

// One polite live region for the page: a heatmap with `announce` writes the selected row's
// summary into it when the selected row changes. It exists from the start so that the first
// change is announced too.
function liveRegion() {
  let el = document.getElementById('a11y-live');
  if (!el) {
    el = h('p', { id: 'a11y-live', class: 'visually-hidden', 'aria-live': 'polite', 'aria-atomic': 'true' });
    document.body.append(el);
  }
  return el;
}
if (typeof document !== 'undefined' && document.body) liveRegion();

/** Writes `text` into the page's live region (screen readers read it when they are idle). */
export function announce(text) {
  liveRegion().textContent = text;
}

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
  const [lo, hi] = o.domain;
  const n = o.colLabels.length;
  const nRows = o.matrix.length;
  const vertical = n > 6;
  const r0 = o.rowIndex ?? 0;
  const c0 = o.colIndex ?? 0;
  const digits = o.digits ?? 2;
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
  const grid = (container.heatmapGrid ??= { i: Math.max(0, o.selectedRow), j: 0, focused: false, lastRow: null });
  container.onSelectRow = o.onSelectRow;
  container.onCellClick = o.onCellClick ?? null;
  // The active cell follows a row chosen elsewhere (the row select) while the grid has no focus.
  if (!grid.focused && o.selectedRow >= 0 && o.selectedRow < nRows) grid.i = o.selectedRow;
  grid.i = Math.min(Math.max(0, grid.i), Math.max(0, nRows - 1));
  grid.j = Math.min(Math.max(0, grid.j), Math.max(0, n - 1));
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
    const legendKey = `${lo} ${hi} ${digits} ${getPalette()}`;
    if (container.dataset.legendKey !== legendKey) {
      container.querySelector('.legend').replaceWith(renderLegend(lo, hi, digits));
      container.dataset.legendKey = legendKey;
    }
    setText(container.querySelector('.view-head h3'), o.title);
    if (existing.getAttribute('aria-label') !== (o.label ?? o.title)) existing.setAttribute('aria-label', o.label ?? o.title);
    const note = container.querySelector('.view-head .note');
    if (note) setText(note, o.note ?? '');
    const rows = existing.tBodies[0].rows;
    const memo = existing.cellMemo;
    // The colours, numbers and names of every cell depend on the domain and the palette too.
    const scale = `${lo} ${hi} ${digits} ${getPalette()}`;
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
  const memo = { scale: `${lo} ${hi} ${digits} ${getPalette()}`, cells: new Array(nRows * n) };
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
  table.addEventListener('keydown', (ev) => onGridKey(ev, table, grid, container, n));
  const parts = [
    h('div', { class: 'view-head' }, h('h3', {}, o.title), h('p', { class: 'note' }, o.note ?? '')),
    renderLegend(lo, hi, digits),
    h('div', { class: 'scroll' }, table),
  ];
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
  container.dataset.legendKey = `${lo} ${hi} ${digits} ${getPalette()}`;
  // A rebuild (new labels, numbers switched on) must not drop the keyboard user's place.
  if (hadFocus) activeCell(table, grid)?.focus();
}

/** The rows' summaries as list items (the selected one marked); `s`: container.heatmapSummaries. */
function fillSummaries(list, s) {
  if (!list || !s) return;
  while (list.children.length > s.rows) list.lastElementChild.remove();
  for (let i = 0; i < s.rows; i++) {
    let li = list.children[i];
    if (!li) {
      li = h('li', {});
      list.append(li);
    }
    const text = s.of(i);
    if (li.textContent !== text) li.textContent = text;
    const cls = i === s.selectedRow ? 'selected' : '';
    if (li.className !== cls) li.className = cls;
  }
}

/** Sets an element's text when it differs (an equal write still replaces its text node). */
function setText(el, text) {
  if (el && el.textContent !== text) el.textContent = text;
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

function onGridKey(ev, table, grid, container, n) {
  const td = ev.target.closest?.('td');
  if (!td) return;
  const rows = table.tBodies[0].rows.length;
  let { i, j } = grid;
  const ctrl = ev.ctrlKey || ev.metaKey;
  switch (ev.key) {
    case 'ArrowLeft':
      j -= 1;
      break;
    case 'ArrowRight':
      j += 1;
      break;
    case 'ArrowUp':
      i -= 1;
      break;
    case 'ArrowDown':
      i += 1;
      break;
    case 'Home':
      if (ctrl) i = 0;
      j = 0;
      break;
    case 'End':
      if (ctrl) i = rows - 1;
      j = n - 1;
      break;
    case 'PageUp':
      i -= PAGE_ROWS;
      break;
    case 'PageDown':
      i += PAGE_ROWS;
      break;
    case 'Enter':
    case ' ':
      ev.preventDefault();
      if (container.onCellClick) container.onCellClick(grid.i, grid.j);
      else container.onSelectRow?.(grid.i);
      return;
    default:
      return;
  }
  ev.preventDefault();
  i = Math.min(Math.max(0, i), rows - 1);
  j = Math.min(Math.max(0, j), n - 1);
  const rowChanged = i !== grid.i;
  setActive(table, grid, i, j, true);
  if (rowChanged) container.onSelectRow?.(i);
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

/** A horizontal colour bar with its end values and the masked-cell key. */
export function renderLegend(lo, hi, digits = 2, maskedText = null) {
  const loText = fmtCell(lo, digits);
  const hiText = fmtCell(hi, digits);
  return h(
    'div',
    { class: 'legend' },
    h('span', { class: 'legend-num' }, loText),
    h('span', {
      class: 'legend-bar',
      role: 'img',
      style: { 'background-image': paletteGradient() },
      'aria-label': t('a11y.legend', { palette: t(`a11y.palette.${getPalette()}`), lo: loText, hi: hiText }),
    }),
    h('span', { class: 'legend-num' }, hiText),
    maskedText
      ? h('span', { class: 'legend-masked' }, h('span', { class: 'swatch grey' }), ` ${maskedText}`)
      : h(
          'span',
          { class: 'legend-masked' },
          h('span', { class: 'swatch masked', 'aria-hidden': 'true' }, '×'),
          ` ${t('a11y.legendMasked')}`,
        ),
  );
}

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
function renderCanvasHeatmap(container, o) {
  const [lo, hi] = o.domain;
  const nRows = o.matrix.length;
  const n = o.colLabels.length;
  const r0 = o.rowIndex ?? 0;
  const c0 = o.colIndex ?? 0;
  const digits = o.digits ?? 2;
  const px = Math.max(3, Math.min(12, Math.floor(720 / Math.max(nRows, n))));
  const grid = (container.heatmapGrid ??= { i: Math.max(0, o.selectedRow), j: 0, focused: false, lastRow: null });
  container.onSelectRow = o.onSelectRow;
  container.onCellClick = o.onCellClick ?? null;
  if (!grid.focused && o.selectedRow >= 0 && o.selectedRow < nRows) grid.i = o.selectedRow;
  grid.i = Math.min(Math.max(0, grid.i), Math.max(0, nRows - 1));
  grid.j = Math.min(Math.max(0, grid.j), Math.max(0, n - 1));
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
      if (container.onCellClick) container.onCellClick(i, j);
      else container.onSelectRow?.(i);
    });
    canvas.addEventListener('focus', () => {
      grid.focused = true;
      show(grid.i, grid.j);
    });
    canvas.addEventListener('blur', () => {
      grid.focused = false;
    });
    canvas.addEventListener('keydown', (ev) => {
      const ctrl = ev.ctrlKey || ev.metaKey;
      let { i, j } = grid;
      const step = {
        ArrowLeft: () => (j -= 1),
        ArrowRight: () => (j += 1),
        ArrowUp: () => (i -= 1),
        ArrowDown: () => (i += 1),
        Home: () => ((j = 0), ctrl && (i = 0)),
        End: () => ((j = n - 1), ctrl && (i = nRows - 1)),
        PageUp: () => (i -= PAGE_ROWS),
        PageDown: () => (i += PAGE_ROWS),
      }[ev.key];
      if (ev.key === 'Enter' || ev.key === ' ') {
        ev.preventDefault();
        if (container.onCellClick) container.onCellClick(grid.i, grid.j);
        else container.onSelectRow?.(grid.i);
        return;
      }
      if (!step) return;
      ev.preventDefault();
      step();
      i = Math.min(Math.max(0, i), nRows - 1);
      j = Math.min(Math.max(0, j), n - 1);
      const rowChanged = i !== grid.i;
      grid.i = i;
      grid.j = j;
      show(i, j);
      if (rowChanged) container.onSelectRow?.(i);
    });
    mount(
      container,
      h('div', { class: 'view-head' }, h('h3', {}, o.title), h('p', { class: 'note' }, o.note ?? '')),
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
    if (grid.focused) canvas.focus();
  } else {
    container.querySelector('.legend').replaceWith(renderLegend(lo, hi, digits));
    container.querySelector('.view-head h3').textContent = o.title;
    const note = container.querySelector('.view-head .note');
    if (note) note.textContent = o.note ?? '';
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
