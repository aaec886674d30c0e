// Browser tests of the lab view "sink" (web/lab/sink.js over the core's lab_sink.cpp): sink
// versus content on GPT-2 small layer 0 (all 12 heads, built here from
// web/data/real/gpt2-small_L0_nlp-sentence/attention.json, since the page's real presets load one
// head at a time), the MATH.md golden row, parameters typed into the view, an empty row and a
// 1-token state. Expected numbers are recomputed here in JS from the file (double precision), or
// come from MATH.md; never from the code under test.
//
//   node --test tests/browser/lab_sink.test.js        (after the WASM build is in web/wasm)

import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { WEB, choosePreset, getResults, getState, near, screenshotPath, trySetState, sharedPage } from './harness.js';
import { labViewInChinese } from './lang_check.js';

const GPT2 = JSON.parse(readFileSync(`${WEB}data/real/gpt2-small_L0_nlp-sentence/attention.json`, 'utf8'));
const N = GPT2.tokens.length; // 33

let page;
sharedPage('[sink] ', (p) => {
  page = p;
});

// ---- independent numerics (double precision, from the file) -------------------------------------

const entropy = (p) => -p.reduce((s, x) => (x > 0 ? s + x * Math.log(x) : s), 0);
const normalise = (a) => {
  const s = a.reduce((x, y) => x + y, 0);
  return a.map((x) => x / s);
};
/** Row t of head h as a probability vector over its t + 1 visible keys (the file is causal). */
const fileRow = (h, t) => normalise(GPT2.attention[0][h][t].slice(0, t + 1));
const content = (a) => normalise(a.slice(1));
function jsd(p, q) {
  let s = 0;
  for (let i = 0; i < p.length; i++) {
    const m = (p[i] + q[i]) / 2;
    if (p[i] > 0) s += 0.5 * p[i] * Math.log(p[i] / m);
    if (q[i] > 0) s += 0.5 * q[i] * Math.log(q[i] / m);
  }
  return s;
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
/** Mean over rows 1..N-1 (row 0 has s = 1: no content) of metric(rowP, rowQ), keep and drop. */
function headMean(metric, a, b) {
  let keep = 0;
  let drop = 0;
  for (let t = 1; t < N; t++) {
    keep += metric(fileRow(a, t), fileRow(b, t));
    drop += metric(content(fileRow(a, t)), content(fileRow(b, t)));
  }
  return { keep: keep / (N - 1), drop: drop / (N - 1) };
}
/** Flip count over all triples (R, P < Q) of 12 heads, as docs/lab.md defines it. */
function countFlips(metric, higherIsCloser) {
  const H = 12;
  const m = Array.from({ length: H }, () => Array(H).fill(null));
  for (let a = 0; a < H; a++) for (let b = a + 1; b < H; b++) m[a][b] = m[b][a] = headMean(metric, a, b);
  const verdict = (dp, dq) => {
    if (Math.abs(dp - dq) <= 1e-12) return 'tie';
    return (higherIsCloser ? dp > dq : dp < dq) ? 'p' : 'q';
  };
  let triples = 0;
  const flips = [];
  for (let r = 0; r < H; r++) {
    for (let p = 0; p < H; p++) {
      for (let q = p + 1; q < H; q++) {
        if (p === r || q === r) continue;
        triples++;
        const k = verdict(m[r][p].keep, m[r][q].keep);
        const d = verdict(m[r][p].drop, m[r][q].drop);
        if (k !== 'tie' && d !== 'tie' && k !== d) flips.push({ reference: r, p, q, keep: k, drop: d });
      }
    }
  }
  return { triples, flips };
}

/** A weights-mode state of the 12 heads of GPT-2 L0, built from the file. */
function gpt2State(base, lab, { head = 3, row = 12 } = {}) {
  return {
    ...base,
    mode: 'weights',
    heads: GPT2.attention[0].map((w, i) => ({ name: `L0H${i}`, Q: null, K: null, V: null, logits: null, weights: w })),
    head,
    tokens: { queries: GPT2.tokens, keys: GPT2.tokens },
    mask: { causal: false, window: 0, padding: Array(N).fill(false), allow: null },
    tau: 1,
    row,
    view: { ...base.view, preset: 'custom' },
    source: 'GPT-2 small layer 0, 12 heads (test)',
    lab,
  };
}

/** Sets a state and waits until the lab view has drawn `selector`. */
async function show(state, selector) {
  const err = await trySetState(page, state);
  assert.equal(err, null, `setState failed: ${JSON.stringify(err)}`);
  // Wait for this state's analysis, drawn (not the previous state's).
  await page.waitForFunction(
    ({ names, nQ, selector }) => {
      const app = window.attentionPlayground;
      const lab = app.results()?.lab;
      return (
        JSON.stringify(app.getState().heads.map((x) => x.name)) === JSON.stringify(names) &&
        lab?.view === 'sink' &&
        lab.rows.length === nQ &&
        lab.heads.length === names.length &&
        document.querySelectorAll('#lab-sink-rows tbody tr').length === nQ &&
        document.querySelector(selector) !== null
      );
    },
    { names: state.heads.map((x) => x.name), nQ: state.tokens.queries.length, selector },
  );
  return (await getResults(page)).lab;
}

/** No "NaN" or "Infinity" anywhere in the lab panel's text. */
async function assertNoNaN(label) {
  const text = await page.textContent('#lab-panel');
  assert.ok(!/NaN|Infinity/.test(text), `${label}: the lab panel shows NaN or Infinity`);
}

describe('lab view "sink" on GPT-2 small layer 0 (12 heads from the file)', () => {
  let base;
  let lab;
  before(async () => {
    base = await getState(page);
    lab = await show(gpt2State(base, { view: 'sink', params: { compareHead: 5 } }), '#lab-sink-rows');
  });

  test('each row: s, h(s), H(c), (1-s)H(c) and H agree with the file; the identity holds to 1e-12', () => {
    assert.equal(lab.rows.length, N);
    assert.equal(lab.rows[0].contentDefined, false, 'row 0: s = 1, c undefined');
    assert.equal(lab.rows[0].contentEntropy, null);
    for (let t = 1; t < N; t++) {
      const a = fileRow(3, t);
      const s = a[0];
      const r = lab.rows[t];
      near(r.sinkMass, s, 1e-6, `row ${t} s`);
      near(r.sinkEntropy, entropy([s, 1 - s]), 1e-6, `row ${t} h(s)`);
      near(r.contentEntropy, entropy(content(a)), 1e-5, `row ${t} H(c)`);
      near(r.contentTerm, (1 - s) * entropy(content(a)), 1e-5, `row ${t} (1-s)H(c)`);
      near(r.entropy, entropy(a), 1e-5, `row ${t} H`);
      assert.ok(Math.abs(r.sinkEntropy + r.contentTerm - r.entropy) <= 1e-12, `row ${t}: identity residual`);
      assert.ok(Math.abs(r.residual) <= 1e-12, `row ${t}: reported residual`);
    }
    // Head means: mean H = mean h(s) + mean (1-s)H(c), and mean H from the file (33 rows).
    for (const x of lab.heads) {
      assert.ok(Math.abs(x.meanSinkEntropy + x.meanContentTerm - x.meanEntropy) <= 1e-12, `head ${x.head}: mean identity`);
      let mean = 0;
      for (let t = 0; t < N; t++) mean += entropy(fileRow(x.head, t)) / N;
      near(x.meanEntropy, mean, 1e-5, `head ${x.head} mean H`);
    }
  });

  test("the page shows each row's numbers and a stacked bar", async () => {
    const cells = await page.$$eval('#lab-sink-rows tbody tr', (trs) =>
      trs.map((tr) => ({
        row: Number(tr.dataset.row),
        values: [...tr.querySelectorAll('td[data-value]')].map((td) => td.dataset.value),
        bars: tr.querySelectorAll('.sink-seg').length,
        text: tr.textContent,
      })),
    );
    assert.equal(cells.length, N);
    assert.match(cells[0].text, /undefined \(s = 1\)/, 'row 0 says H(c) is undefined');
    for (let t = 1; t < N; t++) {
      assert.equal(Number(cells[t].values[0]), lab.rows[t].sinkMass, `row ${t}: s shown`);
      assert.ok(cells[t].bars >= 1, `row ${t}: a bar`);
    }
    await assertNoNaN('GPT-2');
  });

  test('pair (L0H3, L0H5): mean JSD and cosine, keep and drop, recomputed from the file', () => {
    const pair = lab.pairs.find((p) => p.a === 3 && p.b === 5);
    assert.ok(pair, 'pair 3-5 listed');
    assert.equal(pair.rows, N - 1);
    const j = headMean(jsd, 3, 5);
    const c = headMean(cosine, 3, 5);
    near(pair.jsd.keep, j.keep, 1e-5, 'JSD keep');
    near(pair.jsd.drop, j.drop, 1e-5, 'JSD drop');
    near(pair.cosine.keep, c.keep, 1e-5, 'cosine keep');
    near(pair.cosine.drop, c.drop, 1e-5, 'cosine drop');
    assert.equal(lab.pairs.length, 66);
    // Aitchison: defined on rows 1..32; the squares split exactly.
    assert.equal(pair.aitchison.rows, N - 1);
    assert.match(pair.aitchison.reason, /row 0/);
    near(pair.aitchison.sinkSq + pair.aitchison.contentSq, pair.aitchison.distanceSq, 1e-9 * pair.aitchison.distanceSq, 'Aitchison split');
  });

  test('flips: the same triples flip in an independent JS computation (JSD and cosine)', async () => {
    for (const [key, metric, higher] of [
      ['jsd', jsd, false],
      ['cosine', cosine, true],
    ]) {
      const want = countFlips(metric, higher);
      const got = lab.flips[key];
      assert.equal(got.triples, want.triples, `${key}: triples`);
      assert.equal(want.triples, 660);
      assert.equal(got.count, want.flips.length, `${key}: number of flips`);
      assert.ok(got.count > 0, `${key}: GPT-2 L0 has flips (this test would be vacuous otherwise)`);
      assert.deepEqual(got.list.slice(0, 500), want.flips.slice(0, 500), `${key}: the listed flips`);
    }
    // In words on the page, for the selected head as the reference.
    const mine = lab.flips.jsd.list.filter((x) => x.reference === 3);
    assert.ok(mine.length > 0);
    const x = mine[0];
    const [near1, far1] = x.keep === 'p' ? [x.p, x.q] : [x.q, x.p];
    const sentence = `keep-sink: L0H3 closer to L0H${near1} than to L0H${far1}; drop-sink: the reverse`;
    const shown = await page.$$eval('.flip-block[data-metric="jsd"] > ul.flip-list li', (lis) => lis.map((li) => li.textContent));
    assert.ok(shown.includes(sentence), `the page lists "${sentence}"; it shows ${JSON.stringify(shown.slice(0, 3))}`);
    const summary = await page.textContent('.flip-block[data-metric="jsd"] p');
    assert.match(summary, new RegExp(`${lab.flips.jsd.count} of 660 triples flip`));
  });

  test('attribution tau 1 -> 2: totals and the Shapley split from the file', async () => {
    const a = lab.attribution.tau;
    assert.equal(a.from, 1);
    assert.equal(a.to, 2);
    assert.equal(a.rows, N - 1);
    let total = 0;
    let sinkShapley = 0;
    for (let t = 1; t < N; t++) {
      const r1 = fileRow(3, t);
      const r2 = normalise(r1.map((x) => Math.sqrt(x))); // a^(1/tau) renormalised, tau = 2
      const [s1, s2] = [r1[0], r2[0]];
      const [hc1, hc2] = [entropy(content(r1)), entropy(content(r2))];
      total += entropy(r2) - entropy(r1);
      sinkShapley += entropy([s2, 1 - s2]) - entropy([s1, 1 - s1]) + ((s1 - s2) * (hc1 + hc2)) / 2;
    }
    near(a.mean.total, total / (N - 1), 1e-5, 'mean entropy change');
    near(a.mean.shapley.sink, sinkShapley / (N - 1), 1e-5, 'Shapley sink part');
    for (const k of ['termwise', 'sinkFirst', 'contentFirst', 'shapley']) {
      near(a.mean[k].sink + a.mean[k].content, a.mean.total, 1e-12, `${k} sums to the total`);
    }
    // The head comparison goes to compareHead = 5.
    assert.equal(lab.attribution.head.to, 5);
    const shown = await page.$eval('#lab-sink-attr-tau tr[data-split="shapley"] td[data-value]', (td) => Number(td.dataset.value));
    assert.equal(shown, a.mean.shapley.sink);
  });

  test('parameters from the view: sink keys, compare head, compare tau; a bad value is reported', async () => {
    await page.fill('#lab-param-sinkKeys', '2');
    await page.dispatchEvent('#lab-param-sinkKeys', 'change');
    await page.waitForFunction(() => window.attentionPlayground.results()?.lab?.sinkKeys === 2);
    assert.equal((await getState(page)).lab.params.sinkKeys, 2);
    let l = (await getResults(page)).lab;
    // Two sink keys: s = a0 + a1, and H = h(s) + s H(sigma) + (1-s) H(c) on every row.
    for (let t = 2; t < N; t++) {
      const a = fileRow(3, t);
      near(l.rows[t].sinkMass, a[0] + a[1], 1e-6, `row ${t}: s with 2 sink keys`);
      assert.ok(Math.abs(l.rows[t].sinkEntropy + l.rows[t].sinkSpreadTerm + l.rows[t].contentTerm - l.rows[t].entropy) <= 1e-12);
    }
    assert.ok(await page.$('#lab-sink-rows th:nth-child(5)'), 'a column for s·H(σ)');
    await page.selectOption('#lab-param-compareHead', '-1');
    await page.waitForFunction(() => window.attentionPlayground.results()?.lab?.compareHead === -1);
    l = (await getResults(page)).lab;
    assert.equal(l.compare, null);
    assert.equal(l.attribution.head, null);
    assert.equal(await page.$('#lab-sink-attr-head'), null);
    // Below the box's range: refused by the box, worded, nothing sent.
    await page.fill('#lab-param-compareTau', '-1');
    await page.dispatchEvent('#lab-param-compareTau', 'change');
    await page.waitForFunction(() => !document.getElementById('lab-error').hidden);
    assert.match(await page.textContent('#lab-error'), /^compare at τ must be in \[0, ∞\); -1 is outside it\. Keeping compare at τ = /);
    assert.equal((await getResults(page)).lab.compareHead, -1, 'the lab kept its numbers');
    // Above the core's limit (no box limit): the core refuses, in the same place.
    await page.fill('#lab-param-compareTau', '2000');
    await page.dispatchEvent('#lab-param-compareTau', 'change');
    await page.waitForFunction(() => document.getElementById('lab-error').textContent.includes('compareTau'));
    await page.fill('#lab-param-compareTau', '0.5');
    await page.dispatchEvent('#lab-param-compareTau', 'change');
    await page.waitForFunction(() => window.attentionPlayground.results()?.lab?.compareTau === 0.5);
    await page.locator('#lab-panel').screenshot({ path: screenshotPath('lab_sink_gpt2_two_sink_keys') });
  });

  test('in Chinese (#lang control): sink and patterns of the 12 heads, no English word outside data and formulas', async () => {
    for (const view of ['sink', 'patterns']) {
      const { bad, share } = await labViewInChinese(page, { view, screenshot: screenshotPath(`lab_${view}_gpt2_zh`) });
      assert.deepEqual(bad, [], `English words in the Chinese ${view} view`);
      assert.ok(share > 0.3, `${view}: only ${(100 * share).toFixed(0)}% of the texts are Chinese`);
    }
    await page.click('#lab-tab-sink');
    await page.waitForFunction(() => window.attentionPlayground.results()?.lab?.view === 'sink');
  });
});

describe('lab view "sink" on small states', () => {
  test('the MATH.md row [0.6, 0.1, 0.1, 0.15, 0.05] is shown with its split', async () => {
    const base = await getState(page);
    const lab = await show(
      {
        ...base,
        mode: 'weights',
        heads: [{ name: 'golden', Q: null, K: null, V: null, logits: null, weights: [[0.6, 0.1, 0.1, 0.15, 0.05]] }],
        head: 0,
        tokens: { queries: ['q'], keys: ['k0', 'k1', 'k2', 'k3', 'k4'] },
        mask: { causal: false, window: 0, padding: Array(5).fill(false), allow: null },
        tau: 1,
        row: 0,
        view: { ...base.view, preset: 'custom' },
        lab: { view: 'sink', params: {} },
      },
      '#lab-sink-rows',
    );
    // MATH.md: s = 0.6, H = 1.201367004 = 0.673011667 + 0.4 x 1.320888343.
    const r = lab.rows[0];
    near(r.sinkMass, 0.6, 1e-7, 's');
    near(r.entropy, 1.201367004, 1e-6, 'H');
    near(r.sinkEntropy, 0.673011667, 1e-6, 'h(s)');
    near(r.contentEntropy, 1.320888343, 1e-6, 'H(c)');
    near(r.contentTerm, 0.4 * 1.320888343, 1e-6, '(1-s)H(c)');
    const text = await page.textContent('#lab-sink-rows');
    assert.match(text, /1\.201/);
    assert.match(text, /0\.673/);
    assert.match(await page.textContent('#lab-view'), /One head: no other head/);
    await assertNoNaN('golden');
  });

  test('an empty row says undefined; a 1-token state does not crash', async () => {
    const base = await getState(page);
    // Row 1 of this head sees no key (mask.allow): an empty row.
    let lab = await show(
      {
        ...base,
        mode: 'weights',
        heads: [0, 1].map((i) => ({
          name: `H${i}`,
          Q: null,
          K: null,
          V: null,
          logits: null,
          weights: [
            [0.7, 0.3],
            [0.5, 0.5],
          ],
        })),
        head: 0,
        tokens: { queries: ['a', 'b'], keys: ['a', 'b'] },
        mask: {
          causal: false,
          window: 0,
          padding: [false, false],
          allow: [
            [true, true],
            [false, false],
          ],
        },
        tau: 1,
        row: 1,
        view: { ...base.view, preset: 'custom' },
        lab: { view: 'sink', params: {} },
      },
      '#lab-sink-rows',
    );
    assert.equal(lab.rows[1].empty, true);
    assert.equal(lab.rows[1].entropy, null);
    assert.match(await page.textContent('#lab-sink-rows tr[data-row="1"]'), /undefined/);
    await assertNoNaN('empty row');
    await page.locator('#lab-panel').screenshot({ path: screenshotPath('lab_sink_empty_row') });

    lab = await show(
      {
        ...base,
        mode: 'weights',
        heads: [{ name: 'one', Q: null, K: null, V: null, logits: null, weights: [[1]] }],
        head: 0,
        tokens: { queries: ['x'], keys: ['x'] },
        mask: { causal: false, window: 0, padding: [false], allow: null },
        tau: 1,
        row: 0,
        view: { ...base.view, preset: 'custom' },
        lab: { view: 'sink', params: {} },
      },
      '#lab-sink-rows',
    );
    assert.equal(lab.rows[0].sinkMass, 1);
    assert.equal(lab.attribution.tau.rows, 0);
    assert.match(await page.textContent('#lab-sink-attr-tau'), /undefined/);
    await assertNoNaN('1 token');
  });

  test('the real preset (one head) opens in the sink tab', async () => {
    await choosePreset(page, 'gpt2-small_L0_nlp-sentence.0');
    await page.click('#lab-tab-sink');
    await page.waitForFunction(() => window.attentionPlayground.results()?.lab?.view === 'sink');
    await page.waitForSelector('#lab-sink-rows');
    const lab = (await getResults(page)).lab;
    // Head L0H0 row 5 from the file.
    const a = fileRow(0, 5);
    near(lab.rows[5].sinkMass, a[0], 1e-6, 'preset head 0 row 5 s');
    near(lab.rows[5].entropy, entropy(a), 1e-5, 'preset head 0 row 5 H');
    await assertNoNaN('preset');
    await page.locator('#lab-panel').screenshot({ path: screenshotPath('lab_sink_preset') });
  });
});
