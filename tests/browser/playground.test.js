// Browser tests of the Attention Playground: the real page (web/) served by scripts/serve.js, in
// the Debian Chromium driven by playwright-core. Numbers are read back from the DOM (data-value
// attributes of heatmap cells, metrics and output cells) and from window.attentionPlayground.
// results(), and checked against the golden values of MATH.md (computed independently of the
// code) or against softmax / entropy / A V computed here in JS.
//
//   bash scripts/build.sh                                   (once: web/wasm and web/vendor)
//   node --test --test-concurrency=1 tests/browser/
//
// Screenshots (one full page per preset) go to test-results/screenshots/ (gitignored).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  WEB,
  choosePreset,
  getResults,
  getState,
  near,
  openPage,
  readMatrix,
  readMetrics,
  screenshotPath,
  shareUrl,
  softmax,
  startSession,
  trySetState,
  typeInto,
} from './harness.js';
import { ROW_METRICS } from '../node/metrics.js';

const LESSON = ['example1', 'example2', 'selfattention', 'multihead', 'lessonGuided', 'lessonSweep', 'lessonSensitivity'];
const LARGE = ['long512']; // drawn as an overview, not cell by cell: tests/browser/large.test.js
const GPT2_L0 = 'gpt2-small_L0_nlp-sentence';
const XSS = '"><img src=x onerror=alert(1)>';

let session;
let page; // the main page, shared by the tests below (each one starts by choosing its preset)
let defaultState; // the state a fresh page shows (example 1)

before(async () => {
  session = await startSession();
  ({ page } = await openPage(session, '', { label: '[main] ' }));
  defaultState = await getState(page);
});

after(async () => {
  await session?.close();
});

const entropy = (a) => -a.reduce((s, x) => (x > 0 ? s + x * Math.log(x) : s), 0);
const rowSum = (a) => a.reduce((s, x) => s + x, 0);

/** Chooses row `i` in the #row select (change event) and waits for it. */
async function chooseRow(p, i) {
  await p.selectOption('#row', String(i));
  await p.waitForFunction((want) => window.attentionPlayground.getState().row === want, i);
}

/** Every number the page shows agrees exactly with results() (the DOM writes String(x)). */
async function assertDomMatchesResults(p, label) {
  const r = await getResults(p);
  const state = await getState(p);
  assert.ok(r, `${label}: results() is null`);
  for (const id of ['scores', 'weights']) {
    const dom = await readMatrix(p, id, r.nQ, r.nK);
    for (let i = 0; i < r.nQ; i++) {
      for (let j = 0; j < r.nK; j++) {
        const where = `${label}: ${id} cell (${i}, ${j})`;
        if (r.visible[i][j]) {
          assert.equal(dom.masked[i][j], false, `${where} is visible but marked masked`);
          assert.equal(dom.values[i][j], r[id][i][j], `${where}: DOM ${dom.values[i][j]} vs results ${r[id][i][j]}`);
        } else {
          assert.equal(dom.masked[i][j], true, `${where} is not visible but not marked masked`);
          assert.equal(dom.values[i][j], null, `${where} is masked but shows a value`);
          if (id === 'weights') assert.equal(r.weights[i][j], 0, `${where}: masked weight in results() is not 0`);
          else assert.equal(r.scores[i][j], null, `${where}: masked score in results() is not null`);
        }
      }
    }
  }
  if (r.dV > 0) {
    const out = await readMatrix(p, 'output', r.nQ, r.dV);
    assert.deepEqual(out.values, r.output, `${label}: output table differs from results().output`);
  }
  const m = await readMetrics(p);
  const want = r.rows[state.row];
  for (const { key } of ROW_METRICS) {
    assert.equal(m[key], want[key], `${label}: #metric-${key} shows ${m[key]}, results() row ${state.row} has ${want[key]}`);
    assert.notEqual(m[`${key}Text`], '', `${label}: #metric-${key} shows no text`);
  }
  return r;
}

// ------------------------------------------------------------------------------------------------

test('the page loads with no console errors, page errors or failed requests', async () => {
  assert.equal(await page.isVisible('#app'), true, '#app is not shown');
  assert.equal(await page.isHidden('#loading'), true, '#loading is still shown');
  assert.equal(await page.isHidden('#banner'), true, `a banner is shown on a plain load: ${await page.textContent('#banner')}`);
  assert.equal(defaultState.view.preset, 'example1');
  assert.ok(await getResults(page), 'results() is null after ready');
  assert.deepEqual(session.events.consoleErrors, []);
  assert.deepEqual(session.events.pageErrors, []);
  assert.deepEqual(session.events.requestFailures, []);
});

describe('presets', () => {
  test('every preset of the #preset select loads, DOM numbers equal results(), one screenshot each', async () => {
    const options = (await page.$$eval('#preset option:not([disabled])', (os) => os.map((o) => o.value))).filter(
      (id) => !LARGE.includes(id),
    );
    for (const id of [...LESSON, `${GPT2_L0}.0`, 'gpt2-small_L5H5_induction_random-repeated.0']) {
      assert.ok(options.includes(id), `#preset has no option ${id} (options: ${options.join(', ')})`);
    }
    const real = options.filter((id) => !LESSON.includes(id));
    assert.ok(
      real.every((id) => id.endsWith('.0')),
      `real presets of the select are not head 0: ${real}`,
    );
    for (const id of options) {
      await choosePreset(page, id);
      const r = await assertDomMatchesResults(page, id);
      for (let i = 0; i < r.nQ; i++) {
        if (!r.rows[i].empty) near(rowSum(r.weights[i]), 1, 1e-5, `${id}: sum of weights row ${i}`);
      }
      await page.screenshot({ path: screenshotPath(`preset-${id}`), fullPage: true });
    }
  });

  test('example 1: weights, output and entropy are the golden values of MATH.md', async () => {
    await choosePreset(page, 'example1');
    const r = await getResults(page);
    const w = await readMatrix(page, 'weights', 1, 2);
    const o = await readMatrix(page, 'output', 1, 2);
    const m = await readMetrics(page);
    for (const [what, src] of [
      ['DOM', { w: w.values, o: o.values, h: m.entropy }],
      ['results()', { w: r.weights, o: r.output, h: r.rows[0].entropy }],
    ]) {
      near(src.w[0][0], 0.7310585786, 1e-6, `${what} weight a1`);
      near(src.w[0][1], 0.2689414214, 1e-6, `${what} weight a2`);
      near(src.o[0][0], 1.462117157, 1e-6, `${what} output o1`);
      near(src.o[0][1], 1.075765685, 1e-6, `${what} output o2`);
      near(src.h, 0.5822031089, 1e-6, `${what} entropy`);
    }
  });

  test('example 2: causal A, output (2, 5, 5) and the row metrics of MATH.md', async () => {
    await choosePreset(page, 'example2');
    const A = [
      [1, 0, 0],
      [1 / 4, 3 / 4, 0],
      [1 / 2, 1 / 4, 1 / 4],
    ];
    const r = await getResults(page);
    const w = await readMatrix(page, 'weights', 3, 3);
    for (let i = 0; i < 3; i++) {
      for (let j = 0; j < 3; j++) {
        near(r.weights[i][j], A[i][j], 1e-6, `results() A[${i}][${j}]`);
        if (j > i) {
          assert.equal(w.masked[i][j], true, `weights cell (${i}, ${j}) above the diagonal is not marked masked`);
        } else {
          near(w.values[i][j], A[i][j], 1e-6, `DOM A[${i}][${j}]`);
        }
      }
    }
    const out = await readMatrix(page, 'output', 3, 1);
    [2, 5, 5].forEach((x, i) => {
      near(out.values[i][0], x, 1e-5, `DOM output row ${i}`);
      near(r.output[i][0], x, 1e-5, `results() output row ${i}`);
    });
    // (H; H_norm; N_eff; top1; top2) per row.
    const golden = [
      [0, 0, 1, 1, 1],
      [0.5623351446, 0.8112781245, 1.754765351, 0.75, 1],
      [1.039720771, 0.9463946304, 2.828427125, 0.5, 0.75],
    ];
    for (const k of [2, 1]) {
      await typeInto(page, '#topk', String(k));
      await page.waitForFunction((want) => window.attentionPlayground.getState().topK === want, k);
      for (let i = 0; i < 3; i++) {
        await chooseRow(page, i);
        const m = await readMetrics(page);
        const [H, Hn, Neff, top1, top2] = golden[i];
        near(m.entropy, H, 1e-6, `row ${i} H`);
        near(m.normalizedEntropy, Hn, 1e-6, `row ${i} H_norm`);
        near(m.nEff, Neff, 1e-6, `row ${i} N_eff`);
        near(m.topKMass, k === 1 ? top1 : top2, 1e-6, `row ${i} top-${k} mass`);
        near(m.rowSum, 1, 1e-6, `row ${i} row sum`);
        assert.equal(m.visible, i + 1, `row ${i} visible keys`);
      }
    }
  });
});

describe('controls', () => {
  test('toggling #causal masks the future keys and renormalises the allowed ones', async () => {
    await choosePreset(page, 'selfattention');
    const before = await getResults(page);
    const tau = (await getState(page)).tau;
    assert.equal(await page.isChecked('#causal'), false);
    assert.ok(before.visible.flat().every(Boolean), 'selfattention starts with a mask');
    await page.click('#causal');
    await page.waitForFunction(() => window.attentionPlayground.getState().mask.causal === true);
    const r = await getResults(page);
    const w = await readMatrix(page, 'weights', r.nQ, r.nK);
    const s = await readMatrix(page, 'scores', r.nQ, r.nK);
    for (let i = 0; i < r.nQ; i++) {
      const allowed = before.scores[i].map((x, j) => (j <= i ? x : null));
      const want = softmax(allowed, tau);
      for (let j = 0; j < r.nK; j++) {
        if (j > i) {
          assert.equal(r.weights[i][j], 0, `results() weight (${i}, ${j}) in the future is not 0`);
          assert.equal(r.visible[i][j], false, `results() says (${i}, ${j}) is visible`);
          assert.equal(w.masked[i][j], true, `weights cell (${i}, ${j}) is not marked masked`);
          assert.equal(s.masked[i][j], true, `scores cell (${i}, ${j}) is not marked masked`);
        } else {
          near(r.weights[i][j], want[j], 1e-6, `results() weight (${i}, ${j}) vs softmax of the allowed scores`);
          near(w.values[i][j], want[j], 1e-6, `DOM weight (${i}, ${j}) vs softmax of the allowed scores`);
          assert.equal(r.scores[i][j], before.scores[i][j], `score (${i}, ${j}) changed with the mask`);
        }
      }
      near(rowSum(r.weights[i]), 1, 1e-6, `results() row ${i} sum`);
      near(rowSum(w.values[i].map((x) => x ?? 0)), 1, 1e-6, `DOM row ${i} sum`);
    }
    await assertDomMatchesResults(page, 'selfattention causal');
    // And back: every key visible again, the original weights return.
    await page.click('#causal');
    await page.waitForFunction(() => window.attentionPlayground.getState().mask.causal === false);
    assert.deepEqual((await getResults(page)).weights, before.weights);
  });

  test("raising tau (typed into #tau, then with the slider) raises the selected row's entropy", async () => {
    await choosePreset(page, 'selfattention');
    const { row } = await getState(page);
    const scores = (await getResults(page)).scores[row];
    const h1 = (await readMetrics(page)).entropy;
    near(h1, entropy(softmax(scores, 1)), 1e-6, 'entropy at tau 1');

    await typeInto(page, '#tau', '2');
    await page.waitForFunction(() => window.attentionPlayground.getState().tau === 2);
    const h2 = (await readMetrics(page)).entropy;
    assert.ok(h2 > h1, `entropy did not rise with tau 1 -> 2: ${h1} -> ${h2}`);
    near(h2, entropy(softmax(scores, 2)), 1e-6, 'entropy at tau 2');

    // The slider is log10(tau): 1 -> tau = 10. A user grabbing the slider moves the focus to it
    // (the #tau box is not rewritten while it has the focus).
    await page.$eval('#tau-slider', (el) => {
      el.focus();
      el.value = '1';
      el.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await page.waitForFunction(() => window.attentionPlayground.getState().tau === 10);
    const h3 = (await readMetrics(page)).entropy;
    assert.ok(h3 > h2, `entropy did not rise with tau 2 -> 10: ${h2} -> ${h3}`);
    near(h3, entropy(softmax(scores, 10)), 1e-6, 'entropy at tau 10');
    assert.equal(await page.inputValue('#tau'), '10', '#tau box does not follow the slider');
    assert.ok(h3 <= Math.log(scores.length) + 1e-9, 'entropy above ln n');
  });

  test('editing a value in the V editor changes the output but not the scores or weights', async () => {
    await choosePreset(page, 'selfattention');
    const before = await getResults(page);
    const V = (await getState(page)).heads[0].V;
    const n = before.nQ;
    assert.equal(V[3][0], 2, 'selfattention V[3][0] is not 2 any more: update the test');
    await typeInto(page, '#edit-V-r3-c0', '7');
    await page.waitForFunction(() => window.attentionPlayground.getState().heads[0].V[3][0] === 7);
    const r = await getResults(page);
    assert.deepEqual(r.scores, before.scores, 'scores changed with V');
    assert.deepEqual(r.weights, before.weights, 'weights changed with V');
    assert.deepEqual((await readMatrix(page, 'scores', n, n)).values, before.scores, 'DOM scores changed with V');
    assert.notDeepEqual(r.output, before.output, 'output did not change');
    const newV = V.map((row) => [...row]);
    newV[3][0] = 7;
    const dom = await readMatrix(page, 'output', n, V[0].length);
    for (let i = 0; i < n; i++) {
      for (let c = 0; c < V[0].length; c++) {
        const want = r.weights[i].reduce((s, a, j) => s + a * newV[j][c], 0);
        near(dom.values[i][c], want, 1e-5, `DOM output (${i}, ${c}) vs A V`);
        near(r.output[i][c], want, 1e-5, `results() output (${i}, ${c}) vs A V`);
      }
      assert.equal(r.output[i][1], before.output[i][1], `output column 1 of row ${i} changed though V column 1 did not`);
    }
    await assertDomMatchesResults(page, 'selfattention V edited');
  });
});

describe('links', () => {
  test('shareUrl() of a lesson preset after several edits gives the same state in a fresh page', async () => {
    await choosePreset(page, 'selfattention');
    await typeInto(page, '#edit-Q-r1-c1', '0.3');
    await typeInto(page, '#edit-K-r2-c0', '-1.25');
    await typeInto(page, '#edit-V-r0-c1', '1e-7');
    await typeInto(page, '#edit-Q-label-3', 'floor ');
    await page.click('#causal');
    await typeInto(page, '#tau', '0.7');
    await typeInto(page, '#topk', '3');
    await typeInto(page, '#window', '2');
    await chooseRow(page, 1);
    const state = await getState(page);
    assert.equal(state.heads[0].Q[1][1], 0.3);
    assert.equal(state.heads[0].K[2][0], -1.25);
    assert.equal(state.heads[0].V[0][1], 1e-7);
    assert.deepEqual(state.tokens.keys, ['The', 'cat', 'sat', 'floor ']);
    assert.deepEqual([state.mask.causal, state.tau, state.topK, state.mask.window, state.row], [true, 0.7, 3, 2, 1]);
    const url = await shareUrl(page);
    const fresh = await openPage(session, url, { label: '[share lesson] ' });
    try {
      assert.deepStrictEqual(await getState(fresh.page), state);
      assert.deepStrictEqual(await getResults(fresh.page), await getResults(page));
      assert.equal(await fresh.page.isHidden('#banner'), true, 'the shared link shows a banner');
    } finally {
      await fresh.context.close();
    }
  });

  test('shareUrl() of a real GPT-2 head with tau changed gives the same state in a fresh page', async () => {
    await choosePreset(page, `${GPT2_L0}.0`);
    assert.equal(await page.isVisible('#real-head'), true, '#real-head is not shown for a 12-head dataset');
    await page.selectOption('#real-head', '4');
    await page.waitForFunction((want) => window.attentionPlayground.getState().view.preset === want, `${GPT2_L0}.4`);
    await typeInto(page, '#tau', '1.7');
    await page.waitForFunction(() => window.attentionPlayground.getState().tau === 1.7);
    const state = await getState(page);
    assert.equal(state.heads[0].name, 'L0H4');
    const url = await shareUrl(page);
    const fresh = await openPage(session, url, { label: '[share real] ' });
    try {
      assert.deepStrictEqual(await getState(fresh.page), state);
      assert.deepStrictEqual(await getResults(fresh.page), await getResults(page));
      assert.equal(await fresh.page.inputValue('#real-head'), '4');
    } finally {
      await fresh.context.close();
    }
  });

  test('malformed links show a banner, keep the page usable and show the default state', async () => {
    const valid = (await shareUrl(page)).split('#')[1];
    assert.match(valid, /(^|&)tau=1\.7(&|$)/);
    const bad = ['#v=1&tau=-1', `#${valid.replace(/(^|&)tau=1\.7(?=&|$)/, '$1tau=-1')}`, '#garbage', '#v=99'];
    for (const fragment of bad) {
      const label = fragment.length > 40 ? `${fragment.slice(0, 40)}...` : fragment;
      const fresh = await openPage(session, fragment, { label: `[bad link ${label}] ` });
      try {
        const p = fresh.page;
        assert.equal(await p.isVisible('#banner'), true, `${label}: no banner`);
        const text = (await p.textContent('#banner')).trim();
        assert.ok(text.length > 20, `${label}: banner has no message ("${text}")`);
        assert.ok(await getResults(p), `${label}: results() is null`);
        assert.deepStrictEqual(await getState(p), defaultState, `${label}: not the default state`);
        assert.equal(await p.isVisible('#weights-r0-c0'), true, `${label}: no heatmap`);
        // Still usable: a control works.
        await p.click('#causal');
        await p.waitForFunction(() => window.attentionPlayground.getState().mask.causal === true);
        assert.deepEqual((await getResults(p)).weights, [[1, 0]], `${label}: causal example 1 is not [1, 0]`);
      } finally {
        await fresh.context.close();
      }
    }
  });

  test('a hashchange to a bad link keeps the previous state; a good one is loaded', async () => {
    await choosePreset(page, 'selfattention');
    await typeInto(page, '#edit-Q-r0-c0', '0.25');
    await page.waitForFunction(() => window.attentionPlayground.getState().heads[0].Q[0][0] === 0.25);
    const state = await getState(page);
    const results = await getResults(page);
    const good = (await shareUrl(page)).split('#')[1];
    const bad = ['garbage', 'v=99', good.replace(/(^|&)tau=1(?=&|$)/, '$1tau=-1')];
    assert.notEqual(bad[2], good, 'could not make a tau=-1 link');
    for (const fragment of bad) {
      await page.evaluate(() => {
        document.getElementById('banner').hidden = true;
      });
      await page.evaluate((f) => {
        location.hash = f;
      }, fragment);
      await page.waitForSelector('#banner', { state: 'visible' });
      assert.ok(
        (await page.textContent('#banner')).includes('Keeping the current state'),
        `banner for ${fragment.slice(0, 30)}: ${await page.textContent('#banner')}`,
      );
      assert.deepStrictEqual(await getState(page), state, `state changed after hashchange to ${fragment.slice(0, 30)}`);
      assert.deepStrictEqual(await getResults(page), results);
      assert.equal((await shareUrl(page)).split('#')[1], good, 'shareUrl() no longer gives the kept state');
      assert.equal(await page.evaluate(() => location.hash.slice(1)), good, 'the address bar still holds the rejected link');
    }
    // A good link through hashchange is taken (so the checks above can fail).
    await page.evaluate(() => {
      document.getElementById('banner').hidden = true;
    });
    const example2 = good.replace(/(^|&)preset=[^&]*/, '$1preset=example2');
    assert.notEqual(example2, good, 'could not change the preset of the link');
    await page.evaluate((f) => {
      location.hash = f;
    }, example2);
    await page.waitForFunction(() => window.attentionPlayground.getState().view.preset === 'example2');
    assert.deepStrictEqual((await getState(page)).heads, state.heads);
    assert.equal(await page.isHidden('#banner'), true);
  });

  test('a link followed while the address bar write of an edit is still pending is the one read', async () => {
    await choosePreset(page, 'example2');
    const followed = (await shareUrl(page)).split('#')[1].replace(/(^|&)tau=[^&]*/, '$1tau=2') + '&scores_hide=1';
    await page.click('#causal'); // an edit: its address bar write is due 200 ms later
    await page.evaluate((f) => {
      location.hash = f; // its hashchange event is queued, not yet run
      window.dispatchEvent(new Event('pagehide')); // the pending write runs first (as a timer can)
    }, followed);
    await page.waitForFunction(() => window.attentionPlayground.getState().tau === 2);
    assert.equal(
      await page.evaluate(() => document.documentElement.classList.contains('ap-hide-scores')),
      true,
      "the followed link's options were read",
    );
    assert.equal((await getState(page)).mask.causal, true, 'the followed link (causal, as example 2) replaced the edit');
    await page.evaluate(() => {
      location.hash = location.hash.replace('&scores_hide=1', '');
    });
    await page.waitForFunction(() => !document.documentElement.classList.contains('ap-hide-scores'));
  });
});

describe('validation and text', () => {
  test('setState with tau 0 rejects with a message and keeps the state', async () => {
    await choosePreset(page, 'example2');
    const state = await getState(page);
    const results = await getResults(page);
    for (const tau of [0, -1, 1001, 'abc']) {
      const err = await trySetState(page, { ...state, tau });
      assert.ok(err, `setState with tau ${tau} resolved`);
      assert.equal(err.isError, true, 'rejection is not an Error');
      assert.match(err.message, /tau/, `message does not name tau: ${err.message}`);
      assert.deepStrictEqual(await getState(page), state, `state changed after tau ${tau}`);
      assert.deepStrictEqual(await getResults(page), results);
    }
    // The same call with a valid tau goes through (the rejection above is about tau).
    assert.equal(await trySetState(page, { ...state, tau: 2 }), null);
    assert.equal((await getState(page)).tau, 2);
  });

  test('an invalid editor entry shows an error next to the editor and keeps the results', async () => {
    await choosePreset(page, 'selfattention');
    const state = await getState(page);
    const results = await getResults(page);
    assert.equal(await page.isHidden('#edit-Q-error'), true);
    await typeInto(page, '#edit-Q-r0-c0', 'abc');
    await page.waitForSelector('#edit-Q-error', { state: 'visible' });
    const text = await page.textContent('#edit-Q-error');
    assert.match(text, /abc/, `error text does not quote the entry: ${text}`);
    assert.equal(await page.getAttribute('#edit-Q-r0-c0', 'aria-invalid'), 'true');
    assert.deepStrictEqual(await getState(page), state);
    assert.deepStrictEqual(await getResults(page), results);
    await assertDomMatchesResults(page, 'after an invalid entry');
    // An invalid tau typed into the box: an error by the box, tau kept.
    await typeInto(page, '#tau', '0');
    await page.waitForSelector('#tau-error', { state: 'visible' });
    assert.equal((await getState(page)).tau, state.tau);
    await typeInto(page, '#tau', '1');
    // Correcting the cell clears the error and takes the value.
    await typeInto(page, '#edit-Q-r0-c0', '2');
    await page.waitForFunction(() => window.attentionPlayground.getState().heads[0].Q[0][0] === 2);
    assert.equal(await page.isHidden('#edit-Q-error'), true, 'the editor error stays after a valid entry');
    assert.notDeepEqual((await getResults(page)).scores, results.scores);
  });

  test('a token "><img ...> typed as a label is shown as text and adds no element', async () => {
    await choosePreset(page, 'selfattention');
    const imgs = await page.locator('img').count();
    await typeInto(page, '#edit-Q-label-0', XSS);
    await page.waitForFunction((t) => window.attentionPlayground.getState().tokens.queries[0] === t, XSS);
    const state = await getState(page);
    assert.equal(state.tokens.keys[0], XSS, 'tied self-attention key label did not follow');
    await page.waitForTimeout(200); // an onerror would have fired by now
    assert.equal(await page.locator('img').count(), imgs, 'an <img> appeared');
    for (const id of ['weights', 'scores']) {
      const label = await page.textContent(`#${id} tbody tr[data-row="0"] th`);
      assert.ok(label.includes(XSS), `${id} row label 0 does not show the token as text: ${label}`);
      const col = await page.textContent(`#${id} thead th:nth-child(2)`);
      assert.ok(col.includes(XSS), `${id} column label 0 does not show the token as text: ${col}`);
    }
    assert.ok((await page.textContent('#row option[value="0"]')).includes(XSS));
    assert.deepEqual(session.events.dialogs, []);
  });

  test('the same string through setState (token, head name, source) adds no element', async () => {
    await choosePreset(page, 'example1');
    const imgs = await page.locator('img').count();
    const state = await getState(page);
    state.tokens.keys[1] = XSS;
    state.tokens.queries[0] = `<script>alert(2)</script>${XSS}`;
    state.heads[0].name = XSS;
    state.source = XSS;
    assert.equal(await trySetState(page, state), null);
    await page.waitForTimeout(200);
    assert.equal(await page.locator('img').count(), imgs, 'an <img> appeared');
    assert.equal(await page.locator('#app script').count(), 0, 'a <script> appeared');
    assert.ok((await page.textContent('#weights thead th:nth-child(3)')).includes(XSS));
    assert.ok((await page.textContent('#weights tbody tr[data-row="0"] th')).includes('<script>alert(2)</script>'));
    assert.ok((await page.textContent('#source')).includes(XSS));
    assert.deepEqual(session.events.dialogs, []);
  });
});

test('real GPT-2 layer 0 head 0: 33 labelled rows of weights, rows sum to 1, column 0 sums to ~9.74', async () => {
  await choosePreset(page, `${GPT2_L0}.0`);
  const file = JSON.parse(readFileSync(`${WEB}data/real/${GPT2_L0}/attention.json`, 'utf8'));
  const tokens = file.tokens;
  assert.equal(tokens.length, 33);
  const state = await getState(page);
  assert.equal(state.mode, 'weights');
  assert.equal(await page.isChecked('input[name="mode"][value="weights"]'), true, 'the weights mode radio is not checked');
  const labels = await page.$$eval('#weights tbody th.rowlabel', (ths) => ths.map((th) => ({ text: th.textContent, title: th.title })));
  assert.equal(labels.length, 33, 'not 33 row labels');
  labels.forEach((l, i) => {
    assert.equal(l.title, `query ${i}: ${tokens[i]}`);
    assert.ok(
      l.text.startsWith(String(i)) && l.text.includes(tokens[i].trimStart()),
      `row label ${i} "${l.text}" does not show "${tokens[i]}"`,
    );
  });
  const r = await assertDomMatchesResults(page, 'GPT-2 L0H0');
  const dom = await readMatrix(page, 'weights', 33, 33);
  for (let i = 0; i < 33; i++) {
    near(rowSum(r.weights[i]), 1, 1e-5, `results() row ${i} sum`);
    near(rowSum(dom.values[i].map((x) => x ?? 0)), 1, 1e-5, `DOM row ${i} sum`);
    near(r.rows[i].rowSum, 1, 1e-5, `results() rows[${i}].rowSum`);
    for (let j = i + 1; j < 33; j++) assert.equal(r.weights[i][j], 0, `GPT-2 is causal, but weight (${i}, ${j}) is not 0`);
  }
  const col0 = r.weights.reduce((s, row) => s + row[0], 0);
  const fileCol0 = file.attention[0][0].reduce((s, row) => s + row[0], 0);
  near(col0, 9.74, 0.01, 'column 0 sum from results()');
  near(col0, fileCol0, 1e-4, 'column 0 sum vs the bundled file');
  // The selected row's entropy is shown and matches -sum a ln a of the row shown in the DOM.
  const m = await readMetrics(page);
  assert.notEqual(m.entropyText, 'undefined');
  near(m.entropy, entropy(dom.values[state.row].map((x) => x ?? 0)), 1e-5, `entropy of row ${state.row}`);
  await chooseRow(page, 32);
  const m32 = await readMetrics(page);
  near(m32.entropy, entropy(dom.values[32].map((x) => x ?? 0)), 1e-5, 'entropy of row 32');
  assert.equal(m32.visible, 33);
});

// Last: everything any page logged over the whole file.
test('no console errors, page errors, failed requests or dialogs over the whole run', () => {
  assert.deepEqual(session.events.consoleErrors, [], 'console errors');
  assert.deepEqual(session.events.pageErrors, [], 'page errors');
  assert.deepEqual(session.events.requestFailures, [], 'failed requests');
  assert.deepEqual(session.events.dialogs, [], 'dialogs');
});
