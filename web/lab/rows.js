// Per-row tables of the lab views at 512 and 2,048 query rows (docs/lab.md): up to ROW_WINDOW rows a
// table shows every row; above, a profile of all rows (each bin's mean as a line, its min to max as
// a band, the numbers in data-* attributes and titles) and the table ROW_WINDOW rows at a time,
// with a picker (first row, previous, next, the selected row's rows). The numbers are the core's
// (lab.rows); this module only bins and lays them out. Drawing 2,048 table rows took 1 to 2 s of
// the main thread; a window of 64 takes a few ms.
import { h, svg } from '../views/dom.js';
import { fmtMetric } from '../views/format.js';
import { t } from '../i18n/i18n.js';
import { numberInput, showGood } from './lab-controls.js';

/** Rows of a table shown at once; above this the table is windowed and profiled. */
export const ROW_WINDOW = 64;
/** Bins of the profile: one per row up to this many rows. */
export const PROFILE_BINS = 128;

const firstRows = new Map(); // table id -> {first, selected}: the window kept across redraws

/**
 * Bins `values` (one per row, null = undefined) into at most PROFILE_BINS bins of equal size.
 * @param {(number|null)[]} values
 * @returns {{lo: number, hi: number, n: number, mean: number|null, min: number|null, max: number|null}[]}
 *   rows [lo, hi) of each bin; n defined values; mean/min/max over them (null when n = 0)
 */
export function binRows(values) {
  const size = Math.max(1, Math.ceil(values.length / PROFILE_BINS));
  const bins = [];
  for (let lo = 0; lo < values.length; lo += size) {
    const hi = Math.min(values.length, lo + size);
    let n = 0;
    let sum = 0;
    let min = Infinity;
    let max = -Infinity;
    for (let i = lo; i < hi; i++) {
      const x = values[i];
      if (x === null || x === undefined || !Number.isFinite(x)) continue;
      n++;
      sum += x;
      if (x < min) min = x;
      if (x > max) max = x;
    }
    bins.push({ lo, hi, n, mean: n ? sum / n : null, min: n ? min : null, max: n ? max : null });
  }
  return bins;
}

/**
 * An SVG profile of per-row series: x = query row, y = value, one panel per series on its own
 * scale (from 0, or the smallest value, to the largest). Each bin is a <g class="row-bin"> with
 * data-lo, data-hi (rows [lo, hi)) and, per series s, data-mean-s / data-min-s / data-max-s (empty
 * when undefined).
 * @param {object} o
 * @param {string} o.id element id
 * @param {string} o.caption what is drawn (text)
 * @param {{key: string, label: string, values: (number|null)[]}[]} o.series 1 to 3 series
 * @param {number} [o.selected] the selected row (marked)
 */
export function rowProfile({ id, caption, series, selected = -1 }) {
  // One panel per series, each on its own scale (a sink mass in [0, 1] beside an entropy of 5 nats
  // would otherwise be a flat line at 0), over a shared row axis.
  const W = 640;
  const PANEL = 70;
  const GAP = 10;
  const L = 52;
  const R = 8;
  const T = 8;
  const B = 22;
  const H = T + series.length * PANEL + (series.length - 1) * GAP + B;
  const n = series[0].values.length;
  const binned = series.map((s) => binRows(s.values));
  const ranges = binned.map((bins) => {
    let lo = 0;
    let hi = -Infinity;
    for (const b of bins) {
      if (b.n === 0) continue;
      lo = Math.min(lo, b.min);
      hi = Math.max(hi, b.max);
    }
    return hi > lo ? [lo, hi] : [lo, lo + 1];
  });
  const x = (row) => L + ((W - L - R) * row) / Math.max(1, n);
  const top = (k) => T + k * (PANEL + GAP);
  const y = (k, v) => top(k) + PANEL * (1 - (v - ranges[k][0]) / (ranges[k][1] - ranges[k][0]));
  const bins = binned[0];
  const groups = bins.map((b, i) => {
    const data = { 'data-lo': b.lo, 'data-hi': b.hi };
    const parts = [];
    const lines = [];
    series.forEach((s, k) => {
      const c = binned[k][i];
      data[`data-mean-${s.key}`] = c.mean ?? '';
      data[`data-min-${s.key}`] = c.min ?? '';
      data[`data-max-${s.key}`] = c.max ?? '';
      if (c.n === 0) return;
      parts.push(
        svg('rect', {
          class: `row-band series-${k}`,
          x: x(b.lo),
          width: Math.max(1, x(b.hi) - x(b.lo)),
          y: y(k, c.max),
          height: Math.max(1, y(k, c.min) - y(k, c.max)),
        }),
      );
      lines.push(
        `${s.label} ${t('lab.rows.binStats', { mean: fmtMetric(c.mean, 4), min: fmtMetric(c.min, 4), max: fmtMetric(c.max, 4) })}`,
      );
    });
    const rows = b.hi - b.lo === 1 ? t('lab.rows.oneRow', { row: b.lo }) : t('lab.rows.rowRange', { lo: b.lo, hi: b.hi - 1 });
    // A transparent full-height rect: the whole column of a bin shows its title on hover.
    const hit = svg('rect', {
      class: 'row-hit',
      x: x(b.lo),
      width: Math.max(1, x(b.hi) - x(b.lo)),
      y: T,
      height: H - T - B,
      fill: 'transparent',
    });
    return svg('g', { class: 'row-bin', ...data }, svg('title', {}, [rows, ...lines].join('\n')), hit, parts);
  });
  const paths = series.map((s, k) => {
    let d = '';
    binned[k].forEach((c) => {
      if (c.n === 0) return;
      d += `${d ? 'L' : 'M'}${((x(c.lo) + x(c.hi)) / 2).toFixed(1)},${y(k, c.mean).toFixed(1)}`;
    });
    return svg('path', { class: `row-mean series-${k}`, d, fill: 'none' });
  });
  const sel =
    selected >= 0 && selected < n
      ? svg('line', { class: 'row-selected', x1: x(selected + 0.5), x2: x(selected + 0.5), y1: T, y2: H - B })
      : null;
  const axis = [
    series.map((s, k) => [
      svg('line', { class: 'axis', x1: L, x2: L, y1: top(k), y2: top(k) + PANEL }),
      svg('line', { class: 'axis faint', x1: L, x2: W - R, y1: y(k, ranges[k][0]), y2: y(k, ranges[k][0]) }),
      svg('text', { x: L - 4, y: top(k) + 8, 'text-anchor': 'end' }, fmtMetric(ranges[k][1], 3)),
      svg('text', { x: L - 4, y: top(k) + PANEL, 'text-anchor': 'end' }, fmtMetric(ranges[k][0], 3)),
      svg('text', { x: L + 4, y: top(k) + 10, class: `row-series-label series-${k}` }, s.label),
    ]),
    svg('line', { class: 'axis', x1: L, x2: W - R, y1: H - B, y2: H - B }),
    svg('text', { x: L, y: H - 6 }, '0'),
    svg('text', { x: W - R, y: H - 6, 'text-anchor': 'end' }, String(n - 1)),
    svg('text', { x: (L + W) / 2, y: H - 6, 'text-anchor': 'middle' }, t('lab.rows.axis')),
  ];
  const size = bins.length ? bins[0].hi - bins[0].lo : 1;
  return h(
    'figure',
    { class: 'row-profile', id },
    h('figcaption', {}, caption, ' ', size > 1 ? t('lab.rows.binned', { k: size }) : t('lab.rows.perRow')),
    h(
      'p',
      { class: 'row-legend note' },
      series.map((s, k) => [h('span', { class: `row-swatch series-${k}` }), ` ${s.label}  `]),
    ),
    svg('svg', { viewBox: `0 0 ${W} ${H}`, class: 'row-profile-svg', role: 'img', 'aria-label': caption }, groups, paths, sel, axis),
  );
}

/**
 * A per-row table readable at any number of rows. Up to ROW_WINDOW rows: `table(0, n)` itself.
 * Above: the profile of `series` (rowProfile), a picker and `table(first, first + ROW_WINDOW)`;
 * the window starts at the selected row's window and stays where the user moves it (per `id`)
 * until the selected row changes.
 * @param {object} o
 * @param {string} o.id  the table's id (the picker is `${id}-picker`, the profile `${id}-profile`)
 * @param {number} o.n   rows
 * @param {number} o.selected the selected row
 * @param {(lo: number, hi: number) => Node} o.table the table of rows [lo, hi)
 * @param {string} [o.caption] the profile's caption
 * @param {{key: string, label: string, values: (number|null)[]}[]} [o.series] the profile's series
 */
export function windowedRows({ id, n, selected, table, caption, series }) {
  if (n <= ROW_WINDOW) return table(0, n);
  const around = Math.max(0, Math.min(n - ROW_WINDOW, Math.floor(selected / ROW_WINDOW) * ROW_WINDOW));
  const kept = firstRows.get(id);
  let first = kept && kept.selected === selected ? kept.first : around;
  const box = h('div', { class: 'row-window-table' });
  const status = h('span', { class: 'row-window-status', role: 'status' });
  // Any row of the n can be typed; the page then starts as near it as it can.
  const input = numberInput({
    id: `${id}-first`,
    label: t('lab.rows.first'),
    value: first,
    min: 0,
    max: n - 1,
    whole: true,
    onValue: (v) => show(v),
  });
  const show = (v) => {
    first = Math.max(0, Math.min(n - ROW_WINDOW, v));
    firstRows.set(id, { first, selected });
    showGood(input, first);
    status.textContent = t('lab.rows.window', { lo: first, hi: first + ROW_WINDOW - 1, n });
    box.replaceChildren(table(first, first + ROW_WINDOW));
  };
  const button = (label, go, suffix) => h('button', { type: 'button', id: `${id}-${suffix}`, onclick: () => show(go()) }, label);
  const picker = h(
    'div',
    { class: 'row-window', id: `${id}-picker` },
    h('label', { class: 'inline' }, t('lab.rows.first'), ' ', input),
    ' ',
    button(t('lab.rows.prev'), () => first - ROW_WINDOW, 'prev'),
    ' ',
    button(t('lab.rows.next'), () => first + ROW_WINDOW, 'next'),
    ' ',
    button(t('lab.rows.toSelected', { row: selected }), () => around, 'selected'),
    ' ',
    status,
  );
  show(first);
  return h('div', { class: 'row-windowed' }, series ? rowProfile({ id: `${id}-profile`, caption, series, selected }) : null, picker, box);
}

/** Per-key lists (a row's weights, dH/dz, π) show at most this many keys: those of largest size. */
export const KEY_ROWS = 48;

/**
 * The positions of the `k` largest of `score` (null and NaN count as smallest; ties: the lower
 * position first), in ascending order; all positions when there are at most k.
 * @param {(number|null)[]} score
 * @param {number} [k]
 * @returns {number[]}
 */
export function largestIndices(score, k = KEY_ROWS) {
  const idx = score.map((_, i) => i);
  if (idx.length <= k) return idx;
  const v = (i) => (score[i] === null || !Number.isFinite(score[i]) ? -Infinity : score[i]);
  idx.sort((a, b) => v(b) - v(a) || a - b);
  return idx.slice(0, k).sort((a, b) => a - b);
}

/** The note under a list cut to its largest entries: "{shown} of {n} … shown, those of largest {what}". */
export function keysShownNote(shown, n, what, id) {
  return shown < n ? h('p', { class: 'note keys-shown', id }, t('lab.rows.keysShown', { shown, n, what })) : null;
}
