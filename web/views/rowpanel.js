// The selected query row: its metrics as numbers, its weights as labelled bars, its output.
import { h, patch } from './dom.js';
import { fmtCell, fmtMetric, showToken } from './format.js';
import { t } from '../i18n/i18n.js';
import { ROW_METRICS } from './metrics.js';

/**
 * @param {HTMLElement} container
 * @param {object} o
 * @param {object} o.results   results JSON (docs/state.md)
 * @param {number} o.row
 * @param {string[]} o.queryTokens
 * @param {string[]} o.keyTokens
 * @param {number} o.topK
 * @param {number} o.tau
 * @param {(number|null)[]} o.weights   the row's weights, null where the key is not visible
 * @param {number} [o.maxBars]          show only the largest this many weights (long rows)
 */
export function renderRowPanel(container, o) {
  const { results: r, row } = o;
  const m = r.rows[row];
  const weights = o.weights.map((w) => w ?? 0);
  const metric = (key, value, unit, vars = {}) =>
    h(
      'div',
      { class: 'metric', dataset: { metric: key } },
      h('dt', { title: t(`app.metric.${key}Help`, vars) }, t(`app.metric.${key}`, vars)),
      h(
        'dd',
        { id: `metric-${key}`, dataset: { value: value === null ? '' : String(value) } },
        fmtMetric(value),
        unit && value !== null && Number.isFinite(value) ? h('span', { class: 'unit' }, ` ${t(`app.unit.${unit}`)}`) : null,
      ),
    );
  const maxW = Math.max(...weights, 1e-12);
  let keys = weights.map((_, j) => j);
  const limited = o.maxBars && keys.length > o.maxBars;
  if (limited)
    keys = keys
      .sort((a, b) => weights[b] - weights[a])
      .slice(0, o.maxBars)
      .sort((a, b) => a - b);
  // The bars are kept from one draw to the next and changed in place (a tau step moves every bar
  // but rebuilds none); patch() below leaves this element, already on screen, as it is.
  const bars =
    container.querySelector(':scope > #row-bars') ??
    h('div', { class: 'bars', id: 'row-bars', tabindex: '0', role: 'group', 'aria-labelledby': 'row-bars-title' });
  updateBars(
    bars,
    keys.map((j) => ({ j, w: weights[j], visible: o.weights[j] !== null })),
    maxW,
    o.keyTokens,
  );
  const out = r.output[row] ?? [];
  patch(
    container,
    h(
      'div',
      { class: 'view-head' },
      h(
        'h3',
        {},
        t('app.row.title'),
        h('span', { class: 'idx' }, String(row)),
        ' ',
        h('q', { class: 'token-inline', translate: 'no' }, showToken(o.queryTokens[row] ?? '')),
      ),
      m.empty
        ? h('p', { class: 'warning', id: 'row-empty' }, t('app.row.empty'))
        : h('p', { class: 'note' }, t('app.row.softmaxOver', { n: m.visible, tau: o.tau })),
    ),
    h(
      'dl',
      { class: 'metrics' },
      ROW_METRICS.map((x) => metric(x.key, m[x.key], x.unit === 'none' ? '' : x.unit, { k: o.topK })),
    ),
    h('h4', { id: 'row-bars-title' }, limited ? t('app.row.largest', { max: o.maxBars, n: weights.length }) : t('app.row.weights')),
    // Focusable (tabindex 0): the list scrolls for long rows and must be scrollable by keyboard.
    bars,
    h('h4', {}, t('app.row.output')),
    out.length
      ? h(
          'p',
          { class: 'vector', id: 'row-output' },
          '(',
          out.map((x, c) => [c ? ', ' : '', h('span', { dataset: { value: String(x) } }, fmtCell(x, 4))]),
          ')',
        )
      : h('p', { class: 'note' }, t('app.row.noOutput')),
  );
}

/** Sets what differs between `memo[key]` and `value` through `write` (the DOM is not read back). */
function put(memo, key, value, write) {
  if (memo[key] !== value) {
    memo[key] = value;
    write(value);
  }
}

/** The bars of the row's weights, one per item {j, w, visible}, changed in place. */
function updateBars(el, items, maxW, keyTokens) {
  const pool = (el.barRows ??= []);
  while (pool.length > items.length) pool.pop().row.remove();
  while (pool.length < items.length) {
    const idx = h('span', { class: 'idx' });
    const token = h('span', { translate: 'no' });
    const label = h('span', { class: 'bar-label' }, idx, ' ', token);
    const bar = h('span', { class: 'bar' });
    const num = h('span', { class: 'bar-num' });
    const row = h('div', { class: 'bar-row' }, label, h('span', { class: 'bar-track' }, bar), num);
    el.append(row);
    pool.push({ row, idx, token, label, bar, num, memo: {} });
  }
  items.forEach(({ j, w, visible }, k) => {
    const b = pool[k];
    const m = b.memo;
    put(m, 'cls', `bar-row${visible ? '' : ' masked'}`, (v) => (b.row.className = v));
    put(m, 'title', t('app.row.keyTitle', { j }), (v) => (b.label.title = v));
    put(m, 'j', String(j), (v) => (b.idx.textContent = v));
    put(m, 'token', showToken(keyTokens[j]), (v) => (b.token.textContent = v));
    put(m, 'width', `${(100 * w) / maxW}%`, (v) => b.bar.style.setProperty('width', v));
    put(m, 'num', visible ? fmtCell(w, 4) : t('app.editor.masked'), (v) => (b.num.textContent = v));
  });
}

// Above this many rows the output table holds the rows in view and a margin only (spacer rows
// stand for the others, so the scroll height is that of the whole table): 512 rows of numbers
// rewritten and laid out on every tau step were most of a step of the 512-token preset.
const WINDOWED_ROWS = 128;
const WINDOW_MARGIN = 32; // rows drawn beyond each edge of the view
const ROW_PX = 19.2; // an output row's height before one is measured (.8rem monospace, padding, border)

/** The output matrix O as a plain numeric table, selected row highlighted. */
export function renderOutput(container, o) {
  const out = o.results.output;
  const dv = o.results.dV;
  const head = h(
    'div',
    { class: 'view-head' },
    h('h3', { id: 'output-title' }, t('app.output.title', { n: out.length, dv })),
    o.note ? h('p', { class: 'note' }, o.note) : null,
  );
  if (dv === 0) {
    container.outputTable?.scroll.remove();
    container.outputTable = null;
    patch(container, head, h('p', { class: 'note' }, t('app.output.noV')));
    return;
  }
  // The table is built once per shape, tokens and language, then its numbers change in place.
  const tokens = out.map((_, i) => showToken(o.queryTokens[i] ?? ''));
  const key = JSON.stringify([out.length, dv, t('app.output.query'), tokens]);
  let ot = container.outputTable;
  if (!ot || ot.key !== key) {
    ot?.scroll.remove(); // else patch() would fill the old table's nodes with the new one's
    ot = container.outputTable = outputTable(out.length, dv, tokens, key);
  }
  ot.show(out, o.row);
  patch(container, head, ot.scroll);
}

/**
 * The output table of n rows x dv columns, in its scroll box; show(out, row) writes the numbers
 * (and the selected row) of the rows it holds: all of them, or above WINDOWED_ROWS the rows in
 * view and WINDOW_MARGIN more each side (again as the box scrolls).
 */
function outputTable(n, dv, tokens, key) {
  const windowed = n > WINDOWED_ROWS;
  const tbody = h('tbody', {});
  const headCells = [h('th', {}, t('app.output.query')), Array.from({ length: dv }, (_, c) => h('th', {}, `o${c + 1}`))].flat();
  const table = h(
    'table',
    { class: `output${windowed ? ' windowed' : ''}`, id: 'output', 'aria-rowcount': windowed ? String(n + 1) : null },
    h('thead', {}, h('tr', {}, headCells)),
    tbody,
  );
  const scroll = h('div', { class: 'scroll', tabindex: '0', role: 'group', 'aria-labelledby': 'output-title' }, table);
  const pool = []; // {tr, idx, token, cells, memo}
  const newRow = () => {
    const idx = h('span', { class: 'idx' });
    const token = h('span', { translate: 'no' });
    const cells = Array.from({ length: dv }, () => h('td', {}));
    const tr = h('tr', {}, h('th', { scope: 'row' }, idx, ' ', token), cells);
    const r = { tr, idx, token, cells, memo: { cells: cells.map(() => ({})) } };
    pool.push(r);
    return r;
  };
  let data = null; // the last show()'s output and selected row
  const headMemo = {}; // column -> its widest entry's length, as set
  let range = [0, 0];
  let rowPx = ROW_PX;
  const spacer = () => h('tr', { class: 'spacer', 'aria-hidden': 'true' }, h('td', { colspan: String(dv + 1) }));
  const above = windowed ? spacer() : null;
  const below = windowed ? spacer() : null;
  if (windowed) {
    tbody.append(above, below);
    // The columns keep the width of the whole table's widest entry (monospace: in ch), so that
    // scrolling (other rows drawn) or a tau step does not move them.
    const idxChars = String(n - 1).length;
    const tokenChars = Math.max(...tokens.map((s) => s.length));
    headCells[0].style.setProperty('min-width', `min(10rem, calc(${(0.85 * idxChars + 1 + tokenChars).toFixed(2)}ch + .9rem))`);
  }
  const fill = (r, i) => {
    const m = r.memo;
    const { out, row } = data;
    put(m, 'i', i, (v) => {
      r.idx.textContent = String(v);
      r.token.textContent = tokens[v];
      r.tr.dataset.row = String(v);
      if (windowed) r.tr.setAttribute('aria-rowindex', String(v + 2));
      r.cells.forEach((td, c) => (td.id = `output-r${v}-c${c}`));
    });
    put(m, 'selected', i === row, (v) => (v ? (r.tr.className = 'selected') : r.tr.removeAttribute('class')));
    const values = out[i];
    for (let c = 0; c < dv; c++) {
      const cm = m.cells[c];
      const x = values[c];
      if (cm.x === x) continue;
      cm.x = x;
      const td = r.cells[c];
      put(cm, 'value', String(x), (v) => td.setAttribute('data-value', v));
      put(cm, 'text', fmtCell(x, 3), (v) => (td.textContent = v));
    }
  };
  const draw = () => {
    const [a, b] = range;
    while (pool.length < b - a) {
      const r = newRow();
      if (windowed) tbody.insertBefore(r.tr, below);
      else tbody.append(r.tr);
    }
    while (pool.length > b - a) pool.pop().tr.remove();
    for (let k = 0; k < b - a; k++) fill(pool[k], a + k);
    if (windowed) {
      above.style.setProperty('height', `${a * rowPx}px`);
      below.style.setProperty('height', `${(n - b) * rowPx}px`);
    }
  };
  // The rows to draw for a view whose first row is `top`, `seen` rows high: those and the margin.
  const around = (top, seen) => {
    const a = Math.max(0, Math.min(top - WINDOW_MARGIN, n - seen - 2 * WINDOW_MARGIN));
    return [a, Math.min(n, a + seen + 2 * WINDOW_MARGIN)];
  };
  let queued = false;
  if (windowed) {
    scroll.addEventListener(
      'scroll',
      () => {
        if (queued) return;
        queued = true;
        requestAnimationFrame(() => {
          queued = false;
          if (pool.length > 2 && pool[0].tr.isConnected) {
            // The pitch of the rows drawn (the last one, above a spacer, is half a border shorter).
            const px = (pool.at(-2).tr.getBoundingClientRect().top - pool[0].tr.getBoundingClientRect().top) / (pool.length - 2);
            if (px > 0) rowPx = px;
          }
          const top = Math.floor(Math.max(0, scroll.scrollTop - (table.tHead?.offsetHeight ?? 0)) / rowPx);
          const seen = Math.ceil((scroll.clientHeight || 480) / rowPx) + 1;
          // Redrawn when the view comes within half a margin of an edge of the rows drawn, not on
          // every scroll step.
          const [a, b] = range;
          if (Math.max(0, top - WINDOW_MARGIN / 2) < a || Math.min(n, top + seen + WINDOW_MARGIN / 2) > b) {
            range = around(top, seen);
            draw();
          }
        });
      },
      { passive: true },
    );
  }
  return {
    key,
    scroll,
    show(out, row) {
      data = { out, row };
      if (windowed) {
        // Each number column as wide as its widest entry in the whole table, as when every row
        // was drawn.
        for (let c = 0; c < dv; c++) {
          let chars = 0;
          for (let i = 0; i < n; i++) chars = Math.max(chars, fmtCell(out[i][c], 3).length);
          put(headMemo, c, chars, (v) => headCells[c + 1].style.setProperty('min-width', `calc(${v}ch + .9rem)`));
        }
      }
      // The rows drawn change as the box scrolls, not here: reading the scroll position now would
      // lay out the page in the middle of its update. The first draw shows the top rows.
      if (!pool.length) range = windowed ? around(0, Math.ceil(480 / rowPx) + 1) : [0, n];
      draw();
    },
  };
}
