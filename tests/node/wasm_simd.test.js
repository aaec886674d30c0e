// Both WebAssembly builds (web/wasm/attn.js scalar, web/wasm/attn_simd.js SIMD128) loaded as the
// page would, with the .wasm bytes passed in (Emscripten 3.1.6 glue cannot fetch a file path in
// node): the active kernel set's name, the loader's self-test, and the heap bench entry points
// against a double-precision softmax + entropy written here.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mulberry32 } from './helpers.js';

const SELF_TEST_EXPECTED = [0.0320586, 0.0871443, 0.2368828, 0.6439143];
const BUILDS = [
  { file: 'attn', kernel: 'scalar' },
  { file: 'attn_simd', kernel: 'wasm-simd128' },
];
const LENGTHS = [1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 255, 256, 257, 1000, 1023, 1024, 1025, 4095, 4096, 4099];

const modules = {};

before(async () => {
  for (const { file } of BUILDS) {
    const url = new URL(`../../web/wasm/${file}.js`, import.meta.url);
    const { default: factory } = await import(url.href);
    modules[file] = await factory({
      wasmBinary: readFileSync(new URL(`../../web/wasm/${file}.wasm`, import.meta.url)),
    });
  }
});

/** Softmax of x / tau and its entropy (nats), in double precision. */
function softmaxEntropyRef(x, tau) {
  let max = -Infinity;
  for (const v of x) max = Math.max(max, v);
  const e = x.map((v) => Math.exp((v - max) / tau));
  const z = e.reduce((s, v) => s + v, 0);
  const p = e.map((v) => v / z);
  let h = 0;
  for (const v of p) if (v > 0) h -= v * Math.log(v);
  return { p, h };
}

for (const { file, kernel } of BUILDS) {
  test(`${file}.js: kernelName() is "${kernel}"`, () => {
    assert.equal(modules[file].kernelName(), kernel);
  });

  test(`${file}.js: selfTest() is softmax([1, 2, 3, 4]) within 1e-6`, () => {
    const got = Array.from(modules[file].selfTest());
    assert.equal(got.length, 4);
    got.forEach((v, i) => assert.ok(Math.abs(v - SELF_TEST_EXPECTED[i]) <= 1e-6, `[${i}] ${v}`));
  });

  test(`${file}.js: benchSoftmaxEntropy / benchSoftmax match double precision, n = 1..4099`, () => {
    const M = modules[file];
    const rng = mulberry32(2026 + file.length);
    for (const n of LENGTHS) {
      const rows = 3;
      const tau = n % 2 ? 1 : 0.7;
      const input = Float32Array.from({ length: rows * n }, () => (rng() * 2 - 1) * 6);
      const inPtr = M._malloc(rows * n * 4);
      const outPtr = M._malloc(rows * n * 4);
      const out2Ptr = M._malloc(rows * n * 4);
      const entPtr = M._malloc(rows * 4);
      try {
        M.HEAPF32.set(input, inPtr >> 2); // re-read HEAPF32 after _malloc: growth detaches it
        M.benchSoftmaxEntropy(inPtr, outPtr, entPtr, rows, n, tau);
        M.benchSoftmax(inPtr, out2Ptr, rows, n, tau);
        const heap = M.HEAPF32;
        const out = heap.slice(outPtr >> 2, (outPtr >> 2) + rows * n);
        const out2 = heap.slice(out2Ptr >> 2, (out2Ptr >> 2) + rows * n);
        const ent = heap.slice(entPtr >> 2, (entPtr >> 2) + rows);
        for (let r = 0; r < rows; ++r) {
          const { p, h } = softmaxEntropyRef(Array.from(input.subarray(r * n, (r + 1) * n)), tau);
          assert.ok(Math.abs(ent[r] - h) <= Math.max(1e-6, 1e-6 * h), `n=${n} row ${r}: H ${ent[r]} vs ${h}`);
          for (let j = 0; j < n; ++j) {
            const got = out[r * n + j];
            assert.ok(Math.abs(got - p[j]) <= Math.max(1e-7, 1e-5 * p[j]), `n=${n} [${r}][${j}]: ${got} vs ${p[j]}`);
            assert.equal(out2[r * n + j], got, `softmax alone differs at n=${n} [${r}][${j}]`);
          }
        }
      } finally {
        for (const ptr of [entPtr, out2Ptr, outPtr, inPtr]) M._free(ptr);
      }
    }
  });
}
