// Keyboard only: from page load, with nothing but key presses (no clicks, no setState), choose
// the lesson's worked example 2, move the temperature, toggle the causal mask, edit one value,
// walk the weights grid with the arrow keys, and check the selected row, the announced summary
// and the numbers (results()) against values computed here from the lesson's definition.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getResults, getState, near, sharedPage } from './harness.js';

let page;
sharedPage('[keyboard] ', (p) => {
  page = p;
});

const focused = () =>
  page.evaluate(() => {
    const el = document.activeElement;
    return { id: el?.id ?? '', tag: el?.tagName ?? '', grid: el?.closest?.('table[role="grid"]')?.id ?? null };
  });

/** Presses Tab until `want(focused)` holds; fails if that takes more than `max` presses. */
async function tabUntil(want, what, max = 120) {
  for (let k = 0; k < max; k++) {
    await page.keyboard.press('Tab');
    if (want(await focused())) return k + 1;
  }
  throw new Error(`${what} was not reached with ${max} presses of Tab (last focus: ${JSON.stringify(await focused())})`);
}
const tabTo = (id) => tabUntil((f) => f.id === id, `#${id}`);

/** Softmax of z / tau over the finite entries (null = masked, weight 0). */
function softmax(z, tau) {
  const live = z.filter((x) => x !== null).map((x) => x / tau);
  const m = Math.max(...live);
  const e = z.map((x) => (x === null ? 0 : Math.exp(x / tau - m)));
  const s = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / s);
}
const entropy = (a) => -a.reduce((acc, x) => (x > 0 ? acc + x * Math.log(x) : acc), 0);
const sig3 = (x) => String(Number(x.toPrecision(3)));

test('worked example 2 by keyboard alone', async () => {
  // The lesson's worked example 2 (docs/MATH.md, seed lesson): causal logits with V = (2, 6, 10).
  const LOGITS = [
    [0, null, null],
    [0, Math.log(3), null],
    [Math.log(2), 0, 0],
  ];

  // 1. The preset select is the first control; arrow keys on a closed select change the choice.
  await tabTo('preset');
  assert.equal((await getState(page)).view.preset, 'example1');
  for (let k = 0; k < 10 && (await page.inputValue('#preset')) !== 'example2'; k++) await page.keyboard.press('ArrowDown');
  await page.waitForFunction(() => window.attentionPlayground.getState().view.preset === 'example2');
  let s = await getState(page);
  assert.equal(s.mode, 'logits');
  assert.equal(s.mask.causal, true);

  // 2. Temperature: the slider moves with the keys (Page Up: a tenth of its log range), then the
  //    box takes a typed value on Enter.
  await tabTo('tau-slider');
  await page.keyboard.press('PageUp');
  await page.waitForFunction(() => window.attentionPlayground.getState().tau > 1);
  await tabTo('tau');
  await page.keyboard.press('Control+A');
  await page.keyboard.type('2');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => window.attentionPlayground.getState().tau === 2);

  // 3. The causal mask: Space toggles the checkbox off and on again.
  await tabTo('causal');
  await page.keyboard.press('Space');
  await page.waitForFunction(() => window.attentionPlayground.getState().mask.causal === false);
  await page.keyboard.press('Space');
  await page.waitForFunction(() => window.attentionPlayground.getState().mask.causal === true);

  // 4. One value: v_2 = 6 becomes 8 (the V editor's row 1, column 0), typed and left with Tab.
  await tabTo('edit-V-r1-c0');
  await page.keyboard.press('Control+A');
  await page.keyboard.type('8');
  await page.keyboard.press('Tab');
  await page.waitForFunction(() => window.attentionPlayground.getState().heads[0].V[1][0] === 8);

  // The numbers after these steps, from the definition: A = softmax(S / 2) per row, o = A V.
  const V = [2, 8, 10];
  const A = LOGITS.map((row) => softmax(row, 2));
  const r = await getResults(page);
  A.forEach((row, i) =>
    row.forEach((w, j) => {
      if (LOGITS[i][j] === null) assert.equal(r.visible[i][j], false, `(${i}, ${j}) masked`);
      else near(r.weights[i][j], w, 1e-6, `weight (${i}, ${j})`);
    }),
  );
  A.forEach((row, i) =>
    near(
      r.output[i][0],
      row.reduce((acc, w, j) => acc + w * V[j], 0),
      1e-6,
      `output row ${i}`,
    ),
  );

  // 5. The weights grid: one Tab stop; focus lands on the selected row (2, the preset's).
  await tabUntil((f) => f.grid === 'weights', 'the weights grid');
  let f = await focused();
  assert.equal(f.id, 'weights-r2-c0');
  assert.equal(await page.getAttribute('#weights-r2-c0', 'aria-label'), `query 'x3', key 'x1': ${A[2][0].toFixed(2)}`);
  // Up: row 1 becomes the selected query row, and its summary is announced.
  await page.keyboard.press('ArrowUp');
  await page.waitForFunction(() => window.attentionPlayground.getState().row === 1);
  f = await focused();
  assert.equal(f.id, 'weights-r1-c0');
  const live = await page.textContent('#a11y-live');
  const h1 = entropy(A[1]);
  assert.equal(
    live,
    `Row 1 (query 'x2'): entropy ${sig3(h1)} nats, N_eff ${sig3(Math.exp(h1))}, ` +
      `the largest weights on 'x2' ${sig3(A[1][1])}, 'x1' ${sig3(A[1][0])}; 1 key masked.`,
  );
  // Right, End, Home stay in the row; the masked cell says so.
  await page.keyboard.press('End');
  assert.equal((await focused()).id, 'weights-r1-c2');
  assert.equal(await page.getAttribute('#weights-r1-c2', 'aria-label'), "query 'x2', key 'x3': masked");
  await page.keyboard.press('Home');
  await page.keyboard.press('ArrowRight');
  assert.equal((await focused()).id, 'weights-r1-c1');
  assert.equal((await getState(page)).row, 1);
  // Ctrl+Home: the first cell, row 0 selected; Ctrl+End: the last cell, row 2.
  await page.keyboard.press('Control+Home');
  await page.waitForFunction(() => window.attentionPlayground.getState().row === 0);
  assert.equal((await focused()).id, 'weights-r0-c0');
  await page.keyboard.press('Control+End');
  await page.waitForFunction(() => window.attentionPlayground.getState().row === 2);
  assert.equal((await focused()).id, 'weights-r2-c2');
  assert.match(await page.textContent('#a11y-live'), /^Row 2 \(query 'x3'\): entropy /);
  // The row panel follows the grid: the selected row's numbers are row 2's.
  const r2 = await getResults(page);
  near(r2.rows[2].entropy, entropy(A[2]), 1e-6, 'entropy of row 2');
  // Only one cell of the grid is in the Tab order at any time.
  assert.equal(await page.locator('#weights [tabindex="0"]').count(), 1);
  assert.equal(await page.getAttribute('#weights-r2-c2', 'tabindex'), '0');
});

test('mask editing by keyboard: Enter toggles the active cell like a click', async () => {
  // Continue on the same page: Tab on past the end of the page and round to the mask-edit checkbox.
  await tabUntil((f) => f.id === 'edit-allow', '#edit-allow', 200);
  await page.keyboard.press('Space');
  assert.equal(await page.isChecked('#edit-allow'), true);
  await tabUntil((f) => f.grid === 'weights', 'the weights grid');
  const f = await focused();
  const [, i, j] = /weights-r(\d+)-c(\d+)/.exec(f.id).map(Number);
  // Row 2 (the last one) sees every key: Enter masks the active cell.
  assert.equal(i, 2);
  await page.keyboard.press('Enter');
  await page.waitForFunction(([a, b]) => window.attentionPlayground.getState().mask.allow?.[a]?.[b] === false, [i, j]);
  assert.equal(await page.getAttribute(`#weights-r${i}-c${j}`, 'aria-label'), `query 'x3', key 'x${j + 1}': masked`);
  await page.keyboard.press(' ');
  await page.waitForFunction(() => window.attentionPlayground.getState().mask.allow === null);
});

test('tabs by keyboard: arrows move between the analysis tabs and open the view', async () => {
  await tabUntil((f) => f.id.startsWith('lab-tab-'), 'the lab tabs', 200);
  assert.equal((await focused()).id, 'lab-tab-none');
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => window.attentionPlayground.getState().lab?.view === 'patterns');
  assert.equal((await focused()).id, 'lab-tab-patterns');
  await page.keyboard.press('End');
  await page.waitForFunction(() => window.attentionPlayground.getState().lab?.view === 'sensitivity');
  assert.equal((await focused()).id, 'lab-tab-sensitivity');
  assert.equal(await page.getAttribute('#lab-view', 'role'), 'tabpanel');
  assert.equal(await page.getAttribute('#lab-view', 'aria-labelledby'), 'lab-tab-sensitivity');
});
