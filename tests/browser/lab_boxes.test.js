// Browser tests of the lab views' number boxes (web/lab/lab-controls.js numberInput, over the page's
// one rule in web/views/number-box.js): in every lab view, letters, an empty box, a value outside
// the box's range and (whole-number boxes) a fraction are refused in words in #lab-error, in
// English and in Chinese; the value in effect stays (the state's lab parameters and the lab's
// numbers do not change, the refusal names the value kept); the arrow keys step a box by one unit
// of its last digit and commit. The refusal is re-worded after a language change. A phone
// screenshot of a refusal goes to test-results/screenshots/lab-boxes-phone-zh.png.
// The expected sentences are written out here (the wording the page promises), not read from
// the string tables.
//
//   node --test --test-concurrency=1 tests/browser/lab_boxes.test.js   (after the WASM build is in web/wasm)

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  closeQuietly,
  getResults,
  getState,
  openPage,
  screenshotPath,
  startSession,
  trySetState,
  typeInto,
  waitReady,
  watch,
} from './harness.js';

let session;
before(async () => {
  session = await startSession();
});
after(() => closeQuietly(session));

const INF = '∞)';
// view, box id, its name in a refusal (en, zh), its range, a value outside it, whole-number box.
const BOXES = [
  { view: 'sink', id: 'lab-param-sinkKeys', en: 'sink keys', zh: '汇键个数', range: `[1, ${INF}`, out: '0', whole: true },
  { view: 'sink', id: 'lab-param-compareTau', en: 'compare at τ', zh: '比较的 τ', range: `[0, ${INF}`, out: '-1' },
  { view: 'sink', id: 'lab-sink-rows-first', en: 'First row', zh: '起始行', range: '[0, 69]', out: '70', whole: true, rows: true },
  { view: 'routing', id: 'lab-param-delta', en: 'δ', zh: 'δ', range: '[0, 1)', out: '1' },
  { view: 'routing', id: 'lab-param-threshold', en: 'edge threshold', zh: '边的阈值', range: '[0, 1]', out: '1.5' },
  { view: 'routing', id: 'lab-param-tunnelAlpha', en: 'α', zh: 'α', range: '[0, 1]', out: '-0.5' },
  { view: 'routing', id: 'lab-param-tunnelGamma', en: 'γ', zh: 'γ', range: '[0, 1]', out: '2' },
  { view: 'routing', id: 'lab-param-target', en: 'H* (nats)', zh: 'H* (奈特)', range: `[0, ${INF}`, out: '-0.1' },
  { view: 'saturation', id: 'lab-sat-range', en: 'R', zh: 'R', range: '[0.5, 100]', out: '0.4' },
  {
    view: 'saturation',
    id: 'lab-sat-keys',
    en: 'the number of Jacobian keys',
    zh: '雅可比矩阵显示的键数',
    range: '[1, 64]',
    out: '65',
    whole: true,
  },
  { view: 'linear', id: 'lab-param-features', en: 'random features m', zh: '随机特征数 m', range: '[1, 1024]', out: '1025', whole: true },
  { view: 'linear', id: 'lab-param-seed', en: 'seed', zh: '随机种子', range: `[0, ${INF}`, out: '-1', whole: true },
  { view: 'normalisers', id: 'lab-norm-alpha', en: 'entmax α', zh: 'entmax α', range: '[1, 4]', out: '5' },
  { view: 'spectral', id: 'lab-param-epsilon', en: 'threshold rank ε', zh: '阈值秩 ε', range: '(0, 1)', out: '0' },
  { view: 'sweep', id: 'lab-param-steps', en: 'the number of angles', zh: '角度数', range: '[2, 721]', out: '1', whole: true },
];

/** The refusal #lab-error must show, in `lang`, for `typed` in box `b` keeping `good`. */
function expected(lang, b, problem, typed, good) {
  const what = b[lang === 'en' ? 'en' : 'zh'];
  if (lang === 'en') {
    const keep = ` Keeping ${what} = ${good}.`;
    if (problem === 'letters') return `"${typed}" is not a number.${keep}`;
    if (problem === 'empty') return `The box is empty: type a number.${keep}`;
    if (problem === 'whole') return `${what} takes a whole number, not ${typed}.${keep}`;
    return `${what} must be in ${b.range}; ${typed} is outside it.${keep}`;
  }
  const keep = `保留 ${what} = ${good}。`;
  if (problem === 'letters') return `“${typed}”不是数字。${keep}`;
  if (problem === 'empty') return `输入框为空：请输入一个数。${keep}`;
  if (problem === 'whole') return `${what}必须是整数，${typed} 不是整数。${keep}`;
  return `${what}必须在 ${b.range} 之内，${typed} 超出了这个范围。${keep}`;
}

/** One arrow-key step of `text` as a number box of the page steps it: one unit of its last digit. */
function stepped(text, dir) {
  const places = (text.split('.')[1] ?? '').length;
  return Number((Number(text) + dir * 10 ** -places).toFixed(places));
}

/** A one-head weights state of 70 tokens (more rows than the lab's 64-row window): uniform rows. */
async function seventyTokens(page) {
  const n = 70;
  const base = await getState(page);
  const tokens = Array.from({ length: n }, (_, i) => `t${i}`);
  const err = await trySetState(page, {
    ...base,
    mode: 'weights',
    heads: [{ name: 'uniform', Q: null, K: null, V: null, logits: null, weights: tokens.map(() => tokens.map(() => 1 / n)) }],
    head: 0,
    tokens: { queries: tokens, keys: tokens },
    mask: { causal: false, window: 0, padding: Array(n).fill(false), allow: null },
    tau: 1,
    row: 0,
    view: { ...base.view, preset: 'custom' },
    source: 'uniform 70 tokens (test)',
  });
  assert.equal(err, null, JSON.stringify(err));
}

async function openView(page, view) {
  await page.click(`#lab-tab-${view}`);
  await page.waitForFunction((v) => document.getElementById('lab-view').dataset.drawn === v, view);
  if (view === 'linear' && (await page.$eval('#lab-param-features', (el) => el.disabled))) {
    await page.selectOption('#lab-param-feature', 'relu');
    await page.waitForFunction(
      () => window.attentionPlayground.results()?.lab?.feature === 'relu' && !document.getElementById('lab-param-features').disabled,
    );
  }
}

/** What must not move under a refusal: the state's lab, the lab's numbers and the view's text. */
const snapshot = (page) =>
  page.evaluate(() => ({
    lab: JSON.stringify(window.attentionPlayground.getState().lab),
    numbers: JSON.stringify(window.attentionPlayground.results().lab),
    text: document.getElementById('lab-view').textContent,
  }));

const labError = async (page) => ((await page.isHidden('#lab-error')) ? null : (await page.textContent('#lab-error')).trim());

async function everyBox(lang) {
  const { page, context } = await openPage(session, `#lang=${lang}`, { label: `[boxes ${lang}] ` });
  let view = null;
  for (const b of BOXES) {
    if (b.rows) await seventyTokens(page);
    else if (view === 'sink' && b.view !== 'sink') await page.selectOption('#preset', 'multihead');
    if (b.view !== view || b.rows) await openView(page, b.view);
    view = b.view;
    const sel = `#${b.id}`;
    const good = await page.inputValue(sel);
    assert.ok(good !== '' && Number.isFinite(Number(good)), `${b.id}: shows a number (${good})`);
    const before = await snapshot(page);
    const cases = [
      ['letters', 'abc'],
      ['empty', ''],
      ['range', b.out],
    ];
    if (b.whole) cases.push(['whole', `${good}.5`]);
    for (const [problem, typed] of cases) {
      await typeInto(page, sel, typed);
      assert.equal(await labError(page), expected(lang, b, problem, typed, good), `${lang} ${b.id} ${problem}`);
      assert.equal(await page.getAttribute(sel, 'aria-invalid'), 'true', `${b.id} ${problem}: marked invalid`);
      assert.deepEqual(await snapshot(page), before, `${lang} ${b.id} ${problem}: the value and the lab's numbers stay`);
    }
    // The good value typed again: the refusal goes, nothing is sent.
    await typeInto(page, sel, good);
    assert.equal(await labError(page), null, `${b.id}: the refusal is cleared by the value in effect`);
    assert.equal(await page.getAttribute(sel, 'aria-invalid'), null);
    assert.deepEqual(await snapshot(page), before, `${b.id}: the value in effect sends nothing`);
    // Arrow keys: one step up (committed), one step down (back to the value in effect).
    const up = stepped(good, 1);
    await page.focus(sel);
    await page.keyboard.press('ArrowUp');
    if (b.rows) {
      assert.equal(await page.inputValue(sel), String(up), `${b.id}: ArrowUp`);
      assert.match(await page.textContent('#lab-sink-rows-picker [role=status]'), new RegExp(`${up}–${up + 63}`));
    } else {
      const name = b.id.replace(/^lab-param-/, '');
      const param = { 'lab-sat-range': 'gapRange', 'lab-sat-keys': 'jacobianKeys', 'lab-norm-alpha': 'alpha' }[b.id] ?? name;
      await page.waitForFunction(
        ({ param, up, id }) =>
          window.attentionPlayground.getState().lab.params[param] === up &&
          document.getElementById('lab-view').dataset.drawn &&
          document.getElementById(id)?.value === String(up),
        { param, up, id: b.id },
      );
      await page.focus(sel);
      await page.keyboard.press('ArrowDown');
      await page.waitForFunction(
        ({ param, want, id }) =>
          window.attentionPlayground.getState().lab.params[param] === want &&
          document.getElementById('lab-view').dataset.drawn &&
          document.getElementById(id)?.value === String(want),
        { param, want: Number(good), id: b.id },
      );
      assert.equal(await labError(page), null, `${b.id}: no refusal after the arrow keys`);
    }
  }
  return { page, context };
}

test('English: every lab number box refuses letters, an empty box, a value out of range and a fraction, and keeps its value', async () => {
  const { context } = await everyBox('en');
  await context.close();
});

test('Chinese: every lab number box refuses in Chinese and keeps its value', async () => {
  const { page, context } = await everyBox('zh-CN');
  // The refusal stays with the state across a language change, re-worded.
  await typeInto(page, '#lab-param-steps', 'x9');
  const b = BOXES.find((x) => x.id === 'lab-param-steps');
  assert.equal(await labError(page), expected('zh-CN', b, 'letters', 'x9', '91'));
  await page.selectOption('#lang', 'en');
  await page.waitForFunction(() => document.documentElement.lang === 'en');
  await page.waitForFunction(() => document.getElementById('lab-view').dataset.drawn === 'sweep');
  assert.equal(await labError(page), expected('en', b, 'letters', 'x9', '91'));
  // The core still refuses what no box limit covers (its words, in the same place).
  await context.close();
});

test('a phone (390 x 844, touch): a refused lab box, worded in Chinese, fits the screen', async () => {
  const context = await session.browser.newContext({
    viewport: { width: 390, height: 844 },
    hasTouch: true,
    isMobile: true,
    deviceScaleFactor: 2,
    locale: 'zh-CN',
  });
  const page = await context.newPage();
  watch(page, session.events, '[boxes phone] ');
  await page.goto(`${session.url}#lang=zh-CN`);
  await waitReady(page);
  await openView(page, 'routing');
  const before = (await getResults(page)).lab;
  await page.tap('#lab-param-delta');
  await page.fill('#lab-param-delta', '0,5');
  await page.dispatchEvent('#lab-param-delta', 'change');
  assert.equal(await labError(page), '“0,5”不是数字。保留 δ = 0.1。');
  assert.deepEqual((await getResults(page)).lab, before);
  assert.equal(await page.getAttribute('#lab-param-delta', 'inputmode'), 'decimal');
  await page.evaluate(() => document.getElementById('lab-panel').scrollIntoView());
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 390, 'the page scrolls sideways');
  await page.screenshot({ path: screenshotPath('lab-boxes-phone-zh') });
  await context.close();
});
