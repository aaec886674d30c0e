// The heap API of the WASM core (computeHead / computeTile over tensors written into the heap):
// the same numbers as the JSON path, results that survive memory growth, typed errors.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { HEAD_METRICS, ROW_METRICS } from './metrics.js';
import { loadCore, AttentionError } from '../../web/core/core.js';
import { mulberry32, int } from './helpers.js';

let core;
before(async () => {
  core = await loadCore({ variant: 'scalar' });
});

function put(data, Type = Float32Array) {
  const arr = Type.from(data);
  const ptr = core.alloc(arr.byteLength);
  if (Type === Float32Array) core.writeF32(ptr, arr);
  else core.writeU8(ptr, arr);
  return ptr;
}

test('computeHead and computeTile agree with the dense JSON path on random heads', () => {
  const rng = mulberry32(99);
  for (let trial = 0; trial < 60; trial++) {
    const n = int(rng, 1, 30);
    const d = int(rng, 1, 4);
    const Q = Array.from({ length: n }, () => Array.from({ length: d }, () => rng() * 4 - 2));
    const K = Array.from({ length: n }, () => Array.from({ length: d }, () => rng() * 4 - 2));
    const V = Array.from({ length: n }, () => [rng() * 6 - 3, rng()]);
    const padding = Array.from({ length: n }, () => rng() < 0.15);
    const causal = rng() < 0.5;
    const window = rng() < 0.3 ? int(rng, 1, 4) : 0;
    const tau = [0.2, 1, 3][int(rng, 0, 2)];
    const state = {
      version: 1,
      mode: 'qkv',
      heads: [{ name: 'h', Q, K, V, logits: null, weights: null }],
      head: 0,
      tokens: { queries: Q.map((_, i) => `${i}`), keys: K.map((_, i) => `${i}`) },
      mask: { causal, window, padding, allow: null },
      tau,
      scale: 'auto',
      topK: 3,
      row: 0,
      view: { panel: 'weights', preset: 'custom', numbers: 'auto' },
      source: '',
    };
    const dense = core.compute(state);
    const ptrs = { q: put(Q.flat()), k: put(K.flat()), v: put(V.flat()), padding: put(padding.map(Number), Uint8Array) };
    const spec = {
      mode: 'qkv',
      nQ: n,
      nK: n,
      dK: d,
      dV: 2,
      ...ptrs,
      causal,
      window,
      tau,
      scale: 0,
      topK: 3,
      blockRows: 1 + (trial % 7),
      overview: 4,
    };
    const head = core.computeHead(spec);
    dense.rows.forEach((row, t) => {
      assert.equal(head.rows.empty[t] === 1, row.empty);
      if (row.empty) {
        assert.ok(Number.isNaN(head.rows.entropy[t]));
        return;
      }
      assert.ok(Math.abs(head.rows.entropy[t] - row.entropy) < 1e-12, `trial ${trial} row ${t}`);
      assert.ok(Math.abs(head.rows.topKMass[t] - row.topKMass) < 1e-12);
      assert.equal(head.rows.support[t], row.support);
      assert.deepEqual(Array.from(head.output.subarray(2 * t, 2 * t + 2)), dense.output[t]);
    });
    const r0 = int(rng, 0, n - 1);
    const tile = core.computeTile(spec, r0, n, 0, n);
    for (let i = r0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        const x = tile.weights[(i - r0) * n + j];
        if (dense.visible[i][j]) assert.equal(x, dense.weights[i][j]);
        else assert.ok(Number.isNaN(x));
      }
    }
    Object.values(ptrs).forEach((p) => core.free(p));
  }
});

test('a result kept from n = 8 is unchanged after computing n = 2048 grows the memory', () => {
  const small = { mode: 'logits', nQ: 8, nK: 8, given: put(Array.from({ length: 64 }, (_, i) => Math.sin(i))), tau: 1, overview: 8 };
  const first = core.computeHead(small);
  const copy = structuredClone(first);
  const before = core.memoryBytes();
  const n = 2048;
  const big = core.alloc(n * n * 4); // 16 MiB: forces growth
  const view = core.viewF32(big, n * n); // fresh view after the allocation
  for (let i = 0; i < n * n; i++) view[i] = (i * 7919) % 13;
  const second = core.computeHead({ mode: 'logits', nQ: n, nK: n, given: big, tau: 2, causal: true, overview: 64 });
  assert.ok(core.memoryBytes() > before, 'memory did not grow; the test proves nothing');
  assert.deepEqual(first, copy);
  assert.equal(second.rows.entropy.length, n);
  assert.equal(second.rows.visible[n - 1], n);
  core.free(big);
});

test('heap errors are typed AttentionErrors naming the field', () => {
  const given = put([1, 2, 3, 4]);
  const spec = { mode: 'logits', nQ: 2, nK: 2, given, tau: 0 };
  assert.throws(
    () => core.computeHead(spec),
    (e) => e instanceof AttentionError && e.code === 'bad_temperature' && e.field === 'tau',
  );
  const weights = put([0.5, -0.5, 1, 0]);
  assert.throws(
    () => core.computeHead({ mode: 'weights', nQ: 2, nK: 2, given: weights, tau: 1 }),
    (e) => e.code === 'invalid_value' && /\[0\]\[1\]/.test(e.message),
  );
  assert.throws(
    () => core.computeTile({ mode: 'logits', nQ: 2, nK: 2, given, tau: 1 }, 1, 1, 0, 2),
    (e) => e.code === 'invalid_value',
  );
});

test('computeHeadRows over headRowSplit ranges, merged by mergeHeadRows, equal computeHead (one long head over workers)', () => {
  // The Embind entry points a page uses to split one head's rows over workers (each worker would
  // hold its own copy of Q and K; here one module computes every part).
  const rand = mulberry32(16);
  const n = 300;
  const d = 8;
  const q = put(Array.from({ length: n * d }, () => rand() * 4 - 2));
  const k = put(Array.from({ length: n * d }, () => rand() * 4 - 2));
  const v = put(Array.from({ length: n * 3 }, () => rand() * 2 - 1));
  for (const pool of ['max', 'mean']) {
    const spec = { mode: 'qkv', nQ: n, nK: n, dK: d, dV: 3, q, k, v, causal: true, tau: 0.7, topK: 5, overview: 32, pool };
    const whole = core.computeHead(spec);
    const bounds = core.mod.headRowSplit(n, 3, true);
    assert.deepEqual(bounds, [0, 173, 245, 300]); // 300 sqrt(i / 3), rounded: equal causal work
    const parts = [];
    for (let i = 0; i + 1 < bounds.length; i++) parts.push(core.mod.computeHeadRows(spec, bounds[i], bounds[i + 1]));
    assert.equal(parts[1].firstRow, 173);
    assert.equal(parts[1].rows.entropy.length, 245 - 173);
    const merged = core.mod.mergeHeadRows(spec, parts);
    assert.equal(merged.error, undefined);
    // Every metric of the table and every head mean, bit for bit (a metric the merge dropped
    // would come back 0).
    for (const key of [...ROW_METRICS.map((m) => m.key), 'empty'])
      assert.deepEqual(Array.from(merged.rows[key]), Array.from(whole.rows[key]), key);
    for (const m of HEAD_METRICS) assert.equal(merged.summary[m.head.key], whole.summary[m.head.key], m.head.key);
    for (let c = 0; c < whole.output.length; c++) assert.ok(Math.abs(merged.output[c] - whole.output[c]) < 1e-6);
    for (let c = 0; c < whole.overview.length; c++) {
      const [x, y] = [merged.overview[c], whole.overview[c]];
      assert.equal(Number.isNaN(x), Number.isNaN(y));
      if (!Number.isNaN(y)) assert.ok(Math.abs(x - y) <= 1e-6 + 1e-5 * Math.abs(y), `${pool} overview cell ${c}: ${x} vs ${y}`);
    }
  }
  assert.equal(core.mod.computeHeadRows({ mode: 'qkv', nQ: n, nK: n, dK: d, q, k }, 5, 5).error.code, 'invalid_value');
  [q, k, v].forEach((p) => core.free(p));
});
