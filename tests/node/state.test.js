// Tests of web/core/state-schema.js: schema validation, the link codec (bit-exact round trips, hand edits,
// malformed input) and statesEqual. Seeded randomness only, so a failure names a reproducible case.

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { SCHEMA_VERSION, LIMITS, StateError, defaultState, validateState, encodeLink, decodeLink, statesEqual } from './schema.js';
import { mulberry32, int, pick, randomState, makeD, float64Bytes, DEFAULT_SCALARS } from './helpers.js';

/** Asserts that fn throws a StateError whose field and message match (strings: substring). */
function assertStateError(fn, { field, message } = {}) {
  let caught;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  assert.ok(caught, 'expected a StateError, nothing was thrown');
  assert.ok(caught instanceof StateError, `expected a StateError, got ${caught && caught.name}: ${caught && caught.message}`);
  assert.equal(caught.name, 'StateError');
  assert.equal(typeof caught.field, 'string');
  assert.ok(caught.message.length > 0);
  if (typeof field === 'string') assert.equal(caught.field, field, caught.message);
  if (field instanceof RegExp) assert.match(caught.field, field, caught.message);
  if (typeof message === 'string') assert.ok(caught.message.includes(message), `"${caught.message}" should contain "${message}"`);
  if (message instanceof RegExp) assert.match(caught.message, message);
  return caught;
}

/** The default state with some fields replaced (deep paths via a mutator function). */
function modified(mutate) {
  const s = defaultState();
  mutate(s);
  return s;
}

const DEFAULT_LINK = encodeLink(defaultState());
const withScalar = (link, key, value) => link.replace(new RegExp(`(^|&)${key}=[^&]*`), `$1${key}=${value}`);

// -------------------------------------------------------------------------------------------
// Defaults and limits
// -------------------------------------------------------------------------------------------

test('constants match docs/state.md', () => {
  assert.equal(SCHEMA_VERSION, 1);
  assert.equal(LIMITS.maxTokens, 4096);
  assert.equal(LIMITS.maxDim, 1024);
  assert.equal(LIMITS.maxHeads, 64);
  assert.equal(LIMITS.maxTau, 1000);
  assert.equal(LIMITS.maxTokenLength, 200);
  assert.equal(LIMITS.maxLinkLength, 4_000_000);
  assert.ok(Object.isFrozen(LIMITS));
});

test('defaultState is the worked example 1 and is valid', () => {
  const s = defaultState();
  assert.deepEqual(s, {
    version: 1,
    mode: 'qkv',
    heads: [
      {
        name: 'example 1',
        Q: [[1, 0]],
        K: [
          [1, 0],
          [0, 1],
        ],
        V: [
          [2, 0],
          [0, 4],
        ],
        logits: null,
        weights: null,
      },
    ],
    head: 0,
    tokens: { queries: ['q'], keys: ['k1', 'k2'] },
    mask: { causal: false, window: 0, padding: [false, false], allow: null },
    tau: 1,
    scale: 1,
    topK: 2,
    row: 0,
    view: { panel: 'weights', preset: 'example1', numbers: 'auto' },
    source: 'Worked example 1 of the lesson: q = (1,0), k1 = (1,0), k2 = (0,1), v1 = (2,0), v2 = (0,4), no scaling.',
  });
  assert.ok(statesEqual(validateState(s), s));
});

test('defaultState returns a fresh object each call', () => {
  const a = defaultState();
  a.heads[0].Q[0][0] = 99;
  a.tokens.keys.push('x');
  a.mask.padding[0] = true;
  assert.ok(statesEqual(defaultState(), validateState(defaultState())));
  assert.equal(defaultState().heads[0].Q[0][0], 1);
  assert.equal(defaultState().tokens.keys.length, 2);
});

// -------------------------------------------------------------------------------------------
// validateState
// -------------------------------------------------------------------------------------------

test('validateState returns a deep copy that shares nothing with its input', () => {
  const input = defaultState();
  const out = validateState(input);
  assert.notEqual(out, input);
  assert.notEqual(out.heads[0].Q, input.heads[0].Q);
  assert.notEqual(out.heads[0].Q[0], input.heads[0].Q[0]);
  input.heads[0].Q[0][0] = 7;
  input.tokens.queries[0] = 'changed';
  input.mask.padding[1] = true;
  input.view.panel = 'scores';
  assert.equal(out.heads[0].Q[0][0], 1);
  assert.equal(out.tokens.queries[0], 'q');
  assert.equal(out.mask.padding[1], false);
  assert.equal(out.view.panel, 'weights');
});

test('validateState normalises: missing matrices and allow become null, -0 integers become 0', () => {
  const s = modified((x) => {
    delete x.heads[0].logits;
    delete x.heads[0].weights;
    delete x.heads[0].V;
    delete x.mask.allow;
    x.row = -0;
    x.head = -0;
    x.mask.window = -0;
  });
  const out = validateState(s);
  assert.equal(out.heads[0].V, null);
  assert.equal(out.heads[0].logits, null);
  assert.equal(out.heads[0].weights, null);
  assert.equal(out.mask.allow, null);
  assert.ok(Object.is(out.row, 0) && Object.is(out.head, 0) && Object.is(out.mask.window, 0));
  assert.deepEqual(Object.keys(out), [
    'version',
    'mode',
    'heads',
    'head',
    'tokens',
    'mask',
    'tau',
    'scale',
    'topK',
    'row',
    'view',
    'source',
  ]);
});

test('validateState: Q and K with different d_k names the field and both numbers', () => {
  const e = assertStateError(
    () =>
      validateState(
        modified((s) => {
          s.heads[0].Q = [[1, 0, 0]];
        }),
      ),
    { field: /heads\[0\]\.(Q|K)$/ },
  );
  assert.match(e.message, /\b3\b/);
  assert.match(e.message, /\b2\b/);
  assert.match(e.message, /\bQ\b/);
  assert.match(e.message, /\bK\b/);
});

test('validateState: scalar fields are range-checked with clear messages', () => {
  const cases = [
    [
      (s) => {
        s.tau = -1;
      },
      'tau',
      'tau must be a number > 0 and <= 1000 (got -1)',
    ],
    [
      (s) => {
        s.tau = 0;
      },
      'tau',
      '(got 0)',
    ],
    [
      (s) => {
        s.tau = -0;
      },
      'tau',
      '(got -0)',
    ],
    [
      (s) => {
        s.tau = NaN;
      },
      'tau',
      '(got NaN)',
    ],
    [
      (s) => {
        s.tau = Infinity;
      },
      'tau',
      '(got Infinity)',
    ],
    [
      (s) => {
        s.tau = 1000.0000000001;
      },
      'tau',
      '<= 1000',
    ],
    [
      (s) => {
        s.tau = '1';
      },
      'tau',
      '(got "1")',
    ],
    [
      (s) => {
        delete s.tau;
      },
      'tau',
      '(got nothing)',
    ],
    [
      (s) => {
        s.scale = 0;
      },
      'scale',
      '"auto" or a finite number > 0',
    ],
    [
      (s) => {
        s.scale = 'Auto';
      },
      'scale',
      '(got "Auto")',
    ],
    [
      (s) => {
        s.scale = -Infinity;
      },
      'scale',
      'got -Infinity',
    ],
    [
      (s) => {
        s.topK = 0;
      },
      'topK',
      'from 1 to 4096',
    ],
    [
      (s) => {
        s.topK = 1.5;
      },
      'topK',
      'integer',
    ],
    [
      (s) => {
        s.topK = 4097;
      },
      'topK',
      '4097',
    ],
    [
      (s) => {
        s.row = 1;
      },
      'row',
      'from 0 to 0 (got 1)',
    ],
    [
      (s) => {
        s.row = -1;
      },
      'row',
      'got -1',
    ],
    [
      (s) => {
        s.head = 1;
      },
      'head',
      'from 0 to 0 (got 1)',
    ],
    [
      (s) => {
        s.mask.window = 4097;
      },
      'mask.window',
      '4096',
    ],
    [
      (s) => {
        s.mask.window = 2.5;
      },
      'mask.window',
      'integer',
    ],
    [
      (s) => {
        s.mask.causal = 1;
      },
      'mask.causal',
      'true or false',
    ],
    [
      (s) => {
        s.version = 2;
      },
      'version',
      'version must be 1 (got 2)',
    ],
    [
      (s) => {
        s.mode = 'QKV';
      },
      'mode',
      '"qkv", "logits", "weights"',
    ],
    [
      (s) => {
        s.view.panel = 'graph';
      },
      'view.panel',
      '"weights", "scores"',
    ],
    [
      (s) => {
        s.view.preset = 'a b';
      },
      'view.preset',
      'preset id',
    ],
    [
      (s) => {
        s.view.preset = '';
      },
      'view.preset',
      'preset id',
    ],
    [
      (s) => {
        s.source = 'x'.repeat(501);
      },
      'source',
      'at most 500 characters (got 501)',
    ],
    [
      (s) => {
        s.source = 5;
      },
      'source',
      'must be a string',
    ],
  ];
  for (const [mutate, field, message] of cases) {
    assertStateError(() => validateState(modified(mutate)), { field, message });
  }
});

test('validateState: matrix cells, shapes and labels name the exact field', () => {
  const cases = [
    [
      (s) => {
        s.heads[0].K[1][0] = NaN;
      },
      'heads[0].K[1][0]',
      'finite number (got NaN)',
    ],
    [
      (s) => {
        s.heads[0].V[1][1] = Infinity;
      },
      'heads[0].V[1][1]',
      'got Infinity',
    ],
    [
      (s) => {
        s.heads[0].Q[0][1] = null;
      },
      'heads[0].Q[0][1]',
      'got null',
    ],
    [
      (s) => {
        s.heads[0].Q[0][1] = '0';
      },
      'heads[0].Q[0][1]',
      'got "0"',
    ],
    [
      (s) => {
        s.heads[0].K[1] = [0];
      },
      'heads[0].K[1]',
      'rectangular',
    ],
    [
      (s) => {
        s.heads[0].K[1] = 'ab';
      },
      'heads[0].K[1]',
      'must be an array',
    ],
    [
      (s) => {
        s.heads[0].Q = [];
      },
      'heads[0].Q',
      '1 to 4096 rows (got 0)',
    ],
    [
      (s) => {
        s.heads[0].Q = [[]];
      },
      'heads[0].Q',
      '1 to 1024 columns (got 0)',
    ],
    [
      (s) => {
        s.heads[0].Q = null;
      },
      'heads[0].Q',
      'required in mode "qkv"',
    ],
    [
      (s) => {
        s.heads[0].V = [[1, 2]];
      },
      'heads[0].V',
      'has 1 rows but n_k = 2',
    ],
    [
      (s) => {
        s.heads[0].logits = [[1, 2, 3]];
      },
      'heads[0].logits',
      'has 3 columns but n_k = 2',
    ],
    [
      (s) => {
        s.heads[0].weights = [[1, -0.5]];
      },
      'heads[0].weights[0][1]',
      '>= 0 (got -0.5)',
    ],
    [
      (s) => {
        s.mode = 'logits';
      },
      'heads[0].logits',
      'required in mode "logits"',
    ],
    [
      (s) => {
        s.mode = 'weights';
      },
      'heads[0].weights',
      'required in mode "weights"',
    ],
    [
      (s) => {
        s.tokens.queries = ['a', 'b'];
      },
      'tokens.queries',
      'has 2 labels but there are n_q = 1',
    ],
    [
      (s) => {
        s.tokens.keys = ['a'];
      },
      'tokens.keys',
      'has 1 labels but there are n_k = 2',
    ],
    [
      (s) => {
        s.tokens.keys[1] = 7;
      },
      'tokens.keys[1]',
      'must be a string',
    ],
    [
      (s) => {
        s.tokens.keys[1] = 'x'.repeat(201);
      },
      'tokens.keys[1]',
      'at most 200 characters (got 201)',
    ],
    [
      (s) => {
        s.heads[0].name = 'x'.repeat(201);
      },
      'heads[0].name',
      'at most 200',
    ],
    [
      (s) => {
        s.mask.padding = [false];
      },
      'mask.padding',
      'n_k = 2 booleans',
    ],
    [
      (s) => {
        delete s.mask.padding;
      },
      'mask.padding',
      'got nothing',
    ],
    [
      (s) => {
        delete s.source;
      },
      'source',
      'got nothing',
    ],
    [
      (s) => {
        delete s.heads[0].name;
      },
      'heads[0].name',
      'got nothing',
    ],
    [
      (s) => {
        s.mask.padding[1] = 0;
      },
      'mask.padding[1]',
      'true or false',
    ],
    [
      (s) => {
        s.mask.allow = [[true]];
      },
      'mask.allow',
      /1 x 1 but must be n_q x n_k = 1 x 2/,
    ],
    [
      (s) => {
        s.mask.allow = [[true, 1]];
      },
      'mask.allow[0][1]',
      'true or false',
    ],
    [
      (s) => {
        s.heads = [];
      },
      'heads',
      '1 to 64',
    ],
    [
      (s) => {
        s.heads = Array.from({ length: 65 }, () => s.heads[0]);
      },
      'heads',
      '1 to 64',
    ],
    [
      (s) => {
        s.heads.push({ ...s.heads[0], K: [[1, 0]], V: null });
      },
      'heads[1].K',
      'has 1 rows but n_k = 2',
    ],
    [
      (s) => {
        s.heads[0].Q = [
          [1, 0],
          [0, 1],
        ];
      },
      'tokens.queries',
      'n_q = 2',
    ],
  ];
  for (const [mutate, field, message] of cases) {
    assertStateError(() => validateState(modified(mutate)), { field, message });
  }
});

test('validateState accepts edge values at the limits', () => {
  const emoji = '💩'.repeat(200); // 200 code points, 400 UTF-16 units
  const s = modified((x) => {
    x.tokens.keys = [emoji, ''];
    x.tau = 1000;
    x.scale = 5e-324;
    x.topK = 4096;
    x.mask.window = 4096;
    x.heads[0].V = [[], []]; // d_v = 0 is allowed
    x.heads[0].logits = [[null, -0]];
    x.heads[0].weights = [[0, -0]];
    x.source = 'é'.repeat(500);
  });
  const out = validateState(s);
  assert.ok(statesEqual(out, s));
  assert.ok(statesEqual(decodeLink(encodeLink(out)), out));
});

test('validateState refuses unknown keys and never lets __proto__ through', () => {
  assertStateError(() => validateState({ ...defaultState(), temperature: 2 }), {
    field: 'temperature',
    message: 'unknown field "temperature"',
  });
  assertStateError(
    () =>
      validateState(
        modified((s) => {
          s.mask.foo = 1;
        }),
      ),
    { field: 'mask.foo' },
  );
  assertStateError(
    () =>
      validateState(
        modified((s) => {
          s.heads[0].bias = null;
        }),
      ),
    { field: 'heads[0].bias' },
  );
  const hostile = JSON.parse(JSON.stringify(defaultState()).replace('{"version"', '{"__proto__":{"polluted":1},"version"'));
  assert.ok(Object.prototype.hasOwnProperty.call(hostile, '__proto__'));
  assertStateError(() => validateState(hostile), { field: '__proto__' });
  const hostileView = JSON.parse(JSON.stringify(defaultState()).replace('"view":{', '"view":{"__proto__":{"panel":"scores"},'));
  assertStateError(() => validateState(hostileView), { field: 'view.__proto__' });
  // Inherited fields do not count as present.
  const inherited = Object.create({ tau: 1 });
  Object.assign(
    inherited,
    modified((s) => {
      delete s.tau;
    }),
  );
  assertStateError(() => validateState(inherited), { field: 'tau' });
  assert.equal({}.polluted, undefined);
  assert.equal(Object.prototype.polluted, undefined);
});

test('validateState refuses non-objects and never throws anything but StateError', () => {
  for (const value of [undefined, null, 1, 'state', [], true, () => 1]) {
    assertStateError(() => validateState(value), { field: 'state' });
  }
  const throwing = defaultState();
  Object.defineProperty(throwing, 'tau', {
    enumerable: true,
    get() {
      throw new TypeError('boom');
    },
  });
  assertStateError(() => validateState(throwing), { field: 'state', message: 'boom' });
});

test('modes: unused matrices may be null; when given they must fit n_q x n_k', () => {
  const logits = modified((s) => {
    s.mode = 'logits';
    s.heads[0] = { name: 'h', Q: null, K: null, V: null, logits: [[null, 3]], weights: null };
  });
  assert.ok(statesEqual(validateState(logits), logits));
  const weights = modified((s) => {
    s.mode = 'weights';
    s.heads[0] = { name: 'h', Q: null, K: null, V: [[1], [2]], logits: null, weights: [[0.25, 0.75]] };
  });
  assert.ok(statesEqual(validateState(weights), weights));
  assertStateError(
    () =>
      validateState(
        modified((s) => {
          s.mode = 'weights';
          s.heads[0].weights = [[1, 0]];
          s.heads[0].K = [[1, 0]];
        }),
      ),
    {
      field: 'heads[0].K',
      message: 'has 1 rows but n_k = 2',
    },
  );
});

// -------------------------------------------------------------------------------------------
// statesEqual
// -------------------------------------------------------------------------------------------

test('statesEqual is deep and bit-exact', () => {
  assert.ok(statesEqual(defaultState(), defaultState()));
  assert.ok(!statesEqual(0, -0));
  assert.ok(statesEqual(NaN, NaN));
  assert.ok(!statesEqual(0.1, Math.fround(0.1)));
  assert.ok(
    !statesEqual(
      modified((s) => {
        s.heads[0].Q[0][1] = -0;
      }),
      defaultState(),
    ),
  );
  assert.ok(
    !statesEqual(
      modified((s) => {
        s.tokens.keys[1] = 'k3';
      }),
      defaultState(),
    ),
  );
  assert.ok(!statesEqual({ a: 1 }, { a: 1, b: undefined }));
  assert.ok(statesEqual({ a: 1, b: 2 }, { b: 2, a: 1 }));
  assert.ok(!statesEqual([1], { 0: 1 }));
  assert.ok(!statesEqual(null, {}));
  assert.ok(!statesEqual([null], [0]));
  assert.ok(!statesEqual('1', 1));
});

// -------------------------------------------------------------------------------------------
// The link
// -------------------------------------------------------------------------------------------

test('the default link is short, readable and round-trips', () => {
  assert.ok(DEFAULT_LINK.length < 600, `default link has ${DEFAULT_LINK.length} characters`);
  assert.ok(DEFAULT_LINK.startsWith(`${DEFAULT_SCALARS}&d=`), DEFAULT_LINK);
  assert.match(DEFAULT_LINK, /(^|&)tau=1(&|$)/);
  assert.match(DEFAULT_LINK, /^[A-Za-z0-9_.\-=&%]+$/); // nothing a browser or chat app would mangle
  assert.ok(statesEqual(decodeLink(DEFAULT_LINK), defaultState()));
  assert.ok(statesEqual(decodeLink(`#${DEFAULT_LINK}`), defaultState()));
});

test('1,000 random valid states round-trip bit-exactly through the link', () => {
  const rng = mulberry32(0x5eed);
  const modes = { qkv: 0, logits: 0, weights: 0 };
  let float32Matrices = 0;
  let float64Matrices = 0;
  for (let i = 0; i < 1000; i++) {
    const state = randomState(rng);
    modes[state.mode]++;
    for (const h of state.heads) {
      for (const m of [h.Q, h.K, h.V, h.logits, h.weights]) {
        if (m === null) continue;
        if (m.flat().every((x) => x === null || Math.fround(x) === x)) float32Matrices++;
        else float64Matrices++;
      }
    }
    const valid = validateState(state);
    assert.ok(statesEqual(valid, state), `case ${i}: validateState changed a canonical state`);
    const link = encodeLink(valid);
    assert.ok(link.length <= LIMITS.maxLinkLength);
    const back = decodeLink(link);
    assert.ok(statesEqual(back, state), `case ${i}: round trip differs; link ${link.slice(0, 200)}`);
    assert.ok(statesEqual(validateState(back), back), `case ${i}: decoded state does not re-validate to itself`);
  }
  // The generator must actually cover what the test claims to cover.
  assert.ok(modes.qkv > 250 && modes.logits > 250 && modes.weights > 250, JSON.stringify(modes));
  assert.ok(float32Matrices > 300 && float64Matrices > 300, `${float32Matrices} float32, ${float64Matrices} float64`);
});

test('awkward numbers survive the link exactly', () => {
  const values = [0.1, 1e-300, 5e-324, -0, 1 / 3, 1e300, -1e300, Math.fround(0.1), 2 ** -149, 1.7976931348623157e308];
  const s = modified((x) => {
    x.mode = 'logits';
    x.heads[0].Q = [values];
    x.heads[0].K = [values.map((v) => -v), values];
    x.heads[0].logits = [[null, -0]];
    x.tokens.queries = ['"><img src=x onerror=alert(1)>'];
    x.tau = 1 / 3;
    x.scale = 1e21; // String() gives "1e+21": the "+" must survive the link
  });
  const link = encodeLink(s);
  assert.ok(link.includes('scale=1e%2B21'), link);
  const back = decodeLink(link);
  assert.ok(statesEqual(back, validateState(s)));
  assert.ok(Object.is(back.heads[0].Q[0][3], -0));
  assert.equal(back.heads[0].logits[0][0], null);
  assert.ok(Object.is(back.heads[0].logits[0][1], -0));
  assert.equal(back.tokens.queries[0], '"><img src=x onerror=alert(1)>');
  // A literal "+" typed by hand is read as "+", not as a space.
  assert.equal(decodeLink(link.replace('scale=1e%2B21', 'scale=1e+21')).scale, 1e21);
});

test('hand-edited scalars take effect', () => {
  assert.equal(decodeLink(withScalar(DEFAULT_LINK, 'tau', '2')).tau, 2);
  assert.equal(decodeLink(withScalar(DEFAULT_LINK, 'tau', '0.5')).tau, 0.5);
  assert.equal(decodeLink(withScalar(DEFAULT_LINK, 'scale', 'auto')).scale, 'auto');
  assert.equal(decodeLink(withScalar(DEFAULT_LINK, 'k', '1')).topK, 1);
  assert.equal(decodeLink(withScalar(DEFAULT_LINK, 'causal', '1')).mask.causal, true);
  assert.equal(decodeLink(withScalar(DEFAULT_LINK, 'window', '3')).mask.window, 3);
  assert.equal(decodeLink(withScalar(DEFAULT_LINK, 'panel', 'scores')).view.panel, 'scores');
  assert.equal(decodeLink(withScalar(DEFAULT_LINK, 'preset', 'custom')).view.preset, 'custom');
  // Any order of the pairs, and a stray "&", are fine.
  const pairs = DEFAULT_LINK.split('&').reverse();
  assert.ok(statesEqual(decodeLink(`${pairs.join('&')}&`), defaultState()));
  // Switching the mode by hand needs the matrix of that mode, which the default link lacks.
  assertStateError(() => decodeLink(withScalar(DEFAULT_LINK, 'mode', 'logits')), { field: 'heads[0].logits', message: 'required' });
});

test('malformed links are rejected with a StateError that says what is wrong', () => {
  const d = DEFAULT_LINK.slice(DEFAULT_LINK.indexOf('&d=') + 3);
  const cases = [
    ['', 'link', 'empty'],
    ['#', 'link', 'empty'],
    [withScalar(DEFAULT_LINK, 'v', '2'), 'version', 'unknown link version "2"'],
    ['v=2&mode=qkv&future=1', 'version', 'unknown link version'],
    [DEFAULT_LINK.replace('v=1&', ''), 'version', 'no version'],
    [withScalar(DEFAULT_LINK, 'tau', '-1'), 'tau', 'tau must be a number > 0 and <= 1000 (got -1)'],
    [withScalar(DEFAULT_LINK, 'tau', 'NaN'), 'tau', 'must be a number (got "NaN")'],
    [withScalar(DEFAULT_LINK, 'tau', '0'), 'tau', '(got 0)'],
    [withScalar(DEFAULT_LINK, 'tau', '1001'), 'tau', '(got 1001)'],
    [withScalar(DEFAULT_LINK, 'tau', '1e999'), 'tau', '(got Infinity)'],
    [withScalar(DEFAULT_LINK, 'tau', ''), 'tau', 'must be a number (got "")'],
    [withScalar(DEFAULT_LINK, 'tau', '0x10'), 'tau', 'must be a number'],
    [withScalar(DEFAULT_LINK, 'tau', '%E0%A4%A'), 'link', 'broken %-escape'],
    [withScalar(DEFAULT_LINK, 'scale', '-2'), 'scale', 'got -2'],
    [withScalar(DEFAULT_LINK, 'row', '1'), 'row', 'from 0 to 0 (got 1)'],
    [withScalar(DEFAULT_LINK, 'row', '0.5'), 'row', 'integer'],
    [withScalar(DEFAULT_LINK, 'head', '3'), 'head', 'got 3'],
    [withScalar(DEFAULT_LINK, 'k', '0'), 'topK', 'got 0'],
    [withScalar(DEFAULT_LINK, 'causal', 'yes'), 'mask.causal', 'must be 0 or 1'],
    [withScalar(DEFAULT_LINK, 'mode', 'attention'), 'mode', 'got "attention"'],
    [withScalar(DEFAULT_LINK, 'panel', ''), 'view.panel', 'got ""'],
    [DEFAULT_LINK.replace('&window=0', ''), 'mask.window', 'missing window='],
    [`${DEFAULT_LINK}&tau=2`, 'link', 'gives "tau" twice'],
    [`${DEFAULT_LINK}&zoom=2`, 'link', 'unknown key "zoom"'],
    [`${DEFAULT_LINK}&oops`, 'link', 'not of the form key=value'],
    [`${DEFAULT_SCALARS}`, 'd', 'missing d='],
    [`${DEFAULT_SCALARS}&d=`, 'd', 'not an Attention Playground data block'],
    [`${DEFAULT_SCALARS}&d=${d.slice(0, 10)}*${d.slice(11)}`, 'd', 'character "*" at position 10'],
    [`${DEFAULT_SCALARS}&d=${d.slice(0, 4 * Math.floor((d.length - 2) / 4) + 1)}`, 'd', 'cannot come from whole bytes'], // a length of 4k + 1, shorter than d
    [
      `${DEFAULT_SCALARS}&d=${Buffer.from('garbage bytes, not a block at all').toString('base64url')}`,
      'd',
      'not an Attention Playground data block',
    ],
    [
      `${DEFAULT_SCALARS}&d=${Buffer.from([0x41, 0x50, 1, 10, 0, 0, 0, 1, 2, 3, 4, 0xff, 0xfe, 0x07, 0x13]).toString('base64url')}`,
      'd',
      'corrupt',
    ],
    [`${DEFAULT_SCALARS}&d=${Buffer.from([0x41, 0x50, 2, 10, 0, 0, 0, 0, 0, 0, 0]).toString('base64url')}`, 'd', 'format 2'],
    [
      `${DEFAULT_SCALARS}&d=${Buffer.from([0x41, 0x50, 1, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]).toString('base64url')}`,
      'd',
      'more than the limit',
    ],
  ];
  for (const [link, field, message] of cases) {
    assertStateError(() => decodeLink(link), { field, message });
  }
  // Truncations of d at every length fail cleanly, except that dropping the last character may
  // only lose padding bits after the end of the deflate stream: then the state must be intact.
  for (let cut = 0; cut < d.length; cut++) {
    const truncated = `${DEFAULT_SCALARS}&d=${d.slice(0, cut)}`;
    if (cut === d.length - 1) {
      try {
        assert.ok(statesEqual(decodeLink(truncated), defaultState()));
      } catch (error) {
        assert.ok(error instanceof StateError && error.field === 'd', String(error));
      }
    } else {
      assertStateError(() => decodeLink(truncated), { field: 'd' });
    }
  }
  // A single-character change inside d never yields a different state: it is refused (the CRC
  // covers what deflate does not), or it only touched bits that do not change what inflates (the
  // final byte's padding, or an equivalent deflate code), so the state is intact.
  const other = (c) => (c === 'A' ? 'B' : 'A');
  let refused = 0;
  for (let at = 0; at < d.length; at++) {
    const changed = `${DEFAULT_SCALARS}&d=${d.slice(0, at)}${other(d[at])}${d.slice(at + 1)}`;
    try {
      assert.ok(statesEqual(decodeLink(changed), defaultState()), `change at ${at} gave another state`);
    } catch (error) {
      if (error instanceof assert.AssertionError) throw error;
      assert.ok(error instanceof StateError && error.field === 'd', String(error));
      refused++;
    }
  }
  assert.ok(refused >= d.length - 3, `only ${refused} of ${d.length} changes were refused`);
  // Non-strings.
  for (const value of [undefined, null, 42, {}, ['v=1']]) assertStateError(() => decodeLink(value), { field: 'link' });
  // Longer than the limit: refused before any work.
  assertStateError(() => decodeLink(`v=1&d=${'A'.repeat(LIMITS.maxLinkLength)}`), { field: 'link', message: 'too long' });
});

test('d blocks built by hand: the documented format decodes, and bad shapes are caught', () => {
  const tokens = { queries: ['q'], keys: ['k1', 'k2'] };
  const heads = [{ name: 'example 1', Q: [1, 2, 8], K: [2, 2, 8], V: [2, 2, 8] }];
  const numbers = float64Bytes([1, 0, 1, 0, 0, 1, 2, 0, 0, 4]);
  const padding = Uint8Array.of(0, 0);
  const payload = Buffer.concat([numbers, padding]);
  const header = { tokens, source: defaultState().source, allow: false, heads };
  // The independent encoder of helpers.js produces a block the decoder reads as the default state.
  assert.ok(statesEqual(decodeLink(`${DEFAULT_SCALARS}&d=${makeD(header, payload)}`), defaultState()));

  const link = (h, p = payload, options) => `${DEFAULT_SCALARS}&d=${makeD(h, p, options)}`;
  const cases = [
    // Q with 3 columns against K with 2: decodes, then validation names the field and both sizes.
    [
      link(
        { ...header, heads: [{ ...heads[0], Q: [1, 3, 8], K: [2, 2, 8], V: [2, 1, 8] }] },
        Buffer.concat([float64Bytes([1, 0, 0, 1, 0, 0, 1, 2, 4]), padding]),
      ),
      /heads\[0\]\.(Q|K)/,
      /3.*2|2.*3/,
    ],
    [link({ ...header, heads: [{ ...heads[0], Q: [2, 2, 8] }] }), 'd', 'truncated'],
    [link(header, Buffer.concat([payload, Uint8Array.of(0)])), 'd', '1 unexpected bytes'],
    [link(header, Buffer.concat([numbers, Uint8Array.of(0, 2)])), 'd', 'padding flag is 2'],
    [link({ ...header, heads: [{ ...heads[0], Q: [1, 2, 3] }] }), 'd', '[rows, columns, 4 or 8]'],
    [link({ ...header, heads: [{ ...heads[0], Q: [1.5, 2, 8] }] }), 'd', 'row count'],
    [link({ ...header, heads: [{ ...heads[0], Q: [1e9, 1e9, 8] }] }), 'd', 'row count'],
    [link({ ...header, heads: [] }), 'd', '1 to 64 heads'],
    [link({ ...header, allow: 'no' }), 'd', '"allow" must be true or false'],
    [link({ ...header, tokens: { queries: 'q', keys: [] } }), 'd', 'tokens'],
    [link({ ...header, extra: 1 }), 'd', 'unknown field "extra"'],
    [link({ ...header, heads: [{ ...heads[0], name: 5 }] }), 'heads[0].name', 'must be a string'],
    [
      link({ ...header, tokens: { queries: ['q', 'r'], keys: tokens.keys } }, Buffer.concat([numbers, padding])),
      'tokens.queries',
      'n_q = 1',
    ],
    [link({ ...header, source: 'x'.repeat(501) }), 'source', 'at most 500'],
    [link([1, 2]), 'd', 'header must be an object'],
    [link(null, payload, { headerText: '{"tokens": ' }), 'd', 'not JSON'],
    [link(header, payload, { declared: 5 }), 'd', 'inflates to more than'],
    [link(header, payload, { declared: 5000 }), 'd', 'declares 5000'],
    [link(header, payload, { crc: 12345 }), 'd', 'checksum does not match'],
    // Q holding NaN (only logits may be null).
    [link(header, Buffer.concat([float64Bytes([NaN, 0, 1, 0, 0, 1, 2, 0, 0, 4]), padding])), 'heads[0].Q[0][0]', 'got null'],
  ];
  for (const [l, field, message] of cases) assertStateError(() => decodeLink(l), { field, message });
});

test('a d whose header carries __proto__ keys is refused and pollutes nothing', () => {
  const base = '{"tokens":{"queries":["q"],"keys":["k1","k2"]},"source":"s","allow":false,"heads":[{"name":"h","Q":[1,2,8],"K":[2,2,8]}]}';
  const payload = Buffer.concat([float64Bytes([1, 0, 1, 0, 0, 1]), Uint8Array.of(0, 0)]);
  const variants = [
    base.replace('{"tokens"', '{"__proto__":{"polluted":"yes","tau":5},"tokens"'),
    base.replace('{"name"', '{"__proto__":{"polluted":"yes"},"name"'),
    base.replace('{"queries"', '{"__proto__":{"polluted":"yes"},"queries"'),
    base.replace('"Q":[1,2,8]', '"Q":[1,2,8],"constructor":{"prototype":{"polluted":"yes"}}'),
  ];
  for (const headerText of variants) {
    assertStateError(() => decodeLink(`${DEFAULT_SCALARS}&d=${makeD(null, payload, { headerText })}`), {
      field: 'd',
      message: 'unknown field',
    });
  }
  // Keys of the link itself.
  assertStateError(() => decodeLink(`${DEFAULT_LINK}&__proto__=1`), { field: 'link', message: 'unknown key "__proto__"' });
  assertStateError(() => decodeLink(`${DEFAULT_LINK}&constructor=1`), { field: 'link' });
  assert.equal({}.polluted, undefined);
  assert.equal(Object.prototype.polluted, undefined);
  assert.equal({}.tau, undefined);
});

test('fuzz: 2,000 random and mutated links never throw anything but StateError', () => {
  const rng = mulberry32(0xf022);
  const links = [DEFAULT_LINK, encodeLink(randomState(rng)), encodeLink(randomState(rng))];
  const alphabet = 'v=1&#%+-_.dtauscalekrowmodeqkvlogitsweights0123456789AZaz \u00e9\ud800🙂';
  let decoded = 0;
  for (let i = 0; i < 2000; i++) {
    let text;
    const kind = i % 4;
    if (kind === 0) {
      // Random characters.
      text = Array.from({ length: int(rng, 0, 80) }, () => pick(rng, [...alphabet])).join('');
    } else if (kind === 1) {
      // Valid scalars with a random d.
      text = `${DEFAULT_SCALARS}&d=${Array.from({ length: int(rng, 0, 200) }, () => pick(rng, [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'])).join('')}`;
    } else {
      // A valid link with a few characters replaced, deleted or inserted (often inside d).
      const chars = [...pick(rng, links)];
      for (let n = int(rng, 1, 4); n > 0; n--) {
        const at = int(rng, 0, chars.length - 1);
        const op = rng();
        if (op < 0.4) chars[at] = pick(rng, [...alphabet]);
        else if (op < 0.7) chars.splice(at, 1);
        else chars.splice(at, 0, pick(rng, [...alphabet]));
      }
      text = chars.join('');
    }
    try {
      const state = decodeLink(text);
      decoded++;
      assert.ok(statesEqual(validateState(state), state), `fuzz case ${i} decoded to an invalid state`);
    } catch (error) {
      assert.ok(
        error instanceof StateError,
        `fuzz case ${i} (${JSON.stringify(text.slice(0, 120))}) threw ${error && error.name}: ${error && error.message}`,
      );
      assert.equal(typeof error.field, 'string');
      assert.ok(error.message.length > 0);
    }
  }
  assert.ok(decoded < 2000);
  assert.equal(Object.prototype.polluted, undefined);
});

test('encodeLink validates first and refuses states too large for a link', () => {
  assertStateError(
    () =>
      encodeLink(
        modified((s) => {
          s.tau = -1;
        }),
      ),
    { field: 'tau' },
  );
  assertStateError(() => encodeLink(null), { field: 'state' });
  // 4096 x 1024 float64 Q and K: 64 MiB of numbers, more than LIMITS.maxBlockBytes.
  const row = new Array(1024).fill(0.1); // 0.1 is not a float32, so the matrices are stored as float64
  const big = (rows) => new Array(rows).fill(row);
  const s = modified((x) => {
    x.heads[0] = { name: 'big', Q: big(4096), K: big(4096), V: null, logits: null, weights: null };
    x.tokens = { queries: new Array(4096).fill('t'), keys: new Array(4096).fill('t') };
    x.mask.padding = new Array(4096).fill(false);
    x.topK = 5;
  });
  assertStateError(() => encodeLink(s), { field: 'link', message: 'too large for a link' });
});

test('a realistic state (12 heads of 64 x 64 float32 weights) fits a link and round-trips', () => {
  const rng = mulberry32(12);
  const n = 64;
  const heads = Array.from({ length: 12 }, (_, h) => ({
    name: `L0H${h}`,
    Q: null,
    K: null,
    V: null,
    logits: null,
    weights: Array.from({ length: n }, (_, t) => {
      const row = Array.from({ length: n }, (_, j) => (j <= t ? rng() : 0));
      const sum = row.reduce((a, b) => a + b, 0);
      return row.map((x) => Math.fround(x / sum));
    }),
  }));
  const s = {
    ...defaultState(),
    mode: 'weights',
    heads,
    head: 3,
    tokens: { queries: Array.from({ length: n }, (_, i) => ` tok${i}`), keys: Array.from({ length: n }, (_, i) => ` tok${i}`) },
    mask: { causal: true, window: 0, padding: new Array(n).fill(false), allow: null },
    row: 10,
    view: { panel: 'weights', preset: 'gpt2-small_L0_nlp-sentence', numbers: 'auto' },
    source: 'synthetic float32 weights shaped like a GPT-2 export',
  };
  const link = encodeLink(s);
  assert.ok(link.length < 200_000, `${link.length} characters`);
  assert.ok(statesEqual(decodeLink(link), validateState(s)));
});

test('the optional lab object: validated, round-trips through a link, absent stays absent', () => {
  const s = defaultState();
  assert.equal('lab' in validateState(s), false);
  assert.equal(decodeLink(encodeLink(s)).lab, undefined);
  const withLab = {
    ...s,
    lab: { view: 'normalisers', params: { alpha: 1.3, beta: [0.1, 0.9], relu: true, feature: 'elu', target: null } },
  };
  const back = decodeLink(encodeLink(withLab));
  assert.deepEqual(back.lab, withLab.lab);
  assert.ok(statesEqual(back, validateState(withLab)));
  assert.deepEqual(validateState({ ...s, lab: { view: 'sink' } }).lab, { view: 'sink', params: {} });
  assertStateError(() => validateState({ ...s, lab: { view: 'nonsense' } }), { field: 'lab.view' });
  assertStateError(() => validateState({ ...s, lab: { view: 'sink', extra: 1 } }), { field: 'lab.extra' });
  assertStateError(() => validateState({ ...s, lab: { view: 'sink', params: { alpha: Infinity } } }), { field: 'lab.params.alpha' });
  assertStateError(() => validateState({ ...s, lab: { view: 'sink', params: JSON.parse('{"__proto__": 1}') } }), { field: 'lab.params' });
  assertStateError(() => validateState({ ...s, lab: { view: 'sink', params: { s: 'x'.repeat(65) } } }), { field: 'lab.params.s' });
  const link = encodeLink(s);
  assertStateError(() => decodeLink(`${link}&lab=%7Bnot`), { field: 'lab', message: 'not JSON' });
});

test('optional mask.stride and mask.sinks: validated, in the link only when set', () => {
  const s = defaultState();
  const link = encodeLink(s);
  assert.doesNotMatch(link, /stride=|sinks=/);
  const strided = { ...s, mask: { ...s.mask, stride: 2, sinks: 1 } };
  const l2 = encodeLink(strided);
  assert.match(l2, /stride=2&sinks=1/);
  const back = decodeLink(l2);
  assert.equal(back.mask.stride, 2);
  assert.equal(back.mask.sinks, 1);
  assert.equal('stride' in validateState({ ...s, mask: { ...s.mask, stride: 0 } }).mask, false);
  assertStateError(() => validateState({ ...s, mask: { ...s.mask, stride: -1 } }), { field: 'mask.stride' });
  assertStateError(() => validateState({ ...s, mask: { ...s.mask, sinks: 1.5 } }), { field: 'mask.sinks' });
  assertStateError(() => decodeLink(`${link}&stride=x`), { field: 'mask.stride' });
});
