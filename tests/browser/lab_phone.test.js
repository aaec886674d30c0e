// The analysis lab on a phone (390 x 844): every lab view, in Chinese and in English, on a
// two-head layer (sink's pairs, spectral's redundancy) and on a real 33-token head (routing's
// graph, saturation's Jacobian), keeps the page 390 px wide. A table wider than the screen
// scrolls inside its own box (overflow-x auto) within the panel; a parameter label wraps.
// Screenshots of each view go to test-results/screenshots/lab-phone-*.png.
//
//   node --test tests/browser/lab_phone.test.js   (after the WASM build is in web/wasm)

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { SCHEMA } from '../../web/generated/schema.js';
import { closeQuietly, screenshotPath, startSession, waitReady, watch } from './harness.js';

let session;
before(async () => {
  session = await startSession();
});
after(() => closeQuietly(session));

const PHONE = { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, deviceScaleFactor: 1 };

/** Every element of the lab panel past the screen's right edge that no scroll box of its own holds. */
function measure(page) {
  return page.evaluate(() => {
    const W = document.documentElement.clientWidth;
    const scrolls = (el) => ['auto', 'scroll'].includes(getComputedStyle(el).overflowX);
    const loose = [];
    const tables = [];
    for (const el of document.querySelectorAll('#lab-panel *')) {
      const box = el.getBoundingClientRect();
      if (box.width === 0) continue;
      let held = false;
      for (let p = el.parentElement; p && p.id !== 'lab-panel'; p = p.parentElement) {
        if (scrolls(p)) {
          held = p.getBoundingClientRect().right <= W + 0.5;
          break;
        }
      }
      if (box.right > W + 0.5 && !held)
        loose.push(`${el.tagName.toLowerCase()}#${el.id}.${el.getAttribute('class') ?? ''} right ${Math.round(box.right)}`);
      if (el.tagName === 'TABLE' && box.right > W + 0.5) tables.push(el.id || el.className);
    }
    return { scrollWidth: document.documentElement.scrollWidth, width: W, loose, tables };
  });
}

async function everyView(lang, preset) {
  const context = await session.browser.newContext({ ...PHONE, locale: lang });
  const page = await context.newPage();
  watch(page, session.events, `[phone ${lang}] `);
  await page.goto(`${session.url}#lang=${lang}`);
  await waitReady(page);
  await page.selectOption('#preset', preset);
  await page.waitForFunction((want) => window.attentionPlayground.getState()?.view?.preset === want, preset);
  let wide = 0;
  for (const view of SCHEMA.labViews) {
    await page.click(`#lab-tab-${view}`);
    await page.waitForFunction((v) => document.getElementById('lab-view').dataset.drawn === v, view);
    const m = await measure(page);
    await page.evaluate(() => document.getElementById('lab-panel').scrollIntoView());
    await page.screenshot({ path: screenshotPath(`lab-phone-${lang}-${preset}-${view}`) });
    assert.equal(m.width, 390, 'the phone viewport');
    assert.deepEqual(m.loose, [], `${lang} ${preset} ${view}: past the screen's edge, not in a scroll box`);
    assert.equal(m.scrollWidth, 390, `${lang} ${preset} ${view}: the page scrolls sideways`);
    wide += m.tables.length;
  }
  await context.close();
  return wide;
}

test('every lab view on a phone, Chinese, two-head layer: the page stays 390 px wide', async () => {
  const wide = await everyView('zh-CN', 'multihead');
  assert.ok(wide >= 5, `tables wider than the screen (held in their scroll boxes): ${wide}`);
});

test('every lab view on a phone, English, a real 33-token head: the page stays 390 px wide', async () => {
  const wide = await everyView('en', 'gpt2-small_L0_nlp-sentence.0');
  assert.ok(wide >= 5, `tables wider than the screen (held in their scroll boxes): ${wide}`);
});
