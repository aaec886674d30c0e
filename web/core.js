// The thin JavaScript wrapper over the WebAssembly core (cpp/, compiled by Emscripten).
// Same module in the page, in a worker and in node: compute(state) -> results JSON
// (docs/state.md). Every number the page shows comes from here; there is no maths in web/.
import createAttnModule from './wasm/attn.js';

/** An invalid state as reported by the core: `code` is one of shape_mismatch, non_finite,
 * bad_temperature, invalid_value, too_large, bad_state; `field` names the input ("tau",
 * "heads[0].Q", "mask.padding", ...). */
export class AttentionError extends Error {
  constructor(code, field, message) {
    super(message);
    this.name = 'AttentionError';
    this.code = code;
    this.field = field;
  }
}

const isNode = typeof process !== 'undefined' && !!process.versions?.node &&
  typeof window === 'undefined';

/**
 * Loads the WebAssembly module. In node the .wasm bytes are read from disk (Emscripten 3.1.6's
 * glue would try fetch() on a file path).
 * @returns {Promise<{compute: (state: object) => object, computeJson: (json: string) => string,
 *   variant: string}>}
 */
export async function loadCore() {
  const options = {};
  if (isNode) {
    const { readFileSync } = await import('node:fs');
    options.wasmBinary = readFileSync(new URL('./wasm/attn.wasm', import.meta.url));
  }
  const mod = await createAttnModule(options);
  /** Raw adapter: state JSON text in, results (or {"error"}) JSON text out. */
  const computeJson = (json) => mod.computeState(json);
  return {
    variant: 'wasm-scalar',
    computeJson,
    /**
     * Computes the selected head of a state (docs/state.md).
     * @param {object} state a version-1 state
     * @returns {object} results: scores, weights, output, visible, rows[], summary
     * @throws {AttentionError} when the core rejects the state
     */
    compute(state) {
      const out = JSON.parse(computeJson(JSON.stringify(state)));
      if (out.error) throw new AttentionError(out.error.code, out.error.field, out.error.message);
      return out;
    },
  };
}
