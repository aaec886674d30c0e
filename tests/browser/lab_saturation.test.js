// Browser tests of the lab view "saturation" (web/lab/saturation.js over the core's
// lab_saturation.cpp). Expected numbers: worked example 1 of MATH.md (scores 1 and 0, weights
// 0.7310585786 / 0.2689414214, so Delta = 1, a_1 = sigmoid(1), J_11 = p1 p2 = 0.196611933),
// the two-key closed forms derived by hand (x = Delta/tau, dH/dz_1 = -x p1 p2 / tau), and on a
// real GPT-2 head the Jacobian and dH/dz recomputed here in JS from results().weights; never from
// the code under test. Also: tau moves the marked point, gapRange, an empty row, one visible key.
//
//   node --test tests/browser/lab_saturation.test.js        (after the WASM build is in web/wasm)

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { choosePreset, getResults, getState, near, screenshotPath, trySetState, typeInto, sharedPage } from './harness.js';
import { labViewInChinese } from './lang_check.js';

let page;
sharedPage('[saturation] ', (p) => {
  page = p;
});

const sigmoid = (x) => 1 / (1 + Math.exp(-x));
const value = async (sel) => {
  const v = await page.getAttribute(sel, 'data-value');
  assert.ok(v !== null, `${sel} has no data-value`);
  return v === '' ? null : Number(v);
};
const noNaNOnScreen = async (what) => {
  const text = await page.textContent('#lab-view');
  assert.ok(!/NaN|Infinity/.test(text), `${what}: the view shows NaN or Infinity`);
};
const waitX = (x) => page.waitForFunction((want) => document.getElementById('lab-sat-x')?.dataset.value === want, String(x));

describe('lab saturation', () => {
  test('worked example 1: Delta = 1, a_1 = sigmoid(1), J = +-p1 p2 = 0.196611933; tau moves the point', async () => {
    await choosePreset(page, 'example1');
    await page.click('#lab-tab-saturation');
    await page.waitForSelector('#lab-sat-plot-a1');
    assert.equal(await value('#lab-sat-gap'), 1, 'gap');
    assert.equal(await value('#lab-sat-x'), 1, 'x');
    near(await value('#lab-sat-a1'), 0.7310585786, 1e-10, 'a1 (MATH.md weight of key 1)');
    near(await value('#lab-sat-a1'), sigmoid(1), 1e-15, 'a1 = sigmoid(1)');
    const p1p2 = 0.7310585786 * 0.2689414214; // MATH.md weights
    near(p1p2, 0.196611933, 1e-9, 'MATH.md weights product');
    near(await value('#lab-sat-j-r0-c0'), p1p2, 1e-9, 'J_11');
    near(await value('#lab-sat-j-r0-c1'), -p1p2, 1e-9, 'J_12');
    near(await value('#lab-sat-j-r1-c0'), -p1p2, 1e-9, 'J_21');
    near(await value('#lab-sat-j-r1-c1'), p1p2, 1e-9, 'J_22');
    near(await value('#lab-sat-dhdz-k0'), -p1p2, 1e-9, 'dH/dz_1 = -x p1 p2 / tau at x = 1');
    near(await value('#lab-sat-dhdz-k1'), p1p2, 1e-9, 'dH/dz_2');
    near(await value('#lab-sat-h2'), 0.5822031089, 1e-10, 'two-key entropy (MATH.md H)');
    const pointText = await page.textContent('#lab-sat-plot-a1');
    assert.match(pointText, /a₁ = 0\.7311/, 'the a1 plot does not write the point value');
    const point = await page.$eval('#lab-sat-plot-a1-point', (c) => ({
      cx: Number(c.getAttribute('cx')),
      cy: Number(c.getAttribute('cy')),
      x: Number(c.dataset.x),
    }));
    assert.equal(point.x, 1);
    await page.locator('#lab-panel').screenshot({ path: screenshotPath('lab-saturation-example1') });

    await typeInto(page, '#tau', '2');
    await waitX(0.5);
    const p = sigmoid(0.5);
    near(await value('#lab-sat-a1'), p, 1e-12, 'a1 at tau 2');
    near(await value('#lab-sat-j-r0-c0'), (p * (1 - p)) / 2, 1e-9, 'J_11 at tau 2 = p1 p2 / tau');
    near(await value('#lab-sat-dhdz-k0'), (-0.5 * p * (1 - p)) / 2, 1e-9, 'dH/dz_1 at tau 2');
    near(await value('#lab-sat-dhdtau'), (p * (1 - p)) / 8, 1e-9, 'dH/dtau = p1 p2 Delta^2 / tau^3');
    const moved = await page.$eval('#lab-sat-plot-a1-point', (c) => ({
      cx: Number(c.getAttribute('cx')),
      cy: Number(c.getAttribute('cy')),
    }));
    assert.ok(moved.cx < point.cx, `the point did not move left with tau 2 (cx ${point.cx} -> ${moved.cx})`);
    assert.ok(moved.cy > point.cy, `the point did not move down with tau 2 (cy ${point.cy} -> ${moved.cy})`);

    await typeInto(page, '#tau', '0.25');
    await waitX(4);
    near(await value('#lab-sat-a1'), sigmoid(4), 1e-12, 'a1 at tau 0.25');
    const right = await page.$eval('#lab-sat-plot-a1-point', (c) => Number(c.getAttribute('cx')));
    assert.ok(right > point.cx, 'the point did not move right with tau 0.25');
  });

  test('gapRange: a narrow plot puts the point at its edge and says so', async () => {
    await choosePreset(page, 'example1');
    await page.waitForSelector('#lab-sat-plot-a1');
    await typeInto(page, '#lab-sat-range', '0.5');
    await page.waitForSelector('#lab-sat-offplot');
    const ticks = await page.$$eval('#lab-sat-plot-a1 .sat-tick', (ts) => ts.map((t) => t.textContent));
    assert.ok(ticks.includes('-0.5') && ticks.includes('0.5'), `axis ticks ${ticks}`);
    assert.equal((await getState(page)).lab.params.gapRange, 0.5);
    await typeInto(page, '#lab-sat-range', '10');
    await page.waitForFunction(() => !document.getElementById('lab-sat-offplot'));
  });

  test('real GPT-2 induction head: Jacobian and dH/dz from results().weights', async () => {
    await choosePreset(page, 'gpt2-small_L5H5_induction_random-repeated.0');
    await page.waitForSelector('#lab-sat-jacobian');
    const state = await getState(page);
    const r = await getResults(page);
    const row = state.row;
    const keys = r.visible[row].map((v, j) => (v ? j : -1)).filter((j) => j >= 0);
    const p = keys.map((j) => r.weights[row][j]);
    const lab = r.lab;
    assert.deepEqual(lab.keys, keys, 'visible keys');
    const block = lab.jacobian.keys;
    assert.ok(block.length >= 2, 'the Jacobian block has fewer than 2 keys');
    block.forEach((a, i) =>
      block.forEach((b, k) => {
        const pa = r.weights[row][a];
        const pb = r.weights[row][b];
        // float32 weights versus the core's double recomputation: 1e-6
        near(lab.jacobian.matrix[i][k], ((a === b ? pa : 0) - pa * pb) / state.tau, 1e-6, `J(${a}, ${b})`);
      }),
    );
    const H = -p.reduce((s, x) => (x > 0 ? s + x * Math.log(x) : s), 0);
    for (const [i, j] of keys.entries()) {
      near(await value(`#lab-sat-dhdz-k${j}`), (-p[i] * (Math.log(p[i]) + H)) / state.tau, 1e-6, `dH/dz_${j}`);
    }
    const s = [...keys.map((j) => r.scores[row][j])].sort((a, b) => b - a);
    near(await value('#lab-sat-gap'), s[0] - s[1], 1e-12, 'gap of the two largest scores');
    await noNaNOnScreen('GPT-2 induction');
    await page.locator('#lab-panel').screenshot({ path: screenshotPath('lab-saturation-gpt2-induction') });
  });

  test('an empty row and a row with one visible key say undefined, no NaN', async () => {
    await choosePreset(page, 'example1');
    await page.waitForSelector('#lab-sat-plot-a1');
    const s = await getState(page);
    s.mask.padding = [true, true];
    assert.equal(await trySetState(page, s), null);
    await page.waitForSelector('#lab-sat-empty');
    assert.match(await page.textContent('#lab-sat-gap'), /undefined/);
    assert.equal(await page.$('#lab-sat-plot-a1-point'), null, 'an empty row has a point on the plot');
    assert.equal(await page.$('#lab-sat-jacobian'), null, 'an empty row shows a Jacobian');
    await noNaNOnScreen('empty row');
    await page.locator('#lab-panel').screenshot({ path: screenshotPath('lab-saturation-empty-row') });

    s.mask.padding = [false, true];
    assert.equal(await trySetState(page, s), null);
    await page.waitForSelector('#lab-sat-single');
    assert.match(await page.textContent('#lab-sat-gap'), /undefined/);
    assert.equal(await value('#lab-sat-j-r0-c0'), 0, 'the 1 x 1 Jacobian of a point mass');
    assert.equal(await value('#lab-sat-dhdtau'), 0);
    await noNaNOnScreen('one visible key');
  });

  test('a 1-token state', async () => {
    const s = await getState(page);
    s.mode = 'logits';
    s.heads = [{ name: 'one', Q: null, K: null, V: null, logits: [[0.7]], weights: null }];
    s.tokens = { queries: ['only'], keys: ['only'] };
    s.mask = { causal: false, window: 0, padding: [false], allow: null };
    s.row = 0;
    s.view = { ...s.view, preset: 'custom' };
    assert.equal(await trySetState(page, s), null);
    await page.waitForSelector('#lab-sat-single');
    assert.equal(await value('#lab-sat-top-weight'), 1);
    assert.equal(await value('#lab-sat-entropy'), 0);
    await noNaNOnScreen('1 token');
    await page.locator('#lab-panel').screenshot({ path: screenshotPath('lab-saturation-one-token') });
  });
});

describe('in Chinese (#lang control): saturation on seed example 1', () => {
  test('no English word outside data (tokens, head names) and formulas; most texts Chinese', async () => {
    const { bad, share } = await labViewInChinese(page, {
      view: 'saturation',
      preset: 'example1',
      screenshot: screenshotPath('lab_saturation_zh'),
    });
    assert.deepEqual(bad, [], 'English words in the Chinese view');
    assert.ok(share > 0.3, `only ${(100 * share).toFixed(0)}% of the texts are Chinese`);
  });
});
