// Which WebAssembly build runs here, and how it is instantiated (web/core/core.js loadCore wraps
// the module it gives in a Core). The same in the page, in a worker and in node.
//
// Two builds exist: web/wasm/attn_simd.{js,wasm} (WebAssembly SIMD128) and web/wasm/attn.{js,wasm}
// (scalar). loadModule() takes the SIMD build only when the engine supports SIMD *and* the build's
// self-test (softmax of [1, 2, 3, 4]) is right, otherwise the scalar build, and says why.
// scripts/dist.js (the release's hashed paths) and scripts/single-file.js (the glue inlined)
// rewrite BUILDS' paths and instantiate's dynamic import of the glue in this file (the latter
// replaces the first occurrence of that import's text: keep it out of comments above it).

export const isNode = typeof process !== 'undefined' && !!process.versions?.node && typeof window === 'undefined';

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

export async function instantiate(build) {
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
 * Instantiates the build loadCore() runs (its options, web/core/core.js).
 * @returns {Promise<{mod: object, chosen: object, fallbackReason: string|null,
 *   fallback: {code: string, detail: string}|null}>} the module, its entry of BUILDS (with its lab
 *   module's), why the SIMD build is not in use (null when it is) and the same reason as a code
 */
export async function loadModule({ variant, failSelfTest }) {
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
  return { mod, chosen, fallbackReason, fallback };
}
