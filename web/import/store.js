// The import view's state: the one mutable object every part of the view reads and writes (the
// open file, the heads' results and their per-layer summaries, the reading, the selection and
// the inspected head), and the sort and filter of the overview as plain functions of it.
// Nothing here touches the page.
import { SCHEMA } from '../generated/schema.js';

/** Sort keys of the overview: label and how to read the value from a head's result. */
// Labels are table keys (web/i18n/import.js), read when drawn: the language can change.
export const SORT_KEYS = {
  order: { labelKey: 'import.sort.order', get: (r) => r.index },
  meanNormalizedEntropy: { labelKey: 'import.sort.meanNormalizedEntropy', get: (r) => r.summary.meanNormalizedEntropy },
  meanEntropy: { labelKey: 'import.sort.meanEntropy', get: (r) => r.summary.meanEntropy },
  meanNEff: { labelKey: 'import.sort.meanNEff', get: (r) => r.summary.meanNEff },
  meanTopKMass: { labelKey: 'import.sort.meanTopKMass', get: (r) => r.summary.meanTopKMass },
  meanSinkMass: { labelKey: 'import.sort.meanSinkMass', get: (r) => r.summary.meanSinkMass },
  confidence: { labelKey: 'import.sort.confidence', get: (r) => r.pattern.confidence },
};

/** The pattern classes of the core's classifier (docs/analysis.md), in the order shown. */
export const PATTERN_KINDS = ['sink', 'self', 'previous', 'next', 'offset', 'strided', 'position', 'global'];

export const MAX_STATE_TOKENS = SCHEMA.limits.maxTokens; // a head opens in the playground up to this
export const MAX_TOKEN_CHARS = SCHEMA.limits.maxTokenLength; // code points of a token label
export const DETAIL_SIDE = 256; // the inspected head is drawn at full resolution up to this

/** A fresh state of the view. */
export function createStore() {
  return {
    source: null, // the worker's description of the open file
    file: null,
    heads: [], // analysis results in file order
    reading: 'weights', // what the analysis used
    selected: null, // index of the inspected head
    detail: null, // the inspected head's full analysis (rows, thumbnail at DETAIL_SIDE)
    locked: null, // [i, j] locked cell of the detail heatmap
    running: false,
    causal: false, // the user said the model is causal (for this analysis)
    generation: 0, // counts analyses; a superseded one's messages are dropped
    layers: new Map(), // layer -> the core's summary of its heads analysed so far (layerSummaries)
    detailDomain: null, // colour domain of the inspected head's heatmap (for its exports)
    unlockReadout: null, // puts the inspected head's readout back to hovering (Esc)
  };
}

/**
 * The heads shown, in the order shown.
 * @param {object[]} heads the store's heads
 * @param {{sort: string, desc: boolean, filter: string, min: string, max: string}} view the
 *   toolbar's values (min, max: as typed; '' = no bound)
 */
export function visibleHeads(heads, view) {
  const key = SORT_KEYS[view.sort] ?? SORT_KEYS.order;
  const filter = view.filter;
  const min = view.min === '' ? -Infinity : Number(view.min);
  const max = view.max === '' ? Infinity : Number(view.max);
  const list = heads.filter((r) => {
    if (filter && r.pattern.kind !== filter) return false;
    const v = key.get(r);
    if (key !== SORT_KEYS.order && (min > -Infinity || max < Infinity)) return Number.isFinite(v) && v >= min && v <= max;
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
