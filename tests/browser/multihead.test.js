// Mode "X, W (multi-head)" and the gated output in Chromium: editing a W changes the scores as
// the definition says (S = (X W_Q)(X W_K)^T / sqrt(d_k), computed here in plain JS from the state),
// Random (seed) is reproducible, a closed gate silences a head, an invalid W_O is refused with a
// clear message while the last state stays, and the link carries the whole layer.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  choosePreset,
  getResults,
  getState,
  near,
  openPage,
  readMatrix,
  screenshotPath,
  shareUrl,
  startSession,
  trySetState,
  typeInto,
} from './harness.js';

let session;
before(async () => {
  session = await startSession();
});
after(async () => {
  assert.deepEqual(session.events.pageErrors, [], 'page errors');
  assert.deepEqual(session.events.consoleErrors, [], 'console errors');
  await session?.close();
});

const matmul = (a, b) => a.map((row) => b[0].map((_, j) => row.reduce((acc, x, k) => acc + x * b[k][j], 0)));
const transpose = (m) => m[0].map((_, j) => m.map((row) => row[j]));

/** Scores of head h of a mode-"x" state, straight from the definition (scale "auto"). */
function expectedScores(s, h) {
  const hd = s.heads[h];
  const q = matmul(s.x.X, hd.WQ);
  const k = matmul(s.x.X, hd.WK);
  const scale = 1 / Math.sqrt(hd.WQ[0].length);
  return matmul(q, transpose(k)).map((row) => row.map((x) => x * scale));
}

function assertScores(values, want, what) {
  want.forEach((row, i) => row.forEach((x, j) => near(values[i][j], x, 1e-5 * Math.max(1, Math.abs(x)), `${what} S[${i}][${j}]`)));
}

test('mode x preset: heads side by side; one W_Q cell changes the scores as S = X W_Q (X W_K)^T / sqrt(d_k)', async () => {
  const { page } = await openPage(session, '', { label: '[multihead] ' });
  await choosePreset(page, 'multihead');
  let s = await getState(page);
  assert.equal(s.mode, 'x');
  assert.ok(await page.isChecked('input[name="mode"][value="x"]'));
  let m = await readMatrix(page, 'scores', 4, 4);
  assertScores(m.values, expectedScores(s, 0), 'preset');
  // Both heads are drawn with numbers, and the layer output table is there.
  for (const h of [0, 1]) {
    const w = await readMatrix(page, `layer-w${h}`, 4, 4);
    for (const row of w.values)
      near(
        row.reduce((a, b) => a + b, 0),
        1,
        1e-5,
        `head ${h} row sum`,
      );
    await readMatrix(page, `layer-y${h}`, 4, 2);
  }
  const out = await readMatrix(page, 'layer-output', 4, 4);
  const r = await getResults(page);
  assert.deepEqual(out.values, r.layer.output);
  assert.ok((await page.textContent('#layer-head-1')).includes('head 1'));

  await typeInto(page, '#edit-h0-WQ-r0-c0', '2');
  await page.waitForFunction(() => window.attentionPlayground.getState().heads[0].WQ[0][0] === 2);
  s = await getState(page);
  assert.equal(s.view.preset, 'custom');
  const before = m.values;
  m = await readMatrix(page, 'scores', 4, 4);
  assertScores(m.values, expectedScores(s, 0), 'after the edit');
  assert.notDeepEqual(m.values, before, 'the scores changed');

  // Selecting head 1 from its card shows its scores.
  await page.click('#layer-head-1 button');
  await page.waitForFunction(() => window.attentionPlayground.getState().head === 1);
  m = await readMatrix(page, 'scores', 4, 4);
  assertScores(m.values, expectedScores(s, 1), 'head 1');
  await page.screenshot({ path: screenshotPath('multihead-preset'), fullPage: true });

  // The link carries X, every W and W_O bit-exactly.
  const url = await shareUrl(page);
  const other = await openPage(session, url.slice(url.indexOf('#')), { label: '[multihead-link] ' });
  assert.deepEqual(await getState(other.page), await getState(page));
  await other.context.close();
  await page.context().close();
});

test('Random (seed): the same seed gives the same layer, another seed another', async () => {
  const { page } = await openPage(session, '', { label: '[multihead-random] ' });
  await choosePreset(page, 'multihead');
  await page.fill('#x-seed', '5');
  await page.dispatchEvent('#x-seed', 'change');
  await page.click('#x-random');
  await page.waitForFunction(() => window.attentionPlayground.getState().source.includes('seed 5'));
  const first = await getState(page);
  await typeInto(page, '#edit-X-r1-c1', '9');
  await page.waitForFunction(() => window.attentionPlayground.getState().x.X[1][1] === 9);
  await page.click('#x-random');
  await page.waitForFunction(() => window.attentionPlayground.getState().x.X[1][1] !== 9);
  assert.deepEqual(await getState(page), first);
  await page.fill('#x-seed', '6');
  await page.dispatchEvent('#x-seed', 'change');
  await page.click('#x-random');
  await page.waitForFunction(() => window.attentionPlayground.getState().source.includes('seed 6'));
  assert.notDeepEqual((await getState(page)).x.X, first.x.X);
  await page.context().close();
});

test('the gate closes a head: g = -10 on every row takes its output to ~0; g = 0 halves it (qkv)', async () => {
  const { page } = await openPage(session, '', { label: '[gate] ' });
  // Seed example 1 (docs/MATH.md): output (1.462117157, 1.075765685); sigmoid(0) = 1/2.
  await page.click('#gate-on');
  await page.waitForFunction(() => Array.isArray(window.attentionPlayground.getState().heads[0].gate));
  let out = await readMatrix(page, 'output', 1, 2);
  near(out.values[0][0], 1.462117157 / 2, 1e-6, 'gated o1');
  near(out.values[0][1], 1.075765685 / 2, 1e-6, 'gated o2');
  assert.ok((await page.textContent('#gate-table')).includes('0.5'));
  // A new query gets its own gate logit (0), so resizing is not refused.
  await page.click('#editor-Q button[title="add a query"]');
  await page.waitForFunction(() => window.attentionPlayground.getState().heads[0].gate.length === 2);
  assert.deepEqual((await getState(page)).heads[0].gate, [0, 0]);

  await choosePreset(page, 'multihead');
  await page.click('#gate-on');
  await page.waitForFunction(() => Array.isArray(window.attentionPlayground.getState().heads[0].gate));
  const open = await getResults(page);
  await page.fill('#gate-all', '-10');
  await page.dispatchEvent('#gate-all', 'input');
  await page.waitForFunction(() => window.attentionPlayground.getState().heads[0].gate.every((g) => g === -10));
  const closed = await getResults(page);
  const y = await readMatrix(page, 'layer-y0', 4, 2);
  for (let t = 0; t < 4; t++) {
    for (let j = 0; j < 2; j++) {
      // sigmoid(-10) = 4.5398e-5 (1 / (1 + e^10), e^10 = 22026.47)
      near(y.values[t][j], closed.ungatedOutput[t][j] * 4.5397868702e-5, 1e-9, `Y0[${t}][${j}]`);
    }
    near(closed.gate.open[t], 4.5397868702e-5, 1e-12, `sigmoid row ${t}`);
    // The weights (and so the sink mass) did not move: the gate acts after A V.
    assert.deepEqual(closed.weights[t], open.weights[t]);
  }
  const table = await page.textContent('#gate-table');
  assert.match(table, /4\.540e-5|4\.5398e-5/);
  await page.screenshot({ path: screenshotPath('multihead-gate-closed'), fullPage: true });
  await page.context().close();
});

test('an invalid W_O shape is refused with a clear message and the last state stays', async () => {
  const { page } = await openPage(session, '', { label: '[multihead-errors] ' });
  await choosePreset(page, 'multihead');
  const kept = await getState(page);
  const bad = structuredClone(kept);
  bad.x.WO.push([0, 0, 0, 0]); // 5 rows for 2 + 2 value columns
  const refused = await trySetState(page, bad);
  assert.ok(refused, 'refused');
  assert.match(refused.message, /x\.WO has 5 rows .* 4 columns \(the sum of every head's d_v\)/);
  assert.deepEqual(await getState(page), kept);

  // In the page: with the residual on, a W_O narrower than d_model cannot be added to X.
  await page.click('#editor-WO button[title="remove the last column"]');
  await page.waitForSelector('#x-error:not([hidden])');
  assert.match(
    await page.textContent('#x-error'),
    /residual X \+ output needs the output width \(3, the columns of x\.WO\) to equal d_model = 4/,
  );
  assert.deepEqual(await getState(page), kept);
  // Turning the residual off and then removing the column works.
  await page.click('#x-residual');
  await page.waitForFunction(() => window.attentionPlayground.getState().x.residual === false);
  await page.click('#editor-WO button[title="remove the last column"]');
  await page.waitForFunction(() => window.attentionPlayground.getState().x.WO[0].length === 3);
  // And the residual cannot come back: the checkbox is refused and stays off.
  await page.click('#x-residual');
  await page.waitForSelector('#x-error:not([hidden])');
  assert.equal((await getState(page)).x.residual, false);
  assert.equal(await page.isChecked('#x-residual'), false);
  await page.context().close();
});

test('mode x: switching to Q, K, V keeps the numbers; an empty row and one token are handled', async () => {
  const { page } = await openPage(session, '', { label: '[multihead-modes] ' });
  await choosePreset(page, 'multihead');
  const inX = await getResults(page);
  await page.click('input[name="mode"][value="qkv"]');
  await page.waitForFunction(() => window.attentionPlayground.getState().mode === 'qkv');
  const inQkv = await getResults(page);
  assert.deepEqual(inQkv.weights, inX.weights);
  assert.deepEqual(inQkv.output, inX.output);
  await page.click('input[name="mode"][value="x"]');
  await page.waitForFunction(() => window.attentionPlayground.getState().mode === 'x');

  // An empty row: row 2 sees no key; the gate table says so instead of printing NaN.
  const s = await getState(page);
  s.mask.allow = s.x.X.map((_, t) => s.x.X.map(() => t !== 2));
  s.heads[0].gate = [0, 0, 0, 0];
  s.row = 2;
  assert.equal(await trySetState(page, s), null);
  assert.match(await page.textContent('#gate-row-2'), /undefined \(empty row\)/);
  const text = await page.textContent('#app');
  assert.equal(/NaN/.test(text), false, 'no NaN on screen');

  // Down to one token.
  for (let i = 0; i < 3; i++) {
    await page.click('#editor-X button[title="remove the last token"]');
  }
  await page.waitForFunction(() => window.attentionPlayground.getState().x.X.length === 1);
  const one = await getResults(page);
  assert.equal(one.layer.output.length, 1);
  near(one.weights[0][0], 1, 0, 'one token attends to itself');
  assert.equal(/NaN/.test(await page.textContent('#app')), false);
  await page.screenshot({ path: screenshotPath('multihead-one-token'), fullPage: true });
  await page.context().close();
});
