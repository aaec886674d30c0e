// The playground's state: the one versioned schema of docs/state.md, its defaults, its validation
// and its URL-fragment codec. Plain ES module with no DOM access and no attention maths, so the
// page, the node tests and any tool can share it. Every state that enters the program (link, API
// call, file) goes through validateState() or decodeLink() once; everything downstream may then
// trust the shapes and ranges without re-checking.

import { deflateSync, inflateSync, strToU8, strFromU8 } from './vendor/vendor.js';
import { isPageOptionKey } from './page-options.js';

/** Version of the state schema and of the link format (`v=` in the link). */
export const SCHEMA_VERSION = 1;

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
 * Hard limits of the schema. They mirror the C++ core (`kMaxTokens`, `kMaxDim`) so that a state
 * accepted here is never refused by the core for its size.
 * - maxTokens: n_q, n_k, `mask.window` and `topK` are at most this.
 * - maxDim: d_k and d_v are at most this.
 * - maxHeads: `heads.length` is 1..maxHeads.
 * - maxTau: `tau` is in (0, maxTau].
 * - maxTokenLength / maxNameLength / maxSourceLength / maxPresetLength: string lengths, counted in
 *   Unicode code points (so an emoji counts as one, as a reader would count it).
 * - maxLinkLength: longest fragment decodeLink() reads and encodeLink() writes, in characters.
 * - maxBlockBytes: largest uncompressed data block of a link; it bounds the memory a hostile link
 *   can make the decoder allocate.
 */
export const LIMITS = Object.freeze({
  maxTokens: 4096,
  maxDim: 1024,
  maxHeads: 64,
  maxTau: 1000,
  maxTokenLength: 200,
  maxNameLength: 200,
  maxSourceLength: 500,
  maxPresetLength: 100,
  maxLinkLength: 4_000_000,
  maxBlockBytes: 64 * 1024 * 1024,
});

const MODES = ['qkv', 'logits', 'weights', 'x'];
const PANELS = ['weights', 'scores'];
// Preset ids go into the link unescaped, so they are kept to URL-safe characters.
const PRESET_PATTERN = /^[A-Za-z0-9._-]+$/;
const MATRIX_NAMES = ['Q', 'K', 'V', 'logits', 'weights'];
const STATE_KEYS = ['version', 'mode', 'heads', 'head', 'tokens', 'mask', 'tau', 'scale', 'topK', 'row', 'view', 'source', 'lab', 'lesson', 'x'];
// Mode "x" (multi-head from X): the projections of each head, and the layer's own object.
const PROJECTION_NAMES = ['WQ', 'WK', 'WV'];
const X_KEYS = ['X', 'WO', 'residual'];

/** The analysis-lab views (the C++ core's lab_views(), cpp/src/lab.cpp), in display order. */
export const LAB_VIEWS = Object.freeze(['patterns', 'normalisers', 'sink', 'routing', 'saturation', 'spectral', 'linear', 'sweep', 'sensitivity']);
const LAB_KEYS = ['view', 'params'];
const LAB_PARAM_NAME = /^[A-Za-z][A-Za-z0-9]{0,31}$/;
const LAB_MAX_PARAMS = 32;
const LAB_MAX_STRING = 64;
// The guided lesson (web/lesson/, docs/lesson.md): the step, the student's predictions, the steps
// whose answers are shown. Predictions are short choices; key and cell lists are bounded.
export const LESSON_STEPS = 5;
const LESSON_KEYS = ['step', 'predictions', 'revealed'];
const LESSON_CHOICES = Object.freeze({
  entropy: ['up', 'down', 'same'],
  sums: ['yes', 'no'],
  renorm: ['same', 'renormalised', 'less'],
  scores: ['change', 'same'],
  largest: ['yes', 'no'],
  reproduce: ['yes', 'no'],
});
// Lists of indices: keys whose weight rises (step 1), cells t * n_k + j that become zero (step 3).
const LESSON_LISTS = Object.freeze({ rise: { max: 63, length: 64 }, zeros: { max: 4095, length: 256 } });
export const LESSON_PREDICTIONS = Object.freeze([...Object.keys(LESSON_LISTS), ...Object.keys(LESSON_CHOICES)]);
const HEAD_KEYS = ['name', ...MATRIX_NAMES, ...PROJECTION_NAMES, 'gate'];
const TOKENS_KEYS = ['queries', 'keys'];
const MASK_KEYS = ['causal', 'window', 'padding', 'allow', 'stride', 'sinks'];
const VIEW_KEYS = ['panel', 'preset', 'numbers'];
const NUMBERS = ['auto', 'on', 'off'];

/**
 * Thrown for any state or link that does not satisfy docs/state.md.
 * `field` is the path of the offending field ("tau", "heads[0].Q[1][0]", "tokens.keys", "d",
 * "link"), `message` a sentence a teacher can act on.
 */
export class StateError extends Error {
  /**
   * @param {string} field path of the offending field
   * @param {string} message what is wrong, in plain English
   */
  constructor(field, message) {
    super(message);
    this.name = 'StateError';
    this.field = field;
  }
}

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
        K: [[1, 0], [0, 1]],
        V: [[2, 0], [0, 4]],
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
// Validation
// ---------------------------------------------------------------------------------------------

/** Short description of a value for error messages ("-1", "\"abc\"", "an object"). */
function describe(value) {
  if (typeof value === 'number') return Object.is(value, -0) ? '-0' : String(value);
  if (typeof value === 'string') {
    const shown = value.length > 40 ? `${value.slice(0, 40)}...` : value;
    return JSON.stringify(shown);
  }
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `an array of length ${value.length}`;
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

/** Own property or undefined: an inherited `tau` (or a polluted prototype) must never count. */
function own(object, key) {
  return Object.prototype.hasOwnProperty.call(object, key) ? object[key] : undefined;
}

function isRecord(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function requireRecord(value, path) {
  if (!isRecord(value)) throw new StateError(path, `${path} must be an object (got ${describe(value)})`);
  return value;
}

/**
 * Unknown keys are refused rather than dropped: a typo such as "temperature" would otherwise be
 * silently ignored, and keys like "__proto__" (own properties after JSON.parse) never get through.
 */
function rejectUnknownKeys(object, allowed, path) {
  for (const key of Object.keys(object)) {
    if (!allowed.includes(key)) {
      const where = path === '' ? 'the state' : path;
      throw new StateError(
        path === '' ? key : `${path}.${key}`,
        `${where} has an unknown field ${JSON.stringify(key)} (known fields: ${allowed.join(', ')})`,
      );
    }
  }
}

function requireInteger(value, path, min, max) {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new StateError(path, `${path} must be an integer from ${min} to ${max} (got ${describe(value)})`);
  }
  return value + 0; // -0 becomes 0: the link writes String(-0) = "0", so keep integers canonical
}

function requireBoolean(value, path) {
  if (typeof value !== 'boolean') throw new StateError(path, `${path} must be true or false (got ${describe(value)})`);
  return value;
}

/** Length in code points, counting a lone surrogate as one (as `for...of` and `[...text]` do). */
function codePointLength(text) {
  let count = 0;
  for (let i = 0; i < text.length; i++, count++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
  }
  return count;
}

function requireString(value, path, maxLength) {
  if (typeof value !== 'string') throw new StateError(path, `${path} must be a string (got ${describe(value)})`);
  // Cheap bound first: a string of more than 2*max UTF-16 units has more than max code points.
  if (value.length > maxLength && (value.length > 2 * maxLength || codePointLength(value) > maxLength)) {
    throw new StateError(path, `${path} must be at most ${maxLength} characters (got ${codePointLength(value)})`);
  }
  return value;
}

function requireOneOf(value, path, choices) {
  if (!choices.includes(value)) {
    const list = choices.map((c) => JSON.stringify(c)).join(', ');
    throw new StateError(path, `${path} must be one of ${list} (got ${describe(value)})`);
  }
  return value;
}

/** Cell rules of the matrix fields. */
const CELL_RULES = {
  finite: { accepts: (x) => typeof x === 'number' && Number.isFinite(x), wants: 'a finite number' },
  finiteOrNull: {
    accepts: (x) => x === null || (typeof x === 'number' && Number.isFinite(x)),
    wants: 'a finite number or null (masked)',
  },
  nonNegative: { accepts: (x) => typeof x === 'number' && Number.isFinite(x) && x >= 0, wants: 'a finite number >= 0' },
  boolean: { accepts: (x) => typeof x === 'boolean', wants: 'true or false' },
};

/**
 * Checks a rectangular matrix (array of row arrays) and returns a copy.
 * @returns {{rows: number, cols: number, data: Array<Array<*>>}}
 */
function readMatrix(value, path, { minCols, maxCols, cell }) {
  if (!Array.isArray(value)) {
    throw new StateError(path, `${path} must be a matrix (an array of rows) or null (got ${describe(value)})`);
  }
  const rows = value.length;
  if (rows < 1 || rows > LIMITS.maxTokens) {
    throw new StateError(path, `${path} must have 1 to ${LIMITS.maxTokens} rows (got ${rows})`);
  }
  const rule = CELL_RULES[cell];
  let cols = -1;
  const data = new Array(rows);
  for (let i = 0; i < rows; i++) {
    const row = value[i];
    const rowPath = `${path}[${i}]`;
    if (!Array.isArray(row)) throw new StateError(rowPath, `${rowPath} must be an array (got ${describe(row)})`);
    if (i === 0) {
      cols = row.length;
      if (cols < minCols || cols > maxCols) {
        throw new StateError(path, `${path} must have ${minCols} to ${maxCols} columns (got ${cols})`);
      }
    } else if (row.length !== cols) {
      throw new StateError(
        rowPath,
        `${rowPath} has ${row.length} values but ${path}[0] has ${cols}; a matrix must be rectangular`,
      );
    }
    const copy = new Array(cols);
    for (let j = 0; j < cols; j++) {
      const x = row[j];
      if (!rule.accepts(x)) {
        throw new StateError(`${rowPath}[${j}]`, `${rowPath}[${j}] must be ${rule.wants} (got ${describe(x)})`);
      }
      copy[j] = x;
    }
    data[i] = copy;
  }
  return { rows, cols, data };
}

function readStringList(value, path, maxLength) {
  if (!Array.isArray(value)) throw new StateError(path, `${path} must be an array of strings (got ${describe(value)})`);
  return Array.from({ length: value.length }, (_, i) => requireString(value[i], `${path}[${i}]`, maxLength));
}

/** Which matrix gives n_q and n_k in each mode. */
const SHAPE_SOURCE = { qkv: ['Q', 'K'], logits: ['logits', 'logits'], weights: ['weights', 'weights'] };

/**
 * Validates one head and returns a copy; `shape` carries n_q/n_k from head 0 to the others
 * (tokens are shared, so every head must have the same n_q x n_k). In mode "x", `shape` already
 * holds n = rows of x.X and d_model, and the head's d_v is added to shape.sumDv.
 */
function readHead(value, index, mode, shape) {
  const path = `heads[${index}]`;
  requireRecord(value, path);
  rejectUnknownKeys(value, HEAD_KEYS, path);
  const name = requireString(own(value, 'name'), `${path}.name`, LIMITS.maxNameLength);
  if (mode === 'x') return readProjectedHead(value, path, name, shape);
  for (const key of PROJECTION_NAMES) {
    const w = own(value, key);
    if (w !== undefined && w !== null) {
      throw new StateError(`${path}.${key}`, `${path}.${key} is only used in mode "x" (Q = X WQ, K = X WK, V = X WV); remove it or set mode to "x"`);
    }
  }

  // Missing matrices mean "not given", like null (docs/state.md: "absent = no output" for V).
  const read = (key, options) => {
    const m = own(value, key);
    return m === undefined || m === null ? null : readMatrix(m, `${path}.${key}`, options);
  };
  const dims = { minCols: 1, maxCols: LIMITS.maxDim, cell: 'finite' };
  const m = {
    Q: read('Q', dims),
    K: read('K', dims),
    V: read('V', { minCols: 0, maxCols: LIMITS.maxDim, cell: 'finite' }),
    logits: read('logits', { minCols: 1, maxCols: LIMITS.maxTokens, cell: 'finiteOrNull' }),
    weights: read('weights', { minCols: 1, maxCols: LIMITS.maxTokens, cell: 'nonNegative' }),
  };

  const needed = mode === 'qkv' ? ['Q', 'K'] : [mode];
  for (const key of needed) {
    if (m[key] === null) {
      throw new StateError(`${path}.${key}`, `${path}.${key} is required in mode "${mode}" (got null)`);
    }
  }

  // n_q and n_k come from the mode's own matrix of head 0; every other matrix present must agree,
  // even when the mode does not use it, so that switching mode never meets a mismatched matrix.
  if (shape.nQ === undefined) {
    const [qFrom, kFrom] = SHAPE_SOURCE[mode];
    shape.nQ = m[qFrom].rows;
    shape.nK = mode === 'qkv' ? m[kFrom].rows : m[kFrom].cols;
    shape.from = { q: `${path}.${qFrom}`, k: `${path}.${kFrom}` };
  }
  const expect = (key, what, actual, wanted, from) => {
    if (actual !== wanted) {
      throw new StateError(
        `${path}.${key}`,
        `${path}.${key} has ${actual} ${what} but ${from} gives ${wanted}`,
      );
    }
  };
  const qFrom = `n_q = ${shape.nQ} (rows of ${shape.from.q})`;
  const kFrom = `n_k = ${shape.nK} (${shape.from.k === shape.from.q ? 'columns' : 'rows'} of ${shape.from.k})`;
  if (m.Q) expect('Q', 'rows', m.Q.rows, shape.nQ, qFrom);
  if (m.K) expect('K', 'rows', m.K.rows, shape.nK, kFrom);
  if (m.V) expect('V', 'rows', m.V.rows, shape.nK, kFrom);
  for (const key of ['logits', 'weights']) {
    if (m[key]) {
      expect(key, 'rows', m[key].rows, shape.nQ, qFrom);
      expect(key, 'columns', m[key].cols, shape.nK, kFrom);
    }
  }
  if (m.Q && m.K && m.Q.cols !== m.K.cols) {
    throw new StateError(
      `${path}.K`,
      `${path}.K has ${m.K.cols} columns but ${path}.Q has ${m.Q.cols}; Q and K must share d_k`,
    );
  }

  const head = { name };
  for (const key of MATRIX_NAMES) head[key] = m[key] ? m[key].data : null;
  const gate = readGate(value, path, shape.nQ);
  if (gate) head.gate = gate;
  return head;
}

/** heads[i].gate: absent or null (no gate, left out of the validated head) or n_q finite numbers. */
function readGate(value, path, nQ) {
  const gate = own(value, 'gate');
  if (gate === undefined || gate === null) return null;
  const field = `${path}.gate`;
  if (!Array.isArray(gate)) throw new StateError(field, `${field} must be null or a list of gate logits, one number per query row (got ${describe(gate)})`);
  if (gate.length !== nQ) {
    throw new StateError(field, `${field} has ${gate.length} gate logits but there are n_q = ${nQ} query rows; a gate has one logit per query row`);
  }
  return Array.from({ length: nQ }, (_, t) => {
    const g = gate[t];
    if (typeof g !== 'number' || !Number.isFinite(g)) throw new StateError(`${field}[${t}]`, `${field}[${t}] must be a finite number (got ${describe(g)})`);
    return g;
  });
}

/**
 * A head of mode "x": Q, K, V, logits and weights must be null (they are derived from X); WQ, WK
 * and WV are d_model x d_k, d_model x d_k and d_model x d_v.
 */
function readProjectedHead(value, path, name, shape) {
  for (const key of MATRIX_NAMES) {
    const m = own(value, key);
    if (m !== undefined && m !== null) {
      throw new StateError(`${path}.${key}`, `${path}.${key} must be null in mode "x": the head's Q, K and V are derived from x.X and its WQ, WK, WV`);
    }
  }
  const w = {};
  for (const key of PROJECTION_NAMES) {
    const m = own(value, key);
    const what = key === 'WV' ? 'd_v' : 'd_k';
    if (m === undefined || m === null) {
      throw new StateError(`${path}.${key}`, `${path}.${key} is required in mode "x" (a d_model x ${what} matrix; got ${describe(m)})`);
    }
    w[key] = readMatrix(m, `${path}.${key}`, { minCols: 1, maxCols: LIMITS.maxDim, cell: 'finite' });
    if (w[key].rows !== shape.dModel) {
      throw new StateError(`${path}.${key}`, `${path}.${key} has ${w[key].rows} rows but x.X has d_model = ${shape.dModel} columns; a projection is d_model x ${what}`);
    }
  }
  if (w.WQ.cols !== w.WK.cols) {
    throw new StateError(`${path}.WK`, `${path}.WK has ${w.WK.cols} columns but ${path}.WQ has ${w.WQ.cols}; WQ and WK must share d_k`);
  }
  shape.sumDv += w.WV.cols;
  const head = { name, Q: null, K: null, V: null, logits: null, weights: null, WQ: w.WQ.data, WK: w.WK.data, WV: w.WV.data };
  const gate = readGate(value, path, shape.nQ);
  if (gate) head.gate = gate;
  return head;
}

/** The `x` object of mode "x", without the checks that need every head's d_v. */
function readX(xIn) {
  const x = requireRecord(xIn, 'x');
  rejectUnknownKeys(x, X_KEYS, 'x');
  const X = own(x, 'X');
  if (X === undefined || X === null) throw new StateError('x.X', 'x.X is required in mode "x": the token vectors, one row per token (n x d_model)');
  const m = readMatrix(X, 'x.X', { minCols: 1, maxCols: LIMITS.maxDim, cell: 'finite' });
  const WOIn = own(x, 'WO');
  const WO = WOIn === undefined || WOIn === null ? null : readMatrix(WOIn, 'x.WO', { minCols: 1, maxCols: LIMITS.maxDim, cell: 'finite' });
  const residual = requireBoolean(own(x, 'residual'), 'x.residual');
  return { X: m, WO, residual };
}

/**
 * Checks a state against docs/state.md and returns a normalised deep copy.
 *
 * Normalisation: keys in schema order; missing matrices (Q, K, V, logits, weights, mask.allow)
 * become null (as the C++ adapter reads them); -0 in integer fields becomes 0. Nothing else is
 * defaulted: a missing field is an error. Unknown keys are refused at every level. Matrices the
 * mode does not use may be null; when given they are validated like the others and must fit
 * n_q x n_k.
 *
 * @param {unknown} state candidate state (e.g. parsed JSON)
 * @returns {State} a new valid state sharing nothing with the input
 * @throws {StateError} naming the first offending field, e.g. field "tau" with message
 *   "tau must be a number > 0 and <= 1000 (got -1)"
 */
export function validateState(state) {
  try {
    return readState(state);
  } catch (error) {
    if (error instanceof StateError) throw error;
    // A getter or proxy in the input could throw anything; callers are promised StateError only.
    throw new StateError('state', `the state could not be read (${error && error.message})`);
  }
}

function readState(state) {
  if (!isRecord(state)) throw new StateError('state', `the state must be an object (got ${describe(state)})`);
  rejectUnknownKeys(state, STATE_KEYS, '');

  const version = own(state, 'version');
  if (version !== SCHEMA_VERSION) {
    throw new StateError('version', `version must be ${SCHEMA_VERSION} (got ${describe(version)}); this page reads version ${SCHEMA_VERSION} states`);
  }
  const mode = requireOneOf(own(state, 'mode'), 'mode', MODES);

  const headsIn = own(state, 'heads');
  if (!Array.isArray(headsIn) || headsIn.length < 1 || headsIn.length > LIMITS.maxHeads) {
    throw new StateError('heads', `heads must be an array of 1 to ${LIMITS.maxHeads} heads (got ${describe(headsIn)})`);
  }
  const shape = {};
  const xIn = own(state, 'x');
  let x = null;
  if (mode === 'x') {
    if (xIn === undefined || xIn === null) throw new StateError('x', 'x is required in mode "x": {X, WO, residual}');
    x = readX(xIn);
    Object.assign(shape, { nQ: x.X.rows, nK: x.X.rows, dModel: x.X.cols, sumDv: 0, from: { q: 'x.X', k: 'x.X' } });
  } else if (xIn !== undefined && xIn !== null) {
    throw new StateError('x', `x is only used in mode "x" (multi-head attention from X); remove it or set mode to "x" (mode is ${describe(mode)})`);
  }
  const heads = Array.from({ length: headsIn.length }, (_, i) => readHead(headsIn[i], i, mode, shape));
  const { nQ, nK } = shape;
  if (x) {
    if (x.WO && x.WO.rows !== shape.sumDv) {
      throw new StateError('x.WO', `x.WO has ${x.WO.rows} rows but the heads' outputs side by side have ${shape.sumDv} columns (the sum of every head's d_v); WO must be ${shape.sumDv} x d_out`);
    }
    if (shape.sumDv > LIMITS.maxTokens) {
      throw new StateError('heads', `the heads' d_v add up to ${shape.sumDv}; the layer's concatenation holds at most ${LIMITS.maxTokens} columns`);
    }
    const dOut = x.WO ? x.WO.cols : shape.sumDv;
    if (x.residual && dOut !== shape.dModel) {
      throw new StateError('x.residual', `the residual X + output needs the output width (${dOut}, ${x.WO ? 'the columns of x.WO' : "the sum of the heads' d_v, as there is no WO"}) to equal d_model = ${shape.dModel} (the columns of x.X)`);
    }
  }
  const head = requireInteger(own(state, 'head'), 'head', 0, heads.length - 1);

  const tokensIn = requireRecord(own(state, 'tokens'), 'tokens');
  rejectUnknownKeys(tokensIn, TOKENS_KEYS, 'tokens');
  const tokens = {
    queries: readStringList(own(tokensIn, 'queries'), 'tokens.queries', LIMITS.maxTokenLength),
    keys: readStringList(own(tokensIn, 'keys'), 'tokens.keys', LIMITS.maxTokenLength),
  };
  if (tokens.queries.length !== nQ) {
    throw new StateError('tokens.queries', `tokens.queries has ${tokens.queries.length} labels but there are n_q = ${nQ} queries (rows of ${shape.from.q})`);
  }
  if (tokens.keys.length !== nK) {
    throw new StateError('tokens.keys', `tokens.keys has ${tokens.keys.length} labels but there are n_k = ${nK} keys (from ${shape.from.k})`);
  }

  const maskIn = requireRecord(own(state, 'mask'), 'mask');
  rejectUnknownKeys(maskIn, MASK_KEYS, 'mask');
  const paddingIn = own(maskIn, 'padding');
  if (!Array.isArray(paddingIn) || paddingIn.length !== nK) {
    throw new StateError('mask.padding', `mask.padding must be an array of n_k = ${nK} booleans (got ${describe(paddingIn)})`);
  }
  const padding = Array.from({ length: nK }, (_, j) => requireBoolean(paddingIn[j], `mask.padding[${j}]`));
  const allowIn = own(maskIn, 'allow');
  let allow = null;
  if (allowIn !== undefined && allowIn !== null) {
    const m = readMatrix(allowIn, 'mask.allow', { minCols: 1, maxCols: LIMITS.maxTokens, cell: 'boolean' });
    if (m.rows !== nQ || m.cols !== nK) {
      throw new StateError('mask.allow', `mask.allow is ${m.rows} x ${m.cols} but must be n_q x n_k = ${nQ} x ${nK}`);
    }
    allow = m.data;
  }
  const mask = {
    causal: requireBoolean(own(maskIn, 'causal'), 'mask.causal'),
    window: requireInteger(own(maskIn, 'window'), 'mask.window', 0, LIMITS.maxTokens),
    padding,
    allow,
  };
  // Optional, absent = 0 (and left out when 0, so older states and links read unchanged).
  const stride = own(maskIn, 'stride') === undefined ? 0 : requireInteger(own(maskIn, 'stride'), 'mask.stride', 0, LIMITS.maxTokens);
  const sinks = own(maskIn, 'sinks') === undefined ? 0 : requireInteger(own(maskIn, 'sinks'), 'mask.sinks', 0, LIMITS.maxTokens);
  if (stride) mask.stride = stride;
  if (sinks) mask.sinks = sinks;

  const tau = own(state, 'tau');
  if (typeof tau !== 'number' || !Number.isFinite(tau) || !(tau > 0) || tau > LIMITS.maxTau) {
    throw new StateError('tau', `tau must be a number > 0 and <= ${LIMITS.maxTau} (got ${describe(tau)})`);
  }
  const scale = own(state, 'scale');
  if (scale !== 'auto' && (typeof scale !== 'number' || !Number.isFinite(scale) || !(scale > 0))) {
    throw new StateError('scale', `scale must be "auto" or a finite number > 0 (got ${describe(scale)})`);
  }
  const topK = requireInteger(own(state, 'topK'), 'topK', 1, LIMITS.maxTokens);
  const row = requireInteger(own(state, 'row'), 'row', 0, nQ - 1);

  const viewIn = requireRecord(own(state, 'view'), 'view');
  rejectUnknownKeys(viewIn, VIEW_KEYS, 'view');
  const preset = requireString(own(viewIn, 'preset'), 'view.preset', LIMITS.maxPresetLength);
  if (!PRESET_PATTERN.test(preset)) {
    throw new StateError('view.preset', `view.preset must be a preset id made of letters, digits, ".", "_" and "-" (got ${describe(preset)})`);
  }
  const view = {
    panel: requireOneOf(own(viewIn, 'panel'), 'view.panel', PANELS),
    preset,
    numbers: requireOneOf(own(viewIn, 'numbers'), 'view.numbers', NUMBERS),
  };

  const source = requireString(own(state, 'source'), 'source', LIMITS.maxSourceLength);

  const out = { version, mode, heads, head, tokens, mask, tau, scale, topK, row, view, source };
  const labIn = own(state, 'lab');
  if (labIn !== undefined) out.lab = readLab(labIn);
  const lessonIn = own(state, 'lesson');
  if (lessonIn !== undefined) out.lesson = readLesson(lessonIn);
  if (x) out.x = { X: x.X.data, WO: x.WO ? x.WO.data : null, residual: x.residual };
  return out;
}

/**
 * The optional `lab` object: {view, params}. Each parameter is a finite number, a boolean, null,
 * a short string or an array of at most maxTokens finite numbers; its range is the analysis'
 * business (the core refuses out-of-range values with field "lab.params.<name>").
 */
function readLab(labIn) {
  const lab = requireRecord(labIn, 'lab');
  rejectUnknownKeys(lab, LAB_KEYS, 'lab');
  const view = requireOneOf(own(lab, 'view'), 'lab.view', ['none', ...LAB_VIEWS]);
  const paramsIn = own(lab, 'params') === undefined ? {} : requireRecord(own(lab, 'params'), 'lab.params');
  const names = Object.keys(paramsIn);
  if (names.length > LAB_MAX_PARAMS) throw new StateError('lab.params', `lab.params has ${names.length} entries, at most ${LAB_MAX_PARAMS}`);
  const params = {};
  for (const name of names) {
    const path = `lab.params.${name}`;
    if (!LAB_PARAM_NAME.test(name)) throw new StateError('lab.params', `lab.params has a parameter named ${describe(name)}; names are letters and digits`);
    const x = paramsIn[name];
    // Numbers: -0 becomes 0 (the link carries lab as JSON, which has no -0). Arrays: Array.from,
    // not every()/spread alone, so that a hole is checked (and refused) rather than skipped.
    if (x === null || typeof x === 'boolean' || (typeof x === 'number' && Number.isFinite(x))) {
      params[name] = typeof x === 'number' ? x + 0 : x;
    } else if (typeof x === 'string') {
      params[name] = requireString(x, path, LAB_MAX_STRING);
    } else if (Array.isArray(x) && x.length <= LIMITS.maxTokens && Array.from(x).every((v) => typeof v === 'number' && Number.isFinite(v))) {
      params[name] = Array.from(x, (v) => v + 0);
    } else {
      throw new StateError(path, `${path} must be a finite number, true/false, null, a string of at most ${LAB_MAX_STRING} characters or a list of at most ${LIMITS.maxTokens} numbers (got ${describe(x)})`);
    }
  }
  return { view, params };
}

/**
 * The optional `lesson` object: {step, predictions, revealed} (docs/lesson.md). `predictions` and
 * `revealed` may be left out (then {} and []); a validated lesson always has all three.
 */
function readLesson(lessonIn) {
  const lesson = requireRecord(lessonIn, 'lesson');
  rejectUnknownKeys(lesson, LESSON_KEYS, 'lesson');
  const step = requireInteger(own(lesson, 'step'), 'lesson.step', 1, LESSON_STEPS);
  const predIn = own(lesson, 'predictions') === undefined ? {} : requireRecord(own(lesson, 'predictions'), 'lesson.predictions');
  rejectUnknownKeys(predIn, LESSON_PREDICTIONS, 'lesson.predictions');
  const predictions = {};
  for (const name of LESSON_PREDICTIONS) {
    const x = own(predIn, name);
    if (x === undefined) continue;
    const path = `lesson.predictions.${name}`;
    if (LESSON_CHOICES[name]) {
      predictions[name] = requireOneOf(x, path, LESSON_CHOICES[name]);
    } else {
      predictions[name] = readIndexList(x, path, LESSON_LISTS[name].max, LESSON_LISTS[name].length);
    }
  }
  const revealedIn = own(lesson, 'revealed') === undefined ? [] : own(lesson, 'revealed');
  const revealed = readIndexList(revealedIn, 'lesson.revealed', LESSON_STEPS, LESSON_STEPS, 1);
  return { step, predictions, revealed };
}

/** A strictly increasing list of integers in [min, max], at most `length` long. */
function readIndexList(x, path, max, length, min = 0) {
  if (!Array.isArray(x) || x.length > length) {
    throw new StateError(path, `${path} must be a list of at most ${length} integers (got ${describe(x)})`);
  }
  // Every index, holes included (forEach skips them), and requireInteger's value (-0 becomes 0).
  const out = Array.from({ length: x.length }, (_, i) => requireInteger(x[i], `${path}[${i}]`, min, max));
  out.forEach((v, i) => {
    if (i > 0 && v <= out[i - 1]) throw new StateError(path, `${path} must be in increasing order without repeats (got ${JSON.stringify(x)})`);
  });
  return out;
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

// ---------------------------------------------------------------------------------------------
// Link: scalars in plain key=value pairs, everything else in the binary block `d`
// ---------------------------------------------------------------------------------------------
//
// d = base64url (no padding) of:
//   bytes 0..2   "AP" 0x01            magic and block format 1
//   bytes 3..6   u32 LE               length of the uncompressed block (<= LIMITS.maxBlockBytes)
//   bytes 7..10  u32 LE               CRC-32 (ISO-HDLC, as in zlib/PNG) of the uncompressed block
//   bytes 11..   raw DEFLATE (RFC 1951, fflate) of the block
// block:
//   u32 LE H, then H bytes of UTF-8 JSON header:
//     {"tokens":{"queries":[..],"keys":[..]},"source":"..","allow":true|false,
//      "heads":[{"name":"..","Q":[rows,cols,bytes],..}]}
//     a head lists only its non-null matrices, with bytes 4 (float32) or 8 (float64)
//   then, little-endian and row-major: for each head, its matrices in the order Q, K, V, logits,
//   weights, WQ, WK, WV, gate (a null logits cell is a NaN; the gate is one row of n_q numbers);
//   then, in mode "x", X and WO; then n_k padding bytes (0/1); then, if "allow", n_q*n_k
//   allow bytes (0/1). Nothing may follow.
// Mode "x" and the gate extend format 1 without changing it: a head may also list "WQ", "WK",
//   "WV" and "gate" ([1, n_q, bytes]) shapes, and the header may carry
//   "x": {"X": [rows, cols, bytes], "WO": [rows, cols, bytes] (absent when null), "residual": bool}.
//   A link without them (every link written before) has exactly the old layout and reads as before.
// A matrix is written as float32 when every value survives Math.fround (including -0), so common
// small states and float32 model exports take half the space while doubles stay bit-exact.
// Raw deflate has no checksum; the CRC makes a mistyped or truncated d fail loudly instead of
// decoding to slightly different numbers.

const LINK_KEYS = ['v', 'mode', 'tau', 'scale', 'k', 'row', 'causal', 'window', 'head', 'panel', 'preset', 'numbers', 'd'];
const OPTIONAL_LINK_KEYS = ['stride', 'sinks', 'lab', 'lesson'];
const LINK_FIELD = {
  stride: 'mask.stride', sinks: 'mask.sinks', lab: 'lab', lesson: 'lesson',
  v: 'version', mode: 'mode', tau: 'tau', scale: 'scale', k: 'topK', row: 'row', causal: 'mask.causal',
  window: 'mask.window', head: 'head', panel: 'view.panel', preset: 'view.preset', numbers: 'view.numbers', d: 'd',
};
const MAGIC = [0x41, 0x50]; // "AP"
const BLOCK_FORMAT = 1;
const PREFIX_BYTES = 11;
const HEADER_KEYS = ['tokens', 'source', 'allow', 'heads', 'x'];
// The matrices of a head in the block, in this order; the gate is stored as a 1 x n_q matrix.
const BLOCK_HEAD_MATRICES = [...MATRIX_NAMES, ...PROJECTION_NAMES, 'gate'];
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const BASE64URL_VALUE = new Int16Array(128).fill(-1);
for (let i = 0; i < 64; i++) BASE64URL_VALUE[BASE64URL.charCodeAt(i)] = i;

const CRC_TABLE = new Uint32Array(256);
for (let n = 0; n < 256; n++) {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  CRC_TABLE[n] = c >>> 0;
}

function crc32(bytes) {
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function isFloat32Exact(matrix) {
  for (const row of matrix) {
    for (const x of row) if (x !== null && Math.fround(x) !== x) return false;
  }
  return true;
}

function toBase64Url(bytes) {
  const n = bytes.length;
  const codes = new Uint8Array(Math.ceil((n * 4) / 3));
  const alphabet = Uint8Array.from(BASE64URL, (c) => c.charCodeAt(0));
  let o = 0;
  let i = 0;
  for (; i + 2 < n; i += 3) {
    const x = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    codes[o++] = alphabet[x >>> 18];
    codes[o++] = alphabet[(x >>> 12) & 63];
    codes[o++] = alphabet[(x >>> 6) & 63];
    codes[o++] = alphabet[x & 63];
  }
  if (i < n) {
    const x = (bytes[i] << 16) | (i + 1 < n ? bytes[i + 1] << 8 : 0);
    codes[o++] = alphabet[x >>> 18];
    codes[o++] = alphabet[(x >>> 12) & 63];
    if (i + 1 < n) codes[o++] = alphabet[(x >>> 6) & 63];
  }
  // Chunked so that String.fromCharCode never gets more arguments than the engine allows.
  const parts = [];
  for (let start = 0; start < o; start += 0x8000) {
    parts.push(String.fromCharCode.apply(null, codes.subarray(start, Math.min(o, start + 0x8000))));
  }
  return parts.join('');
}

function fromBase64Url(text) {
  const body = text.replace(/={1,2}$/, ''); // tolerate padding added by other tools
  if (body.length % 4 === 1) {
    throw new StateError('d', `d is not valid base64url: its length ${body.length} cannot come from whole bytes (was it cut short?)`);
  }
  const bytes = new Uint8Array(Math.floor((body.length * 3) / 4));
  let acc = 0;
  let bits = 0;
  let o = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body.charCodeAt(i);
    const v = c < 128 ? BASE64URL_VALUE[c] : -1;
    if (v < 0) {
      throw new StateError('d', `d is not valid base64url: character ${describe(body[i])} at position ${i} is not one of A-Z a-z 0-9 - _`);
    }
    acc = ((acc << 6) | v) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes[o++] = (acc >>> bits) & 0xff;
    }
  }
  return bytes;
}

/** Builds the uncompressed block of a valid state. */
function buildBlock(state) {
  const nQ = state.tokens.queries.length;
  const nK = state.tokens.keys.length;
  const matrices = [];
  const shapeOf = (m) => {
    const bytes = isFloat32Exact(m) ? 4 : 8;
    matrices.push({ m, bytes });
    return [m.length, m[0].length, bytes];
  };
  const headerHeads = state.heads.map((head) => {
    const entry = { name: head.name };
    for (const key of BLOCK_HEAD_MATRICES) {
      const m = key === 'gate' ? (head.gate ? [head.gate] : null) : (head[key] ?? null);
      if (m === null) continue;
      entry[key] = shapeOf(m);
    }
    return entry;
  });
  const headerObject = {
    tokens: state.tokens,
    source: state.source,
    allow: state.mask.allow !== null,
    heads: headerHeads,
  };
  if (state.x) {
    // After every head's matrices: X, then WO when there is one.
    headerObject.x = { X: shapeOf(state.x.X), ...(state.x.WO ? { WO: shapeOf(state.x.WO) } : {}), residual: state.x.residual };
  }
  const header = strToU8(JSON.stringify(headerObject));

  let size = 4 + header.length + nK + (state.mask.allow ? nQ * nK : 0);
  for (const { m, bytes } of matrices) size += m.length * m[0].length * bytes;
  if (size > LIMITS.maxBlockBytes) {
    throw new StateError('link', `the state is too large for a link (${size} bytes of data, at most ${LIMITS.maxBlockBytes})`);
  }

  const block = new Uint8Array(size);
  const view = new DataView(block.buffer);
  view.setUint32(0, header.length, true);
  block.set(header, 4);
  let p = 4 + header.length;
  for (const { m, bytes } of matrices) {
    for (const row of m) {
      for (const x of row) {
        const value = x === null ? NaN : x;
        if (bytes === 4) view.setFloat32(p, value, true);
        else view.setFloat64(p, value, true);
        p += bytes;
      }
    }
  }
  for (const flag of state.mask.padding) block[p++] = flag ? 1 : 0;
  if (state.mask.allow) for (const row of state.mask.allow) for (const flag of row) block[p++] = flag ? 1 : 0;
  return block;
}

/**
 * Writes a state as a URL fragment (without the leading "#"), format of docs/state.md "The link":
 * `v=1&mode=qkv&tau=1&scale=1&k=2&row=0&causal=0&window=0&head=0&panel=weights&preset=example1&d=...`.
 * Numbers are written with String(x), the shortest text that reads back to the same double, and
 * `d` holds the matrices, tokens, padding, allow-matrix, head names and source bit-exactly.
 *
 * @param {State} state a state; it is validated first
 * @returns {string} the fragment, at most LIMITS.maxLinkLength characters
 * @throws {StateError} if the state is invalid, or field "link" if it is too large for a link
 */
export function encodeLink(state) {
  const s = validateState(state);
  const block = buildBlock(s);
  const compressed = deflateSync(block, { level: 9 });
  const bytes = new Uint8Array(PREFIX_BYTES + compressed.length);
  bytes.set(MAGIC, 0);
  bytes[2] = BLOCK_FORMAT;
  const prefix = new DataView(bytes.buffer);
  prefix.setUint32(3, block.length, true);
  prefix.setUint32(7, crc32(block), true);
  bytes.set(compressed, PREFIX_BYTES);

  const scalars = {
    v: s.version, mode: s.mode, tau: s.tau, scale: s.scale, k: s.topK, row: s.row,
    causal: s.mask.causal ? 1 : 0, window: s.mask.window, head: s.head, panel: s.view.panel,
    preset: s.view.preset, numbers: s.view.numbers,
  };
  if (s.mask.stride) scalars.stride = s.mask.stride;
  if (s.mask.sinks) scalars.sinks = s.mask.sinks;
  if (s.lab) scalars.lab = JSON.stringify(s.lab);
  if (s.lesson) scalars.lesson = JSON.stringify(s.lesson);
  const parts = Object.entries(scalars).map(([key, value]) => `${key}=${encodeURIComponent(String(value))}`);
  parts.push(`d=${toBase64Url(bytes)}`);
  const link = parts.join('&');
  if (link.length > LIMITS.maxLinkLength) {
    throw new StateError('link', `the state is too large for a link (${link.length} characters, at most ${LIMITS.maxLinkLength})`);
  }
  return link;
}

// Decimal numbers as a person would type them; no hex, no "Infinity", no spaces. Number() alone
// would accept "" (0), " 1" and "0x10".
const NUMBER_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

function parseNumber(text, key) {
  if (!NUMBER_TEXT.test(text)) {
    throw new StateError(LINK_FIELD[key], `${key} in the link must be a number (got ${describe(text)})`);
  }
  return Number(text); // out-of-range values (e.g. 1e999 -> Infinity) are refused by validateState
}

function parseFlag(text, key) {
  if (text === '0') return false;
  if (text === '1') return true;
  throw new StateError(LINK_FIELD[key], `${key} in the link must be 0 or 1 (got ${describe(text)})`);
}

function decodeComponent(text) {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new StateError('link', `the link has a broken %-escape in ${describe(text)}`);
  }
}

function requireNonNegativeInt(value, what) {
  if (!Number.isInteger(value) || value < 0 || value > LIMITS.maxTokens) {
    throw new StateError('d', `d is corrupt: ${what} must be an integer from 0 to ${LIMITS.maxTokens} (got ${describe(value)})`);
  }
  return value;
}

/** Reads the block back into the parts of a state; shapes are checked later by validateState. */
function readBlock(text) {
  const bytes = fromBase64Url(text);
  if (bytes.length < PREFIX_BYTES || bytes[0] !== MAGIC[0] || bytes[1] !== MAGIC[1]) {
    throw new StateError('d', 'd is not an Attention Playground data block (wrong start bytes; was it copied completely?)');
  }
  if (bytes[2] !== BLOCK_FORMAT) {
    throw new StateError('d', `d uses data block format ${bytes[2]}; this page reads format ${BLOCK_FORMAT}`);
  }
  const prefix = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const declared = prefix.getUint32(3, true);
  if (declared > LIMITS.maxBlockBytes) {
    throw new StateError('d', `d declares ${declared} bytes of data, more than the limit of ${LIMITS.maxBlockBytes}`);
  }
  // A fixed output buffer (one byte longer than declared, to notice overruns) keeps a
  // decompression bomb from allocating more than the declared size.
  let block;
  try {
    block = inflateSync(bytes.subarray(PREFIX_BYTES), { out: new Uint8Array(declared + 1) });
  } catch (error) {
    throw new StateError('d', `d is corrupt: its compressed data cannot be inflated (${error && error.message})`);
  }
  if (block.length !== declared) {
    throw new StateError('d', `d is corrupt or truncated: it inflates to ${block.length > declared ? 'more than ' : ''}${block.length} bytes, but declares ${declared}`);
  }
  if (crc32(block) !== prefix.getUint32(7, true)) {
    throw new StateError('d', 'd is corrupt: its checksum does not match (was it edited or cut short?)');
  }
  if (block.length < 4) throw new StateError('d', 'd is corrupt: the data block has no header');
  const data = new DataView(block.buffer, block.byteOffset, block.byteLength);
  const headerLength = data.getUint32(0, true);
  if (headerLength > block.length - 4) {
    throw new StateError('d', `d is corrupt: its header claims ${headerLength} bytes but only ${block.length - 4} are there`);
  }
  let header;
  try {
    header = JSON.parse(strFromU8(block.subarray(4, 4 + headerLength)));
  } catch (error) {
    throw new StateError('d', `d is corrupt: its header is not JSON (${error && error.message})`);
  }
  if (!isRecord(header)) throw new StateError('d', `d is corrupt: its header must be an object (got ${describe(header)})`);
  for (const key of Object.keys(header)) {
    if (!HEADER_KEYS.includes(key)) throw new StateError('d', `d is corrupt: its header has an unknown field ${describe(key)}`);
  }
  const tokens = own(header, 'tokens');
  if (!isRecord(tokens) || !Array.isArray(own(tokens, 'queries')) || !Array.isArray(own(tokens, 'keys'))) {
    throw new StateError('d', 'd is corrupt: its header has no tokens.queries and tokens.keys arrays');
  }
  for (const key of Object.keys(tokens)) {
    if (!TOKENS_KEYS.includes(key)) throw new StateError('d', `d is corrupt: its header tokens have an unknown field ${describe(key)}`);
  }
  const nQ = requireNonNegativeInt(tokens.queries.length, 'the number of query tokens');
  const nK = requireNonNegativeInt(tokens.keys.length, 'the number of key tokens');
  const hasAllow = own(header, 'allow');
  if (typeof hasAllow !== 'boolean') throw new StateError('d', 'd is corrupt: its header field "allow" must be true or false');
  const headsIn = own(header, 'heads');
  if (!Array.isArray(headsIn) || headsIn.length < 1 || headsIn.length > LIMITS.maxHeads) {
    throw new StateError('d', `d is corrupt: its header must list 1 to ${LIMITS.maxHeads} heads`);
  }

  // Check every declared shape and the total size before allocating anything from them.
  const readShape = (shape, what) => {
    if (!Array.isArray(shape) || shape.length !== 3 || (shape[2] !== 4 && shape[2] !== 8)) {
      throw new StateError('d', `d is corrupt: the shape of ${what} must be [rows, columns, 4 or 8]`);
    }
    requireNonNegativeInt(shape[0], `the row count of ${what}`);
    requireNonNegativeInt(shape[1], `the column count of ${what}`);
    return shape;
  };
  const plan = headsIn.map((h, i) => {
    if (!isRecord(h)) throw new StateError('d', `d is corrupt: header head ${i} must be an object`);
    for (const key of Object.keys(h)) {
      if (!HEAD_KEYS.includes(key)) throw new StateError('d', `d is corrupt: header head ${i} has an unknown field ${describe(key)}`);
    }
    const shapes = {};
    for (const key of BLOCK_HEAD_MATRICES) {
      const shape = own(h, key);
      if (shape === undefined) continue;
      shapes[key] = readShape(shape, `heads[${i}].${key}`);
      if (key === 'gate' && shape[0] !== 1) throw new StateError('d', `d is corrupt: heads[${i}].gate must be stored as one row`);
    }
    return shapes;
  });
  // Mode "x" (format 1, extended): header.x = {X: shape, WO?: shape, residual}; absent in older links.
  const xIn = own(header, 'x');
  let xPlan = null;
  if (xIn !== undefined) {
    if (!isRecord(xIn)) throw new StateError('d', 'd is corrupt: its header field "x" must be an object');
    for (const key of Object.keys(xIn)) {
      if (!X_KEYS.includes(key)) throw new StateError('d', `d is corrupt: its header x has an unknown field ${describe(key)}`);
    }
    xPlan = { X: readShape(own(xIn, 'X'), 'x.X'), WO: own(xIn, 'WO') === undefined ? null : readShape(own(xIn, 'WO'), 'x.WO'), residual: own(xIn, 'residual') };
    if (typeof xPlan.residual !== 'boolean') throw new StateError('d', 'd is corrupt: its header field x.residual must be true or false');
  }
  let needed = nK + (hasAllow ? nQ * nK : 0);
  for (const shapes of plan) for (const [rows, cols, bytes] of Object.values(shapes)) needed += rows * cols * bytes;
  if (xPlan) for (const shape of [xPlan.X, xPlan.WO]) if (shape) needed += shape[0] * shape[1] * shape[2];
  const available = block.length - 4 - headerLength;
  if (needed > available) {
    throw new StateError('d', `d is corrupt or truncated: it needs ${needed} bytes of numbers and flags but holds ${available}`);
  }
  if (needed < available) {
    throw new StateError('d', `d is corrupt: ${available - needed} unexpected bytes follow the data`);
  }

  let p = 4 + headerLength;
  const readMatrixData = ([rows, cols, bytes]) => {
    const m = new Array(rows);
    for (let r = 0; r < rows; r++) {
      const row = new Array(cols);
      for (let c = 0; c < cols; c++) {
        const x = bytes === 4 ? data.getFloat32(p, true) : data.getFloat64(p, true);
        row[c] = Number.isNaN(x) ? null : x; // NaN marks a masked logit; elsewhere validation refuses it
        p += bytes;
      }
      m[r] = row;
    }
    return m;
  };
  const heads = plan.map((shapes, i) => {
    const head = { name: own(headsIn[i], 'name') };
    for (const key of BLOCK_HEAD_MATRICES) {
      const shape = shapes[key];
      if (!shape) {
        if (MATRIX_NAMES.includes(key)) head[key] = null; // the mode-"x" keys stay absent
        continue;
      }
      const m = readMatrixData(shape);
      head[key] = key === 'gate' ? m[0] : m;
    }
    return head;
  });
  const x = xPlan && { X: readMatrixData(xPlan.X), WO: xPlan.WO ? readMatrixData(xPlan.WO) : null, residual: xPlan.residual };
  const readFlag = (what) => {
    const b = block[p++];
    if (b > 1) throw new StateError('d', `d is corrupt: a ${what} flag is ${b}, not 0 or 1`);
    return b === 1;
  };
  const padding = Array.from({ length: nK }, () => readFlag('padding'));
  const allow = hasAllow
    ? Array.from({ length: nQ }, () => Array.from({ length: nK }, () => readFlag('allow')))
    : null;
  return { heads, tokens: { queries: tokens.queries, keys: tokens.keys }, source: own(header, 'source'), padding, allow, x };
}

/**
 * Reads a URL fragment written by encodeLink (with or without the leading "#"). Scalars may have
 * been edited by hand (e.g. tau=2) and take effect; every value is validated.
 *
 * @param {string} fragment the link fragment
 * @returns {State} a valid state (as returned by validateState)
 * @throws {StateError} for anything else, whatever the input: unknown version, missing or unknown
 *   key, bad number, bad base64, corrupt deflate, wrong shapes, out-of-range values. `field` names
 *   the state field ("tau", "heads[0].Q", ...), or "d" / "link" for the block and the link itself.
 */
export function decodeLink(fragment) {
  try {
    return readLink(fragment);
  } catch (error) {
    if (error instanceof StateError) throw error;
    // Out-of-memory and other engine errors on hostile input still surface as a StateError.
    throw new StateError('link', `the link could not be read (${error && error.message})`);
  }
}

function readLink(fragment) {
  if (typeof fragment !== 'string') throw new StateError('link', `the link must be a string (got ${describe(fragment)})`);
  const text = fragment.startsWith('#') ? fragment.slice(1) : fragment;
  if (text === '') throw new StateError('link', 'the link is empty (expected v=1&mode=...&d=...)');
  if (text.length > LIMITS.maxLinkLength) {
    throw new StateError('link', `the link is too long (${text.length} characters, at most ${LIMITS.maxLinkLength})`);
  }

  // A Map, not an object: keys from the link must never reach a prototype.
  const params = new Map();
  for (const part of text.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    if (eq < 0) throw new StateError('link', `the link part ${describe(part)} is not of the form key=value`);
    const key = decodeComponent(part.slice(0, eq));
    // Page options are read by web/page-options.js (the last one given wins), so "&lang=zh-CN"
    // appended to a copied link that already ends in "&lang=en" is not an error.
    if (isPageOptionKey(key)) continue;
    if (params.has(key)) throw new StateError('link', `the link gives ${describe(key)} twice`);
    params.set(key, decodeComponent(part.slice(eq + 1)));
  }

  // The version first: a newer link may have keys this page does not know.
  if (!params.has('v')) throw new StateError('version', 'the link has no version (expected it to start with v=1)');
  const v = params.get('v');
  if (v !== String(SCHEMA_VERSION)) {
    throw new StateError('version', `unknown link version ${describe(v)}: this page reads version ${SCHEMA_VERSION} links`);
  }
  for (const key of params.keys()) {
    if (!LINK_KEYS.includes(key) && !OPTIONAL_LINK_KEYS.includes(key)) {
      throw new StateError('link', `the link has an unknown key ${describe(key)} (known keys: ${[...LINK_KEYS, ...OPTIONAL_LINK_KEYS].join(', ')})`);
    }
  }
  for (const key of LINK_KEYS) {
    if (!params.has(key)) throw new StateError(LINK_FIELD[key], `the link is missing ${key}= (${LINK_FIELD[key]})`);
  }

  const get = (key) => params.get(key);
  const scale = get('scale') === 'auto' ? 'auto' : parseNumber(get('scale'), 'scale');
  const tau = parseNumber(get('tau'), 'tau');
  const topK = parseNumber(get('k'), 'k');
  const row = parseNumber(get('row'), 'row');
  const window = parseNumber(get('window'), 'window');
  const head = parseNumber(get('head'), 'head');
  const causal = parseFlag(get('causal'), 'causal');
  const block = readBlock(get('d'));
  let lab;
  if (params.has('lab')) {
    try {
      lab = JSON.parse(get('lab'));
    } catch {
      throw new StateError('lab', `lab in the link is not JSON (got ${describe(get('lab'))})`);
    }
  }
  let lesson;
  if (params.has('lesson')) {
    try {
      lesson = JSON.parse(get('lesson'));
    } catch {
      throw new StateError('lesson', `lesson in the link is not JSON (got ${describe(get('lesson'))})`);
    }
  }

  return validateState({
    version: SCHEMA_VERSION,
    mode: get('mode'),
    heads: block.heads,
    head,
    tokens: block.tokens,
    mask: {
      causal, window, padding: block.padding, allow: block.allow,
      ...(params.has('stride') ? { stride: parseNumber(get('stride'), 'stride') } : {}),
      ...(params.has('sinks') ? { sinks: parseNumber(get('sinks'), 'sinks') } : {}),
    },
    tau,
    scale,
    topK,
    row,
    view: { panel: get('panel'), preset: get('preset'), numbers: get('numbers') },
    source: block.source,
    ...(lab === undefined ? {} : { lab }),
    ...(lesson === undefined ? {} : { lesson }),
    ...(block.x ? { x: block.x } : {}),
  });
}
