// The metrics files (web/export/files.js): per-head metrics as CSV or JSON (the import view's, as
// `attn analyze` writes them) and per-row metrics as CSV (the import view's and the playground's),
// their columns from the metrics table (web/views/metrics.js, metrics.def). CSV headers and JSON
// keys are data formats: English and stable in every language.
import { HEAD_METRICS, HEAD_SCORES, ROW_METRICS, columnValue, columnsFromRows } from '../views/metrics.js';
import { toCsv, toJson } from './text-formats.js';

export const HEAD_METRIC_COLUMNS = [
  'layer',
  'head',
  'verdict',
  'rows',
  'empty_rows',
  ...HEAD_METRICS.map((m) => m.head.csv),
  'pattern',
  'confidence',
  'parameter',
  'above_diagonal_mass',
  'causal_structure',
  ...HEAD_SCORES.map((s) => s.csv),
];

/** Per-head metrics (results of analyzeSourceHead) as CSV, one line per head. */
export function headMetricsCsv(heads) {
  return toCsv(
    HEAD_METRIC_COLUMNS,
    heads.map((r) => [
      r.layer,
      r.head,
      r.verdict,
      r.summary.rows,
      r.summary.emptyRows,
      ...HEAD_METRICS.map((m) => r.summary[m.head.key]),
      r.pattern.kind,
      r.pattern.confidence,
      r.pattern.parameter,
      r.computed ? r.aboveDiagonalMass : NaN,
      r.computed ? String(Boolean(r.causalStructure)) : '',
      ...HEAD_SCORES.map((s) => (r.computed ? r.field?.[s.key] : NaN)),
    ]),
  );
}

/** Per-head metrics as JSON: `meta` (file, shape, layers, headsPerLayer, ...) and one entry per
 *  head, as `attn analyze --format json` prints them. */
export function headMetricsJson(meta, heads) {
  return toJson({
    ...meta,
    heads: heads.map((r) => ({
      layer: r.layer,
      layerIndex: r.layerIndex ?? r.layer,
      head: r.head,
      ...(r.label ? { label: r.label } : {}),
      verdict: r.verdict,
      summary: r.summary,
      pattern: r.pattern,
      fieldScores: r.computed ? r.field : null,
      check: r.check,
      causalStructure: Boolean(r.causalStructure),
      causalVisibility: Boolean(r.causalVisibility),
      aboveDiagonalMass: r.aboveDiagonalMass,
    })),
  });
}

/** The Rows CSV's columns: the row, its token, empty (1/0), then every row metric's column
 *  (metrics.def, as `attn analyze --rows --format csv` writes them after layer, head). */
export const ROW_METRIC_COLUMNS = ['row', 'query_token', 'empty', ...ROW_METRICS.map((m) => m.csv)];

/**
 * Per-row metrics as CSV.
 * @param {object} columns the core's columns of n_q rows: one array per metric key (typed arrays
 *   from the core or plain arrays; null/NaN = undefined) and `empty`
 * @param {string[]} tokens query tokens (may be empty)
 */
export function rowMetricsCsv(columns, tokens = []) {
  const n = columns.empty.length;
  const out = [];
  for (let t = 0; t < n; t++)
    out.push([t, tokens[t] ?? '', columns.empty[t] ? 1 : 0, ...ROW_METRICS.map((m) => columnValue(m, columns, t))]);
  return toCsv(ROW_METRIC_COLUMNS, out);
}

/** Per-row metrics from the playground's results (docs/state.md `rows`) in the same columns. */
export function resultsRowsCsv(res, tokens) {
  return rowMetricsCsv(columnsFromRows(res.rows), tokens);
}
