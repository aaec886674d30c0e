// Browser tests of the lab view "sweep" (web/lab/sweep.js over the core's lab_sweep.cpp): the
// lesson's parameter experiment q(θ) = (cos θ, sin θ), θ from 0 to π/2, at τ in {0.5, 1, 2}.
// Expected numbers: by hand for lesson example 1 (θ = 0: (e/(e+1), 1/(e+1)) = (0.7310585786,
// 0.2689414214) at τ 1, sigmoid(2) = 0.8807970780 at τ 0.5, sigmoid(0.5) = 0.6224593312 at τ 2;
// θ = π/4: equal scores, 0.5 each), and otherwise recomputed in this file from the state's keys:
// s_j = scale (cos θ K_j1 + sin θ K_j2), softmax over the visible keys (harness softmax), never
// from the code under test. Also: the temperatures and steps typed, a refused list, masked keys,
// an empty row, a 1-token state, 3-D keys, a logits state; one screenshot per case.
//
//   node --test tests/browser/lab_sweep.test.js        (after the WASM build is in web/wasm)

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { choosePreset, getResults, getState, near, screenshotPath, softmax, trySetState, typeInto, sharedPage } from './harness.js';
import { labViewInChinese } from './lang_check.js';

let page;
sharedPage('[sweep] ', (p) => {
  page = p;
});

const THETAS = [0, Math.PI / 4, Math.PI / 2];

/** Weights of the unit query at angle theta against K (rows), scale, visible flags, tau. */
function expected(K, scale, visible, theta, tau) {
  const c = Math.cos(theta),
    s = Math.sin(theta);
  return softmax(
    K.map((k, j) => (visible[j] ? scale * (c * k[0] + s * k[1]) : null)),
    tau,
  );
}

/** The table cell of angle row `r` (0, 1, 2 or 'q'), tau index t, key j: {value, text} or null. */
function cell(r, t, j) {
  return page.evaluate((id) => {
    const el = document.getElementById(id);
    return el ? { value: Number(el.dataset.value), text: el.textContent.trim() } : null;
  }, `lab-sweep-c-${r}-${t}-${j}`);
}

/** 6 significant digits as the view prints them (fmtMetric). */
const six = (x) => String(Number(x.toPrecision(6)));

/**
 * Waits until results().lab is the sweep of the shown state (row `row`, `visible` keys, `taus`
 * temperatures when given) and the view's DOM shows that document (web/page/render.js renders the lab after
 * setState resolves).
 */
function waitSweep({ row = null, visible = null, taus = null } = {}) {
  return page.waitForFunction(
    ({ row, visible, taus }) => {
      const lab = window.attentionPlayground.results()?.lab;
      const state = window.attentionPlayground.getState();
      if (!lab || lab.view !== 'sweep' || lab.row !== state.row) return false;
      if (row !== null && lab.row !== row) return false;
      if (visible !== null && lab.visible !== visible) return false;
      if (taus !== null && lab.taus.length !== taus) return false;
      if (!lab.supported) return !!document.getElementById('lab-sweep-unsupported');
      if (lab.empty) return !!document.getElementById('lab-sweep-empty');
      const el = document.getElementById(`lab-sweep-c-0-0-${lab.keys[0]}`);
      return (
        !!el &&
        Number(el.dataset.value) === lab.table[0].weights[0][0] &&
        document.querySelectorAll('svg.sweep-plot').length === lab.taus.length
      );
    },
    { row, visible, taus },
  );
}

async function openView() {
  await page.click('#lab-tab-sweep');
  await waitSweep();
}

const noNaNOnScreen = async (what) => {
  const text = await page.textContent('#lab-view');
  assert.ok(!/NaN|Infinity/.test(text), `${what}: the view shows NaN or Infinity`);
};

/** A qkv state built from the current one. */
async function qkvState({ Q, K, V, scale = 1, row = 0, causal = false, padding, params = {} }) {
  const s = await getState(page);
  s.mode = 'qkv';
  s.heads = [{ name: 'test', Q, K, V, logits: null, weights: null }];
  s.head = 0;
  s.tokens = { queries: Q.map((_, i) => `q${i}`), keys: K.map((_, j) => `k${j}`) };
  s.mask = { causal, window: 0, padding: padding ?? K.map(() => false), allow: null };
  s.tau = 1;
  s.scale = scale;
  s.row = row;
  s.lab = { view: 'sweep', params };
  s.view = { ...s.view, preset: 'custom' };
  return s;
}

describe('lab sweep', () => {
  test('lesson example 1: the table at θ = 0 and π/4 is the hand-computed softmax, the marker sits at θ = 0', async () => {
    await choosePreset(page, 'example1');
    await openView();
    await waitSweep({ visible: 2, taus: 3 });
    const lab = (await getResults(page)).lab;
    assert.deepEqual(lab.taus, [0.5, 1, 2]);
    assert.equal(lab.thetas.length, 91);
    // By hand: tau index 0, 1, 2 = tau 0.5, 1, 2; keys 0, 1.
    const hand = {
      0: [
        [0.880797078, 0.119202922],
        [0.7310585786, 0.2689414214],
        [0.6224593312, 0.3775406688],
      ],
      1: [
        [0.5, 0.5],
        [0.5, 0.5],
        [0.5, 0.5],
      ],
    };
    for (const r of [0, 1]) {
      for (let t = 0; t < 3; t++) {
        for (let j = 0; j < 2; j++) {
          const c = await cell(r, t, j);
          assert.ok(c, `no cell for θ row ${r}, τ ${t}, key ${j}`);
          near(c.value, hand[r][t][j], 1e-9, `θ row ${r}, τ index ${t}, key ${j}`);
          assert.equal(c.text, six(hand[r][t][j]), `printed θ row ${r}, τ index ${t}, key ${j}`);
        }
      }
    }
    // π/2 mirrors 0.
    near((await cell(2, 1, 1)).value, 0.7310585786, 1e-9, 'θ = π/2, τ 1, key 1');
    // Three plots with numbered axes in degrees and radians; the row's q = (1, 0) is marked at 0.
    assert.equal(await page.locator('svg.sweep-plot').count(), 3);
    const ticks = await page.$$eval('#lab-sweep-plot-1 text.sweep-tick', (els) => els.map((e) => e.textContent));
    for (const want of ['0°', '45°', '90°', 'π/4', 'π/2', '0.5', '1']) assert.ok(ticks.includes(want), `plot lacks tick ${want}: ${ticks}`);
    near(Number(await page.getAttribute('#lab-sweep-point-1-0', 'data-value')), 0.7310585786, 1e-9, 'marker on key 0 at τ 1');
    near(Number(await page.getAttribute('#lab-sweep-point-0-1', 'data-value')), 0.119202922, 1e-9, 'marker on key 1 at τ 0.5');
    // The curve at grid point 45 (θ = π/4) is the table's value.
    near(lab.curves[2].weights[0][45], 0.5, 1e-12, 'curve at π/4');
    await noNaNOnScreen('example 1');
    await page.locator('#lab-view').screenshot({ path: screenshotPath('lab-sweep-example1') });
  });

  test('temperatures and steps typed: the table follows, a bad list is refused with a message', async () => {
    await choosePreset(page, 'example1');
    await openView();
    await typeInto(page, '#lab-param-taus', '0.25, 3');
    await waitSweep({ taus: 2 });
    assert.deepEqual((await getState(page)).lab.params.taus, [0.25, 3]);
    assert.equal(await page.locator('svg.sweep-plot').count(), 2);
    const K = [
      [1, 0],
      [0, 1],
    ];
    for (const [t, tau] of [
      [0, 0.25],
      [1, 3],
    ]) {
      for (const r of [0, 1]) {
        const want = expected(K, 1, [true, true], THETAS[r], tau);
        for (let j = 0; j < 2; j++) near((await cell(r, t, j)).value, want[j], 1e-9, `τ ${tau}, θ row ${r}, key ${j}`);
      }
    }
    near((await cell(0, 0, 0)).value, 1 / (1 + Math.exp(-4)), 1e-9, 'τ 0.25 at θ = 0 is sigmoid(4)');

    await typeInto(page, '#lab-param-steps', '5');
    await page.waitForFunction(() => window.attentionPlayground.results()?.lab?.thetas?.length === 5);

    await typeInto(page, '#lab-param-taus', '0, 1');
    assert.match(await page.textContent('#lab-sweep-param-error'), /temperatures/);
    assert.deepEqual((await getState(page)).lab.params.taus, [0.25, 3], 'a refused list changed the state');
    await page.locator('#lab-view').screenshot({ path: screenshotPath('lab-sweep-taus') });
  });

  test('self-attention, causal, row 2 at scale 1/√2: masked key left out, q = (1, 1) marked at 45° with its own weights at τ/|q|', async () => {
    await choosePreset(page, 'selfattention');
    const s = await getState(page);
    s.mask.causal = true;
    s.row = 2;
    s.lab = { view: 'sweep', params: {} };
    assert.equal(await trySetState(page, s), null);
    await waitSweep({ row: 2, visible: 3, taus: 3 });
    const r = await getResults(page);
    const K = s.heads[0].K;
    const visible = r.visible[2];
    assert.deepEqual(visible, [true, true, true, false]);
    const scale = 1 / Math.sqrt(2);
    near(r.scale, scale, 1e-7, 'scale auto');
    for (const [t, tau] of [
      [0, 0.5],
      [1, 1],
      [2, 2],
    ]) {
      for (const row of [0, 1]) {
        const want = expected(K, scale, visible, THETAS[row], tau);
        for (let j = 0; j < 3; j++) near((await cell(row, t, j)).value, want[j], 1e-6, `τ ${tau}, θ row ${row}, key ${j}`);
        assert.equal(await cell(row, t, 3), null, 'the masked key has a column');
      }
      // The row's own query (1, 1): softmax(scale q·k_j / τ).
      const q = s.heads[0].Q[2];
      const own = softmax(
        K.map((k, j) => (visible[j] ? scale * (q[0] * k[0] + q[1] * k[1]) : null)),
        tau,
      );
      for (let j = 0; j < 3; j++) near((await cell('q', t, j)).value, own[j], 1e-6, `own q, τ ${tau}, key ${j}`);
    }
    assert.match(await page.textContent('#lab-sweep-masked'), /key 3/);
    assert.match(await page.textContent('#lab-sweep-qnote'), /45°/);
    near(
      Number(await page.getAttribute('#lab-sweep-point-1-2', 'data-value')),
      expected(K, scale, visible, Math.PI / 4, 1)[2],
      1e-6,
      'marker at 45°',
    );
    await noNaNOnScreen('self-attention causal');
    await page.locator('#lab-view').screenshot({ path: screenshotPath('lab-sweep-selfattention-causal') });
  });

  test('an empty row, a 1-token state, 3-D keys and a logits state', async () => {
    // Empty row: every key padded.
    let s = await qkvState({
      Q: [[1, 0]],
      K: [
        [1, 0],
        [0, 1],
      ],
      V: [
        [2, 0],
        [0, 4],
      ],
      padding: [true, true],
    });
    assert.equal(await trySetState(page, s), null);
    await waitSweep({ visible: 0 });
    assert.match(await page.textContent('#lab-sweep-empty'), /undefined/);
    assert.equal(await page.locator('svg.sweep-plot').count(), 0);
    await noNaNOnScreen('empty row');
    await page.locator('#lab-view').screenshot({ path: screenshotPath('lab-sweep-empty') });

    // One token: weight 1 at every angle and temperature.
    s = await qkvState({ Q: [[0.3, 0.8]], K: [[2, -1]], V: [[1]] });
    assert.equal(await trySetState(page, s), null);
    await waitSweep({ visible: 1 });
    for (const r of [0, 1, 2]) for (let t = 0; t < 3; t++) assert.equal((await cell(r, t, 0)).value, 1);
    await noNaNOnScreen('one token');
    await page.locator('#lab-view').screenshot({ path: screenshotPath('lab-sweep-one-token') });

    // 3-D keys: the plane of the first two axes, no marker.
    s = await qkvState({
      Q: [[1, 0, 2]],
      K: [
        [1, 0, 5],
        [0, 1, -5],
        [0.5, 0.5, 0],
      ],
      V: [[1], [2], [3]],
      scale: 'auto',
    });
    assert.equal(await trySetState(page, s), null);
    await waitSweep({ visible: 3 });
    await page.waitForSelector('#lab-sweep-plane');
    const want = expected(
      [
        [1, 0],
        [0, 1],
        [0.5, 0.5],
      ],
      1 / Math.sqrt(3),
      [true, true, true],
      0,
      1,
    );
    for (let j = 0; j < 3; j++) near((await cell(0, 1, j)).value, want[j], 1e-6, `3-D keys, θ = 0, key ${j}`);
    assert.equal(await page.locator('circle.sweep-point').count(), 0, '3-D query marked');
    await page.locator('#lab-view').screenshot({ path: screenshotPath('lab-sweep-3d') });

    // Logits: says it needs Q and K.
    await choosePreset(page, 'example2');
    await openView();
    await page.waitForFunction(() => window.attentionPlayground.results()?.lab?.mode === 'logits');
    await page.waitForSelector('#lab-sweep-unsupported');
    assert.match(await page.textContent('#lab-sweep-unsupported'), /needs Q and K/);
  });
});

describe('in Chinese (#lang control): angle sweep on the lesson preset', () => {
  test('no English word outside data (tokens, head names) and formulas; most texts Chinese', async () => {
    const { bad, share } = await labViewInChinese(page, {
      view: 'sweep',
      preset: 'lessonSweep',
      screenshot: screenshotPath('lab_sweep_zh'),
    });
    assert.deepEqual(bad, [], 'English words in the Chinese view');
    assert.ok(share > 0.3, `only ${(100 * share).toFixed(0)}% of the texts are Chinese`);
  });
});
