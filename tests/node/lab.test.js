// The analysis lab through the WebAssembly module (core.lab) and the native CLI (attn lab): the
// same document for every view on lesson and real states, and the errors of a bad lab object.
// Views are the core's (cpp/src/lab/lab.cpp); each view's numbers are tested against independent
// values in its own C++ and browser tests.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { loadCore, AttentionError } from '../../web/core/core.js';
import { LAB_VIEWS } from '../../web/core/state-schema.js';
import { LESSON_PRESETS, loadRealPreset } from '../../web/presets/presets.js';
import { assertClose as closeTo } from './tolerance.js';

const CLI = fileURLToPath(new URL('../../build/native/attn', import.meta.url));
let core;
before(async () => {
  core = await loadCore();
});

const loadJson = async (url) => JSON.parse(readFileSync(url, 'utf8'));

/** GPT-2 small layer 0 with all 12 heads in one state (views that compare heads). */
async function twelveHeads() {
  const s = await loadRealPreset('gpt2-small_L0_nlp-sentence', 0, loadJson);
  const file = await loadJson(new URL('../../web/data/real/gpt2-small_L0_nlp-sentence/attention.json', import.meta.url));
  s.heads = file.attention[0].map((weights, h) => ({ ...s.heads[0], name: `L0H${h}`, weights }));
  s.view = { ...s.view, preset: 'twelve' };
  return s;
}

function cli(state) {
  const run = spawnSync(CLI, ['lab'], { input: JSON.stringify(state), encoding: 'utf8', maxBuffer: 1 << 28 });
  return { status: run.status, out: JSON.parse(run.stdout), stderr: run.stderr };
}

const assertClose = (a, b, path = 'results', tol = 1e-5) => closeTo(a, b, path, tol);

/** The views this build's core runs (a view still being built is refused as unknown). */
function knownViews(state) {
  return LAB_VIEWS.filter((view) => {
    try {
      core.lab({ ...state, lab: { view, params: {} } });
      return true;
    } catch (e) {
      return !(e instanceof AttentionError && /is not an analysis of this build/.test(e.message));
    }
  });
}

test('every lab view gives the same document in WASM and in the CLI', async () => {
  const states = [
    LESSON_PRESETS.example1.make(),
    LESSON_PRESETS.example2.make(),
    LESSON_PRESETS.selfattention.make(),
    await loadRealPreset('gpt2-small_L0_nlp-sentence', 3, loadJson),
    await twelveHeads(),
  ];
  const views = knownViews(states[0]);
  assert.ok(views.includes('patterns'));
  for (const base of states) {
    for (const view of views) {
      const state = { ...base, lab: { view, params: {} } };
      let page;
      try {
        page = core.lab(state);
      } catch (e) {
        // A view may refuse a state (e.g. it needs Q, K, V): the CLI must refuse it the same way.
        const c = cli(state);
        assert.equal(c.status, 2, `${view} on ${base.view.preset}: CLI accepted what WASM refused (${e.message})`);
        assert.equal(c.out.error.code, e.code);
        continue;
      }
      const c = cli(state);
      assert.equal(c.status, 0, `${view} on ${base.view.preset}: ${c.stderr}`);
      assert.equal(page.view, view);
      assertClose(page, c.out, `${view}@${base.view.preset}`);
    }
  }
});

test('no lab or view none: {view: none}; bad lab objects are refused with their field', () => {
  const s = LESSON_PRESETS.example1.make();
  assert.deepEqual(core.lab(s), { view: 'none' });
  assert.deepEqual(core.lab({ ...s, lab: { view: 'none' } }), { view: 'none' });
  assert.throws(
    () => core.lab({ ...s, lab: { view: 'astrology' } }),
    (e) => e instanceof AttentionError && e.field === 'lab.view',
  );
  assert.throws(
    () => core.lab({ ...s, lab: { view: 'patterns', params: 3 } }),
    (e) => e instanceof AttentionError && e.field === 'lab.params',
  );
  assert.equal(cli({ ...s, lab: { view: 'astrology' } }).status, 2);
});

test("the core module runs the lesson's sensitivity alone; every other view waits for the lab module, then agrees", async () => {
  // The page loads the lab module on the first lab view (web/core/core.js loadLab): a core without it
  // must still answer the lesson's view, refuse the others with a clear error, and give the same
  // documents as the full build once the lab module is loaded.
  for (const variant of ['simd', 'scalar']) {
    const bare = await loadCore({ variant, lab: false });
    assert.equal(bare.labMod, null, `${variant}: the lab module is not loaded yet`);
    assert.deepEqual(bare.labViewsInCore, ['sensitivity']);
    const state = LESSON_PRESETS.selfattention.make();
    const sens = bare.lab({ ...state, lab: { view: 'sensitivity', params: {} } });
    assert.equal(sens.view, 'sensitivity');
    assertClose(sens, core.lab({ ...state, lab: { view: 'sensitivity', params: {} } }), `${variant} sensitivity`, 1e-6);
    assert.deepEqual(bare.lab({ ...state, lab: { view: 'none', params: {} } }), { view: 'none' });
    const other = LAB_VIEWS.find((v) => v !== 'none' && v !== 'sensitivity');
    assert.equal(bare.labReady({ ...state, lab: { view: other, params: {} } }), false);
    assert.throws(
      () => bare.lab({ ...state, lab: { view: other, params: {} } }),
      (e) => e instanceof AttentionError && e.code === 'lab_not_loaded' && e.field === 'lab.view',
    );
    await bare.loadLab();
    assert.ok(bare.labMod, `${variant}: loaded`);
    for (const view of LAB_VIEWS.filter((v) => v !== 'none')) {
      const s = { ...state, lab: { view, params: {} } };
      // `core` is the SIMD build: the scalar one agrees to float32 rounding.
      if (variant === 'simd') assert.deepEqual(bare.lab(s), core.lab(s), `${variant} ${view}`);
      else assertClose(bare.lab(s), core.lab(s), `${variant} ${view}`, 1e-6);
    }
  }
});
