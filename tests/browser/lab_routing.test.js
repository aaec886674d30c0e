// Browser tests of the lab view "routing" (web/lab/routing.js over the core's lab_routing.cpp):
// support sets, the bound on the ignored output, the graph, tunnel vision and the regularisers on
// seed example 2 (numbers worked out by hand below), on GPT-2 small L0 (recomputed here in JS from
// web/data/real/gpt2-small_L0_nlp-sentence/attention.json), parameters typed into the view, an
// empty row and a 1-token state.
//
//   node --test tests/browser/lab_routing.test.js        (after the WASM build is in web/wasm)

import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { WEB, getResults, getState, near, screenshotPath, trySetState, sharedPage } from './harness.js';
import { labViewInChinese } from './lang_check.js';

const GPT2 = JSON.parse(readFileSync(`${WEB}data/real/gpt2-small_L0_nlp-sentence/attention.json`, 'utf8'));
const N = GPT2.tokens.length;
const LN2 = Math.log(2);

let page;
sharedPage('[routing] ', (p) => {
  page = p;
});

/** Sets a state and waits until the lab shows it (not the previous state's analysis). */
async function show(state) {
  const err = await trySetState(page, state);
  assert.equal(err, null, `setState failed: ${JSON.stringify(err)}`);
  await page
    .waitForFunction(
      ({ name, nQ }) => {
        const app = window.attentionPlayground;
        const lab = app.results()?.lab;
        return (
          app.getState().heads[0].name === name &&
          lab?.view === 'routing' &&
          lab.rows.length === nQ &&
          document.querySelectorAll('#lab-routing-graph .route-node').length >= nQ
        );
      },
      { name: state.heads[0].name, nQ: state.tokens.queries.length },
    )
    .catch(async (e) => {
      const seen = await page.evaluate(() => ({
        state: window.attentionPlayground.getState(),
        lab: window.attentionPlayground.results()?.lab,
        error: document.getElementById('lab-error').textContent,
        nodes: document.querySelectorAll('#lab-routing-graph .route-node').length,
      }));
      throw new Error(
        `${e.message}: the page shows ${JSON.stringify({ head: seen.state.heads[0].name, lab: seen.state.lab, rows: seen.lab?.rows?.length, error: seen.error, nodes: seen.nodes })}`,
      );
    });
  return (await getResults(page)).lab;
}

/** Changes one parameter through its input box and waits until the core has it. */
async function setParam(name, text, check) {
  await page.fill(`#lab-param-${name}`, text);
  await page.dispatchEvent(`#lab-param-${name}`, 'change');
  await page.waitForFunction(check);
  return (await getResults(page)).lab;
}

async function assertNoNaN(label) {
  const text = await page.textContent('#lab-panel');
  assert.ok(!/NaN|Infinity/.test(text), `${label}: the lab panel shows NaN or Infinity`);
}

/** Seed example 2 (MATH.md): causal logits (0), (0, ln 3), (ln 2, 0, 0), V = (2, 6, 10). */
function example2(base, params = {}) {
  return {
    ...base,
    mode: 'logits',
    heads: [
      {
        name: 'example 2',
        Q: null,
        K: null,
        V: [[2], [6], [10]],
        weights: null,
        logits: [
          [0, null, null],
          [0, Math.log(3), null],
          [Math.log(2), 0, 0],
        ],
      },
    ],
    head: 0,
    tokens: { queries: ['x1', 'x2', 'x3'], keys: ['x1', 'x2', 'x3'] },
    mask: { causal: true, window: 0, padding: [false, false, false], allow: null },
    tau: 1,
    row: 2,
    view: { ...base.view, preset: 'custom' },
    lab: { view: 'routing', params },
  };
}

describe('lab view "routing" on seed example 2', () => {
  let base;
  before(async () => {
    base = await getState(page);
  });

  test('S_t of row 2 (1/2, 1/4, 1/4): all 3 keys at delta 0.1, key 0 alone at delta 0.5, with the bound', async () => {
    let lab = await show(example2(base));
    // delta 0.1: need 0.9; {0} = 0.5, {0, 1} = 0.75 < 0.9, so all three keys (mass 1).
    assert.deepEqual(lab.rows[2].support, [0, 1, 2]);
    near(lab.rows[2].supportMass, 1, 1e-6, 'mass of S_2');
    // B = max |v_i| = 10: bound delta * B = 1; nothing is ignored.
    assert.equal(lab.valueBound, 10);
    near(lab.rows[2].boundDelta, 1, 1e-12, 'delta B');
    near(lab.rows[2].ignoredNorm, 0, 1e-12, 'ignored output');
    assert.equal((await getResults(page)).rows[2].support, 3, 'the row metric |S_t| agrees');
    assert.equal(await page.$$eval('#lab-routing-support li', (lis) => lis.length), 3);
    await page.locator('#lab-panel').screenshot({ path: screenshotPath('lab_routing_example2') });

    // delta 0.5 (typed into the view): need 0.5 -> key 0 (weight 1/2) alone. The ignored output
    // is 1/4 * 6 + 1/4 * 10 = 4 <= (1 - 1/2) * 10 = 5 = delta * B.
    lab = await setParam('delta', '0.5', () => window.attentionPlayground.results()?.lab?.delta === 0.5);
    assert.deepEqual(lab.rows[2].support, [0]);
    near(lab.rows[2].ignoredMass, 0.5, 1e-6, 'ignored mass');
    near(lab.rows[2].ignoredNorm, 4, 1e-6, 'ignored output');
    near(lab.rows[2].boundMass, 5, 1e-6, '(1 - mass) B');
    near(lab.rows[2].boundDelta, 5, 1e-12, 'delta B');
    // Row 1 (1/4, 3/4): key 1 alone; ignored 1/4 * 2 = 0.5.
    assert.deepEqual(lab.rows[1].support, [1]);
    near(lab.rows[1].ignoredNorm, 0.5, 1e-6, 'row 1 ignored output');
    const bound = await page.textContent('#lab-routing-bound');
    assert.match(bound, /= 4 ≤ \(1 − mass\)·B = 5 ≤ δ·B = 5/);
    assert.deepEqual(await page.$$eval('#lab-routing-support li', (lis) => lis.map((li) => li.dataset.key)), ['0']);
    assert.equal((await getState(page)).lab.params.delta, 0.5);
  });

  test('graph: 3 edges above 0.3 (1 at (0,0), 3/4 at (1,1), 1/2 at (2,0)), 6 above 0.2', async () => {
    let lab = await setParam('threshold', '0.3', () => window.attentionPlayground.results()?.lab?.threshold === 0.3);
    assert.equal(lab.graph.edgeCount, 3);
    assert.deepEqual(
      lab.graph.edges.map((e) => [e.query, e.key]),
      [
        [0, 0],
        [1, 1],
        [2, 0],
      ],
    );
    assert.equal(await page.$$eval('#lab-routing-graph .route-edge', (els) => els.length), 3);
    // The selected row's (row 2) edge is the highlighted one.
    assert.deepEqual(
      await page.$$eval('#lab-routing-graph .route-edge.selected', (els) => els.map((e) => [e.dataset.query, e.dataset.key])),
      [['2', '0']],
    );
    // N_eff per query (MATH.md example 2): 1, 1.754765351, 2.828427125, drawn under the nodes.
    near(lab.graph.queries[1].nEff, 1.754765351, 1e-6, 'N_eff row 1');
    near(lab.graph.queries[2].nEff, 2.828427125, 1e-6, 'N_eff row 2');
    const labels = await page.$$eval('#lab-routing-graph .route-neff', (els) => els.map((e) => e.textContent));
    assert.deepEqual(labels, ['1', '1.75', '2.83']);
    lab = await setParam('threshold', '0.2', () => window.attentionPlayground.results()?.lab?.threshold === 0.2);
    assert.equal(lab.graph.edgeCount, 6);
  });

  test('tunnel vision: row 1 (H_norm 0.8113 < alpha 0.9, uniform evidence 1 > 0.8) yes; evidence on one key: no', async () => {
    await trySetState(page, { ...example2(base, { tunnelAlpha: 0.9 }), row: 1 });
    await page.waitForFunction(
      () => window.attentionPlayground.results()?.lab?.tunnelAlpha === 0.9 && window.attentionPlayground.getState().row === 1,
    );
    let lab = (await getResults(page)).lab;
    assert.equal(lab.rows[1].tunnel.verdict, true);
    assert.equal(lab.rows[2].tunnel.verdict, false, 'row 2: H_norm 0.946 >= 0.9');
    assert.equal(lab.rows[0].tunnel.verdict, false, 'row 0: evidence over one key has H_norm 0');
    assert.equal(lab.tunnelRows, 1);
    const text = await page.textContent('#lab-routing-tunnel');
    assert.match(text, /Tunnel vision: yes/);
    assert.match(text, /0\.8113 < α = 0\.9/);
    assert.match(text, /1 > γ = 0\.8/);
    // beta typed as a list: evidence on key 0 only -> H_norm(beta) = 0 on every row -> no tunnel.
    lab = await setParam('beta', '1, 0, 0', () => window.attentionPlayground.results()?.lab?.betaUniform === false);
    assert.deepEqual(lab.beta, [1, 0, 0]);
    assert.equal(lab.tunnelRows, 0);
    assert.match(await page.textContent('#lab-routing-tunnel'), /Tunnel vision: no/);
    // beta (1, 1, 2): row 2's evidence (1/4, 1/4, 1/2): H = 1.5 ln 2, / ln 3 = 0.9463946304.
    lab = await setParam('beta', '1, 1, 2', () => window.attentionPlayground.results()?.lab?.beta?.[2] === 2);
    near(lab.rows[2].evidenceEntropy, (1.5 * LN2) / Math.log(3), 1e-12, 'H_norm(beta) row 2');
    near(lab.rows[2].evidenceEntropy, 0.9463946304, 1e-9, 'H_norm(beta) row 2 (MATH.md number)');
    // A wrong length is refused with a message; the button resets to uniform.
    await page.fill('#lab-param-beta', '1, 2');
    await page.dispatchEvent('#lab-param-beta', 'change');
    await page.waitForFunction(() => !document.getElementById('lab-error').hidden);
    assert.match(await page.textContent('#lab-error'), /beta/);
    await page.click('.lab-params button:has-text("uniform")');
    await page.waitForFunction(() => window.attentionPlayground.results()?.lab?.betaUniform === true);
  });

  test('regularisers: mean H, -mean H and mean (H - H*)^2 by hand', async () => {
    let lab = (await getResults(page)).lab;
    // Entropies 0, 0.5623351446, 1.039720771 (MATH.md): mean 0.5340186385;
    // H* = ln 2: ((0 - ln2)^2 + (0.5623351446 - ln2)^2 + (1.039720771 - ln2)^2) / 3 = 0.2058926854.
    const h = [0, 0.5623351446, 1.039720771];
    near(lab.regularisers.minimise, 0.5340186385, 1e-8, 'minimise');
    near(lab.regularisers.maximise, -0.5340186385, 1e-8, 'maximise');
    near(lab.regularisers.target, 0.2058926854, 1e-8, 'target ln 2');
    lab = await setParam('target', '1', () => window.attentionPlayground.results()?.lab?.target === 1);
    near(lab.regularisers.target, h.reduce((s, x) => s + (x - 1) ** 2, 0) / 3, 1e-8, 'target 1');
    const shown = await page.$eval('#lab-routing-regularisers tr[data-reg="target"] td[data-value]', (td) => Number(td.dataset.value));
    assert.equal(shown, lab.regularisers.target);
    await setParam('delta', '1', () => !document.getElementById('lab-error').hidden);
    assert.match(await page.textContent('#lab-error'), /^δ must be in \[0, 1\); 1 is outside it\. Keeping δ = /);
  });
});

describe('lab view "routing" on GPT-2 small L0H0 and small states', () => {
  test("GPT-2 L0H0: every row's S_t is the fewest largest weights reaching 0.9 (computed here)", async () => {
    const base = await getState(page);
    const lab = await show({
      ...base,
      mode: 'weights',
      heads: [{ name: 'L0H0', Q: null, K: null, V: null, logits: null, weights: GPT2.attention[0][0] }],
      head: 0,
      tokens: { queries: GPT2.tokens, keys: GPT2.tokens },
      mask: { causal: false, window: 0, padding: Array(N).fill(false), allow: null },
      tau: 1,
      row: 20,
      view: { ...base.view, preset: 'custom' },
      lab: { view: 'routing', params: {} },
    });
    const results = await getResults(page);
    let tunnels = 0;
    for (let t = 0; t < N; t++) {
      const w = GPT2.attention[0][0][t];
      const order = w
        .map((x, j) => [x, j])
        .filter(([x]) => x > 0)
        .sort((a, b) => b[0] - a[0] || a[1] - b[1]);
      const total = order.reduce((s, [x]) => s + x, 0);
      let acc = 0;
      const want = [];
      for (const [x, j] of order) {
        if (acc >= 0.9 * total) break;
        acc += x;
        want.push(j);
      }
      assert.deepEqual(lab.rows[t].support, want, `row ${t}: S_t`);
      assert.equal(lab.rows[t].supportSize, results.rows[t].support, `row ${t}: the row metric's |S_t|`);
      // Tunnel vision with uniform evidence: H_norm(a) < 0.3 and t >= 1 (uniform over t + 1 keys has H_norm 1 > 0.8).
      const p = w.slice(0, t + 1);
      const hn = t === 0 ? 0 : -p.reduce((s, x) => (x > 0 ? s + x * Math.log(x) : s), 0) / Math.log(t + 1);
      if (t >= 1 && hn < 0.3) tunnels++;
    }
    assert.equal(lab.tunnelRows, tunnels);
    // Edges: every visible weight > 0.1, counted from the file.
    const edges = GPT2.attention[0][0].flat().filter((x) => x > 0.1).length;
    assert.equal(lab.graph.edgeCount, edges);
    assert.equal(await page.$$eval('#lab-routing-graph .route-edge', (els) => els.length), edges);
    assert.match(await page.textContent('#lab-routing-bound'), /No value vectors/);
    await assertNoNaN('GPT-2');
    await page.locator('#lab-panel').screenshot({ path: screenshotPath('lab_routing_gpt2_L0H0') });
  });

  test('an empty row says undefined; a 1-token state and cross-attention draw', async () => {
    const base = await getState(page);
    let lab = await show({
      ...base,
      mode: 'weights',
      heads: [
        {
          name: 'H',
          Q: null,
          K: null,
          V: [
            [1, 0],
            [0, 1],
          ],
          logits: null,
          weights: [
            [0.7, 0.3],
            [0.5, 0.5],
          ],
        },
      ],
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
      lab: { view: 'routing', params: {} },
    });
    assert.equal(lab.rows[1].empty, true);
    assert.match(await page.textContent('#lab-routing-row'), /undefined/);
    await assertNoNaN('empty row');

    lab = await show({
      ...base,
      mode: 'weights',
      heads: [{ name: 'one', Q: null, K: null, V: null, logits: null, weights: [[1]] }],
      head: 0,
      tokens: { queries: ['x'], keys: ['x'] },
      mask: { causal: false, window: 0, padding: [false], allow: null },
      tau: 1,
      row: 0,
      view: { ...base.view, preset: 'custom' },
      lab: { view: 'routing', params: {} },
    });
    assert.deepEqual(lab.rows[0].support, [0]);
    assert.equal(lab.graph.edgeCount, 1);
    await assertNoNaN('1 token');

    // Cross-attention: 2 queries, 3 keys: two lines, straight edges.
    lab = await show({
      ...base,
      mode: 'weights',
      heads: [
        {
          name: 'cross',
          Q: null,
          K: null,
          V: null,
          logits: null,
          weights: [
            [0.2, 0.3, 0.5],
            [0.9, 0.05, 0.05],
          ],
        },
      ],
      head: 0,
      tokens: { queries: ['q1', 'q2'], keys: ['k1', 'k2', 'k3'] },
      mask: { causal: false, window: 0, padding: [false, false, false], allow: null },
      tau: 1,
      row: 0,
      view: { ...base.view, preset: 'custom' },
      lab: { view: 'routing', params: {} },
    });
    assert.equal(lab.graph.selfAttention, false);
    // Edges > 0.1 by hand: (0,0) 0.2, (0,1) 0.3, (0,2) 0.5, (1,0) 0.9 -> 4 (0.05 twice is below).
    assert.equal(lab.graph.edgeCount, 4);
    assert.equal(await page.$$eval('#lab-routing-graph line.route-edge', (els) => els.length), 4);
    await page.locator('#lab-panel').screenshot({ path: screenshotPath('lab_routing_cross') });
  });
});

describe('in Chinese (#lang control): routing width on a GPT-2 head', () => {
  test('no English word outside data (tokens, head names) and formulas; most texts Chinese', async () => {
    const { bad, share } = await labViewInChinese(page, {
      view: 'routing',
      preset: 'gpt2-small_L0_nlp-sentence.0',
      screenshot: screenshotPath('lab_routing_zh'),
    });
    assert.deepEqual(bad, [], 'English words in the Chinese view');
    assert.ok(share > 0.3, `only ${(100 * share).toFixed(0)}% of the texts are Chinese`);
  });
});
