// Number formatting for display. Display only: full precision stays in results() and exports.

/** Compact fixed formatting for cells: 0.731, -1.20, 1.2e-5, "—" for null (not visible). */
export function fmtCell(x, digits = 2) {
  if (x === null || x === undefined || Number.isNaN(x)) return '—';
  if (x === 0) return '0';
  const ax = Math.abs(x);
  if (ax < 10 ** -digits / 2 || ax >= 1e5) return x.toExponential(1);
  return x.toFixed(digits);
}

/** Metric formatting with significant digits; undefined metrics read "undefined". */
export function fmtMetric(x, digits = 6) {
  if (x === null || x === undefined || Number.isNaN(x)) return 'undefined';
  if (x === 0) return '0';
  const ax = Math.abs(x);
  if (ax < 1e-4 || ax >= 1e6) return x.toExponential(digits - 1);
  return Number(x.toPrecision(digits)).toString();
}

/** A token label made visible: leading/trailing spaces shown as ␣, empty as ∅. */
export function showToken(t) {
  if (t === '') return '∅';
  return t.replace(/^ /, '␣').replace(/\n/g, '⏎');
}
