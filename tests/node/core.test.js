// The WebAssembly module (web/core/core.js) against the native CLI (build/native/attn) on the same
// states, and against MATH.md's golden values. Both run the same C++ entry point compiled twice
// (Emscripten and g++, different libm), so they must agree to float32 rounding, not bit for bit.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { loadCore, AttentionError } from '../../web/core/core.js';
import { LESSON_PRESETS, REAL_DATASETS, loadRealPreset } from '../../web/presets/presets.js';
import { readFileSync } from 'node:fs';
import { mulberry32, int } from './helpers.js';
import { assertClose as closeTo } from './tolerance.js';

const CLI = fileURLToPath(new URL('../../build/native/attn', import.meta.url));
let core;

before(async () => {
  core = await loadCore();
});

function cli(state) {
  const run = spawnSync(CLI, ['compute'], { input: JSON.stringify(state), encoding: 'utf8', maxBuffer: 1 << 28 });
  return { status: run.status, out: JSON.parse(run.stdout), stderr: run.stderr };
}

const loadJson = async (url) => JSON.parse(readFileSync(url, 'utf8'));

const assertClose = (a, b, path = 'results', tol = 2e-6) => closeTo(a, b, path, tol);

function randomState(rng) {
  const mode = ['qkv', 'logits', 'weights'][int(rng, 0, 2)];
  const nq = int(rng, 1, 9);
  const nk = mode === 'qkv' ? int(rng, 1, 9) : rng() < 0.5 ? nq : int(rng, 1, 9);
  const dk = int(rng, 1, 5);
  const dv = int(rng, 0, 3);
  const mat = (r, c, f) => Array.from({ length: r }, () => Array.from({ length: c }, f));
  const gauss = () => (rng() * 2 - 1) * 3;
  const head = { name: 'random', Q: null, K: null, V: dv ? mat(nk, dv, gauss) : null, logits: null, weights: null };
  if (mode === 'qkv') {
    head.Q = mat(nq, dk, gauss);
    head.K = mat(nk, dk, gauss);
  }
  if (mode === 'logits') head.logits = mat(nq, nk, () => (rng() < 0.15 ? null : gauss()));
  if (mode === 'weights') {
    head.weights = mat(nq, nk, () => (rng() < 0.2 ? 0 : rng())).map((row) => {
      const s = row.reduce((x, y) => x + y, 0);
      return s > 0 ? row.map((x) => x / s) : row;
    });
  }
  return {
    version: 1,
    mode,
    heads: [head],
    head: 0,
    tokens: { queries: Array.from({ length: nq }, (_, i) => `q${i}`), keys: Array.from({ length: nk }, (_, j) => `k${j}`) },
    mask: {
      causal: rng() < 0.4,
      window: rng() < 0.3 ? int(rng, 1, 4) : 0,
      padding: Array.from({ length: nk }, () => rng() < 0.15),
      allow: rng() < 0.2 ? mat(nq, nk, () => rng() < 0.7) : null,
    },
    tau: [0.05, 0.3, 1, 2.5, 20][int(rng, 0, 4)],
    scale: rng() < 0.5 ? 'auto' : 0.25 + rng(),
    topK: int(rng, 1, 4),
    row: int(rng, 0, nq - 1),
    view: { panel: 'weights', preset: 'custom', numbers: 'auto' },
    source: '',
  };
}

test('WASM and native CLI agree on 300 random states (all modes, masks, empty rows)', () => {
  const rng = mulberry32(20261130);
  let empties = 0;
  for (let i = 0; i < 300; i++) {
    const state = randomState(rng);
    const wasm = core.compute(state);
    const native = cli(state);
    assert.equal(native.status, 0, native.stderr);
    assertClose(wasm, native.out, `state ${i}`);
    empties += wasm.rows.filter((r) => r.empty).length;
    for (const r of wasm.rows) {
      if (r.empty) assert.equal(r.entropy, null);
      else assert.ok(Math.abs(r.rowSum - 1) < 1e-6);
    }
  }
  assert.ok(empties > 0, 'the generator produced no empty row; the empty-row path went untested');
});

test('WASM and CLI agree on every bundled real head and on the lesson presets', async () => {
  const states = Object.values(LESSON_PRESETS).map((p) => p.make());
  for (const [dataset, info] of Object.entries(REAL_DATASETS)) {
    for (let h = 0; h < info.heads.length; h++) states.push({ ...(await loadRealPreset(dataset, h, loadJson)), tau: h % 2 ? 1 : 0.7 });
  }
  for (const state of states) assertClose(core.compute(state), cli(state).out, state.view.preset);
});

test('seed example 1 through the node module: MATH.md golden values', () => {
  const r = core.compute(LESSON_PRESETS.example1.make());
  assertClose(r.weights, [[0.7310585786, 0.2689414214]], 'weights', 1e-7);
  assertClose(r.output, [[1.462117157, 1.075765685]], 'output', 1e-6);
  assert.ok(Math.abs(r.rows[0].entropy - 0.5822031089) < 1e-9);
  const scaled = core.compute({ ...LESSON_PRESETS.example1.make(), scale: 'auto' });
  assertClose(scaled.output, [[1.339523099, 1.320953803]], 'output', 1e-6);
});

test('seed example 2 through the node module: A, output and row metrics', () => {
  const r = core.compute(LESSON_PRESETS.example2.make());
  assertClose(
    r.weights,
    [
      [1, 0, 0],
      [0.25, 0.75, 0],
      [0.5, 0.25, 0.25],
    ],
    'weights',
    1e-7,
  );
  assertClose(r.output, [[2], [5], [5]], 'output', 1e-6);
  const expected = [
    [0, 0, 1, 1],
    [0.5623351446, 0.8112781245, 1.754765351, 1],
    [1.039720771, 0.9463946304, 2.828427125, 0.75],
  ];
  r.rows.forEach((row, i) => {
    const [H, Hn, nEff, top2] = expected[i];
    assertClose([row.entropy, row.normalizedEntropy, row.nEff, row.topKMass], [H, Hn, nEff, top2], `row ${i}`, 1e-7);
  });
});

test('errors come back typed, with the field that caused them, from WASM and CLI alike', () => {
  const good = LESSON_PRESETS.example1.make();
  const cases = [
    [{ ...good, tau: 0 }, 'bad_temperature', 'tau'],
    [{ ...good, tau: -1 }, 'bad_temperature', 'tau'],
    [
      {
        ...good,
        heads: [
          {
            ...good.heads[0],
            K: [
              [1, 0, 0],
              [0, 1, 0],
            ],
          },
        ],
      },
      'shape_mismatch',
      'heads[0].K',
    ],
    [{ ...good, heads: [{ ...good.heads[0], V: [[2, 0]] }] }, 'shape_mismatch', 'heads[0].V'],
    [{ ...good, heads: [{ ...good.heads[0], Q: [[1e300, 0]] }] }, 'invalid_value', 'heads[0].Q'],
    [{ ...good, version: 2 }, 'bad_state', 'version'],
    [{ ...good, mask: { ...good.mask, padding: [false] } }, 'shape_mismatch', 'mask.padding'],
  ];
  for (const [state, code, field] of cases) {
    assert.throws(
      () => core.compute(state),
      (e) => e instanceof AttentionError && e.code === code && e.field === field && e.message.length > 10,
      `${code} ${field}`,
    );
    const native = cli(state);
    assert.equal(native.status, 2);
    assert.equal(native.out.error.code, code);
    assert.equal(native.out.error.field, field);
  }
  const garbage = spawnSync(CLI, ['compute'], { input: 'not json', encoding: 'utf8' });
  assert.equal(garbage.status, 2);
  assert.match(garbage.stderr, /not valid JSON/);
  assert.equal(spawnSync(CLI, ['frobnicate'], { encoding: 'utf8' }).status, 64);
});

test('the CLI documents itself', () => {
  assert.match(execFileSync(CLI, ['--help'], { encoding: 'utf8' }), /attn compute < state\.json/);
});

test('the node module holds states to the whole schema, like the page', () => {
  const good = LESSON_PRESETS.example1.make();
  const cases = [
    [{ ...good, view: { ...good.view, panle: 'scores' } }, 'view.panle'],
    [{ ...good, source: 'x'.repeat(501) }, 'source'],
    [{ ...good, heads: [{ ...good.heads[0], name: 7 }] }, 'heads[0].name'],
    [{ ...good, heads: [{ ...good.heads[0], v: [[1]] }] }, 'heads[0].v'],
  ];
  for (const [state, field] of cases) {
    assert.throws(
      () => core.compute(state),
      (e) => e instanceof AttentionError && e.code === 'bad_state' && e.field === field,
      field,
    );
  }
  for (const bad of [undefined, null, 'state', [1]]) {
    assert.throws(
      () => core.compute(bad),
      (e) => e instanceof AttentionError && e.code === 'bad_state',
    );
  }
});
