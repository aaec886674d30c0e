// core.computeRows (cpp/bindings/bindings.cpp): a row range of a head, for workers sharing a long
// head's rows. Its rows must be the whole head's rows, bit for bit, for every mask that depends on
// the absolute row index (causal, window, stride, sinks, the allow-matrix), and it must refuse an
// empty or out-of-range range.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { loadCore, AttentionError } from '../../web/core.js';
import { mulberry32 } from '../../web/random.js';

let core;
before(async () => {
  core = await loadCore();
});

function head(n, d, dv, seed) {
  const rng = mulberry32(seed);
  const put = (count) => {
    const ptr = core.alloc(count * 4);
    const view = core.viewF32(ptr, count);
    for (let i = 0; i < count; i++) view[i] = rng() * 2 - 1;
    return ptr;
  };
  return { q: put(n * d), k: put(n * d), v: put(n * dv) };
}

test('rows [r0, r1) of computeRows equal the same rows of computeHead, bit for bit', () => {
  const n = 300;
  const t = head(n, 8, 4, 7);
  const allow = core.alloc(n * n);
  const flags = new Uint8Array(n * n).map((_, i) => (i % 7 === 3 ? 0 : 1));
  core.writeU8(allow, flags);
  const masks = [{ causal: true }, { causal: true, window: 50, maskSinks: 2 }, { stride: 3 }, { causal: true, allow }];
  for (const mask of masks) {
    const spec = { mode: 'qkv', nQ: n, nK: n, dK: 8, dV: 4, ...t, tau: 0.8, topK: 3, blockRows: 64, overview: 0, ...mask };
    const full = core.computeHead(spec);
    for (const [r0, r1] of [
      [0, 100],
      [100, 237],
      [237, 300],
    ]) {
      const part = core.computeRows(spec, r0, r1);
      assert.equal(part.nQ, r1 - r0);
      for (const key of Object.keys(full.rows)) {
        assert.deepEqual(Array.from(part.rows[key]), Array.from(full.rows[key].subarray(r0, r1)), `${key} rows ${r0}-${r1}`);
      }
      assert.deepEqual(Array.from(part.output), Array.from(full.output.subarray(r0 * 4, r1 * 4)));
    }
  }
});

test('an empty or out-of-range row range is refused', () => {
  const t = head(16, 4, 0, 1);
  const spec = { mode: 'qkv', nQ: 16, nK: 16, dK: 4, dV: 0, ...t, causal: true };
  for (const [r0, r1] of [
    [5, 5],
    [5, 3],
    [-1, 4],
    [0, 17],
  ]) {
    assert.throws(
      () => core.computeRows(spec, r0, r1),
      (e) => e instanceof AttentionError && e.code === 'invalid_value' && /0 <= r0 < r1 <= n_q/.test(e.message),
    );
  }
});
