// `npm run bench`: the kernel benchmark under node. Times the fused row softmax + entropy and the
// softmax alone on n x n matrices for the plain JS reference, the scalar and SIMD WebAssembly
// builds and TensorFlow.js (WASM backend, one thread); runs build/native/attn_bench (before and
// after, pooled) for the native variants; prints the table and the ratios, writes bench-results/bench-node.json.
//
//   node bench/node.js [--sizes 256,1024,4096] [--runs 7] [--min-ms 120] [--no-native] [--out FILE]
//                      [--wasm-dir DIR (default web/wasm)]
//
// Needs the build (web/wasm/attn*.{js,wasm}, build/native/attn_bench): scripts/bench.sh runs it
// first when it is missing.

import { readFileSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';

import { runBench, computeRatios, formatTables } from './lib/harness.js';
import { allVariants, nativeResults } from './lib/variants.js';
import { arg, machine, runNative, poolNative, gitInfo } from './lib/node-env.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const sizes = arg('--sizes', '256,1024,4096').split(',').map(Number);
const runs = Number(arg('--runs', 7));
const minBatchMs = Number(arg('--min-ms', 120));
const outFile = arg('--out', join(ROOT, 'bench-results', 'bench-node.json'));
const wasmDir = arg('--wasm-dir', join(ROOT, 'web', 'wasm'));
const log = (msg) => console.error(msg);

/** Loads an Emscripten ES6 module in node: 3.1.6 glue cannot fetch a file path, so pass the bytes. */
async function loadWasm(name) {
  const js = join(wasmDir, `${name}.js`);
  const wasm = join(wasmDir, `${name}.wasm`);
  if (!existsSync(js) || !existsSync(wasm)) throw new Error(`${js} or .wasm missing: run \`npm run build\``);
  const factory = (await import(pathToFileURL(js).href)).default;
  const Module = await factory({ wasmBinary: readFileSync(wasm) });
  for (const fn of ['benchSoftmaxEntropy', 'benchSoftmax', '_malloc', '_free']) {
    if (typeof Module[fn] !== 'function') throw new Error(`${js} has no ${fn}()`);
  }
  return Module;
}

async function loadTfjs() {
  const tf = await import('@tensorflow/tfjs-core');
  const wasmBackend = await import('@tensorflow/tfjs-backend-wasm');
  // The .wasm files ship in the package's dist/ folder; node reads them from there (a file path).
  const require = createRequire(import.meta.url);
  wasmBackend.setWasmPaths(dirname(require.resolve('@tensorflow/tfjs-backend-wasm')) + '/');
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false); // one thread, like the WASM kernels
  if (!(await tf.setBackend('wasm'))) throw new Error('TF.js WASM backend failed to start');
  await tf.ready();
  return {
    tf,
    info: {
      version: tf.version_core,
      backend: tf.getBackend(),
      simd: tf.env().getBool('WASM_HAS_SIMD_SUPPORT'),
      threads: tf.env().getBool('WASM_HAS_MULTITHREAD_SUPPORT') ? 'multi' : 1,
    },
  };
}

const started = Date.now();
const scalar = await loadWasm('attn');
const simd = await loadWasm('attn_simd');
const { tf, info: tfjs } = await loadTfjs();
const kernelNames = { 'wasm-scalar': scalar.kernelName?.(), 'wasm-simd': simd.kernelName?.() };
log(
  `WASM kernels: scalar build "${kernelNames['wasm-scalar']}", SIMD build "${kernelNames['wasm-simd']}"; TF.js ${tfjs.version} ${tfjs.backend} simd=${tfjs.simd} threads=${tfjs.threads}`,
);

// Native alone on the machine (the JS side idle meanwhile), once before and once after the JS/WASM
// phase; the runs of both are pooled (poolNative).
const nativeOpts = { sizes, runs, minBatchMs };
const nativeBefore = runNative(ROOT, log, nativeOpts);
if (nativeBefore.skipped) log(`native: skipped (${nativeBefore.skipped})`);

const bench = await runBench({
  variants: allVariants({ scalar, simd, tf }),
  sizes,
  runs,
  minBatchMs,
  log,
});
const native = nativeBefore.skipped ? nativeBefore : poolNative(nativeBefore, runNative(ROOT, log, nativeOpts));

const results = [...bench.results, ...nativeResults(native).filter((r) => sizes.includes(r.n))];
const ratios = computeRatios(results, 'node');
const report = {
  env: 'node',
  date: new Date().toISOString(),
  machine: { ...machine(), native: native.machine ?? null },
  config: { ...bench.config, kernels: kernelNames, tfjs },
  checks: bench.checks,
  git: gitInfo(ROOT),
  results,
  ratios,
  native_skipped: native.skipped ?? null,
  seconds: Math.round((Date.now() - started) / 1000),
};
mkdirSync(dirname(outFile), { recursive: true });
writeFileSync(outFile, JSON.stringify(report, null, 1) + '\n');

console.log(formatTables(results, ratios, `Kernel benchmark, node ${process.version}, ${report.machine.cpu}`));
for (const c of bench.checks.filter((c) => c.kernel === 'softmax_entropy')) {
  console.log(`n=${c.n}: ${c.what}: weights ${c.weights.toExponential(1)}, entropy ${c.entropy.toExponential(1)}`);
}
if (report.git)
  console.log(`checkout ${report.git.commit}${report.git.dirty ? ' with uncommitted changes (the build may include them)' : ''}`);
console.log(`\nwrote ${outFile} (${report.seconds} s)`);
