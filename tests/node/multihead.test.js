// Mode "x" (multi-head attention from X) and the per-head gate: schema validation (web/core/state-schema.js),
// the link (bit-exact round trips, and links written before mode "x" existed still decode to the
// same state), the seeded random layer (web/presets/multihead.js) and the core through WASM (web/core/core.js).
//
// Golden values: the 2 x 2 hand example of tests/cpp/test_multihead.cpp (X = I, W_Q = W_K = 0 so
// every weight is 1/2, W_V = [[2,0],[0,4]] so each head output row is (1, 2); W_O = [[1,1],[0,1]]
// gives (1, 3), + X gives (2, 3) and (1, 4)); seed example 1 of docs/MATH.md for the gate
// (output (1.462117157, 1.075765685); sigmoid(0) = 1/2 halves it).
import { test, before } from 'node:test';
import assert from 'node:assert/strict';

import { StateError, validateState, encodeLink, decodeLink, statesEqual, defaultState } from './schema.js';
import {
  randomLayer,
  makeLayerState,
  fillRandom,
  resizeValueDim,
  resizeHeads,
  resizeModel,
  setProjection,
} from '../../web/presets/multihead.js';
import { LESSON_PRESETS } from '../../web/presets/presets.js';
import { loadCore, AttentionError } from '../../web/core/core.js';
import { mulberry32, int } from './helpers.js';

function stateError(fn) {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof StateError, `expected a StateError, got ${e && e.name}: ${e && e.message}`);
    return e;
  }
  assert.fail('expected a StateError');
}

/** The 2-token hand example: X = I, one head with W_Q = W_K = 0 (1 column), W_V = [[2,0],[0,4]]. */
function handState({
  WO = [
    [1, 1],
    [0, 1],
  ],
  residual = true,
} = {}) {
  return {
    version: 1,
    mode: 'x',
    heads: [
      {
        name: 'h',
        Q: null,
        K: null,
        V: null,
        logits: null,
        weights: null,
        WQ: [[0], [0]],
        WK: [[0], [0]],
        WV: [
          [2, 0],
          [0, 4],
        ],
      },
    ],
    head: 0,
    tokens: { queries: ['a', 'b'], keys: ['a', 'b'] },
    mask: { causal: false, window: 0, padding: [false, false], allow: null },
    tau: 1,
    scale: 1,
    topK: 2,
    row: 0,
    view: { panel: 'weights', preset: 'custom', numbers: 'auto' },
    source: 'hand example',
    x: {
      X: [
        [1, 0],
        [0, 1],
      ],
      WO,
      residual,
    },
  };
}

// -------------------------------------------------------------------------------------------
// Links written by the encoder before mode "x" and the gate existed (web/core/state-schema.js at commit
// d7d317b, generated with its encodeLink and pasted here). They must decode to the same state,
// and the new encoder must write exactly the same link for them.
// -------------------------------------------------------------------------------------------

const OLD_LINK_DEFAULT =
  'v=1&mode=qkv&tau=1&scale=1&k=2&row=0&causal=0&window=0&head=0&panel=weights&preset=example1&numbers=auto&d=QVABIAEAAJDjJlRNz78KwjAQBvA8ynGTQhATnAqiu5OLDtIh6PmHxMQ2bVVKwWf2CbyWWpolv_sSyJevEKLGIljyEZMas5LyGzEPmGEq0dK7G6xCHjSmjcQYyvxImOA-5JZOQC9zfzgCBeEMxZXAUYzBJ5DBEiZKzqcSrBpZt55Lxa66XHd51ecLtg8Qj8bd_GXGDxvnwhOTs3GRJF7JnNpSNXpzb3sMBfjqlg-U1HLB5Tds3Xs3uEkbIT4r_jiv_z54PZrZPw';
const OLD_LINK_TWO_HEADS =
  'v=1&mode=logits&tau=0.7&scale=auto&k=2&row=1&causal=1&window=2&head=1&panel=scores&preset=custom&numbers=on&stride=2&sinks=1&lab=%7B%22view%22%3A%22patterns%22%2C%22params%22%3A%7B%22a%22%3A1%2C%22b%22%3A%5B1%2C2%5D%7D%7D&d=QVABegEAANOO1yI7y8DAUK1Ukp-dmlesZFWtVFiaWpSZCmRGKyUq6SglKcXqKGWnVoIFKoAClUBcpRRbq6NUnF9alJyqZKWUn5OikJOZl62QlllRUlqUClSRmJOTX65kVVJUmqqjlJGamALSX62Ul5gL0pBhoHB4D1BVGFDQWMdIxwJoR05-emYJSJWRjjFQoFYHodoQqDQQLGOkYwJU6g3VBmKjaDOJrY2tBfoHBBpmzQSBnfZQvkPk5x-H5POWMkK4HA4QWuAAVB4KftRj1_8DRgPlG0BsoH4HIG4AYZgdIG0gNhA32GGqWwDEBxwYGEEQCAA';
/** The state OLD_LINK_TWO_HEADS was made from (as written then: -0 cells, a double 1e-300). */
const OLD_STATE_TWO_HEADS = {
  version: 1,
  mode: 'logits',
  heads: [
    {
      name: 'h0 ü',
      Q: null,
      K: null,
      V: [
        [-0, 0.1],
        [2, 1e-300],
        [3, -4],
      ],
      logits: [
        [0, null, -0],
        [0.1, 1.5, null],
      ],
      weights: null,
    },
    {
      name: 'h1',
      Q: [
        [1, 2],
        [3, 4],
      ],
      K: [
        [1, 0],
        [0, 1],
        [0.5, 0.25],
      ],
      V: null,
      logits: [
        [1, 2, 3],
        [4, 5, 6],
      ],
      weights: null,
    },
  ],
  head: 1,
  tokens: { queries: ['a', 'b'], keys: ['x', 'y', 'z'] },
  mask: {
    causal: true,
    window: 2,
    padding: [false, true, false],
    allow: [
      [true, false, true],
      [true, true, true],
    ],
    stride: 2,
    sinks: 1,
  },
  tau: 0.7,
  scale: 'auto',
  topK: 2,
  row: 1,
  view: { panel: 'scores', preset: 'custom', numbers: 'on' },
  source: 'old link fixture',
  lab: { view: 'patterns', params: { a: 1, b: [1, 2] } },
};

test('links written before mode "x" decode to the same state, and are written the same', () => {
  const d = decodeLink(OLD_LINK_DEFAULT);
  assert.ok(statesEqual(d, defaultState()));
  assert.equal(encodeLink(d), OLD_LINK_DEFAULT);
  const two = decodeLink(OLD_LINK_TWO_HEADS);
  assert.ok(statesEqual(two, validateState(OLD_STATE_TWO_HEADS)));
  assert.ok(Object.is(two.heads[0].V[0][0], -0), '-0 survives');
  assert.ok(Object.is(two.heads[0].logits[0][2], -0));
  assert.equal(two.heads[0].V[1][1], 1e-300);
  assert.equal(encodeLink(two), OLD_LINK_TWO_HEADS);
  // An old state has no x, no projections and no gate keys after validation.
  assert.equal('x' in two, false);
  for (const hd of two.heads) for (const key of ['WQ', 'WK', 'WV', 'gate']) assert.equal(key in hd, false, key);
});

// -------------------------------------------------------------------------------------------
// Validation
// -------------------------------------------------------------------------------------------

test('mode "x": a valid layer validates to a normalised copy', () => {
  const s = validateState(handState());
  assert.equal(s.mode, 'x');
  assert.deepEqual(s.x, {
    X: [
      [1, 0],
      [0, 1],
    ],
    WO: [
      [1, 1],
      [0, 1],
    ],
    residual: true,
  });
  assert.deepEqual(Object.keys(s.heads[0]), ['name', 'Q', 'K', 'V', 'logits', 'weights', 'WQ', 'WK', 'WV']);
  const noWo = handState({ WO: null, residual: true }); // sum d_v = 2 = d_model: the residual fits
  assert.equal(validateState(noWo).x.WO, null);
  const absent = handState();
  delete absent.x.WO;
  assert.equal(validateState(absent).x.WO, null);
  assert.ok(statesEqual(validateState(LESSON_PRESETS.multihead.make()), LESSON_PRESETS.multihead.make()));
});

test('mode "x": every shape error names the field and says what fits', () => {
  const cases = [
    [
      (s) => {
        s.x.WO = [
          [1, 1],
          [0, 1],
          [1, 1],
        ];
      },
      'x.WO',
      /sum of every head's d_v/,
    ],
    [
      (s) => {
        s.x.WO = [
          [1, 1, 0],
          [0, 1, 0],
        ];
      },
      'x.residual',
      /d_model = 2/,
    ],
    [
      (s) => {
        s.x.WO = null;
        s.heads[0].WV = [[2], [0]];
      },
      'x.residual',
      /sum of the heads' d_v/,
    ],
    [
      (s) => {
        delete s.x;
      },
      'x',
      /required in mode "x"/,
    ],
    [
      (s) => {
        s.x.X = null;
      },
      'x.X',
      /required/,
    ],
    [
      (s) => {
        s.x.residual = 1;
      },
      'x.residual',
      /true or false/,
    ],
    [
      (s) => {
        s.x.extra = 1;
      },
      'x.extra',
      /unknown field/,
    ],
    [
      (s) => {
        s.heads[0].Q = [[1], [1]];
      },
      'heads[0].Q',
      /must be null in mode "x"/,
    ],
    [
      (s) => {
        delete s.heads[0].WV;
      },
      'heads[0].WV',
      /required in mode "x"/,
    ],
    [
      (s) => {
        s.heads[0].WQ = [[0], [0], [0]];
      },
      'heads[0].WQ',
      /d_model = 2/,
    ],
    [
      (s) => {
        s.heads[0].WK = [
          [0, 0],
          [0, 0],
        ];
      },
      'heads[0].WK',
      /share d_k/,
    ],
    [
      (s) => {
        s.x.X[1][0] = Infinity;
      },
      'x.X[1][0]',
      /finite/,
    ],
    [
      (s) => {
        s.x.X = [[...new Array(1025).fill(0)]];
      },
      'x.X',
      /1 to 1024 columns/,
    ],
    [
      (s) => {
        s.tokens.keys = ['a'];
      },
      'tokens.keys',
      /n_k = 2/,
    ],
    [
      (s) => {
        s.heads[0].gate = [0];
      },
      'heads[0].gate',
      /one logit per query row/,
    ],
    [
      (s) => {
        s.heads[0].gate = [0, NaN];
      },
      'heads[0].gate[1]',
      /finite/,
    ],
    [
      (s) => {
        s.heads[0].gate = '0,0';
      },
      'heads[0].gate',
      /list of gate logits/,
    ],
  ];
  for (const [mutate, field, message] of cases) {
    const s = handState();
    mutate(s);
    const e = stateError(() => validateState(s));
    assert.equal(e.field, field, e.message);
    assert.match(e.message, message);
  }
  // The layer's fields belong to mode "x" only.
  const q = defaultState();
  q.x = handState().x;
  assert.equal(stateError(() => validateState(q)).field, 'x');
  const w = defaultState();
  w.heads[0].WQ = [[1]];
  assert.equal(stateError(() => validateState(w)).field, 'heads[0].WQ');
});

test('the gate in the other modes: n_q finite logits, absent or null = no gate (left out)', () => {
  const s = defaultState();
  s.heads[0].gate = [-0];
  const v = validateState(s);
  assert.ok(Object.is(v.heads[0].gate[0], -0));
  s.heads[0].gate = null;
  assert.equal('gate' in validateState(s).heads[0], false);
  s.heads[0].gate = [1, 2];
  assert.equal(stateError(() => validateState(s)).field, 'heads[0].gate');
});

// -------------------------------------------------------------------------------------------
// Link
// -------------------------------------------------------------------------------------------

const AWKWARD = [-0, 0.1, 1 / 3, 1e-300, -5e-324, 123456789.12345679, Math.fround(0.1), 65504, -2.5];

function randomLayerState(rng) {
  const n = int(rng, 1, 5);
  const dModel = int(rng, 1, 4);
  const heads = Array.from({ length: int(rng, 1, 3) }, (_, i) => ({ name: `h${i}`, dK: int(rng, 1, 3), dV: int(rng, 1, 3) }));
  const projected = rng() < 0.6;
  const s = makeLayerState({
    tokens: Array.from({ length: n }, (_, i) => `t${i}`),
    dModel,
    heads,
    projected,
    residual: false,
    seed: int(rng, 0, 1e6),
  });
  // Sprinkle doubles that are not float32 and signed zeros over every matrix.
  const awkward = (m) => {
    for (const row of m) for (let j = 0; j < row.length; j++) if (rng() < 0.4) row[j] = AWKWARD[int(rng, 0, AWKWARD.length - 1)];
  };
  awkward(s.x.X);
  if (s.x.WO) awkward(s.x.WO);
  for (const hd of s.heads) {
    for (const key of ['WQ', 'WK', 'WV']) awkward(hd[key]);
    if (rng() < 0.5) hd.gate = Array.from({ length: n }, () => AWKWARD[int(rng, 0, AWKWARD.length - 1)]);
  }
  s.x.residual = projected ? rng() < 0.5 && s.x.WO[0].length === dModel : false;
  s.head = int(rng, 0, heads.length - 1);
  return s;
}

test('mode "x" and gates round-trip bit-exactly through the link (300 seeded layers)', () => {
  const rng = mulberry32(20250506);
  for (let i = 0; i < 300; i++) {
    const s = validateState(randomLayerState(rng));
    const link = encodeLink(s);
    const back = decodeLink(link);
    assert.ok(statesEqual(back, s), `case ${i}: ${link}`);
    assert.equal(encodeLink(back), link);
  }
  // One explicit case: -0 and a non-float32 double in X, W, WO and the gate.
  const s = handState();
  s.x.X[0][1] = -0;
  s.x.WO[1][0] = 0.1;
  s.heads[0].WV[1][0] = 1 / 3;
  s.heads[0].gate = [-0, 0.1];
  const back = decodeLink(encodeLink(s));
  assert.ok(Object.is(back.x.X[0][1], -0));
  assert.equal(back.x.WO[1][0], 0.1);
  assert.equal(back.heads[0].WV[1][0], 1 / 3);
  assert.ok(Object.is(back.heads[0].gate[0], -0));
  assert.equal(back.heads[0].gate[1], 0.1);
  assert.equal(back.x.residual, true);
  // A gate in mode qkv.
  const q = defaultState();
  q.heads[0].gate = [-12.5];
  assert.ok(statesEqual(decodeLink(encodeLink(q)), validateState(q)));
});

test('a mode-"x" link edited to another mode is refused with the field', () => {
  const link = encodeLink(handState());
  const e = stateError(() => decodeLink(link.replace('mode=x', 'mode=qkv')));
  assert.match(e.field, /^(x|heads\[0\]\.(Q|WQ))$/);
});

// -------------------------------------------------------------------------------------------
// Random layers and shape edits (web/presets/multihead.js)
// -------------------------------------------------------------------------------------------

test('randomLayer: the same seed gives the same numbers, another seed others; quarter steps', () => {
  const shape = {
    n: 4,
    dModel: 4,
    heads: [
      { dK: 2, dV: 2 },
      { dK: 2, dV: 2 },
    ],
    dOut: 4,
  };
  assert.deepEqual(randomLayer(7, shape), randomLayer(7, shape));
  assert.notDeepEqual(randomLayer(7, shape).X, randomLayer(8, shape).X);
  const r = randomLayer(7, shape);
  for (const x of r.X.flat()) assert.ok(Number.isInteger(x * 4) && Math.abs(x) <= 2 && !Object.is(x, -0));
  for (const x of r.heads.flatMap((hd) => [...hd.WQ, ...hd.WK, ...hd.WV]).flat()) assert.ok(Math.abs(x) <= 1);
  assert.equal(r.WO.length, 4);
  const s = LESSON_PRESETS.multihead.make();
  const again = fillRandom(structuredClone(s), 4);
  assert.ok(statesEqual(again, s), 'the preset is fillRandom(seed 4) of its own shapes');
});

test('shape edits keep the layer valid: d_v with its W_O rows, heads, d_model with W_O columns', () => {
  const s = LESSON_PRESETS.multihead.make();
  resizeValueDim(s, 0, 1);
  assert.equal(s.x.WO.length, 5);
  assert.deepEqual(s.x.WO[2], [0, 0, 0, 0], "the new row sits after head 0's rows");
  validateState(s);
  resizeHeads(s, 1, 'head 2');
  assert.equal(s.heads.length, 3);
  assert.equal(s.x.WO.length, 7);
  validateState(s);
  resizeModel(s, 1);
  assert.equal(s.x.X[0].length, 5);
  assert.equal(s.x.WO[0].length, 5, 'W_O followed d_model (residual shape)');
  validateState(s);
  resizeHeads(s, -1);
  resizeValueDim(s, 0, -1);
  setProjection(s, false);
  s.x.residual = false;
  validateState(s);
});

// -------------------------------------------------------------------------------------------
// The core (WASM) on mode "x" and on gates
// -------------------------------------------------------------------------------------------

let core;
before(async () => {
  core = await loadCore();
});

const near = (a, b, tol = 1e-6) => assert.ok(Math.abs(a - b) <= tol * Math.max(1, Math.abs(b)), `${a} vs ${b}`);

test('core: the hand example through the WASM core (layer output, residual)', () => {
  const r = core.compute(handState());
  assert.equal(r.mode, 'x');
  near(r.weights[0][0], 0.5);
  near(r.output[1][1], 2);
  near(r.layer.output[0][0], 2);
  near(r.layer.output[0][1], 3);
  near(r.layer.output[1][0], 1);
  near(r.layer.output[1][1], 4);
  assert.deepEqual(r.derived.V, [
    [2, 0],
    [0, 4],
  ]);
  assert.throws(
    () =>
      core.compute(
        handState({
          WO: [
            [1, 1, 0],
            [0, 1, 0],
          ],
        }),
      ),
    (e) => e instanceof AttentionError && e.field === 'x.residual',
  );
});

test('core: a mode-"x" head equals the qkv state of its derived Q, K, V (preset, every head)', () => {
  const s = LESSON_PRESETS.multihead.make();
  s.mask.causal = true;
  for (let h = 0; h < s.heads.length; h++) {
    const r = core.compute({ ...s, head: h });
    const q = structuredClone(s);
    delete q.x;
    q.mode = 'qkv';
    q.head = h;
    q.heads.forEach((hd, i) => {
      delete hd.WQ;
      delete hd.WK;
      delete hd.WV;
      const d = core.compute({ ...s, head: i }).derived;
      Object.assign(hd, { Q: d.Q, K: d.K, V: d.V });
    });
    const rq = core.compute(q);
    assert.deepEqual(rq.weights, r.weights);
    assert.deepEqual(rq.output, r.output);
    assert.deepEqual(rq.rows, r.rows);
    assert.deepEqual(r.layer.heads[h].output, r.output);
  }
});

test('core: the gate halves at g = 0 and closes at g = -20; weights unchanged', () => {
  const s = defaultState();
  s.heads[0].gate = [0];
  const r = core.compute(s);
  near(r.output[0][0], 0.7310585786);
  near(r.output[0][1], 0.5378828427);
  near(r.ungatedOutput[0][0], 1.462117157);
  assert.equal(r.gate.open[0], 0.5);
  near(r.gate.normGated[0] * 2, r.gate.normUngated[0]);
  near(r.weights[0][0], 0.7310585786);
  s.heads[0].gate = [-20];
  const closed = core.compute(s);
  assert.ok(Math.abs(closed.output[0][0]) < 1e-8 && Math.abs(closed.output[0][1]) < 1e-8);
  // In mode "x" the gate acts before W_O: the gated head's part of the concatenation halves.
  const x = handState({ residual: false });
  const open = core.compute(x);
  x.heads[0].gate = [0, 0];
  const half = core.compute(x);
  for (let t = 0; t < 2; t++) for (let j = 0; j < 2; j++) near(half.layer.output[t][j], open.layer.output[t][j] / 2);
});
