// Property-based tests (fast-check) of the URL codec and the state validator of web/core/state-schema.js, and
// of the page-option reader of web/page/page-options.js (docs/security.md "Property tests"):
//   (i)   10,000 generated valid states round-trip bit-exactly through a link, and re-encoding a
//         decoded link gives the same text;
//   (ii)  arbitrary strings and arbitrary mutations of valid links (characters, keys, scalars, the
//         d block, and the d block's *contents* behind a recomputed checksum) either decode to a
//         valid state without NaN or are refused with a StateError that says something; the
//         page-option reader never throws;
//   (iii) validateState on arbitrary values (JSON, non-JSON, prototype-pollution keys, deep
//         nesting, throwing getters and proxies, mutated valid states) returns a valid state or
//         throws a StateError, and never touches Object.prototype.
// Fixed seeds: a failure prints the seed and the path that reproduce it (fc.assert's report).
//
//   node --test tests/node/link_properties.test.js
//   FC_RUNS=100000 node --test tests/node/link_properties.test.js   (more runs, same seeds)
//
// Strings: the schema's strings are JS strings, so tokens, names, the source and lab strings may
// hold any code unit, lone surrogates included. They are generated here on purpose: the link
// stores them inside JSON (JSON.stringify escapes a lone surrogate as \udXXX), so they round-trip
// exactly; lengths count a lone surrogate as one code point (LIMITS in web/core/state-schema.js).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { crc32 } from 'node:zlib';
import fc from 'fast-check';
import { deflateSync, inflateSync } from 'fflate';

import * as stateModule from './schema.js';
import { readPageOptions, stripPageOptions } from '../../web/page/page-options.js';

const { LIMITS, LAB_VIEWS, StateError, defaultState, validateState, encodeLink, decodeLink, statesEqual } = stateModule;

const RUNS = Number(process.env.FC_RUNS) || 10_000;
const FUZZ_RUNS = Number(process.env.FC_RUNS) || 4_000;

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/** JSON with -0, NaN and +-Infinity spelled out, so a failing case can be pasted back. */
function show(value) {
  return JSON.stringify(value, (_, x) => {
    if (typeof x !== 'number') return x;
    if (Object.is(x, -0)) return '<-0>';
    if (!Number.isFinite(x)) return `<${x}>`;
    return x;
  });
}

/** The first place where a and b differ (a number that is not the same double by Object.is, a
 * missing key, another type), or null. No assert calls inside: this runs on every node. */
function difference(a, b, path = 'state') {
  if (typeof a === 'number' || typeof b === 'number') return Object.is(a, b) ? null : `${path}: ${show(a)} vs ${show(b)}`;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object')
    return a === b ? null : `${path}: ${show(a)} vs ${show(b)}`;
  if (Array.isArray(a) !== Array.isArray(b)) return `${path}: array vs object`;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return `${path}: keys ${ka} vs ${kb}`;
  for (const k of ka) {
    if (!Object.prototype.hasOwnProperty.call(b, k)) return `${path}: ${k} missing`;
    const d = difference(a[k], b[k], Array.isArray(a) ? `${path}[${k}]` : `${path}.${k}`);
    if (d) return d;
  }
  return null;
}

/** Asserts a and b have the same shape and every number is the same double (Object.is). */
function assertBitExact(a, b, what = 'state') {
  const d = difference(a, b, what);
  if (d) assert.fail(`not bit-exact: ${d}`);
}

/** A copy of a JSON-like value with every string well formed (a lone surrogate as U+FFFD). */
function wellFormed(value) {
  if (typeof value === 'string') return value.toWellFormed();
  if (Array.isArray(value)) return value.map(wellFormed);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, wellFormed(v)]));
  return value;
}

/** Calls fn(number, path) for every number in a value. */
function eachNumber(value, fn, path = 'state') {
  if (typeof value === 'number') fn(value, path);
  else if (value !== null && typeof value === 'object') for (const k of Object.keys(value)) eachNumber(value[k], fn, `${path}.${k}`);
}

/** Asserts a value holds no NaN and no Infinity. */
function assertFiniteNumbers(value, from) {
  eachNumber(value, (x, path) => {
    if (!Number.isFinite(x)) assert.fail(`${show(x)} at ${path} (from ${JSON.stringify(from).slice(0, 500)})`);
  });
}

/** The contract of decodeLink/validateState for hostile input: a StateError with a message. */
function assertStateError(error, input) {
  if (
    error instanceof StateError &&
    error.name === 'StateError' &&
    typeof error.field === 'string' &&
    typeof error.message === 'string' &&
    error.message.trim().length > 0
  )
    return;
  assert.fail(
    `expected a StateError with a message, got ${error && error.name}: ${error && error.message}\ninput: ${show(input)?.slice(0, 2000)}`,
  );
}

/** decodeLink(fragment): a valid state without NaN or Infinity, or a StateError. */
function checkDecode(fragment) {
  let state;
  try {
    state = decodeLink(fragment);
  } catch (error) {
    assertStateError(error, fragment);
    return null;
  }
  assertFiniteNumbers(state, fragment);
  // A decoded state is valid as it stands and can be written again.
  assertBitExact(validateState(state), state);
  assert.equal(typeof encodeLink(state), 'string');
  return state;
}

/** readPageOptions never throws, whatever the fragment, and returns well-formed options. */
function checkPageOptions(fragment) {
  const { options, errors } = readPageOptions(fragment);
  assert.ok(Array.isArray(errors));
  assert.equal(typeof options.embed, 'boolean');
  assert.equal(typeof options.readonly, 'boolean');
  assert.ok(Array.isArray(options.hide));
  assert.equal(typeof stripPageOptions(fragment), 'string');
}

// ---------------------------------------------------------------------------------------------
// Arbitraries: valid states, in the canonical form validateState returns
// ---------------------------------------------------------------------------------------------

const AWKWARD = [
  -0,
  0,
  5e-324,
  -5e-324,
  2.2250738585072014e-308,
  -2.225073858507201e-308,
  1.7976931348623157e308,
  -1.7976931348623157e308,
  2 ** -149,
  3.4028234663852886e38,
  3.4028235677973366e38,
  0.1,
  1 / 3,
  1e-300,
  1e300,
  Number.EPSILON,
  1 + Number.EPSILON,
  Number.MAX_SAFE_INTEGER,
  2 ** 53 + 2,
  1e21,
  1.5e-7,
  65504,
];
// Any finite double (fast-check biases towards -0, subnormals and the extremes), plus listed ones.
const cellDouble = fc.oneof(
  { weight: 4, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
  { weight: 2, arbitrary: fc.double({ min: -10, max: 10, noNaN: true }) },
  { weight: 1, arbitrary: fc.integer({ min: -9, max: 9 }) },
  { weight: 1, arbitrary: fc.constantFrom(...AWKWARD) },
);
// float32-exact values (the link stores a matrix of them in 4 bytes a cell).
const cellFloat32 = fc.oneof(
  { weight: 4, arbitrary: fc.float({ noNaN: true, noDefaultInfinity: true }) },
  { weight: 1, arbitrary: fc.integer({ min: -9, max: 9 }) },
  { weight: 1, arbitrary: fc.constantFrom(-0, 2 ** -149, -(2 ** -126), 3.4028234663852886e38, Math.fround(0.1), 65504) },
);
// Records with the ordinary prototype: fc.record may make null-prototype objects, which
// deepStrictEqual tells apart from the plain objects validateState returns.
const record = (model, options = {}) => fc.record(model, { noNullPrototype: true, ...options });
const nonNegative = (x) => (Object.is(x, -0) ? x : Math.abs(x)); // -0 >= 0: a valid weight

/** rows x cols; each matrix is either all float32-exact or anything, so both widths are used. */
function matrix(rows, cols, kind = 'finite') {
  return fc.boolean().chain((f32) => {
    let cell = f32 ? cellFloat32 : cellDouble;
    if (kind === 'nonNegative') cell = cell.map(nonNegative);
    if (kind === 'logits') cell = fc.oneof({ weight: 4, arbitrary: cell }, { weight: 1, arbitrary: fc.constant(null) });
    if (kind === 'boolean') cell = fc.boolean();
    return fc.array(fc.array(cell, { minLength: cols, maxLength: cols }), { minLength: rows, maxLength: rows });
  });
}

const vector = (n) => fc.array(cellDouble, { minLength: n, maxLength: n });

// One "unit" of text: ASCII, any code point (String.fromCodePoint of a surrogate is a lone
// surrogate), or a piece that is known to be awkward. A unit is at most 5 code points.
const textUnit = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }) },
  { weight: 3, arbitrary: fc.integer({ min: 0, max: 0x10ffff }).map((cp) => String.fromCodePoint(cp)) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '🙂',
      '👩‍👩‍👧',
      'e\u0301',
      '日本',
      '<b>',
      '&',
      '"',
      "'",
      '\\',
      '%',
      '%2',
      '#',
      '=',
      '&d=',
      '\u0000',
      '\n',
      '\ud800',
      '\udc00',
      '\u2028',
      '\ufeff',
      '</script>',
      '<img src=x onerror=alert(1)>'.slice(0, 5),
    ),
  },
);
/** A string of at most maxCodePoints code points (sometimes exactly the limit). */
function text(maxCodePoints) {
  return fc.oneof(
    { weight: 12, arbitrary: fc.string({ unit: textUnit, maxLength: Math.min(24, Math.floor(maxCodePoints / 5)) }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '💩'.repeat(maxCodePoints),
        'a'.repeat(maxCodePoints),
        '\ud800'.repeat(maxCodePoints),
        '\udfff\ud800'.repeat(maxCodePoints / 2),
      ),
    },
  );
}

const presetId = fc.oneof(
  fc.constantFrom('example1', 'example2', 'custom', 'gpt2-small_L0_nlp-sentence'),
  fc.stringMatching(/^[A-Za-z0-9._-]{1,100}$/),
);
const positiveDouble = (max) => fc.double({ min: Number.MIN_VALUE, max, noNaN: true });
const maskInt = (n) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constant(0) },
    { weight: 3, arbitrary: fc.integer({ min: 1, max: n + 2 }) },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: LIMITS.maxTokens }) },
  );

const labParamName = fc.oneof(
  fc.stringMatching(/^[A-Za-z][A-Za-z0-9]{0,31}$/),
  fc.constantFrom('constructor', 'toString', 'valueOf', 'hasOwnProperty', 'tau', 'k', 'x'),
);
const labParamValue = fc.oneof(
  cellDouble.map((x) => x + 0), // canonical: validateState turns -0 into 0 here (a regression test below)
  fc.boolean(),
  fc.constant(null),
  text(64),
  fc.array(
    cellDouble.map((x) => x + 0),
    { maxLength: 8 },
  ),
);
const labArb = record({
  view: fc.constantFrom('none', ...LAB_VIEWS),
  params: fc.dictionary(labParamName, labParamValue, { maxKeys: 6, noNullPrototype: true }),
});

// The guided lesson (optional part of the state, web/lesson/): present only in a state.js that
// exports LESSON_PREDICTIONS. The allowed choices of each prediction are read from state.js's own
// error message rather than copied here.
const lessonArb = (() => {
  const names = stateModule.LESSON_PREDICTIONS;
  if (!names) return null;
  const steps = stateModule.LESSON_STEPS;
  const choices = {};
  for (const name of names) {
    try {
      validateState({ ...defaultState(), lesson: { step: 1, predictions: { [name]: '\u0000' } } });
    } catch (error) {
      const listed = /must be one of (.*) \(got/.exec(error.message);
      choices[name] = listed ? JSON.parse(`[${listed[1]}]`) : null; // null: a list of indices
    }
  }
  const indexList = (min, max, length) =>
    fc.uniqueArray(fc.integer({ min, max }), { maxLength: length }).map((xs) => xs.sort((a, b) => a - b));
  return record({
    step: fc.integer({ min: 1, max: steps }),
    predictions: record(
      Object.fromEntries(names.map((name) => [name, choices[name] ? fc.constantFrom(...choices[name]) : indexList(0, 63, 8)])),
      { requiredKeys: [] },
    ).map((p) => Object.fromEntries(names.filter((n) => n in p).map((n) => [n, p[n]]))),
    revealed: indexList(1, steps, steps),
  });
})();

// The shape of a state first (mode, sizes, which optional parts exist), then its contents. Built
// with chain() rather than fc.gen(): gen() caches every builder it is called with, which made
// 10,000 runs crawl (a cache that grows with every run and is compared deeply).
const oneIn = (n) => fc.integer({ min: 1, max: n }).map((x) => x === 1);
const shapeArb = record({
  mode: fc.constantFrom('qkv', 'logits', 'weights', 'x'),
  nQ: fc.integer({ min: 1, max: 8 }),
  nK: fc.integer({ min: 1, max: 8 }),
  heads: fc.array(
    record({
      dK: fc.integer({ min: 1, max: 8 }),
      dV: fc.integer({ min: 0, max: 8 }),
      has: record({ Q: fc.boolean(), K: fc.boolean(), V: fc.boolean(), logits: fc.boolean(), weights: fc.boolean() }),
      gate: oneIn(4),
    }),
    { minLength: 1, maxLength: 4 },
  ),
  dModel: fc.integer({ min: 1, max: 8 }),
  dOut: fc.option(fc.integer({ min: 1, max: 8 })), // null: d_out = d_model (so residual may be on)
  WO: fc.boolean(),
  allow: fc.boolean(),
  lab: oneIn(4),
  lesson: oneIn(4),
});

function contentsOf(shape) {
  const { mode, nQ, heads } = shape;
  const nK = mode === 'x' ? nQ : shape.nK;
  const given = (yes, arb) => (yes ? arb : fc.constant(null));
  const gate = (h) => (h.gate ? vector(nQ) : fc.constant(undefined));
  let headArbs;
  let xArb = fc.constant(undefined);
  if (mode === 'x') {
    const { dModel } = shape;
    const dVs = heads.map((h) => Math.max(1, h.dV));
    headArbs = heads.map((h, i) =>
      record({
        name: text(LIMITS.maxNameLength),
        WQ: matrix(dModel, h.dK),
        WK: matrix(dModel, h.dK),
        WV: matrix(dModel, dVs[i]),
        gate: gate(h),
      }).map(({ name, WQ, WK, WV, gate: g }) => ({
        name,
        Q: null,
        K: null,
        V: null,
        logits: null,
        weights: null,
        WQ,
        WK,
        WV,
        ...(g ? { gate: g } : {}),
      })),
    );
    const sumDv = dVs.reduce((a, b) => a + b, 0);
    const dOut = shape.dOut ?? dModel;
    const width = shape.WO ? dOut : sumDv;
    xArb = record({
      X: matrix(nQ, dModel),
      WO: given(shape.WO, matrix(sumDv, dOut)),
      residual: width === dModel ? fc.boolean() : fc.constant(false),
    });
  } else {
    headArbs = heads.map((h) =>
      record({
        name: text(LIMITS.maxNameLength),
        Q: given(mode === 'qkv' || h.has.Q, matrix(nQ, h.dK)),
        K: given(mode === 'qkv' || h.has.K, matrix(nK, h.dK)),
        V: given(h.has.V, matrix(nK, h.dV)),
        logits: given(mode === 'logits' || h.has.logits, matrix(nQ, nK, 'logits')),
        weights: given(mode === 'weights' || h.has.weights, matrix(nQ, nK, 'nonNegative')),
        gate: gate(h),
      }).map(({ gate: g, ...head }) => (g ? { ...head, gate: g } : head)),
    );
  }
  return record({
    heads: fc.tuple(...headArbs),
    head: fc.integer({ min: 0, max: heads.length - 1 }),
    queries: fc.array(text(LIMITS.maxTokenLength), { minLength: nQ, maxLength: nQ }),
    keys: fc.array(text(LIMITS.maxTokenLength), { minLength: nK, maxLength: nK }),
    causal: fc.boolean(),
    window: maskInt(nK),
    padding: fc.array(fc.boolean(), { minLength: nK, maxLength: nK }),
    allow: given(shape.allow, matrix(nQ, nK, 'boolean')),
    stride: maskInt(nK),
    sinks: maskInt(nK),
    tau: fc.oneof(positiveDouble(LIMITS.maxTau), fc.constantFrom(LIMITS.maxTau, 5e-324, 1e-300, 0.05, 20, 1, Math.fround(0.7), 1 / 3)),
    scale: fc.oneof(fc.constant('auto'), positiveDouble(Number.MAX_VALUE), fc.constantFrom(1, 5e-324, Number.MAX_VALUE, 1 / Math.sqrt(3))),
    topK: fc.oneof(fc.integer({ min: 1, max: nK }), fc.integer({ min: 1, max: LIMITS.maxTokens })),
    row: fc.integer({ min: 0, max: nQ - 1 }),
    panel: fc.constantFrom('weights', 'scores'),
    preset: presetId,
    numbers: fc.constantFrom('auto', 'on', 'off'),
    source: text(LIMITS.maxSourceLength),
    lab: shape.lab ? labArb : fc.constant(undefined),
    lesson: shape.lesson && lessonArb ? lessonArb : fc.constant(undefined),
    x: xArb,
  }).map((c) => {
    const mask = { causal: c.causal, window: c.window, padding: c.padding, allow: c.allow };
    if (c.stride) mask.stride = c.stride;
    if (c.sinks) mask.sinks = c.sinks;
    const state = {
      version: 1,
      mode,
      heads: c.heads,
      head: c.head,
      tokens: { queries: c.queries, keys: c.keys },
      mask,
      tau: c.tau,
      scale: c.scale,
      topK: c.topK,
      row: c.row,
      view: { panel: c.panel, preset: c.preset, numbers: c.numbers },
      source: c.source,
    };
    if (c.lab) state.lab = c.lab;
    if (c.lesson) state.lesson = c.lesson;
    if (c.x) state.x = c.x;
    return state;
  });
}

/** A valid state of docs/state.md, in the canonical form validateState returns. */
const stateArb = shapeArb.chain(contentsOf);

// ---------------------------------------------------------------------------------------------
// (i) Round trips
// ---------------------------------------------------------------------------------------------

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

test(`${RUNS.toLocaleString('en')} generated valid states round-trip bit-exactly through the link`, () => {
  const started = Date.now();
  const cpu = process.cpuUsage();
  const seen = {
    qkv: 0,
    logits: 0,
    weights: 0,
    x: 0,
    lab: 0,
    lesson: 0,
    gate: 0,
    allow: 0,
    negZero: 0,
    subnormal: 0,
    float64: 0,
    loneSurrogate: 0,
  };
  fc.assert(
    fc.property(stateArb, (generated) => {
      // The generator makes canonical states: validation changes nothing, bit for bit, except that
      // half a character (a lone surrogate) becomes U+FFFD (docs/state.md "Text").
      const s = wellFormed(generated);
      assertBitExact(validateState(generated), s);
      const link = encodeLink(generated);
      const back = decodeLink(link);
      assertBitExact(back, s);
      assert.ok(statesEqual(back, s), 'statesEqual');
      assert.deepStrictEqual(back, s);
      assert.equal(encodeLink(back), link, 'encode(decode(encode(s))) === encode(s)');
      // The leading "#" and page options after the state change nothing.
      assertBitExact(decodeLink(`#${link}&lang=zh-CN&embed=1&tau_hide=1`), s);

      seen[s.mode]++;
      if (s.lab) seen.lab++;
      if (s.lesson) seen.lesson++;
      if (s.heads.some((h) => h.gate)) seen.gate++;
      if (s.mask.allow) seen.allow++;
      const has = { negZero: false, subnormal: false, float64: false };
      eachNumber(s, (v) => {
        if (Object.is(v, -0)) has.negZero = true;
        else if (v !== 0 && Math.abs(v) < 2.2250738585072014e-308) has.subnormal = true;
        if (Math.fround(v) !== v) has.float64 = true;
      });
      for (const k of Object.keys(has)) if (has[k]) seen[k]++;
      const g = generated;
      if ([...g.tokens.queries, ...g.tokens.keys, g.source, ...g.heads.map((h) => h.name)].some((t) => LONE_SURROGATE.test(t)))
        seen.loneSurrogate++;
    }),
    { seed: 0x5eed0001, numRuns: RUNS },
  );
  const seconds = (Date.now() - started) / 1000;
  const cpuSeconds = Object.values(process.cpuUsage(cpu)).reduce((a, b) => a + b, 0) / 1e6;
  // The generator must actually reach the corners it claims to (a silent generator bug would
  // otherwise make this test vacuous).
  for (const [what, count] of Object.entries(seen)) {
    if (what === 'lesson' && !lessonArb) continue;
    assert.ok(count >= RUNS / 100, `only ${count} of ${RUNS} states had ${what}`);
  }
  console.log(`# round trips: ${RUNS} states in ${seconds.toFixed(1)} s (${cpuSeconds.toFixed(1)} s of CPU); ${show(seen)}`);
});

// ---------------------------------------------------------------------------------------------
// (ii) Hostile links
// ---------------------------------------------------------------------------------------------

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const LINK_KEYS = [
  'v',
  'mode',
  'tau',
  'scale',
  'k',
  'row',
  'causal',
  'window',
  'head',
  'panel',
  'preset',
  'numbers',
  'd',
  'stride',
  'sinks',
  'lab',
  'lesson',
];
const OTHER_KEYS = [
  'lang',
  'embed',
  'readonly',
  'palette',
  'frame',
  'tau_hide',
  'lab_hide',
  'bogus_hide',
  '__proto__',
  'constructor',
  'prototype',
  'V',
  'Tau',
  '',
];
const BAD_VALUES = [
  'NaN',
  'Infinity',
  '-Infinity',
  '-1',
  '1e308',
  '-1e308',
  '1e999',
  '-0',
  '0',
  '',
  '0x10',
  ' 1',
  '1 ',
  '+1',
  '.5',
  '5.',
  '1.5',
  '4096',
  '4097',
  '2147483648',
  '9007199254740993',
  '1e-400',
  '5e-324',
  '%',
  '%zz',
  '%ED%A0%80',
  '%00',
  'auto',
  'true',
  'null',
  '[]',
  '{}',
  '%7B%22view%22%3A%22sink%22%7D',
  '%7B%22__proto__%22%3A%7B%22x%22%3A1%7D%7D',
  'qkv',
  'x',
  'weights',
  '1&d=',
  '#',
  'zh-CN',
  'en',
  '%F0%9F%99%82',
  '\ud800',
  '💩',
];
const linkChar = fc.oneof(
  fc.constantFrom(...BASE64URL, '&', '=', '%', '#', '+', ' ', '.', '-', '~', '\u0000', '\ud800', '🙂', 'é'),
  fc.integer({ min: 0, max: 0x10ffff }).map((cp) => String.fromCodePoint(cp)),
);
const valueText = fc.oneof(
  fc.constantFrom(...BAD_VALUES),
  fc.string({ unit: linkChar, maxLength: 12 }),
  cellDouble.map(String),
  fc.integer().map(String),
);

/** Replaces the uncompressed block of d with edit(block) and a matching length, CRC and deflate. */
function rewriteBlock(d, edit) {
  const bytes = Buffer.from(d, 'base64url');
  const block = Buffer.from(inflateSync(bytes.subarray(11)));
  const changed = Buffer.from(edit(block));
  const prefix = Buffer.alloc(11);
  bytes.copy(prefix, 0, 0, 3);
  prefix.writeUInt32LE(changed.length, 3);
  prefix.writeUInt32LE(crc32(changed), 7);
  return Buffer.concat([prefix, Buffer.from(deflateSync(changed))]).toString('base64url');
}

/** All [parent, key] data slots of a value, to replace or delete one (getters are skipped). */
function slots(value, out = []) {
  if (value !== null && typeof value === 'object') {
    for (const k of Object.keys(value)) {
      if (!('value' in Object.getOwnPropertyDescriptor(value, k))) continue;
      out.push([value, k]);
      slots(value[k], out);
    }
  }
  return out;
}

const headerValue = fc.oneof(
  fc.constantFrom(
    -1,
    0,
    1,
    4,
    8,
    4097,
    1e9,
    2 ** 32,
    1.5,
    -0,
    null,
    '',
    [],
    {},
    true,
    [0, 0, 4],
    [1, 1, 8],
    [1e6, 1e6, 8],
    [4096, 4096, 8],
    [2, 2, 2],
    [1, 3, 4],
    '\ud800',
    '__proto__',
  ),
  fc.jsonValue({ maxDepth: 2 }),
);

// One edit of the uncompressed block; the prefix is recomputed, so the block's structure is hit.
const blockEdit = fc.oneof(
  // Overwrite one byte anywhere (header or data).
  record({ kind: fc.constant('byte'), at: fc.nat(), value: fc.integer({ min: 0, max: 255 }) }),
  // Write a NaN/Inf/huge/-0 number over the data part, as float64 or float32.
  record({
    kind: fc.constant('number'),
    at: fc.nat(),
    value: fc.constantFrom(NaN, Infinity, -Infinity, -0, 1e308, 3.5e38, -1),
    wide: fc.boolean(),
  }),
  // Cut or grow the data part.
  record({ kind: fc.constant('length'), delta: fc.integer({ min: -16, max: 16 }) }),
  // Change the header's JSON: replace a slot, delete one, or add a key (own "__proto__" too).
  record({
    kind: fc.constant('header'),
    at: fc.nat(),
    op: fc.constantFrom('set', 'delete', 'add'),
    key: fc.constantFrom('__proto__', 'constructor', 'x', 'allow', 'gate', 'WQ', 'tokens', 'zz'),
    value: headerValue,
  }),
  // A header length that lies.
  record({ kind: fc.constant('headerLength'), value: fc.oneof(fc.nat(), fc.constantFrom(0, 0xffffffff, 3)) }),
);

function applyBlockEdit(block, edit) {
  const headerLength = block.readUInt32LE(0);
  const dataStart = 4 + headerLength;
  switch (edit.kind) {
    case 'byte': {
      const b = Buffer.from(block);
      b[edit.at % b.length] = edit.value;
      return b;
    }
    case 'number': {
      const b = Buffer.from(block);
      const room = b.length - dataStart - (edit.wide ? 8 : 4);
      if (room < 0) return b;
      const at = dataStart + (edit.at % (room + 1));
      if (edit.wide) b.writeDoubleLE(edit.value, at);
      else b.writeFloatLE(edit.value, at);
      return b;
    }
    case 'length':
      return edit.delta < 0
        ? block.subarray(0, Math.max(0, block.length + edit.delta))
        : Buffer.concat([block, Buffer.alloc(edit.delta, 1)]);
    case 'header': {
      const header = JSON.parse(block.subarray(4, dataStart).toString('utf8'));
      const all = slots(header);
      const [parent, key] = all[edit.at % all.length];
      if (edit.op === 'set') parent[key] = edit.value;
      else if (edit.op === 'delete') delete parent[key];
      else {
        const target = typeof parent[key] === 'object' && parent[key] !== null ? parent[key] : header;
        Object.defineProperty(target, edit.key, { value: edit.value, enumerable: true, configurable: true, writable: true });
      }
      const json = Buffer.from(JSON.stringify(header), 'utf8');
      const length = Buffer.alloc(4);
      length.writeUInt32LE(json.length, 0);
      return Buffer.concat([length, json, block.subarray(dataStart)]);
    }
    case 'headerLength': {
      const b = Buffer.from(block);
      b.writeUInt32LE(edit.value >>> 0, 0);
      return b;
    }
    default:
      throw new Error(edit.kind);
  }
}

const parts = (link) => link.split('&');
const mutation = fc.oneof(
  record({ kind: fc.constant('flip'), at: fc.nat(), c: linkChar }),
  record({ kind: fc.constant('insert'), at: fc.nat(), s: fc.string({ unit: linkChar, minLength: 1, maxLength: 6 }) }),
  record({ kind: fc.constant('delete'), at: fc.nat(), n: fc.integer({ min: 1, max: 8 }) }),
  record({ kind: fc.constant('truncate'), at: fc.nat() }),
  record({ kind: fc.constant('duplicate'), at: fc.nat(), value: fc.option(valueText) }),
  record({ kind: fc.constant('set'), key: fc.constantFrom(...LINK_KEYS, ...OTHER_KEYS), value: valueText }),
  record({ kind: fc.constant('remove'), at: fc.nat() }),
  record({ kind: fc.constant('shuffle'), seed: fc.nat() }),
  record({
    kind: fc.constant('d'),
    value: fc.oneof(
      fc.string({ unit: fc.constantFrom(...BASE64URL), maxLength: 300 }),
      fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.concat([Buffer.from([0x41, 0x50, 1]), Buffer.from(b)]).toString('base64url')),
      fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b).toString('base64')),
    ),
  }),
  record({ kind: fc.constant('block'), edits: fc.array(blockEdit, { minLength: 1, maxLength: 3 }) }),
  record({
    kind: fc.constant('json'),
    key: fc.constantFrom('lab', 'lesson'),
    value: fc
      .oneof(
        fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
        fc.constantFrom(
          '{"view":"sink","params":{"k":NaN}}',
          '{"view":"sink","params":{"k":1e999}}',
          '{"__proto__":{"polluted":1}}',
          '{"view":"sink","params":{"__proto__":{"polluted":1}}}',
          '{"view":"sink","params":{"constructor":{"prototype":{"polluted":1}}}}',
          '{"step":1,"predictions":{"__proto__":"up"}}',
          '{"step":-0,"revealed":[1,1]}',
          `${'['.repeat(5000)}${']'.repeat(5000)}`,
          '{"view":"sink"',
        ),
      )
      .map(encodeURIComponent),
  }),
);

function applyMutation(link, m) {
  const at = (n) => (n === 0 ? 0 : m.at % (n + 1));
  switch (m.kind) {
    case 'flip': {
      const i = at(link.length - 1);
      return link.slice(0, i) + m.c + link.slice(i + 1);
    }
    case 'insert': {
      const i = at(link.length);
      return link.slice(0, i) + m.s + link.slice(i);
    }
    case 'delete': {
      const i = at(link.length);
      return link.slice(0, i) + link.slice(i + m.n);
    }
    case 'truncate':
      return link.slice(0, at(link.length));
    case 'duplicate': {
      const p = parts(link);
      const part = p[at(p.length - 1)] ?? '';
      const key = part.split('=')[0];
      return `${link}&${m.value === null ? part : `${key}=${m.value}`}`;
    }
    case 'set': {
      const p = parts(link).filter((x) => x.split('=')[0] !== m.key);
      p.splice(p.length - 1, 0, `${m.key}=${m.value}`);
      return p.join('&');
    }
    case 'remove': {
      const p = parts(link);
      p.splice(at(p.length - 1), 1);
      return p.join('&');
    }
    case 'shuffle': {
      const p = parts(link);
      let r = m.seed;
      for (let i = p.length - 1; i > 0; i--) {
        r = (r * 1103515245 + 12345) >>> 0;
        const j = r % (i + 1);
        [p[i], p[j]] = [p[j], p[i]];
      }
      return p.join('&');
    }
    case 'd':
      return parts(link)
        .map((x) => (x.startsWith('d=') ? `d=${m.value}` : x))
        .join('&');
    case 'block':
      return parts(link)
        .map((x) => {
          if (!x.startsWith('d=')) return x;
          try {
            return `d=${rewriteBlock(x.slice(2), (block) => m.edits.reduce(applyBlockEdit, block))}`;
          } catch {
            return x; // an earlier mutation already broke d beyond reading: leave it
          }
        })
        .join('&');
    case 'json': {
      const p = parts(link).filter((x) => x.split('=')[0] !== m.key);
      p.splice(1, 0, `${m.key}=${m.value}`);
      return p.join('&');
    }
    default:
      throw new Error(m.kind);
  }
}

test(`${FUZZ_RUNS.toLocaleString('en')} mutated valid links: a valid state without NaN, or a StateError; page options never throw`, () => {
  const started = Date.now();
  const outcome = { decoded: 0, refused: 0, fields: new Map() };
  fc.assert(
    fc.property(stateArb, fc.array(mutation, { minLength: 1, maxLength: 3 }), (s, ms) => {
      const link = ms.reduce(applyMutation, encodeLink(s));
      let result;
      try {
        result = checkDecode(link);
      } catch (error) {
        error.message += `\nmutations: ${show(ms).slice(0, 2000)}`;
        throw error;
      }
      if (result) outcome.decoded++;
      else outcome.refused++;
      checkPageOptions(link);
      checkPageOptions(`#${link}`);
    }),
    { seed: 0x5eed0002, numRuns: FUZZ_RUNS },
  );
  // Both outcomes must occur often, or the mutations are too weak or too strong to test anything.
  assert.ok(outcome.decoded > FUZZ_RUNS / 50, `only ${outcome.decoded} mutated links decoded`);
  assert.ok(outcome.refused > FUZZ_RUNS / 5, `only ${outcome.refused} mutated links were refused`);
  console.log(
    `# mutated links: ${FUZZ_RUNS} in ${((Date.now() - started) / 1000).toFixed(1)} s; decoded ${outcome.decoded}, refused ${outcome.refused}`,
  );
});

test(`${FUZZ_RUNS.toLocaleString('en')} block contents behind a valid checksum: decoded or refused, never NaN`, () => {
  // Only edits of the uncompressed block, so that every case gets past base64, deflate and CRC.
  let decoded = 0;
  fc.assert(
    fc.property(stateArb, fc.array(blockEdit, { minLength: 1, maxLength: 3 }), (s, edits) => {
      const link = applyMutation(encodeLink(s), { kind: 'block', edits });
      if (checkDecode(link)) decoded++;
    }),
    { seed: 0x5eed0003, numRuns: FUZZ_RUNS },
  );
  assert.ok(decoded > 0, 'no edited block decoded: the edits never reach the number checks');
});

test(`${FUZZ_RUNS.toLocaleString('en')} arbitrary strings and key=value soups: StateError or a valid state; page options never throw`, () => {
  const soup = fc
    .array(
      fc.oneof(
        fc.tuple(fc.constantFrom(...LINK_KEYS, ...OTHER_KEYS), valueText).map(([k, v]) => `${k}=${v}`),
        fc.string({ unit: linkChar, maxLength: 10 }),
      ),
      { maxLength: 20 },
    )
    .map((p) => p.join('&'));
  const anyString = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 300 }),
    fc.string({ unit: linkChar, maxLength: 300 }),
    soup,
    soup.map((x) => `v=1&${x}`),
    soup.map((x) => `#v=1&mode=qkv&${x}`),
  );
  fc.assert(
    fc.property(anyString, (text) => {
      checkDecode(text);
      checkPageOptions(text);
    }),
    { seed: 0x5eed0004, numRuns: FUZZ_RUNS },
  );
  // Not strings at all: decodeLink promises a StateError "whatever the input". (readPageOptions
  // is documented for strings only; an object whose toString throws makes it throw.)
  fc.assert(
    fc.property(fc.anything(), (value) => {
      try {
        decodeLink(value);
      } catch (error) {
        assertStateError(error, String(typeof value));
        return;
      }
      assert.fail('a non-string decoded');
    }),
    { seed: 0x5eed0005, numRuns: 1000 },
  );
});

// ---------------------------------------------------------------------------------------------
// (iii) validateState on arbitrary values
// ---------------------------------------------------------------------------------------------

const prototypeSnapshot = () => ({
  object: Object.getOwnPropertyNames(Object.prototype).sort(),
  array: Object.getOwnPropertyNames(Array.prototype).sort(),
  polluted: [{}.polluted, [].polluted, Object.prototype.polluted],
});

/** validateState(value): a valid state (idempotent, no NaN) or a StateError. */
function checkValidate(value) {
  let state;
  try {
    state = validateState(value);
  } catch (error) {
    assertStateError(error, value);
    return null;
  }
  assertFiniteNumbers(state, 'validateState');
  assertBitExact(validateState(state), state);
  return state;
}

const POLLUTERS = ['__proto__', 'constructor', 'prototype'];
const pollutedPayload = fc
  .constantFrom({ polluted: 'yes' }, { prototype: { polluted: 'yes' } }, 'yes', null, [1], { toString: 'x', valueOf: 1 })
  .map((v) => structuredClone(v)); // a fresh object each time: the tests add keys to it

// One edit of a valid state: replace, delete or add at a random slot; the added key may be
// "__proto__" as an own property (what JSON.parse makes of it).
const stateEdit = record({
  at: fc.nat(),
  op: fc.constantFrom('set', 'set', 'delete', 'add', 'pollute', 'getter'),
  key: fc.oneof(fc.constantFrom(...POLLUTERS, 'tau', 'zz', '0', 'length'), fc.string({ maxLength: 4 })),
  value: fc.oneof(
    fc.constantFrom(
      NaN,
      Infinity,
      -Infinity,
      -0,
      0,
      -1,
      1e308,
      4097,
      2 ** 31,
      1.5,
      '',
      'auto',
      true,
      null,
      undefined,
      [],
      {},
      [[]],
      [[NaN]],
      [[null]],
      '\ud800'.repeat(201),
    ),
    fc.jsonValue({ maxDepth: 3 }),
    pollutedPayload,
  ),
});

function applyStateEdit(state, e) {
  // A copy of the value: a constant shared by all runs must not be changed by a later edit.
  const value = e.value !== null && typeof e.value === 'object' ? structuredClone(e.value) : e.value;
  const all = slots(state);
  if (all.length === 0) return state;
  const [parent, key] = all[e.at % all.length];
  const target = parent[key] !== null && typeof parent[key] === 'object' ? parent[key] : parent;
  const define = (obj, k, desc) => {
    try {
      Object.defineProperty(obj, k, { enumerable: true, configurable: true, ...desc });
    } catch {
      // e.g. "length" of an array set to NaN: the engine refuses, nothing to test
    }
  };
  switch (e.op) {
    case 'set':
      parent[key] = value;
      break;
    case 'delete':
      delete parent[key];
      break;
    case 'add':
      define(target, e.key, { value, writable: true });
      break;
    case 'pollute':
      define(target, POLLUTERS[e.at % 3], { value, writable: true });
      break;
    case 'getter':
      define(parent, key, {
        get() {
          throw new TypeError('a getter that throws');
        },
      });
      break;
    default:
      throw new Error(e.op);
  }
  return state;
}

test('validateState on arbitrary values: a valid state or a StateError, never another exception, never a polluted prototype', () => {
  const before = prototypeSnapshot();
  let valid = 0;
  // Arbitrary JSON and arbitrary JS values (Maps, typed arrays, sparse arrays, null prototypes...).
  fc.assert(
    fc.property(
      fc.oneof(
        fc.jsonValue(),
        fc.anything({
          withMap: true,
          withSet: true,
          withTypedArray: true,
          withSparseArray: true,
          withNullPrototype: true,
          withBoxedValues: true,
          withDate: true,
          withObjectString: true,
        }),
      ),
      (value) => {
        checkValidate(value);
      },
    ),
    { seed: 0x5eed0006, numRuns: FUZZ_RUNS },
  );
  // JSON text with __proto__ / constructor keys at every level of a real state.
  fc.assert(
    fc.property(stateArb, fc.nat(), fc.constantFrom(...POLLUTERS), pollutedPayload, (s, at, key, payload) => {
      const json = JSON.parse(JSON.stringify(s));
      const all = slots(json).filter(([p, k]) => p[k] !== null && typeof p[k] === 'object' && !Array.isArray(p[k]));
      const target = all.length ? all[at % all.length][0][all[at % all.length][1]] : json;
      const text = JSON.stringify(json).replace(/^\{/, `{${JSON.stringify(key)}:${JSON.stringify(payload)},`);
      checkValidate(JSON.parse(text)); // at the root, as JSON.parse makes it (an own property)
      Object.defineProperty(target, key, { value: payload, enumerable: true, configurable: true, writable: true });
      checkValidate(json); // inside
    }),
    { seed: 0x5eed0007, numRuns: FUZZ_RUNS / 4 },
  );
  // Mutated valid states: one to three edits each, including throwing getters.
  fc.assert(
    fc.property(stateArb, fc.array(stateEdit, { minLength: 1, maxLength: 3 }), (s, edits) => {
      if (checkValidate(edits.reduce(applyStateEdit, structuredClone(s)))) valid++; // a copy: fast-check keeps s
    }),
    { seed: 0x5eed0008, numRuns: FUZZ_RUNS },
  );
  assert.ok(valid > 0, 'no edited state stayed valid: the edits are too coarse to reach the deep checks');
  // Deep nesting where a matrix, a token list or a lab parameter is expected.
  let deep = [0];
  for (let i = 0; i < 100_000; i++) deep = [deep];
  for (const edit of [
    (s) => {
      s.heads[0].Q = deep;
    },
    (s) => {
      s.tokens.keys = deep;
    },
    (s) => {
      s.lab = { view: 'sink', params: { k: deep } };
    },
    (s) => {
      s.mask.allow = deep;
    },
  ]) {
    const s = defaultState();
    edit(s);
    checkValidate(s);
  }
  // Proxies whose traps throw.
  for (const trap of ['ownKeys', 'get', 'getOwnPropertyDescriptor', 'has', 'getPrototypeOf']) {
    checkValidate(
      new Proxy(defaultState(), {
        [trap]() {
          throw new Error(`${trap} trap`);
        },
      }),
    );
    const s = defaultState();
    s.mask = new Proxy(s.mask, {
      [trap]() {
        throw new RangeError(`${trap} trap`);
      },
    });
    checkValidate(s);
  }
  assert.deepEqual(prototypeSnapshot(), before, 'Object.prototype or Array.prototype changed');
});

test('statesEqual on arbitrary JSON values never throws, is reflexive on a copy and symmetric', () => {
  fc.assert(
    fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
      assert.equal(statesEqual(a, structuredClone(a)), true);
      assert.equal(statesEqual(a, b), statesEqual(b, a));
    }),
    { seed: 0x5eed0009, numRuns: FUZZ_RUNS },
  );
});

test('a hole punched into any array of a valid state is refused, never accepted as undefined', () => {
  fc.assert(
    fc.property(stateArb, fc.nat(), (s, at) => {
      const copy = structuredClone(s); // structuredClone keeps holes, as setState's copy does
      const arrays = slots(copy)
        .filter(([p, k]) => Array.isArray(p[k]) && p[k].length > 0)
        .map(([p, k]) => p[k]);
      if (arrays.length === 0) return;
      const array = arrays[at % arrays.length];
      delete array[at % array.length];
      try {
        validateState(copy);
      } catch (error) {
        assertStateError(error, copy);
        return;
      }
      assert.fail(`a state with a hole was accepted: ${show(copy).slice(0, 1000)}`);
    }),
    { seed: 0x5eed000a, numRuns: FUZZ_RUNS / 2 },
  );
});

// ---------------------------------------------------------------------------------------------
// Regression cases: inputs the properties above found (web/core/state-schema.js fixed for each)
// ---------------------------------------------------------------------------------------------

const withLab = (params) => ({ ...defaultState(), lab: { view: 'sink', params } });
const withLesson = (lesson) => ({ ...defaultState(), lesson });

test('regression: -0 in a lab parameter becomes 0, so the state round-trips through the link', () => {
  // Was: validateState kept -0, the link (lab is JSON there) gave back 0, so a valid state did not
  // round-trip bit-exactly.
  const valid = validateState(withLab({ k: -0, ks: [-0, 1, -2] }));
  assert.ok(Object.is(valid.lab.params.k, 0));
  assert.ok(Object.is(valid.lab.params.ks[0], 0));
  assertBitExact(decodeLink(encodeLink(valid)), valid);
});

test('regression: a hole in a lab parameter list is refused (was accepted as undefined)', () => {
  // Was: every() skips holes, so [1, , 2] passed and the state held undefined; its link then failed
  // to decode ("lab.params.ks must be ... a list of ... numbers").
  assert.throws(
    // eslint-disable-next-line no-sparse-arrays -- the hole is the point
    () => validateState(withLab({ ks: [1, , 2] })),
    (e) => e instanceof StateError && e.field === 'lab.params.ks',
  );
});

test('regression: lesson index lists refuse holes and keep -0 out', { skip: !lessonArb && 'no lesson in this state.js' }, () => {
  // Was: forEach skips holes, so zeros: [, 1] and revealed: [, 2] were accepted with undefined
  // inside; and the list was returned as given, so -0 stayed -0 and did not survive the link.
  assert.throws(
    // eslint-disable-next-line no-sparse-arrays -- the hole is the point
    () => validateState(withLesson({ step: 1, predictions: { zeros: [, 1] } })),
    (e) => e instanceof StateError && e.field === 'lesson.predictions.zeros[0]',
  );
  assert.throws(
    // eslint-disable-next-line no-sparse-arrays -- the hole is the point
    () => validateState(withLesson({ step: 1, revealed: [, 2] })),
    (e) => e instanceof StateError && e.field === 'lesson.revealed[0]',
  );
  const valid = validateState(withLesson({ step: 1, predictions: { rise: [-0, 1] } }));
  assert.ok(Object.is(valid.lesson.predictions.rise[0], 0));
  assertBitExact(decodeLink(encodeLink(valid)), valid);
});
