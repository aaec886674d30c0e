// Browser tests of the lab view "normalisers" (web/lab/normalisers.js over the core's
// lab_normalisers.cpp). Expected numbers: sparsemax and alpha-entmax recomputed here in JS from
// the scores results() reports (a sort-based sparsemax and a bisection entmax written in this
// file, double precision), softmax from results().weights, and the MATH.md golden rows (sparsemax
// [1, 0.8, 0.1] -> (0.6, 0.4, 0), 1.5-entmax -> (0.5292478943, 0.3937490429, 0.0770030628));
// never from the code under test. Also: alpha typed and slid, an out-of-range alpha refused with
// a message, an empty row and a 1-token state (no NaN on screen), one screenshot per case.
//
//   node --test tests/browser/lab_normalisers.test.js        (after the WASM build is in web/wasm)

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { choosePreset, getResults, getState, near, screenshotPath, trySetState, typeInto, sharedPage } from './harness.js';
import { labViewInChinese } from './lang_check.js';

const GPT2 = 'gpt2-small_L0_nlp-sentence.0';

let page;
sharedPage('[normalisers] ', (p) => {
  page = p;
});

// ---- independent numerics ----------------------------------------------------------------------

/** Sparsemax of z (null = masked) by sorting: k* = max{k : 1 + k z_(k) > sum_{j<=k} z_(j)}. */
function sparsemax(z) {
  const live = z.filter((x) => x !== null).sort((a, b) => b - a);
  let cum = 0;
  let theta = 0;
  live.forEach((x, i) => {
    cum += x;
    if (1 + (i + 1) * x > cum) theta = (cum - 1) / (i + 1);
  });
  return z.map((x) => (x === null ? null : Math.max(x - theta, 0)));
}

/** alpha-entmax of z (null = masked) by 200 halvings of the threshold, renormalised. */
function entmax(z, alpha) {
  const x = z.map((v) => (v === null ? null : (alpha - 1) * v));
  const live = x.filter((v) => v !== null);
  let lo = Math.min(...live) - 1;
  let hi = Math.max(...live);
  const f = (t) => live.reduce((s, v) => s + (v > t ? (v - t) ** (1 / (alpha - 1)) : 0), 0);
  for (let i = 0; i < 200; i++) {
    const mid = (lo + hi) / 2;
    if (f(mid) > 1) lo = mid;
    else hi = mid;
  }
  const p = x.map((v) => (v === null ? null : v > lo ? (v - lo) ** (1 / (alpha - 1)) : 0));
  const s = p.reduce((a, b) => a + (b ?? 0), 0);
  return p.map((v) => (v === null ? null : v / s));
}

const entropy = (p) => -p.reduce((s, x) => (x > 0 ? s + x * Math.log(x) : s), 0);

/** The scores z = S/tau of row i as results() reports them (null = not visible). */
async function zOfRow(i) {
  const r = await getResults(page);
  const { tau } = await getState(page);
  return r.scores[i].map((s, j) => (r.visible[i][j] ? s / tau : null));
}

/** The weights the view shows for normaliser `kind` in the selected row (null = masked / not shown). */
function shown(kind, n) {
  return page.evaluate(
    ({ kind, n }) =>
      Array.from({ length: n }, (_, j) => {
        const el = document.getElementById(`lab-norm-${kind}-k${j}`);
        return el && el.dataset.value !== '' ? Number(el.dataset.value) : null;
      }),
    { kind, n },
  );
}

async function openView() {
  await page.click('#lab-tab-normalisers');
  await page.waitForSelector('#lab-norm-sparsemax');
}

/** Waits until the view shows the lab result for alpha `a`. */
const waitAlpha = (a) =>
  page.waitForFunction(
    (want) =>
      window.attentionPlayground.results()?.lab?.alpha === want &&
      document.getElementById('lab-norm-alpha')?.value === String(want) &&
      // the view drawn for it (the lab view is drawn after the results are in, and in place)
      document.getElementById('lab-view')?.textContent.includes(`α = ${want}`),
    a,
  );

const noNaNOnScreen = async (what) => {
  const text = await page.textContent('#lab-view');
  assert.ok(!/NaN|Infinity/.test(text), `${what}: the view shows NaN or Infinity`);
};

/** A logits state with the given rows (null = masked cell), lab view normalisers. */
async function logitsState(logits, { row = 0, alpha, padding } = {}) {
  const s = await getState(page);
  const nK = logits[0].length;
  s.mode = 'logits';
  s.heads = [{ name: 'test', Q: null, K: null, V: null, logits, weights: null }];
  s.head = 0;
  s.tokens = { queries: logits.map((_, i) => `q${i}`), keys: Array.from({ length: nK }, (_, j) => `k${j}`) };
  s.mask = { causal: false, window: 0, padding: padding ?? Array(nK).fill(false), allow: null };
  s.tau = 1;
  s.row = row;
  s.lab = { view: 'normalisers', params: alpha === undefined ? {} : { alpha } };
  s.view = { ...s.view, preset: 'custom' };
  return s;
}

describe('lab normalisers', () => {
  test('GPT-2 layer 0: the selected row and every row agree with sparsemax and entmax computed here', async () => {
    await choosePreset(page, GPT2);
    await openView();
    const state = await getState(page);
    const r = await getResults(page);
    const n = r.nK;
    const z = await zOfRow(state.row);

    const sp = sparsemax(z);
    const domSp = await shown('sparsemax', n);
    const domEnt = await shown('entmax', n);
    const domSoft = await shown('softmax', n);
    for (let j = 0; j < n; j++) {
      if (z[j] === null) {
        assert.equal(domSp[j], null, `masked key ${j} shows a sparsemax weight`);
        continue;
      }
      near(domSp[j], sp[j], 1e-9, `sparsemax weight of key ${j}`);
      near(domSoft[j], r.weights[state.row][j], 0, `softmax weight of key ${j}`);
    }
    const ent = entmax(z, 1.5);
    for (let j = 0; j < n; j++) if (z[j] !== null) near(domEnt[j], ent[j], 1e-8, `1.5-entmax weight of key ${j}`);
    const zeros = sp.filter((x) => x === 0).length;
    assert.ok(zeros > 0, 'the GPT-2 row chosen has no sparsemax zero: the test would not see one');
    assert.equal(Number(await page.getAttribute('#lab-norm-sparsemax-zeros', 'data-value')), zeros, 'sparsemax exact zeros');
    near(Number(await page.getAttribute('#lab-norm-sparsemax-entropy', 'data-value')), entropy(sp), 1e-9, 'sparsemax entropy');
    near(Number(await page.getAttribute('#lab-norm-softmax-entropy', 'data-value')), r.rows[state.row].entropy, 1e-6, 'softmax entropy');

    // Every row of the table: exact zeros and entropy of sparsemax and 1.5-entmax.
    const table = await page.$$eval('#lab-norm-rows tbody tr', (trs) =>
      trs.map((tr) => Array.from(tr.querySelectorAll('td'), (td) => td.dataset.value)),
    );
    assert.equal(table.length, r.nQ, 'one table row per query');
    for (let i = 0; i < r.nQ; i++) {
      const zi = r.scores[i].map((s, j) => (r.visible[i][j] ? s / state.tau : null));
      const spi = sparsemax(zi);
      const enti = entmax(zi, 1.5);
      const vis = zi.filter((x) => x !== null).length;
      // columns: visible, softmax H, zeros, sparsemax H, zeros, entmax H, zeros
      assert.equal(Number(table[i][0]), vis, `row ${i} visible`);
      assert.equal(Number(table[i][4]), spi.filter((x) => x === 0).length, `row ${i} sparsemax zeros`);
      near(Number(table[i][3]), entropy(spi), 1e-9, `row ${i} sparsemax entropy`);
      assert.equal(Number(table[i][6]), enti.filter((x) => x !== null && x < 1e-300).length, `row ${i} 1.5-entmax zeros`);
      near(Number(table[i][5]), entropy(enti), 1e-8, `row ${i} 1.5-entmax entropy`);
      assert.equal(Number(table[i][2]), 0, `row ${i}: softmax has no exact zero here`);
    }
    await noNaNOnScreen('GPT-2');
    await page.locator('#lab-panel').screenshot({ path: screenshotPath('lab-normalisers-gpt2') });
  });

  test('alpha: typed 2 gives sparsemax, slid to 1 gives softmax, 1.7 matches bisection here, 5 is refused with a message', async () => {
    await choosePreset(page, GPT2);
    await openView();
    const state = await getState(page);
    const n = (await getResults(page)).nK;
    const z = await zOfRow(state.row);

    await typeInto(page, '#lab-norm-alpha', '2');
    await waitAlpha(2);
    assert.equal((await getState(page)).lab.params.alpha, 2, 'alpha is not in the state');
    const sp = sparsemax(z);
    (await shown('entmax', n)).forEach((w, j) => {
      if (z[j] !== null) near(w, sp[j], 1e-12, `alpha 2, key ${j}`);
    });

    await page.$eval('#lab-norm-alpha-slider', (el) => {
      el.value = '1';
      el.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await waitAlpha(1);
    const soft = (await getResults(page)).weights[state.row];
    (await shown('entmax', n)).forEach((w, j) => {
      if (z[j] !== null) near(w, soft[j], 1e-6, `alpha 1, key ${j}`);
    });

    await typeInto(page, '#lab-norm-alpha', '1.7');
    await waitAlpha(1.7);
    const e17 = entmax(z, 1.7);
    (await shown('entmax', n)).forEach((w, j) => {
      if (z[j] !== null) near(w, e17[j], 1e-8, `alpha 1.7, key ${j}`);
    });
    assert.match(await page.textContent('#lab-norm-title'), /bisection/);

    await typeInto(page, '#lab-norm-alpha', '5');
    await page.waitForSelector('#lab-error:not([hidden])');
    assert.equal(
      (await page.textContent('#lab-error')).trim(),
      'entmax α must be in [1, 4]; 5 is outside it. Keeping entmax α = 1.7.',
      'the box refuses an alpha out of range',
    );
    assert.equal((await getResults(page)).lab.alpha, 1.7, 'the lab keeps the alpha in effect');
    assert.equal((await getState(page)).lab.params.alpha, 1.7, 'the state keeps the alpha in effect');
    // A valid value again: the view recovers.
    await typeInto(page, '#lab-norm-alpha', '2');
    await waitAlpha(2);
    assert.equal(await page.isHidden('#lab-error'), true, 'the error stays after a valid alpha');
  });

  test('MATH.md golden row, a masked key and an empty row', async () => {
    const s = await logitsState([
      [1, 0.8, 0.1],
      [0.5, null, 1.0],
      [null, null, null],
    ]);
    assert.equal(await trySetState(page, s), null);
    await page.waitForSelector('#lab-norm-sparsemax');
    const golden = { sparsemax: [0.6, 0.4, 0], entmax: [0.5292478943, 0.3937490429, 0.0770030628] };
    for (const [kind, want] of Object.entries(golden)) {
      const got = await shown(kind, 3);
      want.forEach((w, j) => near(got[j], w, 1e-6, `${kind} key ${j}`)); // float32 logits
    }
    assert.equal(await page.textContent('#lab-norm-sparsemax-k2'), '0', 'the exact zero is not written as 0');

    s.row = 1;
    assert.equal(await trySetState(page, s), null);
    await page.waitForFunction(() => window.attentionPlayground.results()?.lab?.row === 1);
    // results().lab is set before the view's module is awaited and the view drawn
    // (web/page/render.js); a CI run read row 0's weights here. Wait for the drawn row 1.
    await page.waitForFunction(() => document.getElementById('lab-norm-sparsemax-k1')?.dataset.value === '');
    const sp = await shown('sparsemax', 3);
    near(sp[0], 0.25, 1e-6, 'masked row key 0');
    assert.equal(sp[1], null, 'the masked key shows a weight');
    near(sp[2], 0.75, 1e-6, 'masked row key 2');
    assert.equal(await page.textContent('#lab-norm-sparsemax-k1'), 'masked');

    s.row = 2;
    assert.equal(await trySetState(page, s), null);
    await page.waitForSelector('#lab-norm-empty');
    for (const kind of ['softmax', 'sparsemax', 'entmax']) {
      assert.equal(await page.textContent(`#lab-norm-${kind}-entropy`), 'undefined', `${kind} entropy of the empty row`);
    }
    const emptyRow = await page.$eval('#lab-norm-rows tbody tr[data-row="2"]', (tr) => tr.textContent);
    assert.match(emptyRow, /undefined/);
    await noNaNOnScreen('empty row');
    await page.locator('#lab-panel').screenshot({ path: screenshotPath('lab-normalisers-empty-row') });
  });

  test('a 1-token state: every normaliser gives weight 1 and entropy 0', async () => {
    const s = await logitsState([[0.3]], { alpha: 1.3 });
    assert.equal(await trySetState(page, s), null);
    await page.waitForFunction(() => window.attentionPlayground.results()?.lab?.alpha === 1.3);
    for (const kind of ['softmax', 'sparsemax', 'entmax']) {
      assert.deepEqual(await shown(kind, 1), [1], `${kind} weight`);
      assert.equal(Number(await page.getAttribute(`#lab-norm-${kind}-entropy`, 'data-value')), 0, `${kind} entropy`);
    }
    await noNaNOnScreen('1 token');
    await page.locator('#lab-panel').screenshot({ path: screenshotPath('lab-normalisers-one-token') });
  });
});

describe('in Chinese (#lang control): normalisers on a GPT-2 head', () => {
  test('no English word outside data (tokens, head names) and formulas; most texts Chinese', async () => {
    const { bad, share } = await labViewInChinese(page, {
      view: 'normalisers',
      preset: 'gpt2-small_L0_nlp-sentence.0',
      screenshot: screenshotPath('lab_normalisers_zh'),
    });
    assert.deepEqual(bad, [], 'English words in the Chinese view');
    assert.ok(share > 0.3, `only ${(100 * share).toFixed(0)}% of the texts are Chinese`);
  });
});
