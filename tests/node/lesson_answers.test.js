// The core's numbers behind the guided lesson's answers and the import view's layer table
// (web/core/core.js weightSum, renormalisation, valueEdit, layerSummaries; lesson.hpp, analysis.hpp),
// checked against sums, renormalisations and norms written here in plain JS, and through the
// lesson's own answers (web/lesson/steps.js) on its four-token state.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { loadCore } from '../../web/core/core.js';
import {
  answerStep1,
  answerStep3,
  answerStep4,
  fourTokens,
  predicted,
  referenceState,
  setupState,
  untouchedBoxes,
} from '../../web/lesson/steps.js';

let core;
before(async () => {
  core = await loadCore();
});

const near = (got, want, tol, what) => assert.ok(Math.abs(got - want) <= tol, `${what}: ${got} vs ${want}`);
const sum = (xs) => xs.reduce((a, b) => a + b, 0);
const norm = (xs) => Math.sqrt(sum(xs.map((x) => x * x)));

test('weightSum adds in order; 0 for an empty row', () => {
  assert.equal(core.weightSum([0.25, 0.5, 0.125]), 0.875);
  assert.equal(core.weightSum([]), 0);
});

test('renormalisation: the causal row is the unmasked row renormalised over j <= t', () => {
  const free = core.compute(fourTokens());
  const masked = core.compute(fourTokens({ causal: true }));
  const t = 2;
  const r = core.renormalisation(free.weights[t], masked.visible[t], masked.weights[t]);
  const kept = free.weights[t][0] + free.weights[t][1] + free.weights[t][2];
  near(r.kept, kept, 1e-15, 'kept');
  assert.ok(Array.isArray(r.expected));
  free.weights[t].forEach((b, j) => near(r.expected[j], j <= t ? b / kept : 0, 1e-15, `expected ${j}`));
  assert.ok(r.maxDiff <= 1e-6, `maxDiff ${r.maxDiff}`);
  near(r.afterSum, sum(masked.weights[t]), 1e-15, 'afterSum');
  assert.throws(() => core.renormalisation([0.5, 0.5], [true], [0.5, 0.5]), { code: 'shape_mismatch' });
});

test('valueEdit: masked scores (null) on both sides compare equal; one value moved gives |do| / |dv| = a_tj', () => {
  const start = fourTokens({ causal: true });
  const moved = structuredClone(start);
  moved.heads[0].V[1] = moved.heads[0].V[1].map((x) => x + 1);
  const ref = core.compute(start);
  const live = core.compute(moved);
  const t = 2;
  const e = core.valueEdit({
    scores: live.scores,
    refScores: ref.scores,
    output: live.output[t],
    refOutput: ref.output[t],
    values: moved.heads[0].V,
    refValues: start.heads[0].V,
    changed: [1],
  });
  assert.equal(e.scoresDiff, 0);
  const shift = live.output[t].map((x, i) => x - ref.output[t][i]);
  e.shift.forEach((x, i) => near(x, shift[i], 1e-15, `shift ${i}`));
  near(e.shiftSize, norm(shift), 1e-15, 'shiftSize');
  near(e.valueShifts[0], Math.SQRT2, 1e-15, '|dv|');
  near(e.ratio, live.weights[t][1], 1e-6, 'ratio = a_t1');
  // A cell masked in one matrix only: the scores changed without bound.
  const open = core.compute(fourTokens());
  const e2 = core.valueEdit({
    scores: live.scores,
    refScores: open.scores,
    output: live.output[t],
    refOutput: open.output[t],
    values: moved.heads[0].V,
    refValues: start.heads[0].V,
    changed: [0, 1],
  });
  assert.equal(e2.scoresDiff, Infinity);
  assert.equal(e2.ratio, null);
});

test("the lesson answers of steps 1, 3 and 4 carry the core's numbers", () => {
  const s1 = setupState(1);
  s1.heads[0].K[1] = [0.5, 1.5];
  const r1 = core.compute(s1);
  const a1 = answerStep1(s1, r1, core.compute(referenceState(1, s1)), core);
  near(a1.sum, sum(r1.weights[s1.row]), 1e-15, 'step 1 sum');

  const s3 = fourTokens({ causal: true });
  const r3 = core.compute(s3);
  const a3 = answerStep3(s3, r3, core.compute(referenceState(3, s3)), core);
  assert.equal(a3.renorm, 'renormalised');
  near(a3.kept, sum(core.compute(fourTokens()).weights[2].slice(0, 3)), 1e-15, 'step 3 kept');

  const s4 = fourTokens();
  s4.heads[0].V[3] = [3, 0];
  const r4 = core.compute(s4);
  const a4 = answerStep4(s4, r4, core.compute(referenceState(4, s4)), core);
  assert.deepEqual(a4.changed, [3]);
  assert.equal(a4.scoresAnswer, 'same');
  near(a4.ratio, r4.weights[2][3], 1e-6, 'step 4 ratio = a_23');
  near(a4.dv[0].size, Math.SQRT2, 1e-15, 'step 4 |dv|');
});

test('layerSummaries: means over computed heads with finite values, layers in first-seen order', () => {
  const head = (layer, computed, hn, sink, neff, topk) => ({
    layer,
    computed,
    summary: { meanNormalizedEntropy: hn, meanSinkMass: sink, meanNEff: neff, meanTopKMass: topk, meanEntropy: 9 },
  });
  const got = core.layerSummaries([
    head(1, true, 0.5, 0.25, 2, 0.75),
    head(0, true, 0.2, NaN, 3, 0.9),
    head(1, false, 0.9, 0.9, 9, 0.9),
    head(1, true, 0.1, 0.5, Infinity, 0.6),
    head(0, true, 0.4, 0.1, 1.5, 0.8),
    head(2, false, 0.7, 0.7, 7, 0.7),
  ]);
  assert.deepEqual(
    got.map((l) => [l.layer, l.heads, l.analysed]),
    [
      [1, 3, 2],
      [0, 2, 2],
      [2, 1, 0],
    ],
  );
  near(got[0].meanNormalizedEntropy, 0.3, 1e-15, 'L1 Hn');
  near(got[0].meanSinkMass, 0.375, 1e-15, 'L1 sink');
  near(got[0].meanNEff, 2, 1e-15, 'L1 N_eff (inf skipped)');
  near(got[0].meanTopKMass, 0.675, 1e-15, 'L1 top-k');
  near(got[1].meanSinkMass, 0.1, 1e-15, 'L0 sink (NaN skipped)');
  near(got[1].meanNEff, 2.25, 1e-15, 'L0 N_eff');
  assert.ok(Number.isNaN(got[2].meanNormalizedEntropy) && Number.isNaN(got[2].meanTopKMass), 'L2: nothing analysed');
  assert.deepEqual(core.layerSummaries([]), []);
});

// ---- the article's numbers the lesson shows, against plain JS ---------------------------------
test('worked example 2: exact logits (ln 3, ln 2, −∞), A as fractions, outputs 2, 5, 5 and both take-aways', async () => {
  const { LESSON_PRESETS } = await import('../../web/presets/presets.js');
  const { example2Facts } = await import('../../web/lesson/steps.js');
  const { exactLogit, fraction } = await import('../../web/lesson/lesson-text.js');
  const s = core.validateState(LESSON_PRESETS.example2.make());
  const r = core.compute(s);
  assert.deepEqual(
    s.heads[0].logits.map((row) => row.map(exactLogit)),
    [
      ['0', '−∞', '−∞'],
      ['0', 'ln 3', '−∞'],
      ['ln 2', '0', '0'],
    ],
  );
  // By hand: softmax(0, ln 3) = (1/4, 3/4); softmax(ln 2, 0, 0) = (2/4, 1/4, 1/4).
  const A = [
    [1, 0, 0],
    [1 / 4, 3 / 4, 0],
    [1 / 2, 1 / 4, 1 / 4],
  ];
  const V = [2, 6, 10];
  const outs = A.map((w) => sum(w.map((a, j) => a * V[j])));
  assert.deepEqual(outs, [2, 5, 5]);
  const facts = example2Facts(s, r);
  facts.rows.forEach((row, i) => {
    near(row.output, outs[i], 1e-5, `output ${i + 1}`);
    row.weights.forEach((w, j) => near(w, A[i][j], 1e-6, `A[${i}][${j}]`));
  });
  assert.deepEqual(
    facts.rows.map((row) => row.weights.map(fraction)),
    [
      ['1', '0', '0'],
      ['1/4', '3/4', '0'],
      ['1/2', '1/4', '1/4'],
    ],
  );
  assert.equal(facts.same23 && facts.differ23, true, 'rows 2 and 3: same output, different weights');
  // Row 1 stays 2 whatever the future values are.
  const future = structuredClone(s);
  future.heads[0].V = [[2], [60], [-7]];
  near(example2Facts(future, core.compute(future)).rows[0].output, 2, 1e-6, 'row 1 with other future values');
});

test('the three 常见误区 on the four-token state: numbers from the core against plain JS', async () => {
  const { answerMyths } = await import('../../web/lesson/steps.js');
  const s = core.validateState(fourTokens());
  const r = core.compute(s);
  const sens = core.lab({ ...s, lab: { view: 'sensitivity', params: {} } });
  const a = answerMyths(s, r, sens, core);
  // Row "sat" (t = 2): scores q_2 · k_j / √2 with q_2 = (1, 1).
  const K = s.heads[0].K;
  const z = K.map((k) => (k[0] + k[1]) / Math.SQRT2);
  const e = z.map((x) => Math.exp(x - Math.max(...z)));
  const w = e.map((x) => x / sum(e));
  near(a.myth3.max, Math.max(...w), 1e-6, 'myth 3: the largest weight');
  assert.ok(a.myth3.max < 0.6, 'far from one');
  near(a.myth3.entropy, -sum(w.map((x) => x * Math.log(x))), 1e-5, 'myth 3: the entropy');
  assert.equal(a.myth2.nK, 4);
  near(a.myth2.sum, 1, 1e-6, 'myth 2: the row sums to one');
  assert.equal(a.myth1.top, w.indexOf(Math.max(...w)), 'myth 1: the largest-weight key');
  // Deletion shift of key j: ‖o_{-j} − o‖ with o_{-j} the output renormalised without j.
  const V = s.heads[0].V;
  const o = [0, 1].map((c) => sum(w.map((x, j) => x * V[j][c])));
  const shift = (j) => {
    const rest = sum(w.filter((_, i) => i !== j));
    const oj = [0, 1].map((c) => sum(w.map((x, i) => (i === j ? 0 : (x / rest) * V[i][c]))));
    return norm(oj.map((x, c) => x - o[c]));
  };
  const shifts = w.map((_, j) => shift(j));
  near(a.myth1.moverShift, Math.max(...shifts), 1e-5, 'myth 1: the largest deletion shift');
  assert.equal(a.myth1.mover, shifts.indexOf(Math.max(...shifts)));
});

test('step 1 redistribution: k2 moved towards q, the rest of the row falls and the row sums to one', () => {
  const s = setupState(1);
  s.heads[0].K[1] = [0.5, 1];
  const v = core.validateState(s);
  const a = answerStep1(v, core.compute(v), core.compute(referenceState(1, v)), core);
  assert.equal(a.redistribute, 'others-fall');
  assert.deepEqual([a.rise, a.fall], [[1], [0]]);
  near(a.keys[1].weight, 1 / (1 + Math.exp(0.5)), 1e-6, 'k2: 1 / (1 + e^(1 − 0.5))');
});

test('lesson vectors write their entries alike: exact ones as they are, rounded ones to the same decimals', async () => {
  const { vec } = await import('../../web/lesson/lesson-text.js');
  // Exact short entries stay short (the seeds' (1, 0), (2, 6, 10), A's row (1/2, 1/4, 1/4)).
  assert.equal(vec([1, 0]), '(1, 0)');
  assert.equal(vec([2, 6, 10]), '(2, 6, 10)');
  assert.equal(vec([0.5, 0.25, 0.25]), '(0.5, 0.25, 0.25)');
  // One rounded entry: all to its decimals (it showed "(0.5, 0.3333)" next to "0.333333" elsewhere).
  assert.equal(vec([0.5, 1 / 3]), '(0.5000, 0.3333)');
  assert.equal(vec([1, 1 / 3, 0]), '(1.0000, 0.3333, 0.0000)');
  // Worked example 1's swapped output o = 0.2689·(2, 0) + 0.7311·(0, 4): (0.5379, 2.9242), not (0.5379, 2.924).
  const a = 1 / (1 + Math.E);
  assert.equal(vec([2 * a, 4 * (1 - a)]), '(0.5379, 2.9242)');
  assert.equal(vec([2 * (1 - a), 4 * a]), '(1.462, 1.076)');
  assert.equal(vec([Math.sqrt(2) * 0.6, Math.sqrt(2), 0.25 * Math.SQRT2]), '(0.8485, 1.4142, 0.3536)');
  // Every entry of a rounded vector has as many decimals as every other.
  for (const xs of [
    [0.73412, 0.73412],
    [0.265881, 0.265881, 0.468238, 0],
    [12.5, 0.0123456],
    [-1 / 7, 3, 1 / 9],
  ]) {
    const parts = vec(xs).slice(1, -1).split(', ');
    const decimals = new Set(parts.map((p) => p.split('.')[1]?.length ?? 0));
    assert.equal(decimals.size, 1, `${vec(xs)}: one number of decimals`);
    parts.forEach((p, i) =>
      assert.ok(Math.abs(Number(p) - xs[i]) <= 0.5 * 10 ** -(p.split('.')[1]?.length ?? 0) + 1e-12, `${p} is ${xs[i]} rounded`),
    );
  }
});

test('a box question needs no tick: steps 1 and 3 reveal once their radio question is answered, the untouched boxes recorded as none', () => {
  const lesson = (predictions) => ({ step: 1, predictions, revealed: [], done: [] });
  assert.equal(predicted(lesson({}), 1), false, 'step 1 asks how the row answers too');
  assert.equal(predicted(lesson({ redistribute: 'others-fall' }), 1), true, 'no key ticked: "none rises"');
  assert.equal(predicted(lesson({}), 3), false);
  assert.equal(predicted(lesson({ renorm: 'renormalised' }), 3), true, 'no cell ticked: "none becomes zero"');
  assert.equal(predicted(lesson({ entropy: 'up' }), 2), false, 'a radio question is still needed');
  assert.deepEqual(untouchedBoxes(lesson({ redistribute: 'others-fall' }), 1, setupState(1)), ['rise']);
  assert.deepEqual(
    untouchedBoxes(lesson({ rise: [], redistribute: 'others-fall' }), 1, setupState(1)),
    [],
    'unticked after ticking: already []',
  );
  assert.deepEqual(untouchedBoxes(lesson({ renorm: 'same' }), 3, fourTokens()), ['zeros']);
  // Beyond the 8 x 8 grid the cells are not asked: nothing to record.
  const big = fourTokens();
  big.tokens.keys = Array.from({ length: 9 }, (_, j) => `k${j}`);
  assert.deepEqual(untouchedBoxes(lesson({ renorm: 'same' }), 3, big), []);
});
