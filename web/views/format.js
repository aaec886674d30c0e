// Number formatting for display. Display only: full precision stays in results() and exports.
// Also tData(): a translated sentence whose placeholders hold data (tokens, names, technical
// detail), each in an element with translate="no".
import { t } from '../i18n/i18n.js';
import { h } from './dom.js';

/** Compact fixed formatting for cells: 0.731, -1.20, 1.2e-5, "—" for null (not visible). */
export function fmtCell(x, digits = 2) {
  if (x === null || x === undefined || Number.isNaN(x)) return '—';
  if (x === 0) return '0';
  const ax = Math.abs(x);
  if (ax < 10 ** -digits / 2 || ax >= 1e5) return x.toExponential(1);
  return x.toFixed(digits);
}

/**
 * An integer with thousands separators, "1,234,567" (both languages), without Intl: the first
 * toLocaleString() of a page loads the locale data, 240 ms at 4x CPU on the start-up path
 * (docs/performance.md "Loading").
 */
export function fmtInt(n) {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** Metric formatting with significant digits; undefined metrics read "undefined". */
export function fmtMetric(x, digits = 6) {
  if (x === null || x === undefined || Number.isNaN(x)) return t('app.undefined');
  if (x === 0) return '0';
  const ax = Math.abs(x);
  if (ax < 1e-4 || ax >= 1e6) return x.toExponential(digits - 1);
  return Number(x.toPrecision(digits)).toString();
}

/** A file's size for people: "52.0 KiB", "3.4 MiB", "812 bytes" (binary units, one decimal). */
export function fmtBytes(b) {
  if (b >= 1 << 20) return `${(b / (1 << 20)).toFixed(1)} MiB`;
  return b >= 1024 ? `${(b / 1024).toFixed(1)} KiB` : t('app.bytes', { n: b });
}

/** A token label made visible: leading/trailing spaces shown as ␣, empty as ∅. */
/**
 * What the reader typed, as an error message quotes it: at most `max` characters (a pasted
 * megabyte must not come back as a wall of text under the editor).
 */
export function clipTyped(text, max = 40) {
  const chars = Array.from(String(text));
  return chars.length <= max ? chars.join('') : `${chars.slice(0, max).join('')}…`;
}

export function showToken(t) {
  if (t === '') return '∅';
  return t.replace(/^ /, '␣').replace(/\n/g, '⏎');
}

/** Text that is data, not interface (a token, a head name, a file name, an English detail). */
export function dataSpan(text) {
  return h('span', { translate: 'no' }, String(text));
}

/**
 * The string `key` as nodes, with the placeholders named in `data` (default: all of `vars`) in
 * translate="no" spans. A value that is a Node or an array of nodes is inserted as it is.
 * @returns {(string|Node|Array)[]} children for h() or mount()
 */
export function tData(key, vars = {}, data = Object.keys(vars)) {
  const values = [];
  const marked = { ...vars };
  for (const name of data) {
    marked[name] = `\u0001${values.length}\u0002`;
    values.push(vars[name]);
  }
  const parts = [];
  t(key, marked)
    // eslint-disable-next-line no-control-regex -- \u0001 n \u0002 mark where a value goes
    .split(/\u0001(\d+)\u0002/)
    .forEach((piece, k) => {
      if (k % 2 === 0) {
        if (piece) parts.push(piece);
        return;
      }
      const v = values[Number(piece)];
      parts.push((typeof Node !== 'undefined' && v instanceof Node) || Array.isArray(v) ? v : dataSpan(v));
    });
  return parts;
}
