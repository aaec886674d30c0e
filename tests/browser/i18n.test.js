// Language coverage of the page: in Chinese no English word is left on screen (text, and the
// aria-label / title / placeholder / alt of what is visible), in English no Chinese character;
// data (translate="no": tokens, head names, file names, technical detail), KaTeX output and code
// are skipped. The language comes from the link (#lang=zh-CN) or the language control, persists in
// the link across a reload, and switching it changes neither the state, the results nor the undo
// stack.
//
//   node --test --test-concurrency=1 tests/browser/i18n.test.js
//
// Adding a view: append one line to CASES below — a name and a `setup(page)` that brings the view
// on screen (and, if it is not inside #app, a `root` selector). Both languages are checked for it.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { choosePreset, getResults, getState, openPage, screenshotPath, startSession, typeInto, waitReady } from './harness.js';
import { CJK } from '../node/i18n_words.js';
import { englishWordsOf, interfaceTexts } from './lang_check.js'; // the collector shared with the view tests

/** The texts of `root` that are in the wrong language for `lang`, as "where: text" lines. */
async function wrongLanguage(page, lang, root) {
  const items = await interfaceTexts(page, root, { withDocument: true });
  assert.ok(items.length > 20, `collected ${items.length} texts in ${root}`);
  const bad =
    lang === 'en'
      ? items.filter((it) => CJK.test(it.text)).map((it) => `${it.where}: ${it.text}`)
      : items
          .map((it) => ({ ...it, words: englishWordsOf(it.text) }))
          .filter((it) => it.words.length)
          .map((it) => `${it.where}: [${it.words.join(', ')}] ${it.text.slice(0, 160)}`);
  return [...new Set(bad)];
}

/** Switches the language through the control in the header, as a reader does. */
async function chooseLang(page, lang) {
  await page.selectOption('#lang', lang);
  await page.waitForFunction((want) => document.documentElement.lang === want, lang);
}

/** Checks one view in both languages; saves a full-page screenshot of each. */
async function checkBothLanguages(page, name, root = '#app') {
  const bad = [];
  for (const lang of ['zh-CN', 'en']) {
    await chooseLang(page, lang);
    await page.screenshot({ path: screenshotPath(`i18n-${name}-${lang}`), fullPage: true });
    bad.push(...(await wrongLanguage(page, lang, root)).map((line) => `${lang} ${line}`));
  }
  assert.deepEqual(bad, [], `${name}: ${bad.length} texts in the other language`);
}

// The views to check: a name, a setup that brings the view on screen, and its root (default
// #app, the playground). Other views add one line each, e.g.
//   { name: 'import', setup: (page) => page.click('#tab-import'), root: '#import-view' },
//   { name: 'lab-sink', setup: (page) => page.click('#lab-tab-sink') },
const CASES = [
  { name: 'qkv', setup: (page) => choosePreset(page, 'selfattention') },
  {
    name: 'qkv-formulas-open',
    setup: async (page) => {
      await page.evaluate(() => {
        document.getElementById('formulas-box').open = true;
      });
    },
  },
  {
    name: 'qkv-errors',
    setup: async (page) => {
      await typeInto(page, '#tau', '0');
      await typeInto(page, '#edit-Q-r0-c0', '1..2');
      await page.waitForSelector('#tau-error:not([hidden])');
    },
  },
  { name: 'logits', setup: (page) => choosePreset(page, 'example2') },
  { name: 'weights', setup: (page) => choosePreset(page, 'gpt2-small_L0_nlp-sentence.0') },
  { name: 'x', setup: (page) => choosePreset(page, 'multihead') },
  {
    name: 'x-gate',
    setup: async (page) => {
      await page.check('#gate-on');
      await page.waitForSelector('#gate-table');
    },
  },
  {
    name: 'large-head',
    setup: async (page) => {
      await choosePreset(page, 'long512');
      await page.waitForSelector('#overview-canvas');
    },
  },
];

let session;
let page;
before(async () => {
  session = await startSession();
  ({ page } = await openPage(session, '#lang=zh-CN', { label: 'i18n: ' }));
});
after(async () => {
  await session?.close();
  assert.deepEqual(session?.events.pageErrors ?? [], []);
  assert.deepEqual(session?.events.consoleErrors ?? [], []);
});

test('#lang=zh-CN opens the page in Chinese: <html lang>, the language control, the title', async () => {
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'zh-CN');
  assert.equal(await page.inputValue('#lang'), 'zh-CN');
  assert.equal(await page.title(), '注意力实验场');
  assert.equal(await page.textContent('#tab-playground'), '实验场');
  // The control names itself in both languages.
  assert.match(await page.textContent('#language-wrap'), /语言.*Language/s);
});

for (const c of CASES) {
  test(`no text in the other language: ${c.name}`, async () => {
    await c.setup(page);
    await checkBothLanguages(page, c.name, c.root);
  });
}

test('a language change keeps the state, the results and the undo stack', async () => {
  await choosePreset(page, 'example2');
  await chooseLang(page, 'en');
  const before = await getState(page);
  await typeInto(page, '#tau', '0.5');
  await page.waitForFunction(() => window.attentionPlayground.getState().tau === 0.5);
  const edited = await getState(page);
  const results = await getResults(page);
  await chooseLang(page, 'zh-CN');
  await chooseLang(page, 'en');
  await chooseLang(page, 'zh-CN');
  assert.deepEqual(await getState(page), edited);
  assert.deepEqual(await getResults(page), results);
  // The controls still show the state after the rebuild.
  assert.equal(await page.inputValue('#tau'), '0.5');
  assert.equal(await page.inputValue('#row'), String(edited.row));
  // One undo takes back the τ edit: the language changes made no undo steps.
  await page.click('#undo');
  await page.waitForFunction(() => window.attentionPlayground.getState().tau === 1);
  assert.deepEqual(await getState(page), before);
});

test('the language travels in the link: a reload opens in the same language', async () => {
  await chooseLang(page, 'zh-CN');
  await page.waitForFunction(() => /(^#|&)lang=zh-CN(&|$)/.test(location.hash));
  const state = await getState(page);
  await page.reload();
  await waitReady(page);
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'zh-CN');
  assert.equal(await page.inputValue('#lang'), 'zh-CN');
  assert.deepEqual(await getState(page), state);
  // And back: English in the link after switching.
  await chooseLang(page, 'en');
  await page.waitForFunction(() => /(^#|&)lang=en(&|$)/.test(location.hash));
  await page.reload();
  await waitReady(page);
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'en');
});

test('?lang=zh-CN in the query string opens in Chinese when the fragment names no language; the fragment wins', async () => {
  const { context, page: p } = await openPage(session, `${session.url}?lang=zh-CN`, { label: '[i18n ?lang] ' });
  assert.equal(await p.evaluate(() => document.documentElement.lang), 'zh-CN');
  assert.equal(await p.inputValue('#lang'), 'zh-CN');
  // The link it writes says the same language (a trial saw ?lang=zh-CN#…&lang=en).
  assert.match(await p.evaluate(() => window.attentionPlayground.shareUrl()), /[#&]lang=zh-CN(&|$)/);
  await context.close();
  const other = await openPage(session, `${session.url}?lang=zh-CN#lang=en`, { label: '[i18n ?lang] ' });
  assert.equal(await other.page.evaluate(() => document.documentElement.lang), 'en');
  await other.context.close();
});

test('the collector finds English left in Chinese and skips data', async () => {
  await chooseLang(page, 'zh-CN');
  await page.evaluate(() => {
    const p = document.createElement('p');
    p.id = 'i18n-probe';
    p.append('未翻译 leftover words', Object.assign(document.createElement('span'), { translate: false, textContent: 'data token' }));
    document.getElementById('app').prepend(p);
  });
  const bad = await wrongLanguage(page, 'zh-CN', '#app');
  await page.evaluate(() => document.getElementById('i18n-probe').remove());
  assert.deepEqual(
    bad.filter((b) => b.startsWith('#i18n-probe')),
    ['#i18n-probe p: [leftover, words] 未翻译 leftover words'],
  );
});
