// The import view's entry points of the core (cpp/include/attn/import.hpp, analysis.hpp): file
// headers and documents read, heads of raw values in the heap checked, analysed and compared, the
// layer table and the mean over a layer's heads. Methods of Core (web/core/core.js, which puts
// them on Core.prototype as they are): `this` is the Core, `this.mod` its WebAssembly module.
import { throwIfError } from './error-types.js';

export class CoreImport {
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
}
