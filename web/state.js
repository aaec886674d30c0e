// The playground's state outside the core: the default state, bit-exact equality and the
// URL-fragment codec of docs/state.md "The link". Plain ES module with no DOM access and no
// attention maths, so the page, the node tests and any tool can share it.
//
// The schema's rules (fields, types, ranges, limits, key lists, shapes, string rules) have one
// implementation, in the C++ core (cpp/src/io/state_schema.cpp): web/core.js validateState() and
// decodeLink() call it. Every state that enters the page (link, API call, file) goes through it
// once; everything downstream may then trust the shapes and ranges. The constants below come from
// the same place (web/generated/schema.js, written by scripts/build.sh from `attn schema`).

import { SCHEMA } from './generated/schema.js';
import { StateError } from './errors.js';
import { isRecord } from './codec/values.js';

export { StateError };
// The link codec (docs/state.md "The link"), kept under its old address.
export { decodeLink, encodeLink } from './codec/link.js';

/** Version of the state schema and of the link format (`v=` in the link). */
export const SCHEMA_VERSION = SCHEMA.version;

/**
 * A state of docs/state.md, as validateState() returns it (keys in this order).
 * @typedef {object} State
 * @property {1} version
 * @property {'qkv'|'logits'|'weights'|'x'} mode
 * @property {Head[]} heads 1..64 heads, all with the same n_q x n_k
 * @property {{X: number[][], WO: number[][]|null, residual: boolean}} [x] mode "x" only (and
 *   required there): the token vectors X (n x d_model, finite, 1 <= d_model <= 1024), the output
 *   projection WO ((sum over heads of d_v) x d_out, finite, 1 <= d_out <= 1024) or null (the layer
 *   output is the heads' outputs side by side), residual: add X to the layer output (needs
 *   d_out = d_model)
 * @property {number} head integer, 0 <= head < heads.length
 * @property {{queries: string[], keys: string[]}} tokens n_q and n_k labels, <= 200 code points each
 * @property {{causal: boolean, window: number, padding: boolean[], allow: boolean[][]|null,
 *   stride?: number, sinks?: number}} mask
 *   window: integer 0..4096 (0 = off); padding: n_k flags; allow: n_q x n_k or null;
 *   stride: integer 0..4096, key j visible only if t - j is a multiple of it (0 or 1 = off; absent
 *   = 0); sinks: integer 0..4096, the first `sinks` keys are exempt from window and stride
 *   (StreamingLLM; absent = 0)
 * @property {number} tau finite, 0 < tau <= 1000
 * @property {'auto'|number} scale "auto" or finite > 0
 * @property {number} topK integer 1..4096
 * @property {number} row integer, 0 <= row < n_q
 * @property {{panel: 'weights'|'scores', preset: string, numbers: 'auto'|'on'|'off'}} view
 *   preset: [A-Za-z0-9._-], 1..100 chars; numbers: numbers in heatmap cells (auto: up to 16 keys)
 * @property {string} source <= 500 code points
 * @property {{view: string, params: object}} [lab] optional: the analysis-lab view shown
 *   (LAB_VIEWS or "none") and its parameters (docs/lab.md); absent = no lab view
 * @property {{step: number, predictions: object, revealed: number[]}} [lesson] optional: the
 *   guided lesson's step (1..5), the student's predictions and the revealed steps
 *   (docs/lesson.md); absent = no lesson
 */
/**
 * One attention head. Matrices are arrays of rows; a matrix the mode does not need may be null.
 * @typedef {object} Head
 * @property {string} name <= 200 code points
 * @property {number[][]|null} Q n_q x d_k, finite (required in mode "qkv"), 1 <= d_k <= 1024
 * @property {number[][]|null} K n_k x d_k, finite (required in mode "qkv")
 * @property {number[][]|null} V n_k x d_v, finite, 0 <= d_v <= 1024
 * @property {(number|null)[][]|null} logits n_q x n_k, finite or null = masked (mode "logits")
 * @property {number[][]|null} weights n_q x n_k, finite and >= 0 (mode "weights")
 * @property {number[][]} [WQ] mode "x" only: d_model x d_k, finite; Q = X WQ
 * @property {number[][]} [WK] mode "x" only: d_model x d_k (the same d_k); K = X WK
 * @property {number[][]} [WV] mode "x" only: d_model x d_v, 1 <= d_v <= 1024; V = X WV
 * @property {number[]} [gate] optional, any mode: n_q finite gate logits g_t; the head's output
 *   row t is multiplied by sigmoid(g_t) (Qiu et al. 2025, G1); absent = no gate
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
