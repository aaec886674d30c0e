// core.meanHeads (analysis.hpp mean_heads through the import bindings): the layer-averaged weights
// of the import's token views. Expected values worked by hand.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { loadCore, AttentionError } from '../../web/core/core.js';

let core;
before(async () => {
  core = await loadCore({ variant: 'scalar' });
});

test('meanHeads: per cell the mean of the finite values, NaN where no head sees the key', () => {
  const a = new Float32Array([0.25, 0.75, 1, NaN]);
  const b = new Float32Array([1, NaN, 0.5, NaN]);
  const m = core.meanHeads([a, b], 2, 2);
  assert.ok(m instanceof Float32Array);
  assert.deepEqual(Array.from(m.subarray(0, 3)), [0.625, 0.75, 0.75]);
  assert.ok(Number.isNaN(m[3]));
});

test('meanHeads refuses a head of the wrong size and no heads', () => {
  assert.throws(() => core.meanHeads([new Float32Array(3)], 2, 2), AttentionError);
  assert.throws(() => core.meanHeads([], 1, 1), AttentionError);
});
