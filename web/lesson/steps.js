// The guided lesson's five steps without a DOM (seed lesson 003, "交互实验"; docs/lesson.md):
// the state each step starts from, which predictions it asks for, and its answers computed from
// the live state and the core's results. The panel (web/lesson/panel.js) words and shows them.
//
// Every answer compares the live results with a reference the core computes from the live state
// with one thing put back as the step started it (the key positions, the temperature and scale,
// the mask, the values), so an answer is about what the student did and nothing else. The sums,
// renormalised weights, differences and norms an answer shows come from the core too (`core`:
// web/core/core.js, lesson.hpp "The guided lesson's answers"); this module only compares them.

import { defaultState } from '../core/state-schema.js';

export const STEPS = [1, 2, 3, 4, 5];
/** Predictions each step asks for (all must be recorded before the reveal). */
export const STEP_PREDICTIONS = {
  1: ['rise', 'redistribute'],
  2: ['entropy', 'sums'],
  3: ['zeros', 'renorm'],
  4: ['scores', 'largest'],
  5: ['reproduce'],
};
/** The seed's three 常见误区, each a right/wrong check (predictions myth1..myth3). */
export const MYTHS = ['myth1', 'myth2', 'myth3'];
/** The seed's exercises (练习), marked done in lesson.done. */
export const EXERCISES = [1, 2, 3];
/** The lesson part a fresh start begins with. */
export const freshLesson = () => ({ step: 1, predictions: {}, revealed: [], done: [] });
/** A prediction grid of cells (step 3) is offered up to this many queries and keys. */
export const GRID_MAX = 8;
const EPS = 1e-6;

/** The four-token self-attention state the steps 2 to 5 use (the preset "selfattention"). */
export function fourTokens({ causal = false } = {}) {
  return {
    version: 1,
    mode: 'qkv',
    heads: [
      {
        name: 'four tokens',
        Q: [
          [1, 0],
          [0.5, 1],
          [1, 1],
          [0, 1.5],
        ],
        K: [
          [1, 0.2],
          [0.2, 1],
          [1, 1],
          [-0.5, 1],
        ],
        V: [
          [1, 0],
          [0, 1],
          [1, 1],
          [2, -1],
        ],
        logits: null,
        weights: null,
      },
    ],
    head: 0,
    tokens: { queries: ['The', 'cat', 'sat', 'down'], keys: ['The', 'cat', 'sat', 'down'] },
    mask: { causal, window: 0, padding: [false, false, false, false], allow: null },
    tau: 1,
    scale: 'auto',
    topK: 2,
    row: 2,
    view: { panel: 'weights', preset: 'selfattention', numbers: 'auto' },
    source: "Hand-made self-attention state for the lesson's experiment: toggle the causal mask, turn the temperature, edit a value.",
  };
}

/**
 * The state a step starts from (without the lesson part): step 1 is worked example 1 (a 2-D
 * query and keys, no scaling), steps 2 to 4 the four-token state, step 5 the same with the causal
 * mask on (a matrix and a mask worth reproducing).
 */
export function setupState(step) {
  if (step === 1) {
    const s = defaultState();
    s.view.preset = 'lessonGuided';
    return s;
  }
  return fourTokens({ causal: step === 5 });
}

/** The lesson part with another step (predictions and reveals kept). */
export function atStep(lesson, step) {
  return {
    step,
    predictions: { ...(lesson?.predictions ?? {}) },
    revealed: [...(lesson?.revealed ?? [])],
    done: [...(lesson?.done ?? [])],
  };
}

/**
 * The lesson part carried from state `from` to state `to`: step 3's cell prediction (cells
 * t·nK + j of one grid) is dropped when the number of queries or keys changes (worked example 2's
 * three positions, back to four): on another grid it would tick other cells. The step stays
 * revealed (its answer then says the cells were not recorded on this grid; Hide asks again).
 */
export function fitLesson(lesson, from, to) {
  const out = atStep(lesson, lesson.step);
  const same = from.tokens.queries.length === to.tokens.queries.length && from.tokens.keys.length === to.tokens.keys.length;
  if (!same) delete out.predictions.zeros;
  return out;
}

/**
 * The predictions made by ticking boxes (the keys whose weight rises, the cells the mask zeroes).
 * No box ticked is an answer: "none" (the questions say so), recorded as [] at the reveal.
 */
export const BOX_PREDICTIONS = ['rise', 'zeros'];

/** True when the step can be revealed: every prediction recorded but the box questions, which need no tick. */
export function predicted(lesson, step) {
  return STEP_PREDICTIONS[step].every((name) => BOX_PREDICTIONS.includes(name) || lesson?.predictions?.[name] !== undefined);
}

/**
 * The box questions of `step` the student left untouched, to record as [] when the step is
 * revealed (not step 3's cells when the grid is not offered: more than GRID_MAX queries or keys).
 */
export function untouchedBoxes(lesson, step, state) {
  const big = state.tokens.queries.length > GRID_MAX || state.tokens.keys.length > GRID_MAX;
  return STEP_PREDICTIONS[step].filter(
    (name) => BOX_PREDICTIONS.includes(name) && lesson.predictions[name] === undefined && !(big && name === 'zeros'),
  );
}

const sameShape = (a, b) => Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((r, i) => r.length === b[i].length);
const sameList = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * The reference state of a step: the live state with what the step asks the student to change
 * put back as the step started it. null when that is not possible (another mode or shape).
 */
export function referenceState(step, state) {
  const setup = setupState(step);
  const s = structuredClone(state);
  delete s.lesson;
  delete s.lab;
  const hd = s.heads[s.head];
  if (step === 1) {
    // the keys as they started
    if (s.mode !== 'qkv' || !sameShape(hd.K, setup.heads[0].K)) return null;
    hd.K = structuredClone(setup.heads[0].K);
    return s;
  }
  if (step === 2) {
    // the temperature and the scale as they started
    s.tau = setup.tau;
    s.scale = setup.scale;
    return s;
  }
  if (step === 3) {
    // no causal mask
    s.mask.causal = false;
    return s;
  }
  if (step === 4) {
    // the values as they started
    if (!sameShape(hd.V, setup.heads[0].V)) return null;
    hd.V = structuredClone(setup.heads[0].V);
    return s;
  }
  return null;
}

/**
 * Step 1: which weights of the selected row rose when the keys moved.
 * @returns {{row, keys: [{j, key, refKey, score, refScore, weight, refWeight, moved}], rise, fall,
 *   moved: boolean, sum}|{unavailable: true}}
 */
export function answerStep1(state, results, ref, core) {
  if (!ref || state.mode !== 'qkv') return { unavailable: true };
  const t = state.row;
  const hd = state.heads[state.head];
  const setupK = setupState(1).heads[0].K;
  const keys = hd.K.map((k, j) => ({
    j,
    key: k,
    refKey: setupK[j],
    score: results.scores[t][j],
    refScore: ref.scores[t][j],
    weight: results.weights[t][j],
    refWeight: ref.weights[t][j],
    moved: !sameList(k, setupK[j]),
  }));
  const rise = keys.filter((k) => k.weight > k.refWeight + EPS).map((k) => k.j);
  const fall = keys.filter((k) => k.weight < k.refWeight - EPS).map((k) => k.j);
  const sum = core.weightSum(results.weights[t]);
  // How the whole row answers: a key gains, the others lose, the row still sums to one.
  const redistribute = Math.abs(sum - 1) > EPS ? 'sum-grows' : rise.length && fall.length ? 'others-fall' : 'others-same';
  return { row: t, keys, rise, fall, moved: keys.some((k) => k.moved), sum, redistribute };
}

/**
 * Step 2: how the selected row's entropy answers a higher temperature (or a smaller scale), and
 * whether every row still sums to one. `sharper` compares c / tau with the start's (c = scale).
 */
export function answerStep2(state, results, ref) {
  const t = state.row;
  const factor = results.scale / state.tau;
  const refTau = setupState(2).tau; // the reference state's temperature (results carry no tau)
  const refFactor = ref.scale / refTau;
  const entropy = results.rows[t].entropy;
  const refEntropy = ref.rows[t].entropy;
  const dH = entropy - refEntropy;
  const observed = Math.abs(dH) <= EPS ? 'same' : dH > 0 ? 'up' : 'down';
  const flip = { up: 'down', down: 'up', same: 'same' };
  let answer = null; // what raising tau (lowering c / tau) does
  if (Math.abs(factor - refFactor) > EPS * Math.abs(refFactor)) answer = factor < refFactor ? observed : flip[observed];
  const sums = results.rows.map((r) => (r.empty ? null : r.rowSum));
  const allOne = sums.every((x) => x === null || Math.abs(x - 1) <= EPS);
  return {
    row: t,
    tau: state.tau,
    refTau,
    scale: results.scale,
    refScale: ref.scale,
    factor,
    refFactor,
    entropy,
    refEntropy,
    observed,
    answer,
    changed: answer !== null,
    sums,
    allOne,
    sumsAnswer: allOne ? 'yes' : 'no',
  };
}

/**
 * Step 3: the cells the mask sets to zero (t * n_k + j) and, for the selected row, the weights
 * before and after with the renormalised values b_j / sum of the visible b.
 */
export function answerStep3(state, results, ref, core) {
  const nK = results.weights[0].length;
  const t = state.row;
  if (!state.mask.causal) return { causalOff: true, row: t };
  const zeros = [];
  results.visible.forEach((row, i) =>
    row.forEach((v, j) => {
      if (!v) zeros.push(i * nK + j);
    }),
  );
  const before = ref.weights[t];
  const visible = results.visible[t];
  const after = results.weights[t];
  const { kept, expected, maxDiff, afterSum } = core.renormalisation(before, visible, after);
  const masked = visible.some((v, j) => !v && ref.visible[t][j]);
  const sums = results.rows.map((r) => (r.empty ? null : r.rowSum));
  return {
    row: t,
    zeros,
    before,
    after,
    expected,
    kept,
    maxDiff,
    sums,
    renorm: masked ? (Math.abs(afterSum - 1) <= EPS ? 'renormalised' : 'less') : 'same',
  };
}

/**
 * Step 4: the values changed since the step started, the scores before and after (unchanged:
 * S does not read V), the selected row's output shift and, per changed value j,
 * |delta o_t| / |delta v_j|, which is a_tj when only v_j changed (d o_t / d v_j = a_tj I).
 */
export function answerStep4(state, results, ref, core) {
  const t = state.row;
  const hd = state.heads[state.head];
  const setupV = setupState(4).heads[0].V;
  if (!ref || !hd.V) return { unavailable: true, row: t };
  const changed = hd.V.map((v, j) => (sameList(v, setupV[j]) ? -1 : j)).filter((j) => j >= 0);
  const out = results.output[t];
  const refOut = ref.output[t];
  const e = core.valueEdit({
    scores: results.scores,
    refScores: ref.scores,
    output: out,
    refOutput: refOut,
    values: hd.V,
    refValues: setupV,
    changed,
  });
  const weights = results.weights[t];
  let top = -1;
  weights.forEach((w, j) => {
    if (results.visible[t][j] && (top < 0 || w > weights[top])) top = j;
  });
  const dv = changed.map((j, k) => ({ j, weight: weights[j], size: e.valueShifts[k] }));
  return {
    row: t,
    changed,
    scoresDiff: e.scoresDiff,
    scoresAnswer: e.scoresDiff === 0 ? 'same' : 'change',
    output: out,
    refOutput: refOut,
    shift: e.shift,
    shiftSize: e.shiftSize,
    dv,
    ratio: e.ratio,
    top,
    largestAnswer: 'yes', // |d o_t / d v_j| = a_tj: the largest weight marks the value that moves o_t most
  };
}

/**
 * Step 5: the link of the live state read back: equal state, equal matrix (the weights the core
 * computes from it, bit for bit), equal mask, equal step.
 * @param {(s: object) => object} compute the core
 */
export function answerStep5(state, results, fragment, decodeLink, statesEqual, compute) {
  let decoded;
  try {
    decoded = decodeLink(fragment);
  } catch (e) {
    return { error: e.message, answer: 'no' };
  }
  const again = compute(decoded);
  const matrix = statesEqual(again.weights, results.weights) && statesEqual(again.scores, results.scores);
  const mask = statesEqual(decoded.mask, state.mask);
  const step = decoded.lesson?.step === state.lesson?.step;
  const whole = statesEqual(decoded, state);
  return { matrix, mask, step, whole, length: fragment.length, answer: matrix && mask && step && whole ? 'yes' : 'no' };
}

/**
 * The three 常见误区 on the live state (each statement is wrong; the check shows why on these
 * numbers). `sens` is the core's sensitivity analysis of the live state (lab "sensitivity") or null.
 * @returns {{myth1: {top, topWeight, mover, moverShift, topShift, agree}|null,
 *   myth2: {row, n, sum, output}, myth3: {row, max, argmax, entropy}}}
 */
export function answerMyths(state, results, sens, core) {
  const t = state.row;
  const w = results.weights[t];
  const visible = results.visible[t];
  let myth1 = null;
  if (sens && sens.supported && !sens.empty && sens.keys.length > 1) {
    const by = (j) => sens.keys.find((k) => k.key === j);
    const top = sens.leaders.weight[0];
    const mover = sens.leaders.deletion?.[0] ?? top;
    myth1 = {
      top,
      topWeight: by(top).weight,
      topShift: by(top).deletion,
      mover,
      moverShift: by(mover).deletion,
      agree: Boolean(sens.agrees.deletion),
    };
  }
  const n = visible.filter(Boolean).length;
  let argmax = -1;
  w.forEach((x, j) => {
    if (visible[j] && (argmax < 0 || x > w[argmax])) argmax = j;
  });
  return {
    myth1,
    myth2: { row: t, n, nK: w.length, sum: core.weightSum(w), output: results.output?.[t] ?? null },
    myth3: { row: t, max: argmax >= 0 ? w[argmax] : null, argmax, entropy: results.rows[t].entropy },
  };
}

/**
 * Worked example 2 (seed "例题二") on the live state: true when the state is its three-position
 * causal head (mode logits, one value column). The outputs and weights come from the results.
 * @returns {{rows: {weights, output}[], same23: boolean, differ23: boolean}|null}
 */
export function example2Facts(state, results) {
  const hd = state.heads[state.head];
  if (state.mode !== 'logits' || !hd.V || hd.V.length !== 3 || hd.V[0].length !== 1 || !state.mask.causal) return null;
  const rows = results.weights.map((w, i) => ({ weights: w, output: results.output[i][0] }));
  const same23 = Math.abs(rows[1].output - rows[2].output) <= EPS * Math.max(1, Math.abs(rows[1].output));
  const differ23 = rows[1].weights.some((x, j) => Math.abs(x - rows[2].weights[j]) > EPS);
  return { rows, same23, differ23 };
}
