// The thin JavaScript wrapper over the WebAssembly core (cpp/, compiled by Emscripten).
// Same module in the page, in a worker and in node. Every number the page shows comes from here;
// there is no attention maths in web/.
//
// Which build runs (SIMD128 or scalar, after a feature probe and a self-test) and how it is
// instantiated: web/core/wasm-load.js. The import view's entry points: web/core/core-import.js,
// methods of Core too. This module is the one to import (loadCore, Core, AttentionError, ...).
import { AttentionError, StateError, throwIfError } from './error-types.js';
import { decodeLink as decodeLinkText } from '../codec/link.js';
import { toCoreJson, unpack } from './core-json.js';
import { instantiate, isNode, loadModule } from './wasm-load.js';
import { CoreImport } from './core-import.js';

export { AttentionError, StateError, toCoreJson };
export { SELF_TEST_EXPECTED, simdSupported } from './wasm-load.js';

/**
 * Loads the WebAssembly core.
 * @param {object} [options]
 * @param {'auto'|'simd'|'scalar'} [options.variant]  'auto' (default): SIMD when supported and
 *   its self-test passes; 'scalar' forces the scalar build; 'simd' insists on SIMD (throws if
 *   it cannot run).
 * @param {boolean} [options.failSelfTest]  makes the SIMD self-test fail (to test the fallback;
 *   the page sets it from ?selftest=fail, a worker from its init message)
 * @param {boolean} [options.lab]  also load the lab module now (default: in node, where loading
 *   costs nothing; the page and its workers call core.loadLab() when a lab view needs it)
 * @returns {Promise<Core>}
 */
export async function loadCore({ variant = 'auto', failSelfTest = false, lab = isNode } = {}) {
  const { mod, chosen, fallbackReason, fallback } = await loadModule({ variant, failSelfTest });
  const core = new Core(mod, chosen.variant, fallbackReason, chosen.lab);
  core.fallback = fallback;
  if (lab) await core.loadLab();
  return core;
}

/** The core's schema error as a StateError (field, message, code). */
function stateErrorOf(out) {
  return new StateError(out.error.field, out.error.message, out.error.code);
}

/** One instance of the WebAssembly module with its heap. Create with loadCore(). */
export class Core {
  constructor(mod, variant, fallbackReason, labBuild = null) {
    this.mod = mod;
    /** The lab module (every lab view), once loaded; the core module itself when it has the lab. */
    this.labMod = typeof mod.computeLab === 'function' ? mod : null;
    this.labBuild = labBuild;
    this.labLoading = null;
    /** The lab views the core module runs without the lab module (the lesson's: lab.hpp lab_core_views). */
    this.labViewsInCore = typeof mod.labViewsInCore === 'function' ? Array.from(mod.labViewsInCore()) : [];
    /** 'wasm-simd128' or 'wasm-scalar' */
    this.variant = variant;
    /** Why the SIMD build is not in use (null when it is). */
    this.fallbackReason = fallbackReason;
    /** The same reason as {code: 'noSimd'|'selfTest'|'loadFailed'|'asked', detail} (set by
     * loadCore), so that the page can word it in its language; null when SIMD is in use. */
    this.fallback = null;
    /** Name of the kernel set inside the module ("wasm-simd128", "scalar"). */
    this.kernels = typeof mod.activeKernels === 'function' ? mod.activeKernels() : 'scalar';
  }

  /** Raw adapter: state JSON text in, results (or {"error"}) JSON text out. */
  computeJson(json) {
    return this.mod.computeState(json, 0, 0);
  }

  /**
   * Calls the module's state entry point `name` on a state, its large matrices in binary:
   * parsed JSON out, packed matrices in it restored as copies of the state's own.
   */
  callState(name, state, { shareMatrices = false } = {}) {
    const packs = [];
    const text = toCoreJson(state, packs);
    let count = 0;
    for (const p of packs) count += p.matrix.length * p.matrix[0].length;
    const ptr = count ? this.alloc(count * 8) : 0;
    try {
      if (count) {
        const heap = this.mod.HEAPF64; // after alloc: memory may have grown
        for (const { offset, matrix } of packs) {
          const cols = matrix[0].length;
          for (let i = 0; i < matrix.length; i++) heap.set(matrix[i], (ptr >>> 3) + offset + i * cols);
        }
      }
      const out = JSON.parse(this.mod[name](text, ptr, count));
      return packs.length ? unpack(out, new Map(packs.map((p) => [p.offset, p.matrix])), { share: shareMatrices }) : out;
    } finally {
      this.free(ptr);
    }
  }

  /**
   * The schema's constants (cpp/src/io/state_schema.cpp; the same as web/generated/schema.js):
   * {version, limits, modes, labViews, lesson: {steps, choices, lists}, rowDefaults}.
   */
  get schema() {
    this.schemaCache ??= JSON.parse(this.mod.schema());
    return this.schemaCache;
  }

  /**
   * Checks a state against docs/state.md with the schema's one implementation (the C++ core, as
   * the CLI's `attn validate`) and returns a normalised deep copy: keys in schema order; absent
   * matrices and mask.allow as null; -0 in integer fields as 0; lab.params {} and lesson
   * predictions {} / revealed [] when left out; a lone UTF-16 surrogate in a string as U+FFFD.
   * @param {unknown} state candidate state (e.g. parsed JSON, a decoded link)
   * @param {{shareMatrices?: boolean}} [options] shareMatrices: the valid state keeps the input's
   *   large number matrices (the row arrays themselves, their numbers unchanged) instead of copies;
   *   for a caller that owns the input and never changes it afterwards (the page's commit)
   * @returns {object} a new valid state sharing nothing with the input (but the matrices, when asked)
   * @throws {StateError} naming the first offending field, e.g. field "tau", code
   *   "bad_temperature", message "tau must be a number > 0 and <= 1000 (got -1)"
   */
  validateState(state, options = {}) {
    const out = this.callState('validateState', state, options);
    if (out && out.error) throw stateErrorOf(out);
    return out;
  }

  /**
   * Reads a link fragment (docs/state.md "The link"; web/codec/link.js) and validates the state
   * it spells. Page options in the fragment are ignored.
   * @param {string} fragment with or without the leading "#"
   * @returns {object} a valid state
   * @throws {StateError} field "link" / "d" for a broken link, else as validateState()
   */
  decodeLink(fragment) {
    return this.validateState(decodeLinkText(fragment));
  }

  /**
   * Validates a state once and computes its selected head: the page's commit path.
   * @returns {{state: object, results: object}} the state as validateState() returns it and the
   *   results as compute() returns them
   * @throws {StateError} for a state that is not of the schema; {AttentionError} when the core
   *   refuses the numbers (e.g. non_finite: Q K^T overflows float32)
   */
  validateAndCompute(state) {
    const out = this.callState('validateAndCompute', state);
    if (out && out.error) throw stateErrorOf(out);
    return out;
  }

  /**
   * Computes the selected head of a state (docs/state.md), after checking it against the schema
   * (the same check as validateState()).
   * @param {object} state a version-1 state
   * @returns {object} results: scores, weights, output, visible, rows[], summary
   * @throws {AttentionError} when the state is invalid (code "bad_state" for most schema errors,
   *   "shape_mismatch", "bad_temperature", ... as the CLI reports them, with the field) or the
   *   core rejects the numbers
   */
  compute(state) {
    return throwIfError(this.callState('computeState', state));
  }

  /**
   * Runs the analysis-lab view named by state.lab.view on the selected head (docs/lab.md).
   * @param {object} state a valid version-1 state with `lab: {view, params}`
   * @returns {object} {view, ...} the analysis' fields; {view: 'none'} without lab
   * @throws {AttentionError} as compute(), and invalid_value with field "lab.params.<name>"
   */
  lab(state) {
    // Not packed: the lab's views read the state document's matrices as JSON (lab_internal.hpp).
    const json = toCoreJson(state);
    if (this.labMod) return throwIfError(JSON.parse(this.labMod.computeLab(json, 0, 0)));
    const view = state.lab?.view ?? 'none';
    if (view === 'none' || this.labViewsInCore.includes(view)) return throwIfError(JSON.parse(this.mod.computeLabInCore(json, 0, 0)));
    throw new AttentionError('lab_not_loaded', 'lab.view', `the lab module is not loaded (lab view "${view}"): await core.loadLab() first`);
  }

  /** True when lab(state) can run now (its view is in the core module, or the lab module is loaded). */
  labReady(state) {
    const view = state.lab?.view ?? 'none';
    return !!this.labMod || view === 'none' || this.labViewsInCore.includes(view);
  }

  /**
   * Loads the lab module of this core's variant once (web/wasm/attn_lab{,_simd}.wasm, ~200 KB
   * brotli); resolves when lab(state) runs every view. Rejects (and may be called again) when the
   * module cannot be loaded.
   * @returns {Promise<void>}
   */
  loadLab() {
    if (this.labMod) return Promise.resolve();
    if (!this.labBuild) return Promise.reject(new Error('this core has no lab module'));
    this.labLoading ??= instantiate(this.labBuild).then(
      (mod) => {
        this.labMod = mod;
      },
      (e) => {
        this.labLoading = null;
        throw e;
      },
    );
    return this.labLoading;
  }

  // --- Tensors in the WASM heap (large heads; written once, read by many computes) ---------

  /** Allocates `bytes` bytes in the heap; returns the byte offset. Free with free(). */
  alloc(bytes) {
    const ptr = this.mod._malloc(Math.max(1, bytes));
    if (!ptr) throw new AttentionError('too_large', 'memory', `could not allocate ${bytes} bytes in the WebAssembly heap`);
    return ptr;
  }

  free(ptr) {
    if (ptr) this.mod._free(ptr);
  }

  /** Copies a Float32Array into the heap at `ptr` (re-reads HEAPF32: memory may have grown). */
  writeF32(ptr, data) {
    this.mod.HEAPF32.set(data, ptr >>> 2);
  }

  /** Copies a Uint8Array into the heap at `ptr`. */
  writeU8(ptr, data) {
    this.mod.HEAPU8.set(data, ptr);
  }

  /** A Float32Array view of the heap, valid only until the next call that may allocate. */
  viewF32(ptr, length) {
    return new Float32Array(this.mod.HEAPF32.buffer, ptr, length);
  }

  /** Current size of the WebAssembly memory in bytes (it only grows). */
  memoryBytes() {
    return this.mod.HEAPU8.length;
  }

  /**
   * Row metrics, output and a pooled overview of one head whose tensors are in the heap,
   * computed a block of rows at a time (memory O(block * n), cpp/include/attn/stream.hpp).
   * @param {object} spec {mode, nQ, nK, dK, dV, q, k, v, given, padding, allow (byte offsets),
   *   causal, window, tau, scale (0 = 1/sqrt(d_k)), topK, sinkKeys, delta, blockRows,
   *   overview, pool ('max'|'mean'), wantOutput}
   * @returns {{nQ, nK, dV, scale, rows: {entropy, normalizedEntropy, nEff, topKMass, sinkMass,
   *   rowSum: Float64Array, visible, support: Int32Array, empty: Uint8Array}, summary,
   *   output: Float32Array, overview: Float32Array, overviewRows, overviewCols, scratchBytes}}
   * @throws {AttentionError}
   */
  computeHead(spec) {
    return throwIfError(this.mod.computeHead(spec));
  }

  /**
   * computeHead for query rows [r0, r1) of the head only (stream.hpp compute_streaming_rows), so
   * workers can split a long head's rows; the parts of consecutive ranges from row 0 merge into
   * computeHead's result with mergeHeadRows(spec, parts). Same spec as computeHead; the result
   * also has firstRow = r0.
   * @throws {AttentionError} invalid_value when not 0 <= r0 < r1 <= nQ
   */
  computeHeadRows(spec, r0, r1) {
    return throwIfError(this.mod.computeHeadRows(spec, r0, r1));
  }

  /**
   * Writes S = Q K^T * scale of a qkv head (spec as computeHead) into the heap at `outPtr`
   * (n_q * n_k float32); returns the scale used.
   */
  scoresInto(spec, outPtr) {
    return throwIfError(this.mod.scoresInto(spec, outPtr));
  }

  /** Full-resolution weights of rows [r0, r1) and keys [c0, c1) (at most 512 x 512). */
  computeTile(spec, r0, r1, c0, c1) {
    return throwIfError(this.mod.computeTile(spec, r0, r1, c0, c1));
  }

  // --- The guided lesson's answers (lesson.hpp) -----------------------------------------------

  /** sum_j w_j in order (0 for an empty row): a row's total weight. */
  weightSum(weights) {
    return this.mod.lessonWeightSum(weights);
  }

  /**
   * A row renormalised over the keys a mask leaves visible, beside the row the core computed.
   * @param {number[]} before  the row without the mask
   * @param {boolean[]} visible the keys the mask leaves
   * @param {number[]} after   the row with the mask
   * @returns {{kept: number, expected: number[], maxDiff: number, afterSum: number}}
   */
  renormalisation(before, visible, after) {
    return throwIfError(
      this.mod.lessonRenormalisation(
        before,
        visible.map((v) => (v ? 1 : 0)),
        after,
      ),
    );
  }

  /**
   * What editing values did: the largest score change (Infinity when a cell's visibility
   * differs), the selected row's output shift and its size, each changed value's shift size and
   * |shift| / |dv| when exactly one value moved (null otherwise).
   * @param {{scores, refScores: (number|null)[][], output, refOutput: number[], values,
   *   refValues: number[][], changed: number[]}} p  (null scores = not visible)
   * @returns {{scoresDiff, shift: number[], shiftSize, valueShifts: number[], ratio: number|null}}
   */
  valueEdit(p) {
    const flat = (m) => m.flat().map((x) => (x === null ? NaN : x));
    const out = throwIfError(
      this.mod.lessonValueEdit({
        nQ: p.scores.length,
        nK: p.scores[0]?.length ?? 0,
        dV: p.output.length,
        scores: flat(p.scores),
        refScores: flat(p.refScores),
        output: p.output,
        refOutput: p.refOutput,
        values: flat(p.values),
        refValues: flat(p.refValues),
        changed: p.changed,
      }),
    );
    return { ...out, ratio: Number.isNaN(out.ratio) ? null : out.ratio };
  }
}

// The import view's entry points are Core's methods too, with the attributes of a class's own.
for (const [name, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(CoreImport.prototype))) {
  if (name !== 'constructor') Object.defineProperty(Core.prototype, name, descriptor);
}
