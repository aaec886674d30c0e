// The page's pure state edits (web/page/edits.js): each returns the next state and leaves its
// argument unchanged, and what it returns passes the schema validator (the core's, tests/node/schema.js). The states
// are the lesson presets: example 1 (q = (1, 0), K = [[1, 0], [0, 1]], V = [[2, 0], [0, 4]]),
// the four-token self-attention state and the two-head layer of mode "x".
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { validateState } from './schema.js';
import { LESSON_PRESETS } from '../../web/presets/presets.js';
import {
  addValues,
  editCell,
  editToken,
  enterLayerMode,
  freshLabel,
  leaveLayerMode,
  nK,
  nQ,
  resizeColumns,
  resizeKeys,
  resizeQueries,
  setGate,
  setGateAll,
  setGateRow,
  switchMode,
  toggleAllow,
} from '../../web/page/edits.js';

const example1 = () => LESSON_PRESETS.example1.make();
const four = () => LESSON_PRESETS.selfattention.make();
const layer = () => LESSON_PRESETS.multihead.make();

/** Runs `edit` on `s`, checks that `s` is unchanged and the result valid; returns the result. */
function pure(s, edit) {
  const before = structuredClone(s);
  const next = edit(s);
  assert.deepEqual(s, before, 'the edit left its argument unchanged');
  assert.notEqual(next, s);
  validateState(next);
  return next;
}

test('nQ and nK: the selected head in each mode', () => {
  assert.deepEqual([nQ(example1()), nK(example1())], [1, 2]);
  assert.deepEqual([nQ(four()), nK(four())], [4, 4]);
  assert.deepEqual([nQ(layer()), nK(layer())], [4, 4]);
  const logits = LESSON_PRESETS.example2.make();
  assert.deepEqual([nQ(logits), nK(logits)], [3, 3]);
});

test('freshLabel: the smallest number not yet used', () => {
  assert.equal(freshLabel('k', ['k1', 'k2']), 'k3');
  assert.equal(freshLabel('k', ['k1', 'k3']), 'k4');
  assert.equal(freshLabel('k', ['k2', 'k9']), 'k3');
  assert.equal(freshLabel('q', ['q']), 'q2');
  assert.equal(freshLabel('head ', ['head 0', 'head 1']), 'head 3');
  assert.equal(freshLabel('x', []), 'x1');
});

test('editCell changes one number and marks the preset as edited', () => {
  const next = pure(example1(), (s) => editCell(s, 'K', 1, 0, 0.5));
  assert.deepEqual(next.heads[0].K, [
    [1, 0],
    [0.5, 1],
  ]);
  assert.equal(next.view.preset, 'custom');
  assert.ok(next.source.startsWith('Edited from: Worked example 1'));
  // A second edit of a custom state keeps its source.
  const again = pure(next, (s) => editCell(s, 'Q', 0, 1, 2));
  assert.deepEqual(again.heads[0].Q, [[1, 2]]);
  assert.equal(again.source, next.source);
});

test('editToken: tied self-attention labels follow each other, untied ones do not', () => {
  const tied = pure(four(), (s) => editToken(s, 'keys', 1, 'dog'));
  assert.deepEqual(tied.tokens.keys, ['The', 'dog', 'sat', 'down']);
  assert.deepEqual(tied.tokens.queries, ['The', 'dog', 'sat', 'down']);
  const untied = pure(example1(), (s) => editToken(s, 'keys', 0, 'first'));
  assert.deepEqual(untied.tokens.keys, ['first', 'k2']);
  assert.deepEqual(untied.tokens.queries, ['q']);
  assert.equal(untied.view.preset, 'example1', 'a label is not a number: the preset stays');
});

test('resizeQueries adds a zero query with a fresh label and removes the last one', () => {
  const s = example1();
  s.mask.allow = [[true, false]];
  s.heads[0].gate = [1.5];
  const more = pure(s, (x) => resizeQueries(x, 1));
  assert.deepEqual(more.heads[0].Q, [
    [1, 0],
    [0, 0],
  ]);
  assert.deepEqual(more.tokens.queries, ['q', 'q2']);
  assert.deepEqual(more.heads[0].gate, [1.5, 0], 'a new query starts at gate logit 0');
  assert.equal(more.mask.allow, null);
  const back = pure(more, (x) => resizeQueries({ ...x, row: 1 }, -1));
  assert.deepEqual(back.heads[0].Q, [[1, 0]]);
  assert.deepEqual(back.tokens.queries, ['q']);
  assert.deepEqual(back.heads[0].gate, [1.5]);
  assert.equal(back.row, 0, 'the selected row stays a row');
  // The last query is never removed.
  assert.deepEqual(pure(back, (x) => resizeQueries(x, -1)).heads[0].Q, [[1, 0]]);
});

test('resizeQueries in mode "weights" adds a uniform row', () => {
  const s = switchMode(example1(), { scores: [[1, 0]], weights: [[0.75, 0.25]] }, 'weights');
  // (The Q and K of mode "qkv" stay in the head; a query more would no longer fit them.)
  s.heads[0].Q = null;
  s.heads[0].K = null;
  const more = pure(s, (x) => resizeQueries(x, 1));
  assert.deepEqual(more.heads[0].weights, [
    [0.75, 0.25],
    [0.5, 0.5],
  ]);
});

test('resizeKeys adds a key row to K and V, a label and a padding flag', () => {
  const more = pure(example1(), (s) => resizeKeys(s, 1));
  assert.deepEqual(more.heads[0].K, [
    [1, 0],
    [0, 1],
    [0, 0],
  ]);
  assert.deepEqual(more.heads[0].V, [
    [2, 0],
    [0, 4],
    [0, 0],
  ]);
  assert.deepEqual(more.tokens.keys, ['k1', 'k2', 'k3']);
  assert.deepEqual(more.mask.padding, [false, false, false]);
  const fewer = pure(more, (s) => resizeKeys(s, -1));
  assert.deepEqual(fewer.heads[0].K, [
    [1, 0],
    [0, 1],
  ]);
  assert.deepEqual(fewer.tokens.keys, ['k1', 'k2']);
  // One key is the least: removing it changes nothing.
  const one = pure(
    pure(fewer, (s) => resizeKeys(s, -1)),
    (s) => resizeKeys(s, -1),
  );
  assert.deepEqual(one.heads[0].K, [[1, 0]]);
  assert.deepEqual(one.mask.padding, [false]);
});

test('resizeKeys in mode "logits" adds a column of zeros', () => {
  const s = LESSON_PRESETS.example2.make();
  const more = pure(s, (x) => resizeKeys(x, 1));
  assert.deepEqual(
    more.heads[0].logits.map((row) => row.length),
    [4, 4, 4],
  );
  assert.deepEqual(
    more.heads[0].logits.map((row) => row[3]),
    [0, 0, 0],
  );
  assert.deepEqual(more.heads[0].V, [[2], [6], [10], [0]]);
});

test('resizeColumns: d_k changes Q and K together, d_v changes V; never below one column', () => {
  const dk = pure(example1(), (s) => resizeColumns(s, 'dk', 1));
  assert.deepEqual(dk.heads[0].Q, [[1, 0, 0]]);
  assert.deepEqual(dk.heads[0].K, [
    [1, 0, 0],
    [0, 1, 0],
  ]);
  assert.deepEqual(dk.heads[0].V, [
    [2, 0],
    [0, 4],
  ]);
  const dv = pure(example1(), (s) => resizeColumns(s, 'dv', -1));
  assert.deepEqual(dv.heads[0].V, [[2], [0]]);
  const floor = pure(dv, (s) => resizeColumns(s, 'dv', -1));
  assert.deepEqual(floor.heads[0].V, [[2], [0]]);
});

test('addValues: one column v_j = j', () => {
  const s = example1();
  s.heads[0].V = null;
  assert.deepEqual(pure(s, addValues).heads[0].V, [[0], [1]]);
});

test('toggleAllow creates an all-true allow-matrix, flips one cell, and drops it when all true', () => {
  const once = pure(four(), (s) => toggleAllow(s, 2, 1));
  assert.deepEqual(once.mask.allow, [
    [true, true, true, true],
    [true, true, true, true],
    [true, false, true, true],
    [true, true, true, true],
  ]);
  assert.equal(pure(once, (s) => toggleAllow(s, 2, 1)).mask.allow, null);
});

test('gate edits: on at logit 0 per query, all rows, one row, off', () => {
  const on = pure(four(), (s) => setGate(s, true));
  assert.deepEqual(on.heads[0].gate, [0, 0, 0, 0]);
  assert.equal(on.view.preset, 'custom');
  assert.deepEqual(pure(on, (s) => setGateAll(s, -2.5)).heads[0].gate, [-2.5, -2.5, -2.5, -2.5]);
  assert.deepEqual(pure(on, (s) => setGateRow(s, 1, 3)).heads[0].gate, [0, 3, 0, 0]);
  assert.equal('gate' in pure(on, (s) => setGate(s, false)).heads[0], false);
});

test('switchMode: qkv -> logits copies the scores, -> weights copies the weights and sets tau = 1', () => {
  const s = { ...example1(), tau: 2 };
  const results = { scores: [[1, null]], weights: [[0.62, 0.38]] };
  const logits = pure(s, (x) => switchMode(x, results, 'logits'));
  assert.equal(logits.mode, 'logits');
  assert.deepEqual(logits.heads[0].logits, [[1, null]]);
  assert.equal(logits.tau, 2);
  const weights = pure(s, (x) => switchMode(x, results, 'weights'));
  assert.equal(weights.mode, 'weights');
  assert.deepEqual(weights.heads[0].weights, [[0.62, 0.38]]);
  assert.equal(weights.tau, 1);
  // Back to qkv: the head's own Q and K still fit, so they stay.
  assert.deepEqual(pure(logits, (x) => switchMode(x, results, 'qkv')).heads[0].Q, [[1, 0]]);
});

test('switchMode into qkv from logits without Q, K: identity-ish Q and K of the right shape', () => {
  const s = LESSON_PRESETS.example2.make();
  const qkv = pure(s, (x) => switchMode(x, null, 'qkv'));
  assert.deepEqual(qkv.heads[0].Q, [
    [1, 0],
    [1, 0.5],
    [1, 1],
  ]);
  assert.deepEqual(qkv.heads[0].K, [
    [1, 0],
    [1, 0.5],
    [1, 1],
  ]);
  assert.equal(qkv.mode, 'qkv');
});

test('enterLayerMode: a seeded layer on the key tokens, with the settings kept', () => {
  const s = { ...four(), tau: 0.5, topK: 3, row: 3 };
  s.mask = { ...s.mask, causal: true };
  s.heads[0].gate = [1, 2, 3, 4];
  const x = pure(s, (y) => enterLayerMode(y, 7));
  assert.equal(x.mode, 'x');
  assert.deepEqual([x.x.X.length, x.x.X[0].length], [4, 4]);
  assert.deepEqual([x.heads[0].WQ[0].length, x.heads[0].WV[0].length], [2, 2]);
  assert.deepEqual(x.heads[0].gate, [1, 2, 3, 4]);
  assert.deepEqual([x.tau, x.topK, x.row, x.mask.causal], [0.5, 3, 3, true]);
  assert.deepEqual(x.tokens.queries, ['The', 'cat', 'sat', 'down']);
  assert.ok(x.source.startsWith('Random layer (mulberry32 seed 7) on the tokens of: Hand-made'));
  assert.deepEqual(enterLayerMode(s, 7), x, 'the same seed gives the same layer');
  assert.notDeepEqual(enterLayerMode(s, 8).x.X, x.x.X);
});

test("leaveLayerMode: every head takes its derived Q, K, V; W's and X are dropped", () => {
  const s = { ...layer(), tau: 3 };
  const perHead = s.heads.map((_, i) => ({
    derived: {
      Q: [
        [i, 1],
        [1, 1],
        [1, 1],
        [1, 1],
      ],
      K: [
        [1, 0],
        [0, 1],
        [1, 1],
        [0, 0],
      ],
      V: [
        [1, 2],
        [3, 4],
        [5, 6],
        [7, 8],
      ],
    },
    scores: [
      [0, 1, 2, 3],
      [0, 0, 0, 0],
      [1, 1, 1, 1],
      [2, 2, 2, 2],
    ],
    weights: [
      [0.25, 0.25, 0.25, 0.25],
      [0.25, 0.25, 0.25, 0.25],
      [0.25, 0.25, 0.25, 0.25],
      [1, 0, 0, 0],
    ],
  }));
  const qkv = pure(s, (x) => leaveLayerMode(x, perHead, 'qkv'));
  assert.equal(qkv.mode, 'qkv');
  assert.equal('x' in qkv, false);
  assert.deepEqual(
    qkv.heads.map((hd) => hd.Q[0][0]),
    [0, 1],
  );
  assert.equal('WQ' in qkv.heads[1], false);
  assert.equal(qkv.tau, 3);
  const weights = pure(s, (x) => leaveLayerMode(x, perHead, 'weights'));
  assert.deepEqual(weights.heads[1].weights[3], [1, 0, 0, 0]);
  assert.equal(weights.tau, 1);
  const logits = pure(s, (x) => leaveLayerMode(x, perHead, 'logits'));
  assert.deepEqual(logits.heads[0].logits[0], [0, 1, 2, 3]);
});
