// Browser tests of the lab view "linear" (web/lab/linear.js over the core's lab_linear.cpp).
// Expected numbers, never from the code under test:
//   * MATH.md example 1 (the page's default state, scale 1): elu + 1 computed here for the two keys
//     (phi(q) = phi(k1) = (2, 1), phi(k2) = (1, 2): a_lin = (5/9, 4/9), O_lin = (10/9, 16/9)) and
//     the softmax golden values of MATH.md (0.7310585786, 0.2689414214; O = (1.462117157,
//     1.075765685)); the same with scale 1/sqrt(2), where phi sees 2^-1/4 q and 2^-1/4 k;
//   * ReLU random features: W rebuilt here by an mt19937_64 written in BigInt (checked against the
//     C++ standard's required 10000th output of the default-seeded engine, 9981545732273789042) and
//     Box-Muller as docs/lab.md specifies; linear weights and outputs recomputed from it;
//   * masks: the visible sets from results().visible, elu + 1 recomputed per row.
// Also: the controls (feature, m, seed) with an out-of-range m refused, an empty row, degenerate
// rows, a weights-mode real head (not available: needs Q, K, V), a 1-token state, screenshots.
//
//   node --test tests/browser/lab_linear.test.js        (after the WASM build is in web/wasm)

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { choosePreset, getResults, getState, near, screenshotPath, trySetState, typeInto, sharedPage } from './harness.js';
import { labViewInChinese } from './lang_check.js';

let page;
sharedPage('[linear] ', (p) => {
  page = p;
});

// ---- independent numerics ----------------------------------------------------------------------

/** std::mt19937_64 (C++ [rand.predef]) in BigInt. */
function mt19937_64(seed) {
  const N = 312;
  const M = 156;
  const MASK = (1n << 64n) - 1n;
  const UPPER = 0xffffffff80000000n;
  const LOWER = 0x7fffffffn;
  const mt = new Array(N);
  mt[0] = BigInt(seed) & MASK;
  for (let i = 1; i < N; i++) mt[i] = (6364136223846793005n * (mt[i - 1] ^ (mt[i - 1] >> 62n)) + BigInt(i)) & MASK;
  let index = N;
  return () => {
    if (index >= N) {
      for (let i = 0; i < N; i++) {
        const x = (mt[i] & UPPER) | (mt[(i + 1) % N] & LOWER);
        let xA = x >> 1n;
        if (x & 1n) xA ^= 0xb5026f5aa96619e9n;
        mt[i] = mt[(i + M) % N] ^ xA;
      }
      index = 0;
    }
    let y = mt[index++];
    y ^= (y >> 29n) & 0x5555555555555555n;
    y ^= (y << 17n) & 0x71d67fffeda60000n & MASK;
    y ^= (y << 37n) & 0xfff7eee000000000n & MASK;
    y ^= y >> 43n;
    return y & MASK;
  };
}

/** The m x d matrix W of docs/lab.md: u = (x >> 11) 2^-53, Box-Muller (cos, sin), row by row. */
function gaussianMatrix(m, d, seed) {
  const next = mt19937_64(seed);
  const u = () => Number(next() >> 11n) / 2 ** 53;
  const z = [];
  while (z.length < m * d) {
    const u1 = u();
    const u2 = u();
    const r = Math.sqrt(-2 * Math.log(1 - u1));
    z.push(r * Math.cos(2 * Math.PI * u2), r * Math.sin(2 * Math.PI * u2));
  }
  return Array.from({ length: m }, (_, i) => z.slice(i * d, (i + 1) * d));
}

const eluPhi = (c) => (x) => x.map((v) => (c * v > 0 ? c * v + 1 : Math.exp(c * v)));
const reluPhi = (c, W) => (x) =>
  W.map(
    (w) =>
      Math.max(
        0,
        w.reduce((s, wd, d) => s + wd * c * x[d], 0),
      ) / Math.sqrt(W.length),
  );
const dot = (a, b) => a.reduce((s, x, i) => s + x * b[i], 0);

/** Linear attention by its definition, row by row over the visible keys. Q, K, V are rounded to
 * float32 first, as the core stores them (0.2 is not a float32). */
function linearAttention(Q32, K32, V32, visible, phi) {
  const f32 = (m) => m.map((r) => r.map(Math.fround));
  const [Q, K, V] = [f32(Q32), f32(K32), f32(V32)];
  const fk = K.map(phi);
  return Q.map((q, t) => {
    const fq = phi(q);
    const s = K.map((_, j) => (visible[t][j] ? dot(fq, fk[j]) : null));
    const den = s.reduce((a, x) => a + (x ?? 0), 0);
    if (!visible[t].some(Boolean)) return { empty: true };
    if (!(den > 0)) return { degenerate: true };
    const a = s.map((x) => (x === null ? null : x / den));
    const o = V[0].map((_, e) => a.reduce((acc, w, j) => acc + (w ?? 0) * V[j][e], 0));
    return { a, o, den };
  });
}

// ---- page helpers ------------------------------------------------------------------------------

/** Waits until the linear view is drawn and predicate(lab) holds (checked here: the page's
 *  Content-Security-Policy forbids evaluating strings in it). */
async function waitLinear(predicate = () => true) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const lab = await page.evaluate(() => {
      const l = window.attentionPlayground.results()?.lab;
      const box = (id) => document.getElementById(id)?.value;
      // Drawn from these results (not the previous ones): the controls show their values.
      const drawn =
        l?.view === 'linear' &&
        (l.available === false
          ? document.querySelector('#lab-linear-unavailable') !== null
          : document.querySelector('#lab-linear-rows') !== null &&
            box('lab-param-feature') === l.feature &&
            box('lab-param-seed') === String(l.seed) &&
            box('lab-param-features') === String(l.features));
      return drawn ? l : null;
    });
    if (lab && predicate(lab)) return lab;
    if (Date.now() > deadline) throw new Error(`the linear view did not show ${predicate}`);
    await new Promise((resolve) => setTimeout(resolve, 30));
  }
}

async function show(state, predicate) {
  const err = await trySetState(page, state);
  assert.equal(err, null, `setState failed: ${JSON.stringify(err)}`);
  return waitLinear(predicate);
}

const readValue = (id) => page.$eval(`#${id}`, (el) => (el.dataset.value === '' ? null : Number(el.dataset.value)));

async function assertNoNaN(label) {
  const text = await page.textContent('#lab-panel');
  assert.ok(!/NaN|Infinity/.test(text), `${label}: the lab panel shows NaN or Infinity`);
}

// ---- tests -------------------------------------------------------------------------------------

describe('lab view "linear" on MATH.md example 1', () => {
  test('elu + 1 by hand for the two keys beside the softmax golden values', async () => {
    await page.click('#lab-tab-linear');
    const lab = await waitLinear();
    const s = await getState(page);
    assert.equal(s.scale, 1, 'example 1 is unscaled');
    const h = s.heads[0];
    const phi = eluPhi(1);
    const fq = phi(h.Q[0]);
    const f1 = phi(h.K[0]);
    const f2 = phi(h.K[1]);
    assert.deepEqual(
      [fq, f1, f2],
      [
        [2, 1],
        [2, 1],
        [1, 2],
      ],
      'the hand features',
    );
    const s1 = dot(fq, f1);
    const s2 = dot(fq, f2);
    const a = [s1 / (s1 + s2), s2 / (s1 + s2)];
    near(a[0], 5 / 9, 1e-15, 'a_lin by hand');
    const o = [a[0] * h.V[0][0] + a[1] * h.V[1][0], a[0] * h.V[0][1] + a[1] * h.V[1][1]];
    near(o[0], 10 / 9, 1e-15, 'O_lin by hand');
    near(o[1], 16 / 9, 1e-15, 'O_lin by hand');
    near(lab.linear.weights[0][0], a[0], 1e-12, 'a_lin[0]');
    near(lab.linear.weights[0][1], a[1], 1e-12, 'a_lin[1]');
    near(lab.linear.output[0][0], o[0], 1e-12, 'O_lin[0]');
    near(lab.linear.output[0][1], o[1], 1e-12, 'O_lin[1]');
    near(await readValue('lab-linear-lin-0'), a[0], 1e-12, 'a_lin[0] shown');
    near(await readValue('lab-linear-soft-0'), 0.7310585786, 1e-7, 'softmax a[0] shown');
    near(await readValue('lab-linear-out-soft-0'), 1.462117157, 1e-6, 'softmax O[0] shown');
    near(await readValue('lab-linear-out-lin-1'), 16 / 9, 1e-12, 'O_lin[1] shown');
    const err = Math.hypot(o[0] - 1.462117157, o[1] - 1.075765685);
    near(await readValue('lab-linear-row-output-error'), err, 1e-6, '||O_lin - O||');
    near(await readValue('lab-linear-row-relative-error'), err / Math.hypot(1.462117157, 1.075765685), 1e-6, 'relative error');
    near(await readValue('lab-linear-row-weight-error'), 0.7310585786 - 5 / 9, 1e-7, 'max |a_lin - a|');
    near(await readValue('lab-linear-mean-weight-error'), 0.7310585786 - 5 / 9, 1e-7, 'mean max |a_lin - a|');
    await page.locator('#lab-panel').screenshot({ path: screenshotPath('lab_linear_example1') });
    await assertNoNaN('example 1');
  });

  test('scale 1/sqrt(2): phi applied to 2^-1/4 q and 2^-1/4 k', async () => {
    const s = await getState(page);
    const lab = await show({ ...s, scale: Math.SQRT1_2 }, (lab) => Math.abs(lab.inputScale - 2 ** -0.25) < 1e-12);
    const c = Math.sqrt(Math.SQRT1_2);
    const fq = [c + 1, 1]; // q = (1, 0): elu(c) + 1 = c + 1, elu(0) + 1 = 1
    const f2 = [1, c + 1];
    const s1 = dot(fq, fq);
    const s2 = dot(fq, f2);
    near(lab.linear.weights[0][0], s1 / (s1 + s2), 1e-12, 'a_lin[0] with scale');
    // Softmax with scale 1/sqrt(2) from MATH.md: output (1.339523099, 1.320953803).
    near(lab.softmax.output[0][0], 1.339523099, 1e-6, 'softmax O[0] with scale');
    near(lab.softmax.output[0][1], 1.320953803, 1e-6, 'softmax O[1] with scale');
  });
});

describe('lab view "linear": ReLU random features from the seed', () => {
  test('the BigInt mt19937_64 of this test is the standard engine', () => {
    const next = mt19937_64(5489);
    let x;
    for (let i = 0; i < 10000; i++) x = next();
    assert.equal(x, 9981545732273789042n);
  });

  test("selfattention preset, m = 16, seed 5: every row's weights and output from W rebuilt here", async () => {
    await choosePreset(page, 'selfattention');
    const s = await getState(page);
    const lab = await show(
      { ...s, lab: { view: 'linear', params: { feature: 'relu', features: 16, seed: 5 } } },
      (lab) => lab.feature === 'relu' && lab.seed === 5 && lab.m === 16,
    );
    const r = await getResults(page);
    const h = s.heads[0];
    const c = Math.sqrt(r.scale / s.tau);
    near(lab.inputScale, c, 1e-15, 'c');
    const W = gaussianMatrix(16, 2, 5);
    const want = linearAttention(h.Q, h.K, h.V, r.visible, reluPhi(c, W));
    want.forEach((row, t) => {
      assert.equal(lab.rows[t].degenerate, !!row.degenerate, `row ${t} degenerate`);
      if (row.degenerate) return;
      row.a.forEach((x, j) => near(lab.linear.weights[t][j], x, 1e-9, `a_lin[${t}][${j}]`));
      row.o.forEach((x, e) => near(lab.linear.output[t][e], x, 1e-9, `O_lin[${t}][${e}]`));
      near(lab.rows[t].denominator, row.den, 1e-9, `denominator ${t}`);
    });
    assert.match(await page.textContent('#lab-linear-feature-note'), /16 × 2/);
    await page.locator('#lab-panel').screenshot({ path: screenshotPath('lab_linear_relu') });
  });

  test('the controls: seed and m typed, another seed gives other numbers, the same seed the same', async () => {
    const before5 = (await getResults(page)).lab;
    await typeInto(page, '#lab-param-seed', '6');
    const lab6 = await waitLinear((lab) => lab.seed === 6);
    assert.equal((await getState(page)).lab.params.seed, 6);
    assert.notDeepEqual(lab6.linear.weights, before5.linear.weights, 'seed 6 = seed 5');
    await typeInto(page, '#lab-param-seed', '5');
    const again = await waitLinear((lab) => lab.seed === 5);
    assert.deepEqual(again.linear.weights, before5.linear.weights, 'seed 5 twice differs');
    await typeInto(page, '#lab-param-features', '300');
    const lab300 = await waitLinear((lab) => lab.m === 300);
    const r = await getResults(page);
    const s = await getState(page);
    const want = linearAttention(
      s.heads[0].Q,
      s.heads[0].K,
      s.heads[0].V,
      r.visible,
      reluPhi(lab300.inputScale, gaussianMatrix(300, 2, 5)),
    );
    want.forEach((row, t) => row.a?.forEach((x, j) => near(lab300.linear.weights[t][j], x, 1e-9, `m 300 a_lin[${t}][${j}]`)));
    await typeInto(page, '#lab-param-features', '0');
    await page.waitForFunction(() => !document.getElementById('lab-error').hidden);
    assert.match(await page.textContent('#lab-error'), /features/);
    await typeInto(page, '#lab-param-features', '64');
    await waitLinear((lab) => lab.m === 64);
    await page.selectOption('#lab-param-feature', 'elu');
    const elu = await waitLinear((lab) => lab.feature === 'elu');
    assert.equal(elu.m, 2, 'elu + 1 uses m = d_k');
    // The view draws after the results arrive: wait for the redrawn control, then check it.
    await page.waitForFunction(() => document.getElementById('lab-param-seed')?.disabled === true, null, { timeout: 5000 }).catch(() => {});
    assert.equal(await page.$eval('#lab-param-seed', (el) => el.disabled), true, 'seed inactive for elu');
  });

  test('m = 1, seed 2: rows where w.q <= 0 are degenerate and say why', async () => {
    const s = await getState(page);
    const lab = await show(
      { ...s, lab: { view: 'linear', params: { feature: 'relu', features: 1, seed: 2 } } },
      (lab) => lab.feature === 'relu' && lab.m === 1 && lab.seed === 2,
    );
    const W = gaussianMatrix(1, 2, 2);
    const c = lab.inputScale;
    const h = s.heads[0];
    let degenerate = 0;
    h.Q.forEach((q, t) => {
      const wq = W[0][0] * c * q[0] + W[0][1] * c * q[1];
      const keys = h.K.some((k) => W[0][0] * c * k[0] + W[0][1] * c * k[1] > 0);
      const want = !(wq > 0) || !keys;
      assert.equal(lab.rows[t].degenerate, want, `row ${t}`);
      if (want) degenerate++;
    });
    assert.ok(degenerate > 0, 'this seed was chosen to give degenerate rows');
    const texts = await page.$$eval('#lab-linear-rows tbody tr', (trs) => trs.map((tr) => tr.textContent));
    lab.rows.forEach((r, t) => {
      if (r.degenerate) assert.match(texts[t], /undefined \(φ\(q\)·Σφ\(k\) = 0/, `row ${t} text`);
    });
    await page.locator('#lab-panel').screenshot({ path: screenshotPath('lab_linear_degenerate') });
    await assertNoNaN('degenerate rows');
  });
});

describe('lab view "linear": masks, undefined rows, other modes', () => {
  test('causal with key 0 padded: row 0 is empty, the others recomputed over their visible keys', async () => {
    await choosePreset(page, 'selfattention');
    const s = await getState(page);
    const lab = await show(
      {
        ...s,
        row: 0,
        mask: { ...s.mask, causal: true, padding: [true, false, false, false] },
        lab: { view: 'linear', params: {} },
      },
      (lab) => lab.rows[0].empty === true && lab.feature === 'elu',
    );
    assert.equal(lab.path, 'per-row');
    const r = await getResults(page);
    const h = s.heads[0];
    const want = linearAttention(h.Q, h.K, h.V, r.visible, eluPhi(lab.inputScale));
    assert.equal(want[0].empty, true);
    for (let t = 1; t < 4; t++) {
      want[t].a.forEach((x, j) =>
        x === null ? assert.equal(lab.linear.weights[t][j], null) : near(lab.linear.weights[t][j], x, 1e-12, `a_lin[${t}][${j}]`),
      );
      want[t].o.forEach((x, e) => near(lab.linear.output[t][e], x, 1e-12, `O_lin[${t}][${e}]`));
    }
    assert.equal(lab.definedRows, 3);
    assert.match(await page.textContent('#lab-linear-row-undefined'), /undefined \(empty row/);
    assert.match(await page.textContent('#lab-linear-rows tbody tr[data-row="0"]'), /undefined \(empty row/);
    await page.locator('#lab-panel').screenshot({ path: screenshotPath('lab_linear_empty_row') });
    await assertNoNaN('empty row');
  });

  test('causal alone takes the running-sum path and still matches the definition', async () => {
    const s = await getState(page);
    const lab = await show(
      { ...s, row: 3, mask: { ...s.mask, causal: true, padding: [false, false, false, false] } },
      (lab) => lab.path === 'prefix' && lab.rows[0].empty === false,
    );
    const r = await getResults(page);
    const h = s.heads[0];
    const want = linearAttention(h.Q, h.K, h.V, r.visible, eluPhi(lab.inputScale));
    want.forEach((row, t) => row.o.forEach((x, e) => near(lab.linear.output[t][e], x, 1e-12, `O_lin[${t}][${e}]`)));
    near(lab.linear.weights[0][0], 1, 1e-15, 'row 0 sees key 0 only');
  });

  test('a real head (weights mode) says linear attention needs Q, K and V', async () => {
    await choosePreset(page, 'gpt2-small_L0_nlp-sentence.0');
    const lab = await waitLinear((lab) => lab.available === false);
    assert.equal(lab.mode, 'weights');
    assert.match(await page.textContent('#lab-linear-unavailable'), /needs Q, K and V/);
    await page.locator('#lab-panel').screenshot({ path: screenshotPath('lab_linear_real_head') });
  });

  test('one token: weight 1, output = v, errors 0', async () => {
    await choosePreset(page, 'selfattention');
    const s = await getState(page);
    const one = {
      ...s,
      heads: [{ name: 'one', Q: [[0.3, -1]], K: [[2, 0.5]], V: [[4, -2]], logits: null, weights: null }],
      tokens: { queries: ['x'], keys: ['x'] },
      mask: { causal: false, window: 0, padding: [false], allow: null },
      row: 0,
      lab: { view: 'linear', params: {} },
    };
    const lab = await show(one, (lab) => lab.nQ === 1);
    near(lab.linear.weights[0][0], 1, 1e-15, 'a_lin');
    assert.deepEqual(lab.linear.output[0], [4, -2]);
    assert.equal(lab.rows[0].outputError, 0);
    await assertNoNaN('one token');
    await page.locator('#lab-panel').screenshot({ path: screenshotPath('lab_linear_one_token') });
  });
});

describe('in Chinese (#lang control): linear attention on the four-token lesson', () => {
  test('no English word outside data (tokens, head names) and formulas; most texts Chinese', async () => {
    const { bad, share } = await labViewInChinese(page, {
      view: 'linear',
      preset: 'selfattention',
      screenshot: screenshotPath('lab_linear_zh'),
    });
    assert.deepEqual(bad, [], 'English words in the Chinese view');
    assert.ok(share > 0.3, `only ${(100 * share).toFixed(0)}% of the texts are Chinese`);
  });
});
