// The import view's state: the one mutable object every part of the view reads and writes (the
// open file, the heads' results and their per-layer summaries, the reading, the selection and
// the inspected head), and the sort and filter of the overview as plain functions of it.
// Nothing here touches the page.
import { SCHEMA } from '../generated/schema.js';
import { t } from '../i18n/i18n.js';
import { HEAD_METRICS, HEAD_SCORES, PATTERN_KINDS, headMetricLabel, scoreName } from '../views/metrics.js';

/** Sort keys of the overview: label() (drawn again when the language changes) and how to read the value from a head's result. */
export const SORT_KEYS = {
  order: { label: () => t('import.sort.order'), get: (r) => r.index },
  // Every head mean of the core's metrics table, labelled "mean <metric>".
  ...Object.fromEntries(HEAD_METRICS.map((m) => [m.head.key, { label: () => headMetricLabel(m), get: (r) => r.summary[m.head.key] }])),
  confidence: { label: () => t('import.sort.confidence'), get: (r) => r.pattern.confidence },
  aboveDiagonalMass: { label: () => t('import.sort.aboveDiagonalMass'), get: (r) => (r.computed ? r.aboveDiagonalMass : NaN) },
  // Every head-detector score of the core's table, by its key ("tl" + Key: tlPreviousToken).
  ...Object.fromEntries(
    HEAD_SCORES.map((x) => [
      `tl${x.key[0].toUpperCase()}${x.key.slice(1)}`,
      { label: () => scoreName(x), get: (r) => (r.computed ? r.field?.[x.key] : NaN) },
    ]),
  ),
};
/** The metrics a min/max range can apply to (every sort key but the file order). */
export const RANGE_KEYS = Object.keys(SORT_KEYS).filter((k) => k !== 'order');
/** The filter value that keeps the heads flagged by the structure check. */
export const FLAGGED_FILTER = 'flagged';

/** The model's number of the file's layer at `index`: the file's or the typed numbers, else index. */
export const layerNumberOf = (source, index) => source?.layerNumbers?.[index] ?? index;

/** A head result from the worker with its layer numbered: layer = the model's number, layerIndex =
 *  its position in the file (what the worker and the file use). Idempotent. */
export function numberHead(source, r) {
  const layerIndex = r.layerIndex ?? r.layer;
  return Object.assign(r, { layerIndex, layer: layerNumberOf(source, layerIndex) });
}

/** The pattern classes of the core's classifier (docs/analysis.md), in the order shown. */
/** The head pattern classes in the core's order (head_scores.def). */
export { PATTERN_KINDS };

export const MAX_STATE_TOKENS = SCHEMA.limits.maxTokens; // a head opens in the playground up to this
export const MAX_TOKEN_CHARS = SCHEMA.limits.maxTokenLength; // code points of a token label
export const DETAIL_SIDE = 256; // the inspected head is drawn at full resolution up to this

/** A fresh state of the view. */
export function createStore() {
  return {
    source: null, // the worker's description of the open file
    file: null,
    heads: [], // analysis results in file order
    thumbImages: new Map(), // head index -> {bitmap, palette}: its card's thumbnail, until drawn
    reading: 'weights', // what the analysis used
    selected: null, // index of the inspected head
    detail: null, // the inspected head's full analysis (rows, thumbnail at DETAIL_SIDE)
    locked: null, // [i, j] locked cell of the detail heatmap
    running: false,
    causal: false, // the user said the model is causal (for this analysis)
    generation: 0, // counts analyses; a superseded one's messages are dropped
    layers: new Map(), // layer -> the core's summary of its heads analysed so far (layerSummaries)
    structure: null, // the core's structureSummary() of the heads: causal / mixed / bidirectional, flagged
    flagged: new Map(), // head index -> its entry in structure.flagged (rank, mass)
    comparison: null, // the second run compared with this one (web/import/compare.js)
    detailDomain: null, // colour domain of the inspected head's heatmap (for its exports)
    unlockReadout: null, // puts the inspected head's readout back to hovering (Esc)
  };
}

/**
 * The heads shown, in the order shown.
 * @param {object[]} heads the store's heads
 * @param {{sort: string, desc: boolean, filter: string, range?: string, min: string, max: string}} view
 *   the toolbar's values (min, max: as typed, '' = no bound, applied to the metric `range`, else
 *   to the sort metric, else (sorted by layer, head) to Hn: a range is never ignored)
 * @param {Map<number, object>} [flagged] head index -> flag (the filter FLAGGED_FILTER keeps those)
 */
export function visibleHeads(heads, view, flagged = new Map()) {
  const key = SORT_KEYS[view.sort] ?? SORT_KEYS.order;
  const rangeKey = SORT_KEYS[view.range] ?? (key === SORT_KEYS.order ? SORT_KEYS.meanNormalizedEntropy : key);
  const filter = view.filter;
  const min = view.min === '' || view.min === undefined ? -Infinity : Number(view.min);
  const max = view.max === '' || view.max === undefined ? Infinity : Number(view.max);
  const list = heads.filter((r) => {
    if (filter === FLAGGED_FILTER) {
      if (!flagged.has(r.index)) return false;
    } else if (filter && r.pattern.kind !== filter) return false;
    const v = rangeKey.get(r);
    if (min > -Infinity || max < Infinity) return Number.isFinite(v) && v >= min && v <= max;
    return true;
  });
  const dir = view.desc ? -1 : 1;
  list.sort((a, b) => {
    const x = key.get(a);
    const y = key.get(b);
    if (!Number.isFinite(x)) return Number.isFinite(y) ? 1 : a.index - b.index;
    if (!Number.isFinite(y)) return -1;
    return (x - y) * dir || a.index - b.index;
  });
  return list;
}
