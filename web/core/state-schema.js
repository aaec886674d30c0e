// The playground's state outside the core: the default state, bit-exact equality and the
// schema's constants (the link codec, docs/state.md "The link", is web/codec/link.js, which
// imports this module). Plain ES module with no DOM access and no
// attention maths, so the page, the node tests and any tool can share it.
//
// The schema's rules (fields, types, ranges, limits, key lists, shapes, string rules) have one
// implementation, in the C++ core (cpp/src/io/state_schema.cpp): web/core/core.js validateState() and
// decodeLink() call it. Every state that enters the page (link, API call, file) goes through it
// once; everything downstream may then trust the shapes and ranges. The constants below come from
// the same place (web/generated/schema.js, written by scripts/build.sh from `attn schema`).

import { SCHEMA } from '../generated/schema.js';
import { StateError } from './error-types.js';
import { isRecord } from '../codec/values.js';

export { StateError };

/** Version of the state schema and of the link format (`v=` in the link). */
export const SCHEMA_VERSION = SCHEMA.version;

/**
 * A state of docs/state.md, as core.validateState() returns it (keys in this order). The shapes
 * only: every range and limit is the schema's (cpp/src/io/state_schema.cpp, docs/state.md).
 * @typedef {object} State
 * @property {1} version
 * @property {'qkv'|'logits'|'weights'|'x'} mode
 * @property {Head[]} heads all with the same n_q x n_k
 * @property {{X: number[][], WO: number[][]|null, residual: boolean}} [x] mode "x" only (and
 *   required there): the token vectors X (n x d_model), the output projection WO
 *   ((sum over heads of d_v) x d_out) or null, residual: add X to the layer output
 * @property {number} head the head shown
 * @property {{queries: string[], keys: string[]}} tokens n_q and n_k labels
 * @property {{causal: boolean, window: number, padding: boolean[], allow: boolean[][]|null,
 *   stride?: number, sinks?: number}} mask
 * @property {number} tau temperature
 * @property {'auto'|number} scale "auto" (1/sqrt(d_k)) or a number
 * @property {number} topK k of the top-k mass
 * @property {number} row the selected query row
 * @property {{panel: 'weights'|'scores', preset: string, numbers: 'auto'|'on'|'off'}} view
 * @property {string} source provenance line
 * @property {{view: string, params: object}} [lab] optional: the analysis-lab view and its
 *   parameters (docs/lab.md)
 * @property {{step: number, predictions: object, revealed: number[]}} [lesson] optional: the
 *   guided lesson (docs/lesson.md)
 */
/**
 * One attention head. Matrices are arrays of rows; a matrix the mode does not need may be null.
 * @typedef {object} Head
 * @property {string} name
 * @property {number[][]|null} Q n_q x d_k (mode "qkv")
 * @property {number[][]|null} K n_k x d_k (mode "qkv")
 * @property {number[][]|null} V n_k x d_v
 * @property {(number|null)[][]|null} logits n_q x n_k, null = masked (mode "logits")
 * @property {number[][]|null} weights n_q x n_k (mode "weights")
 * @property {number[][]} [WQ] mode "x" only: d_model x d_k; Q = X WQ
 * @property {number[][]} [WK] mode "x" only: d_model x d_k; K = X WK
 * @property {number[][]} [WV] mode "x" only: d_model x d_v; V = X WV
 * @property {number[]} [gate] optional: n_q gate logits; output row t times sigmoid(g_t)
 */

/**
 * Hard limits: the schema's (from the core: maxTokens, maxDim, maxHeads, maxTau, maxTokenLength,
 * maxNameLength, maxSourceLength, maxPresetLength, labMaxParams, labMaxString; docs/state.md)
 * and the link codec's own:
 * - maxLinkLength: longest fragment decodeLink() reads and encodeLink() writes, in characters.
 * - maxBlockBytes: largest uncompressed data block of a link; it bounds the memory a hostile link
 *   can make the decoder allocate.
 */
export const LIMITS = Object.freeze({
  ...SCHEMA.limits,
  maxLinkLength: 4_000_000,
  maxBlockBytes: 64 * 1024 * 1024,
});

/** The analysis-lab views in display order (cpp/include/attn/lab_views.def). */
export const LAB_VIEWS = SCHEMA.labViews;
/** The state's modes (docs/state.md), from the core's schema. */
export const MODES = SCHEMA.modes;
/** The guided lesson's number of steps and the names of its predictions (docs/lesson.md). */
export const LESSON_STEPS = SCHEMA.lesson.steps;
export const LESSON_PREDICTIONS = Object.freeze([...Object.keys(SCHEMA.lesson.lists), ...Object.keys(SCHEMA.lesson.choices)]);

/**
 * The lesson's worked example 1: one query against two keys, Q K^T = [1, 0].
 * @returns {State} a new, valid state (a fresh object on every call, safe to mutate)
 */
export function defaultState() {
  return {
    version: SCHEMA_VERSION,
    mode: 'qkv',
    heads: [
      {
        name: 'example 1',
        Q: [[1, 0]],
        K: [
          [1, 0],
          [0, 1],
        ],
        V: [
          [2, 0],
          [0, 4],
        ],
        logits: null,
        weights: null,
      },
    ],
    head: 0,
    tokens: { queries: ['q'], keys: ['k1', 'k2'] },
    mask: { causal: false, window: 0, padding: [false, false], allow: null },
    tau: 1,
    scale: 1,
    topK: 2,
    row: 0,
    view: { panel: 'weights', preset: 'example1', numbers: 'auto' },
    source: 'Worked example 1 of the lesson: q = (1,0), k1 = (1,0), k2 = (0,1), v1 = (2,0), v2 = (0,4), no scaling.',
  };
}

// ---------------------------------------------------------------------------------------------
// Equality
// ---------------------------------------------------------------------------------------------

/**
 * Deep, bit-exact equality of two JSON-like values: numbers compare with Object.is (so -0 differs
 * from 0 and NaN equals NaN), arrays element-wise, objects by their own enumerable keys in any
 * order. Never throws for JSON-like input.
 * @param {unknown} a
 * @param {unknown} b
 * @returns {boolean}
 */
export function statesEqual(a, b) {
  if (typeof a === 'number' || typeof b === 'number') return Object.is(a, b);
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!statesEqual(a[i], b[i])) return false;
    return true;
  }
  if (!isRecord(a) || !isRecord(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) {
    if (!Object.prototype.hasOwnProperty.call(b, key) || !statesEqual(a[key], b[key])) return false;
  }
  return true;
}
