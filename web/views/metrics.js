// The row metrics as the page shows and writes them. Every list of metrics in web/ comes from
// here, and this from the core's one table of them (cpp/include/attn/metrics.def, written into
// web/generated/schema.js by `attn schema` at build time): names, JSON keys, CSV columns, units,
// whether a head summarises a metric by its mean, and what an empty row gives.
import { SCHEMA } from '../generated/schema.js';
import { t } from '../i18n/i18n.js';

/**
 * Every row metric, in display order.
 * @type {ReadonlyArray<{field: string, key: string, csv: string, unit: 'nats'|'keys'|'none',
 *   integer: boolean, head: {key: string, csv: string}|null, emptyUndefined: boolean}>}
 */
export const ROW_METRICS = SCHEMA.metrics;

/** The metrics a head summarises by their mean over its non-empty rows (m.head.key: "meanEntropy"). */
export const HEAD_METRICS = ROW_METRICS.filter((m) => m.head);

/** TransformerLens's head-detector scores of a head ({key, csv}; the head's `field[key]`), and
 *  the head pattern classes in the core's order (head_scores.def). */
export const HEAD_SCORES = SCHEMA.heads.headScores;
export const PATTERN_KINDS = SCHEMA.heads.patternKinds;
/** A head score's name and short column label (string tables, import.score.*). */
export const scoreName = (s) => t(`import.score.${s.key}`);
export const scoreShort = (s) => t(`import.score.${s.key}Short`);

/** A comparison's key of a head metric's difference B - A ("deltaEntropy"). */
export const deltaKey = (m) => `delta${m.head.key.slice(4)}`;

/** The strings' variables by default: k of the top-k mass is the core's row default. */
const DEFAULT_VARS = { k: SCHEMA.rowDefaults.topK };
/** A metric's name, its one-line help and its short column label (string tables, app.metric.*). */
export const metricName = (m, vars = DEFAULT_VARS) => t(`app.metric.${m.key}`, vars);
export const metricHelp = (m, vars = DEFAULT_VARS) => t(`app.metric.${m.key}Help`, vars);
export const metricShort = (m, vars = DEFAULT_VARS) => t(`app.metric.${m.key}Short`, vars);
/** The column label of a head's mean of m ("mean H (nats)"). */
export const headMetricLabel = (m, vars = DEFAULT_VARS) => t('app.metric.meanOf', { metric: metricShort(m, vars) });

/** Row t's value of m from the core's columns (one typed array per key, and `empty`): null when
 *  the row is empty and m undefined there, or when the value is not finite. */
export function columnValue(m, columns, t) {
  if (m.emptyUndefined && columns.empty[t]) return null;
  const x = columns[m.key][t];
  return Number.isFinite(x) ? x : null;
}

/** The rows of the results JSON (docs/state.md `rows`) from the core's columns of n rows. */
export function rowsFromColumns(columns, n) {
  return Array.from({ length: n }, (_, t) => {
    const row = { empty: Boolean(columns.empty[t]) };
    for (const m of ROW_METRICS) row[m.key] = columnValue(m, columns, t);
    return row;
  });
}

/** The core's columns ({key: values[], empty: bool[]}) from rows of the results JSON. */
export function columnsFromRows(rows) {
  const columns = { empty: rows.map((r) => r.empty) };
  for (const m of ROW_METRICS) columns[m.key] = rows.map((r) => r[m.key]);
  return columns;
}
