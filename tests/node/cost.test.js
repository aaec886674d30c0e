// The page's cost line (web/core/cost.js): the core counts the bytes and multiply-adds of a state
// from its shapes (costOf, multihead.hpp layer_cost / head_cost). Golden values by hand from the
// formulas (tests/cpp/test_cost.cpp gives them for the C++ functions):
//  * worked example 1 (qkv, 1 query, 2 keys, d_k = d_v = 2): 2 cells, 8 bytes, Q K^T 4, A V 4,
//    a block of 1 row: 2 * 4 * 1 * 2 = 16 bytes.
//  * long512 (qkv, 512 x 512, d_k = 16, d_v = 1, 64-row blocks): 262144 cells, 1048576 bytes,
//    Q K^T 262144 * 16 = 4194304, A V 262144, a block 2 * 4 * 64 * 512 = 262144 bytes.
//  * the multihead preset (n = 4, d_model = 4, two heads of d_k = d_v = 2, W_O 4 x 4):
//    projections 2 * 4 * 4 * (2 * 2 + 2) = 192, Q K^T and A V 2 * 16 * 4 = 128, W_O 4 * 4 * 4 = 64.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';

import { loadCore } from '../../web/core/core.js';
import { LESSON_PRESETS } from '../../web/presets/presets.js';
import { stateCost } from '../../web/core/cost.js';

let core;
before(async () => {
  core = await loadCore();
});

test('a dense head: worked example 1', () => {
  assert.deepEqual(
    { ...stateCost(core, LESSON_PRESETS.example1.make()) },
    { cells: 2, matrixBytes: 8, scoreMacs: 4, outputMacs: 4, streamBytes: 16 },
  );
});

test('a large head: long512', () => {
  assert.deepEqual(
    { ...stateCost(core, LESSON_PRESETS.long512.make()) },
    { cells: 262144, matrixBytes: 1048576, scoreMacs: 4194304, outputMacs: 262144, streamBytes: 262144 },
  );
});

test('given logits cost no Q K^T', () => {
  // Worked example 2: 3 x 3 logits, V of one column.
  assert.deepEqual(
    { ...stateCost(core, LESSON_PRESETS.example2.make()) },
    { cells: 9, matrixBytes: 36, scoreMacs: 0, outputMacs: 9, streamBytes: 72 },
  );
});

test('mode "x": the multihead preset, and without W_O', () => {
  const s = LESSON_PRESETS.multihead.make();
  assert.deepEqual({ ...stateCost(core, s) }, { projectionMacs: 192, attentionMacs: 128, outputMacs: 64 });
  s.x.WO = null;
  s.x.residual = false;
  assert.deepEqual({ ...stateCost(core, s) }, { projectionMacs: 192, attentionMacs: 128, outputMacs: 0 });
});

test('the binding answers a shape that is not one with an error, not a throw', () => {
  const bad = core.mod.costOf({ mode: 'qkv', nQ: -1, nK: 2, dK: 2, dV: 2, blockRows: 64 });
  assert.equal(bad.error.code, 'invalid_value');
  const uneven = core.mod.costOf({ mode: 'x', n: 2, dModel: 2, dK: [1, 1], dV: [1], woRows: 0, woCols: 0 });
  assert.equal(uneven.error.code, 'shape_mismatch');
  assert.equal(uneven.error.field, 'heads');
});

test('the cost line writes its counts with thousands separators, as Intl would (fmtInt)', async () => {
  const { fmtInt } = await import('../../web/views/format.js');
  // The same text as toLocaleString('en'), which the page no longer calls on its start-up path.
  for (const n of [0, 7, 999, 1000, 65536, 262144, 1048576, 4194304, 123456789, 9007199254740991, -1234567]) {
    assert.equal(fmtInt(n), n.toLocaleString('en'), String(n));
  }
});
