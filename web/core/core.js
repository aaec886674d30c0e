// The thin JavaScript wrapper over the WebAssembly core (cpp/, compiled by Emscripten).
// Same module in the page, in a worker and in node. Every number the page shows comes from here;
// there is no attention maths in web/.
//
// Two builds exist: web/wasm/attn_simd.{js,wasm} (WebAssembly SIMD128) and web/wasm/attn.{js,wasm}
// (scalar). loadCore() takes the SIMD build only when the engine supports SIMD *and* the build's
// self-test (softmax of [1, 2, 3, 4]) is right, otherwise the scalar build, and says why.
import { AttentionError, StateError } from './error-types.js';
import { decodeLink as decodeLinkText } from '../codec/link.js';
import { toCoreJson, unpack } from './core-json.js';

export { AttentionError, StateError, toCoreJson };

const isNode = typeof process !== 'undefined' && !!process.versions?.node && typeof window === 'undefined';

/** softmax([1, 2, 3, 4]) in double precision: the loader's self-test. */
export const SELF_TEST_EXPECTED = [0.0320586, 0.0871443, 0.2368828, 0.6439143];
const SELF_TEST_TOLERANCE = 1e-6;

// The smallest module using a SIMD128 instruction (i8x16.splat); validates only where SIMD is on.
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11,
]);
// The SIMD build also uses WebAssembly exception handling (-fwasm-exceptions, CMakeLists.txt
// ATTN_WASM_NATIVE_EH): a module with one tag and `try; throw 0; catch 0; end` in its function, the
// instructions Emscripten 3.1.6 emits; validates only where exception handling is on (Chrome 95,
// Firefox 100, Safari 15.2 on; a few 2021 engines run SIMD without it).
const EH_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 4, 1, 96, 0, 0, 3, 2, 1, 0, 13, 3, 1, 0, 0, 10, 11, 1, 9, 0, 6, 64, 8, 0, 7, 0, 11, 11,
]);

/** True when this JavaScript engine runs the SIMD build: WebAssembly SIMD128 and exception handling. */
export function simdSupported() {
  try {
    return WebAssembly.validate(SIMD_PROBE) && WebAssembly.validate(EH_PROBE);
  } catch {
    return false;
  }
}

// Each build is two modules: the core (every entry point but the lab; the lesson's sensitivity
// view included) and the lab (every lab view: computeLab), which the page loads on the first lab
// view (Core.loadLab). The lab and the SVD it needs are about half of the code (docs/performance.md
// "The WebAssembly core's size"). A core module that has computeLab itself (the one-file page's,
// attn_full_simd) is its own lab module.
const BUILDS = {
  simd: {
    js: '../wasm/attn_simd.js',
    wasm: '../wasm/attn_simd.wasm',
    variant: 'wasm-simd128',
    lab: { js: '../wasm/attn_lab_simd.js', wasm: '../wasm/attn_lab_simd.wasm', variant: 'wasm-simd128-lab' },
  },
  scalar: {
    js: '../wasm/attn.js',
    wasm: '../wasm/attn.wasm',
    variant: 'wasm-scalar',
    lab: { js: '../wasm/attn_lab.js', wasm: '../wasm/attn_lab.wasm', variant: 'wasm-scalar-lab' },
  },
};

async function instantiate(build) {
  const { default: factory } = await import(build.js);
  const options = {};
  // The one-file page (scripts/single-file.js) carries the .wasm inline and defines this hook:
  // the variant's bytes, or a rejection when the file does not hold that variant.
  if (typeof globalThis.attnEmbeddedWasm === 'function') {
    options.wasmBinary = await globalThis.attnEmbeddedWasm(build.variant);
  } else if (isNode) {
    // Emscripten 3.1.6's glue would try fetch() on a file path in node.
    const { readFileSync } = await import('node:fs');
    options.wasmBinary = readFileSync(new URL(build.wasm, import.meta.url));
  }
  return factory(options);
}

/** Runs the build's self-test; returns null when it passes, else what went wrong. */
function selfTestFailure(mod) {
  if (typeof mod.selfTest !== 'function') return 'the build has no self-test';
  const got = Array.from(mod.selfTest());
  const ok = got.length === SELF_TEST_EXPECTED.length && got.every((x, i) => Math.abs(x - SELF_TEST_EXPECTED[i]) <= SELF_TEST_TOLERANCE);
  return ok ? null : `self-test gave [${got.map((x) => x.toFixed(7)).join(', ')}]`;
}

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
  const selfTest = failSelfTest ? () => 'forced to fail for testing' : selfTestFailure;
  let mod = null;
  let fallbackReason = null;
  let fallback = null; // {code, detail}: the reason as a code the page words in its language
  let chosen = BUILDS.scalar;
  if (variant !== 'scalar') {
    if (!simdSupported()) {
      fallbackReason = 'this browser does not run WebAssembly SIMD with exception handling';
      fallback = { code: 'noSimd', detail: '' };
    } else {
      try {
        const simd = await instantiate(BUILDS.simd);
        const failure = selfTest(simd);
        if (failure) {
          fallbackReason = `the SIMD build failed its self-test (${failure})`;
          fallback = { code: 'selfTest', detail: failure };
        } else {
          mod = simd;
          chosen = BUILDS.simd;
        }
      } catch (e) {
        fallbackReason = `the SIMD build could not be loaded (${e.message})`;
        fallback = { code: 'loadFailed', detail: e.message };
      }
    }
    if (variant === 'simd' && !mod) throw new Error(`SIMD core unavailable: ${fallbackReason}`);
  } else {
    fallbackReason = 'the scalar build was asked for';
    fallback = { code: 'asked', detail: '' };
  }
  if (!mod) mod = await instantiate(BUILDS.scalar);
  const core = new Core(mod, chosen.variant, fallbackReason, chosen.lab);
  core.fallback = fallback;
  if (lab) await core.loadLab();
  return core;
}

function throwIfError(out) {
  if (out && out.error) throw new AttentionError(out.error.code, out.error.field, out.error.message);
  return out;
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

  // --- Import (cpp/include/attn/import.hpp, analysis.hpp) -------------------------------------

  /**
   * Length in bytes of a .npy header, from the file's first >= 12 bytes.
   * @throws {AttentionError} code "bad_file" (not a .npy, truncated, unknown version)
   */
  npyHeaderLength(bytes) {
    return throwIfError(this.mod.npyHeaderLength(bytes));
  }

  /**
   * Parses a whole .npy header.
   * @returns {{version, dtype: 'float16'|'float32'|'float64', shape: number[], dataOffset,
   *   elements, dataBytes, layout: {layers, heads, nQ, nK}}}
   * @throws {AttentionError} "bad_file" (Fortran order, big-endian, non-float dtype, malformed),
   *   "shape_mismatch" (a shape that is not [n,n], [H,n,n], [L,H,n,n] or a batch of 1), "too_large"
   */
  parseNpyHeader(bytes) {
    return throwIfError(this.mod.parseNpyHeader(bytes));
  }

  /**
   * Parses an attention JSON document (ours, CircuitsVis, BertViz).
   * @returns {{format, layout, queryTokens: string[], keyTokens: string[], data: Float32Array}}
   * @throws {AttentionError} "bad_file", "shape_mismatch" (ragged lists, token count), "too_large"
   */
  parseAttentionJson(text) {
    return throwIfError(this.mod.parseAttentionJson(text));
  }

  /** Tokens from a JSON list of strings or one per line. @throws {AttentionError} "bad_file" */
  parseTokens(text) {
    return throwIfError(this.mod.parseTokens(text));
  }

  /**
   * Checks and analyses one head of raw values already in the heap (analysis.hpp).
   * @param {object} spec {ptr, dtype, nQ, nK, reading: 'weights'|'logits', causal, topK,
   *   sinkKeys, delta, thumbnail, wantRows, tokens?: the key tokens (TransformerLens scores)}
   * @returns {{verdict: 'probabilities'|'probabilities_warn'|'not_probabilities'|'invalid',
   *   computed: boolean, check, summary, pattern: {kind, confidence, parameter, scores},
   *   field: {previousToken, duplicateToken, induction}, causalStructure, causalVisibility,
   *   aboveDiagonalMass, thumbnail: Float32Array, thumbRows, thumbCols, rows?}}
   */
  analyzeHead(spec) {
    return throwIfError(this.mod.analyzeHead(spec));
  }

  /**
   * Two runs of one head compared (analysis.hpp compare_heads): each side's verdict, summary and
   * pattern, and the Jensen-Shannon divergence of their rows (nats, mean and largest).
   * @param {object} spec analyzeHead()'s options with {ptrA, dtypeA, ptrB, dtypeB, nQ, nK}
   * @returns {{a: object, b: object, meanJsd: number, maxJsd: number, maxJsdRow: number}}
   */
  compareHeads(spec) {
    return throwIfError(this.mod.compareHeads(spec));
  }

  /**
   * Layer numbers typed as "0,2,4,5" or "0-3,8": exactly `count` whole numbers, no repeats.
   * @returns {number[]} @throws {AttentionError} invalid_value (field layerNumbers)
   */
  parseLayerNumbers(text, count) {
    return throwIfError(this.mod.parseLayerNumbers(text, count));
  }

  /**
   * A file's structure from its analysed heads (analysis.hpp summarize_structure): causal,
   * mixed, bidirectional or unknown, and the flagged heads, largest above-diagonal mass first.
   * @param {object[]} heads analyzeHead() results with {layer, head}
   * @param {boolean} stated the user says the model is causal
   * @param {'weights'|'logits'} reading
   */
  structureSummary(heads, stated, reading) {
    return this.mod.structureSummary(
      heads.map((r) => ({
        layer: r.layer,
        head: r.head,
        computed: r.computed,
        causalStructure: Boolean(r.causalStructure),
        aboveDiagonalMass: r.aboveDiagonalMass ?? NaN,
        check: r.check,
      })),
      stated,
      reading,
    );
  }

  /** The layer numbers a file's layer labels give ("4", "L4", "blocks.4..."); [] when none. */
  layerNumbersFromLabels(labels) {
    return this.mod.layerNumbersFromLabels(labels);
  }

  /** Converts `count` raw values of `dtype` at heap offset `src` to float32 at `dst`. */
  toFloat32(src, dtype, count, dst) {
    this.mod.toFloat32(src, dtype, count, dst);
  }

  // --- Per-layer import summary and the guided lesson's answers (analysis.hpp, lesson.hpp) -----

  /**
   * The import view's layer table: per layer, the means over its computed heads of their finite
   * meanNormalizedEntropy, meanSinkMass, meanNEff, meanTopKMass (NaN when none).
   * @param {{layer: number, computed: boolean, summary: object}[]} heads  analyzeHead() results
   * @returns {{layer, heads, analysed, meanNormalizedEntropy, meanSinkMass, meanNEff,
   *   meanTopKMass}[]} layers in order of first appearance
   */
  layerSummaries(heads) {
    return this.mod.layerSummaries(heads.map((r) => ({ layer: r.layer, computed: r.computed, summary: r.summary })));
  }

  /**
   * The mean over heads of a layer's weights (analysis.hpp mean_heads): per cell the mean of the
   * heads' finite values, NaN where none is finite. For the import's token views.
   * @param {Float32Array[]} heads  each n_q * n_k, row-major (NaN = not visible)
   * @param {number} nQ
   * @param {number} nK
   * @returns {Float32Array} n_q * n_k
   */
  meanHeads(heads, nQ, nK) {
    return throwIfError(this.mod.meanHeads(heads, nQ, nK));
  }

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
