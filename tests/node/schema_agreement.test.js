// The schema has one implementation (cpp/src/io/state_schema.cpp), but two builds of it look at a
// state (the WebAssembly module of the page and node, the native CLI) and the JS link codec
// carries states between them. On 10,000 random and mutated states this checks that they agree:
// the page's core and `attn validate` accept and refuse the same states with the same code, field
// and message (and the same normalised state), and every accepted state survives the link codec.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { toCoreJson } from '../../web/core/core.js';
import { core, decodeLink, encodeLink, statesEqual } from './schema.js';
import { assertClose } from './tolerance.js';

const CLI = new URL('../../build/native/attn', import.meta.url).pathname;
const RUNS = 10_000;
const reviver = (_, v) => (v === '__negative_zero__' ? -0 : v);
const corpus = JSON.parse(readFileSync(new URL('./fixtures/links-v1.json', import.meta.url), 'utf8'), reviver);
// Small valid states to mutate (the 33-token real heads would make the run slow, not better).
const bases = corpus.entries.map((e) => e.state).filter((s) => s.tokens.keys.length <= 8);

/** Every path (array of keys) into a JSON-like value. */
function paths(value, prefix = [], out = []) {
  out.push(prefix);
  if (value !== null && typeof value === 'object') {
    for (const k of Object.keys(value)) paths(value[k], [...prefix, Array.isArray(value) ? Number(k) : k], out);
  }
  return out;
}

// Values a mutation writes: JSON values, numbers at the edges, strings that are half a character,
// right-to-left or zero-width, byte-level BPE pieces, and what JSON cannot spell (NaN, holes).
const awkward = fc.constantFrom(
  -0,
  0,
  1,
  -1,
  0.5,
  1e-320,
  1000,
  1000.0001,
  4096,
  4097,
  65,
  1e300,
  -1e300,
  NaN,
  Infinity,
  -Infinity,
  '\ud83d',
  '\ude00',
  '😀',
  'Ġthe',
  'âĢĻ',
  '\u200b',
  '\u202e',
  'שלום',
  'x'.repeat(201),
  'auto',
  'none',
  'x',
  null,
  true,
  false,
  [],
  {},
  [[]],
  [[1]],
  [[true]],
  undefined,
);
const value = fc.oneof({ weight: 3, arbitrary: awkward }, { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 2 }) });
const mutation = fc.record({ kind: fc.constantFrom('set', 'delete', 'add'), at: fc.nat(), key: fc.string({ maxLength: 6 }), value });

function mutate(base, ms) {
  const s = structuredClone(base);
  for (const m of ms) {
    const all = paths(s).filter((p) => p.length > 0);
    if (!all.length) break;
    const p = all[m.at % all.length];
    let parent = s;
    for (const k of p.slice(0, -1)) parent = parent[k];
    const last = p[p.length - 1];
    if (m.kind === 'set') parent[last] = m.value;
    else if (m.kind === 'delete') {
      if (Array.isArray(parent)) parent.splice(last, 1);
      else delete parent[last];
    } else if (parent[last] !== null && typeof parent[last] === 'object' && !Array.isArray(parent[last])) {
      parent[last][m.key] = m.value;
    }
  }
  return s;
}

const stateArb = fc.oneof(
  { weight: 1, arbitrary: fc.constantFrom(...bases) },
  {
    weight: 8,
    arbitrary: fc.tuple(fc.constantFrom(...bases), fc.array(mutation, { minLength: 1, maxLength: 3 })).map(([b, ms]) => mutate(b, ms)),
  },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);

test(`${RUNS.toLocaleString('en')} random and mutated states: the page's core and the CLI give the same verdict`, () => {
  const states = fc.sample(stateArb, { numRuns: RUNS, seed: 0x5c4e3a });
  const texts = states.map((s) => toCoreJson(s));
  const native = spawnSync(CLI, ['validate', '--lines'], { input: `${texts.join('\n')}\n`, encoding: 'utf8', maxBuffer: 1 << 30 });
  assert.equal(native.status, 0, native.stderr);
  const lines = native.stdout.trimEnd().split('\n');
  assert.equal(lines.length, RUNS);
  const tally = { accepted: 0, refused: 0, codes: {} };
  for (let i = 0; i < RUNS; i++) {
    const wasm = JSON.parse(core.mod.validateState(texts[i], 0, 0));
    const cli = JSON.parse(lines[i]);
    assert.deepEqual(wasm, cli, `state ${i}: ${texts[i].slice(0, 300)}`);
    if (wasm.error) {
      tally.refused++;
      tally.codes[wasm.error.code] = (tally.codes[wasm.error.code] ?? 0) + 1;
      continue;
    }
    tally.accepted++;
    // An accepted state crosses the JS link codec unchanged and is accepted again.
    const back = decodeLink(encodeLink(wasm));
    assert.ok(statesEqual(back, wasm), `state ${i} changed through the link`);
  }
  // Both verdicts must be common, or the mutations test nothing.
  assert.ok(tally.accepted > RUNS / 20, `only ${tally.accepted} accepted`);
  assert.ok(tally.refused > RUNS / 5, `only ${tally.refused} refused`);
  console.log(`# schema agreement: ${RUNS} states, ${tally.accepted} accepted, refused ${JSON.stringify(tally.codes)}`);
});

test('half a character computes as U+FFFD identically in the page core, node and the CLI', () => {
  // Emoji halves (what a JS string sliced by UTF-16 units gives), a lone low surrogate, byte-level
  // BPE pieces (GPT-2's byte-to-unicode map) and right-to-left / zero-width characters.
  const s = structuredClone(bases.find((b) => b.tokens.keys.length === 4 && b.mode === 'qkv'));
  s.tokens.queries = ['\ud83d', '\ude00x', 'Ġthe', '\u202eabc'];
  s.tokens.keys = ['😀'.slice(0, 1), 'âĢĻ', '\u200bzw', 'שלום'];
  s.source = 'half \ud83d here';
  const valid = core.validateState(s);
  assert.deepEqual(valid.tokens.queries, ['\ufffd', '\ufffdx', 'Ġthe', '\u202eabc']);
  assert.deepEqual(valid.tokens.keys, ['\ufffd', 'âĢĻ', '\u200bzw', 'שלום']);
  assert.equal(valid.source, 'half \ufffd here');
  const results = core.compute(s);
  const native = spawnSync(CLI, ['compute'], { input: toCoreJson(s), encoding: 'utf8' });
  assert.equal(native.status, 0, native.stderr);
  // Native AVX2 and WASM SIMD128 kernels agree to rounding (docs/performance.md).
  assertClose(JSON.parse(native.stdout), results, 'results', 1e-6);
  // The raw bytes of a half character in a file (invalid UTF-8) read the same way.
  const bytes = Buffer.concat([Buffer.from(toCoreJson(s).replace('\\ud83d', 'X'), 'utf8')]);
  const withByte = Buffer.from(bytes.toString('utf8').replace('"X"', '"\u0001"'), 'utf8');
  withByte[withByte.indexOf(1)] = 0xf0; // the first byte of a four-byte character, alone
  const raw = spawnSync(CLI, ['validate'], { input: withByte });
  assert.equal(raw.status, 0, String(raw.stderr));
  assert.equal(JSON.parse(raw.stdout).tokens.queries[0], '\ufffd');
  // A link carries the state, and the replacement, unchanged.
  assert.ok(statesEqual(decodeLink(encodeLink(s)), valid));
});

test('half a character in imported attention JSON and token files is U+FFFD, with the right count', async () => {
  const { writeFileSync, mkdtempSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  // JSON escapes of half an emoji, and (in the line format) a stray byte.
  assert.deepEqual(core.parseTokens('["\\ud83d", "a", "\\ude00b"]'), ['\ufffd', 'a', '\ufffdb']);
  const lines = new TextDecoder().decode(Uint8Array.from([0x61, 0x0a, 0xf0, 0x0a, 0x62]));
  assert.deepEqual(core.parseTokens(lines), ['a', '\ufffd', 'b']);
  const doc = JSON.stringify({
    tokens: ['\ud83d', 'x'],
    attention: [
      [
        [
          [1, 0],
          [0.5, 0.5],
        ],
      ],
    ],
  });
  assert.ok(doc.includes('\\ud83d'), 'JSON.stringify escapes the half character');
  assert.deepEqual(core.parseAttentionJson(doc).queryTokens, ['\ufffd', 'x']);
  // The CLI reads the same files the same way: two tokens for two keys, not a wrong count.
  const dir = mkdtempSync(join(tmpdir(), 'attn-surrogate-'));
  writeFileSync(join(dir, 'a.json'), doc);
  writeFileSync(join(dir, 't.txt'), Buffer.from([0xf0, 0x0a, 0x78]));
  for (const extra of [[], ['--tokens', join(dir, 't.txt')]]) {
    const r = spawnSync(CLI, ['analyze', join(dir, 'a.json'), ...extra], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.deepEqual(out.tokens.queries, ['\ufffd', 'x'], r.stdout.slice(0, 400));
  }
});
