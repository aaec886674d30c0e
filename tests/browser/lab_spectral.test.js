// Browser tests of the lab view "spectral" (web/lab/spectral.js over the core's lab_spectral.cpp).
// Expected numbers, never from the code under test:
//   * singular values: the eigenvalues of A^T A by a cyclic Jacobi eigenvalue routine written in
//     this file (double precision), sigma = sqrt(lambda); MATH.md example 2 also against the roots
//     of its hand-derived characteristic polynomial (test_spectral.cpp): 1.2030354871,
//     0.7103259319, 0.2194144189;
//   * pi: e_0 for causal heads (token 0 absorbing), and for a non-causal head by a plain
//     (non-lazy) power iteration written here on an aperiodic head;
//   * redundancy: cosine and Jensen-Shannon recomputed here row by row from the weights given,
//     keep and drop-sink;
//   * a real head: GPT-2 small layer 0 head 0 (the "gpt2-small_L0_nlp-sentence.0" preset) from
//     web/data/real/.../attention.json.
// Also: epsilon typed into the view and refused out of range, an empty row, a non-square head and a
// 1-token state (no NaN on screen), screenshots.
//
//   node --test tests/browser/lab_spectral.test.js        (after the WASM build is in web/wasm)

import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { WEB, choosePreset, getResults, getState, near, screenshotPath, trySetState, typeInto, sharedPage } from './harness.js';
import { labViewInChinese } from './lang_check.js';

const GPT2 = JSON.parse(readFileSync(`${WEB}data/real/gpt2-small_L0_nlp-sentence/attention.json`, 'utf8'));

let page;
sharedPage('[spectral] ', (p) => {
  page = p;
});

// ---- independent numerics (double precision) ---------------------------------------------------

const normaliseRows = (A) =>
  A.map((r) => {
    const s = r.reduce((x, y) => x + y, 0);
    return s > 0 ? r.map((x) => x / s) : r.map(() => 0);
  });

/** Eigenvalues of a symmetric matrix by cyclic Jacobi rotations, descending. */
function symmetricEigenvalues(M) {
  const n = M.length;
  const a = M.map((r) => [...r]);
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) off += a[p][q] * a[p][q];
    if (off < 1e-30) break;
    for (let p = 0; p < n; p++) {
      for (let q = p + 1; q < n; q++) {
        if (Math.abs(a[p][q]) < 1e-300) continue;
        const theta = (a[q][q] - a[p][p]) / (2 * a[p][q]);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < n; k++) {
          // rotate columns p, q
          const akp = a[k][p];
          const akq = a[k][q];
          a[k][p] = c * akp - s * akq;
          a[k][q] = s * akp + c * akq;
        }
        for (let k = 0; k < n; k++) {
          // rotate rows p, q
          const apk = a[p][k];
          const aqk = a[q][k];
          a[p][k] = c * apk - s * aqk;
          a[q][k] = s * apk + c * aqk;
        }
      }
    }
  }
  return a.map((r, i) => r[i]).sort((x, y) => y - x);
}

/** Singular values of A (rows x cols) as sqrt(eig(A^T A)), the first min(rows, cols), descending. */
function singularValues(A) {
  const rows = A.length;
  const cols = A[0].length;
  const G = Array.from({ length: cols }, (_, i) =>
    Array.from({ length: cols }, (_, j) => {
      let s = 0;
      for (let k = 0; k < rows; k++) s += A[k][i] * A[k][j];
      return s;
    }),
  );
  return symmetricEigenvalues(G)
    .slice(0, Math.min(rows, cols))
    .map((l) => Math.sqrt(Math.max(l, 0)));
}

const entropy = (p) => -p.reduce((s, x) => (x > 0 ? s + x * Math.log(x) : s), 0);
function spectralScalars(sigma, eps) {
  const total = sigma.reduce((x, y) => x + y, 0);
  const H = entropy(sigma.map((s) => s / total));
  return { H, effectiveRank: Math.exp(H), thresholdRank: sigma.filter((s) => s > eps * sigma[0]).length };
}

function cosine(p, q) {
  let pq = 0;
  let pp = 0;
  let qq = 0;
  for (let i = 0; i < p.length; i++) {
    pq += p[i] * q[i];
    pp += p[i] * p[i];
    qq += q[i] * q[i];
  }
  return pq / Math.sqrt(pp * qq);
}
function jsd(p, q) {
  let s = 0;
  for (let i = 0; i < p.length; i++) {
    const m = (p[i] + q[i]) / 2;
    if (p[i] > 0) s += 0.5 * p[i] * Math.log(p[i] / m);
    if (q[i] > 0) s += 0.5 * q[i] * Math.log(q[i] / m);
  }
  return s;
}
/** Mean over the rows both heads can compare; drop: without key 0, renormalised, all-on-key-0 skipped. */
function pairMean(X, Y, metric, drop) {
  let sum = 0;
  let rows = 0;
  let sinkOnly = 0;
  for (let t = 0; t < X.length; t++) {
    let x = X[t];
    let y = Y[t];
    if (drop) {
      const sx = x.slice(1).reduce((a, b) => a + b, 0);
      const sy = y.slice(1).reduce((a, b) => a + b, 0);
      if (!(sx > 0) || !(sy > 0)) {
        sinkOnly++;
        continue;
      }
      x = x.slice(1).map((v) => v / sx);
      y = y.slice(1).map((v) => v / sy);
    }
    sum += metric(x, y);
    rows++;
  }
  return { mean: rows ? sum / rows : null, rows, sinkOnly };
}

// ---- page helpers ------------------------------------------------------------------------------

const TOKENS = (n, p) => Array.from({ length: n }, (_, i) => `${p}${i}`);

/** A weights-mode state with the given heads (n_q x n_k each). */
function weightsState(base, heads, { causal = false, nQ = heads[0].length, nK = heads[0][0].length, params = {}, head = 0 } = {}) {
  return {
    ...base,
    mode: 'weights',
    heads: heads.map((w, i) => ({ name: `H${i}`, Q: null, K: null, V: null, logits: null, weights: w })),
    head,
    tokens: { queries: TOKENS(nQ, 'q'), keys: nQ === nK ? TOKENS(nQ, 'q') : TOKENS(nK, 'k') },
    mask: { causal, window: 0, padding: Array(nK).fill(false), allow: null },
    tau: 1,
    row: 0,
    view: { ...base.view, preset: 'custom' },
    source: 'spectral test',
    lab: { view: 'spectral', params },
  };
}

/** Sets a state and waits until the spectral view has drawn it. */
async function show(state) {
  const err = await trySetState(page, state);
  assert.equal(err, null, `setState failed: ${JSON.stringify(err)}`);
  await page.waitForFunction(
    ({ names, nQ, nK }) => {
      const lab = window.attentionPlayground.results()?.lab;
      return (
        lab?.view === 'spectral' &&
        lab.nQ === nQ &&
        lab.nK === nK &&
        JSON.stringify(lab.redundancy.heads.map((x) => x.name)) === JSON.stringify(names) &&
        document.querySelector('#lab-spectral-sigma') !== null &&
        document.querySelectorAll('#lab-spectral-keep-cosine tbody tr').length === names.length
      );
    },
    { names: state.heads.map((x) => x.name), nQ: state.tokens.queries.length, nK: state.tokens.keys.length },
  );
  return (await getResults(page)).lab;
}

const readValue = (id) => page.$eval(`#${id}`, (el) => (el.dataset.value === '' ? null : Number(el.dataset.value)));

async function assertNoNaN(label) {
  const text = await page.textContent('#lab-panel');
  assert.ok(!/NaN|Infinity/.test(text), `${label}: the lab panel shows NaN or Infinity`);
}

// ---- tests -------------------------------------------------------------------------------------

const EX2 = [
  [1, 0, 0],
  [0.25, 0.75, 0],
  [0.5, 0.25, 0.25],
];
const DIAG = [
  [1, 0, 0],
  [0, 1, 0],
  [0, 0, 1],
];
const SINK = [
  [1, 0, 0],
  [0.9, 0.1, 0],
  [0.8, 0.1, 0.1],
];

describe('lab view "spectral" on a 3-head causal state built here', () => {
  let base;
  let lab;
  before(async () => {
    base = await getState(page);
    lab = await show(weightsState(base, [EX2, DIAG, SINK], { causal: true }));
  });

  test('MATH.md example 2: pi = e_0, sigma from the hand-derived cubic and from Jacobi, the three scalars', async () => {
    assert.equal(lab.stationary.defined, true);
    assert.equal(lab.stationary.converged, true);
    near(lab.stationary.pi[0], 1, 1e-9, 'pi_0');
    near(lab.stationary.pi[1], 0, 1e-9, 'pi_1');
    near(lab.stationary.pi[2], 0, 1e-9, 'pi_2');
    near(await readValue('lab-spectral-pi-0'), 1, 1e-9, 'pi_0 shown');
    const hand = [1.2030354871, 0.7103259319, 0.2194144189];
    const jac = singularValues(EX2);
    hand.forEach((s, i) => near(jac[i], s, 1e-9, `Jacobi sigma_${i + 1} vs the cubic`));
    jac.forEach((s, i) => near(lab.sigma[i], s, 1e-7, `sigma_${i + 1}`));
    for (let i = 0; i < 3; i++) near(await readValue(`lab-spectral-sigma-${i}`), jac[i], 1e-7, `sigma_${i + 1} bar`);
    const want = spectralScalars(jac, 0.01);
    near(lab.effectiveRank, want.effectiveRank, 1e-7, 'effective rank');
    near(lab.spectralEntropy, want.H, 1e-7, 'spectral entropy');
    assert.equal(lab.thresholdRank, 3);
    near(await readValue('lab-spectral-effective-rank'), want.effectiveRank, 1e-7, 'effective rank shown');
    assert.equal(await readValue('lab-spectral-threshold-rank'), 3);
    const text = await page.textContent('#lab-spectral-sigma');
    assert.match(text, /1\.2/, 'sigma_1 written in the plot');
  });

  test('redundancy: a head with itself is cosine 1, JSD 0; every pair recomputed, keep and drop', async () => {
    const heads = [EX2, DIAG, SINK];
    for (const conv of ['keep', 'drop']) {
      for (let x = 0; x < 3; x++) {
        for (let y = 0; y < 3; y++) {
          const c = pairMean(heads[x], heads[y], cosine, conv === 'drop');
          const j = pairMean(heads[x], heads[y], jsd, conv === 'drop');
          near(lab.redundancy[conv].cosine[x][y], c.mean, 1e-6, `${conv} cosine ${x}-${y}`);
          near(lab.redundancy[conv].jsd[x][y], j.mean, 1e-6, `${conv} JSD ${x}-${y}`);
          assert.equal(lab.redundancy[conv].rows[x][y], c.rows, `${conv} rows ${x}-${y}`);
          assert.equal(lab.redundancy[conv].sinkOnly[x][y], conv === 'drop' ? c.sinkOnly : 0, `${conv} skipped ${x}-${y}`);
          const cell = await readValue(`lab-spectral-${conv}-cosine-r${x}-c${y}`);
          near(cell, c.mean, 1e-6, `${conv} cosine cell ${x}-${y}`);
        }
        near(await readValue(`lab-spectral-${conv}-cosine-r${x}-c${x}`), 1, 1e-12, `${conv} self cosine ${x}`);
        near(await readValue(`lab-spectral-${conv}-jsd-r${x}-c${x}`), 0, 1e-12, `${conv} self JSD ${x}`);
      }
    }
    // Row 0 of a causal head has all its mass on key 0: skipped under drop, and the page says so.
    assert.equal(lab.redundancy.drop.sinkOnly[0][1], 1);
    assert.match(await page.textContent('#lab-spectral-drop-note'), /1 of 3/);
    await page.locator('#lab-panel').screenshot({ path: screenshotPath('lab_spectral_three_heads') });
    await assertNoNaN('three heads');
  });

  test('epsilon typed into the view changes the threshold rank; 0 and 1 are refused', async () => {
    await typeInto(page, '#lab-param-epsilon', '0.5');
    await page.waitForFunction(() => window.attentionPlayground.results()?.lab?.epsilon === 0.5);
    assert.equal((await getState(page)).lab.params.epsilon, 0.5);
    const l = (await getResults(page)).lab;
    // sigma = (1.203, 0.710, 0.219): 0.5 sigma_1 = 0.6015 leaves two.
    assert.equal(l.thresholdRank, 2);
    assert.equal(await readValue('lab-spectral-threshold-rank'), 2);
    // 0 and 1 are refused by the box (its range, both ends excluded): nothing is sent.
    for (const bad of ['0', '1']) {
      await typeInto(page, '#lab-param-epsilon', bad);
      await page.waitForFunction(() => !document.getElementById('lab-error').hidden);
      assert.equal(
        (await page.textContent('#lab-error')).trim(),
        `threshold rank ε must be in (0, 1); ${bad} is outside it. Keeping threshold rank ε = 0.5.`,
      );
      assert.equal((await getState(page)).lab.params.epsilon, 0.5);
      assert.equal((await getResults(page)).lab.thresholdRank, 2);
    }
    await typeInto(page, '#lab-param-epsilon', '0.01');
    await page.waitForFunction(() => window.attentionPlayground.results()?.lab?.epsilon === 0.01);
  });
});

describe('lab view "spectral" on a real head', () => {
  test('GPT-2 small L0 head 0 (preset): pi = e_0, sigma and effective rank recomputed from the file', async () => {
    await choosePreset(page, 'gpt2-small_L0_nlp-sentence.0');
    await page.click('#lab-tab-spectral');
    await page.waitForFunction(
      () =>
        window.attentionPlayground.results()?.lab?.view === 'spectral' &&
        window.attentionPlayground.results().lab.nQ === 33 &&
        document.querySelector('#lab-spectral-sigma') !== null,
    );
    const lab = (await getResults(page)).lab;
    const A = normaliseRows(GPT2.attention[0][0]);
    // Causal, and every row t > 0 puts weight on an earlier key: token 0 is the only absorbing token.
    assert.ok(A.every((r, t) => t === 0 || r.slice(0, t).some((x) => x > 0)));
    assert.equal(lab.stationary.converged, true);
    near(lab.stationary.pi[0], 1, 1e-9, 'pi_0');
    const sigma = singularValues(A);
    assert.equal(lab.sigma.length, 33);
    sigma.forEach((s, i) => near(lab.sigma[i], s, 2e-6, `sigma_${i + 1}`));
    const want = spectralScalars(sigma, 0.01);
    near(lab.effectiveRank, want.effectiveRank, 1e-4, 'effective rank');
    near(lab.spectralEntropy, want.H, 1e-5, 'spectral entropy');
    assert.equal(lab.thresholdRank, want.thresholdRank);
    assert.equal(lab.redundancy.heads.length, 1);
    assert.equal(await page.$$eval('#lab-spectral-pi tbody tr', (trs) => trs.length), 33);
    await page.locator('#lab-panel').screenshot({ path: screenshotPath('lab_spectral_gpt2_L0H0') });
    await assertNoNaN('GPT-2');
  });

  test('twelve GPT-2 heads: redundancy of two of them recomputed from the file (keep and drop)', async () => {
    const base = await getState(page);
    const state = {
      ...base,
      heads: GPT2.attention[0].map((w, i) => ({ name: `L0H${i}`, Q: null, K: null, V: null, logits: null, weights: w })),
      head: 3,
      lab: { view: 'spectral', params: {} },
      view: { ...base.view, preset: 'custom' },
    };
    const lab = await show(state);
    // L0H3 keeps up to 0.9996 of a row on the token itself (checked here from the file): the chain
    // mixes slowly, the plain steps are not enough and squaring takes over; pi is still e_0.
    const X = normaliseRows(GPT2.attention[0][3]);
    assert.ok(Math.max(...X.map((r, t) => r[t])) > 0.999);
    assert.equal(lab.stationary.converged, true);
    assert.ok(lab.stationary.squarings > 0, 'squarings used');
    near(lab.stationary.pi[0], 1, 1e-9, 'pi_0 of L0H3');
    assert.match(await page.textContent('#lab-spectral-pi-convergence'), /matrix squarings/);
    const Y = normaliseRows(GPT2.attention[0][5]);
    for (const conv of ['keep', 'drop']) {
      const c = pairMean(X, Y, cosine, conv === 'drop');
      const j = pairMean(X, Y, jsd, conv === 'drop');
      near(lab.redundancy[conv].cosine[3][5], c.mean, 1e-5, `${conv} cosine 3-5`);
      near(lab.redundancy[conv].jsd[3][5], j.mean, 1e-5, `${conv} JSD 3-5`);
      assert.equal(lab.redundancy[conv].rows[3][5], c.rows);
    }
    assert.equal(await page.$$eval('#lab-spectral-drop-jsd tbody tr', (trs) => trs.length), 12);
    await page.locator('#lab-panel').screenshot({ path: screenshotPath('lab_spectral_gpt2_twelve') });
    await assertNoNaN('twelve heads');
  });
});

describe('lab view "spectral": undefined cases', () => {
  test('a non-causal aperiodic head: pi from a plain power iteration written here', async () => {
    const base = await getState(page);
    const A = [
      [0.5, 0.3, 0.2],
      [0.1, 0.6, 0.3],
      [0.4, 0.4, 0.2],
    ];
    const lab = await show(weightsState(base, [A]));
    let pi = [1 / 3, 1 / 3, 1 / 3];
    for (let it = 0; it < 2000; it++) pi = [0, 1, 2].map((j) => pi.reduce((s, p, i) => s + p * A[i][j], 0));
    pi.forEach((p, j) => near(lab.stationary.pi[j], p, 1e-7, `pi_${j}`));
  });

  test('an empty row: pi undefined with the reason, sigma still there, no NaN', async () => {
    const base = await getState(page);
    const lab = await show(
      weightsState(base, [
        [
          [0.5, 0.5, 0],
          [0, 0, 0],
          [0.2, 0.3, 0.5],
        ],
      ]),
    );
    assert.equal(lab.emptyRows, 1);
    assert.equal(lab.stationary.defined, false);
    assert.match(await page.textContent('#lab-spectral-pi-undefined'), /undefined: 1 row is empty/);
    assert.equal(lab.sigma.length, 3);
    assert.match(await page.textContent('#lab-spectral-empty-note'), /1 empty row/);
    await page.locator('#lab-panel').screenshot({ path: screenshotPath('lab_spectral_empty_row') });
    await assertNoNaN('empty row');
  });

  test('a non-square head (2 queries x 3 keys): pi undefined, two singular values', async () => {
    const base = await getState(page);
    const W = [
      [0.5, 0.5, 0],
      [0.2, 0.3, 0.5],
    ];
    const lab = await show(weightsState(base, [W], { nQ: 2, nK: 3 }));
    assert.equal(lab.stationary.defined, false);
    assert.match(lab.stationary.reason, /square/);
    const sigma = singularValues(W);
    sigma.forEach((s, i) => near(lab.sigma[i], s, 1e-6, `sigma_${i + 1}`));
    assert.match(await page.textContent('#lab-spectral-pi-undefined'), /square/);
    await assertNoNaN('non-square');
  });

  test('one token: pi = 1, sigma = 1, drop-sink undefined', async () => {
    const base = await getState(page);
    const lab = await show(weightsState(base, [[[1]]]));
    assert.deepEqual(lab.stationary.pi, [1]);
    assert.deepEqual(lab.sigma, [1]);
    assert.equal(lab.effectiveRank, 1);
    assert.equal(lab.thresholdRank, 1);
    assert.equal(lab.redundancy.drop.cosine[0][0], null);
    assert.equal(await page.textContent('#lab-spectral-drop-cosine-r0-c0'), 'undefined');
    await page.locator('#lab-panel').screenshot({ path: screenshotPath('lab_spectral_one_token') });
    await assertNoNaN('one token');
  });
});

describe('in Chinese (#lang control): spectral on the two-head layer', () => {
  test('no English word outside data (tokens, head names) and formulas; most texts Chinese', async () => {
    const { bad, share } = await labViewInChinese(page, {
      view: 'spectral',
      preset: 'multihead',
      screenshot: screenshotPath('lab_spectral_zh'),
    });
    assert.deepEqual(bad, [], 'English words in the Chinese view');
    assert.ok(share > 0.3, `only ${(100 * share).toFixed(0)}% of the texts are Chinese`);
  });
});

describe('in Chinese: the reason pi is undefined', () => {
  test("worked example 1 (1 query x 2 keys): the core's reason worded in Chinese, no English outside data", async () => {
    const { bad, text } = await labViewInChinese(page, { view: 'spectral', preset: 'example1', text: '#lab-spectral-pi-undefined' });
    assert.deepEqual(bad, [], 'English words in the Chinese view');
    assert.equal(text, '未定义：A 是 1 × 2：平稳分布需要方阵（查询数 = 键数）。');
  });
});
