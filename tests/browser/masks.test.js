// The strided and StreamingLLM (sink keys + window) masks and the click-to-edit allow-matrix in
// Chromium: which cells the weights heatmap masks (written out by hand from the definitions in
// docs/state.md), the renormalised weights, the link round trip and Undo.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { getState, near, openPage, readMatrix, screenshotPath, shareUrl, startSession, trySetState, typeInto } from './harness.js';

let session;
before(async () => {
  session = await startSession();
});
after(async () => {
  assert.deepEqual(session.events.pageErrors, [], 'page errors');
  assert.deepEqual(session.events.consoleErrors, [], 'console errors');
  await session?.close();
});

/** A 6-token logits state with S(t, j) = ln(j + 1): weights over Omega_t are (j+1)/sum. */
function rampState(base) {
  const n = 6;
  const tokens = Array.from({ length: n }, (_, i) => `t${i}`);
  return {
    ...base,
    mode: 'logits',
    head: 0,
    row: 5,
    tokens: { queries: tokens, keys: tokens },
    heads: [
      {
        name: 'ramp',
        Q: null,
        K: null,
        V: null,
        weights: null,
        logits: Array.from({ length: n }, () => Array.from({ length: n }, (_, j) => Math.log(j + 1))),
      },
    ],
    mask: { causal: true, window: 0, padding: new Array(n).fill(false), allow: null },
    tau: 1,
    view: { ...base.view, preset: 'custom' },
  };
}

const visibleSet = (masked) => masked.map((row) => row.map((m, j) => (m ? -1 : j)).filter((j) => j >= 0));

test('stride and sink keys select the keys of the definitions; the link and Undo keep them', async () => {
  const { page, context } = await openPage(session, '', { label: '[masks] ' });
  assert.equal(await trySetState(page, rampState(await getState(page))), null);
  await typeInto(page, '#stride', '2');
  await page.waitForFunction(() => window.attentionPlayground.getState().mask.stride === 2);
  let m = await readMatrix(page, 'weights', 6, 6);
  // Causal, stride 2: t - j even.
  assert.deepEqual(visibleSet(m.masked), [[0], [1], [0, 2], [1, 3], [0, 2, 4], [1, 3, 5]]);
  near(m.values[5][3], 4 / (2 + 4 + 6), 1e-6, 'row 5 key 3 renormalised over keys 1, 3, 5');

  await typeInto(page, '#stride', '0');
  await typeInto(page, '#window', '2');
  await typeInto(page, '#sinks', '2');
  await page.waitForFunction(() => window.attentionPlayground.getState().mask.sinks === 2);
  m = await readMatrix(page, 'weights', 6, 6);
  // StreamingLLM: j < 2 or t - 2 < j <= t.
  assert.deepEqual(visibleSet(m.masked), [[0], [0, 1], [0, 1, 2], [0, 1, 2, 3], [0, 1, 3, 4], [0, 1, 4, 5]]);
  near(m.values[5][0], 1 / (1 + 2 + 5 + 6), 1e-6, 'row 5 sink key 0');
  const s = await getState(page);
  assert.equal('stride' in s.mask, false, 'stride 0 is left out of the state');

  // A fresh page from the link shows the same masks.
  const url = await shareUrl(page);
  assert.match(url, /sinks=2/);
  const other = await openPage(session, url.slice(url.indexOf('#')), { label: '[masks-link] ' });
  assert.deepEqual((await getState(other.page)).mask, s.mask);
  await other.context.close();

  await page.click('#undo');
  await page.waitForFunction(() => !window.attentionPlayground.getState().mask.sinks);
  await context.close();
});

test('edit the mask by clicking cells: the allow-matrix follows, Clear removes it', async () => {
  const { page, context } = await openPage(session, '', { label: '[allow] ' });
  assert.equal(await trySetState(page, rampState(await getState(page))), null);
  await page.check('#edit-allow');
  await page.click('#weights-r5-c2');
  await page.waitForFunction(() => window.attentionPlayground.getState().mask.allow !== null);
  const s = await getState(page);
  assert.equal(s.mask.allow[5][2], false);
  assert.equal(s.mask.allow.flat().filter((x) => !x).length, 1);
  assert.equal(s.row, 5, 'clicking a cell in edit mode does not select a row');
  const m = await readMatrix(page, 'weights', 6, 6);
  assert.deepEqual(visibleSet(m.masked)[5], [0, 1, 3, 4, 5]);
  near(m.values[5][5], 6 / (1 + 2 + 4 + 5 + 6), 1e-6, 'row 5 renormalised without key 2');
  await page.screenshot({ path: screenshotPath('mask-edit-allow') });
  // Clicking again restores it (and an all-true matrix is no matrix).
  await page.click('#weights-r5-c2');
  await page.waitForFunction(() => window.attentionPlayground.getState().mask.allow === null);
  await page.click('#weights-r4-c0');
  await page.waitForSelector('#clear-allow:not([hidden])');
  await page.click('#clear-allow');
  await page.waitForFunction(() => window.attentionPlayground.getState().mask.allow === null);
  await page.uncheck('#edit-allow');
  await page.click('#weights-r2-c1');
  await page.waitForFunction(() => window.attentionPlayground.getState().row === 2);
  await context.close();
});
