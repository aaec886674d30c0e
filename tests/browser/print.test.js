// Printing the playground (web/views/tex.js): KaTeX loads when a formula is first scrolled into
// view, so a page printed before that had blank formulas (found by a new-user trial). Ctrl+P
// waits for KaTeX and prints with every formula typeset; a print from the browser's menu (here
// page.pdf(), which fires 'beforeprint' as a print does) shows the TeX source of the formulas
// still pending, and KaTeX then typesets them.
//
//   node --test --test-concurrency=1 tests/browser/print.test.js   (after the build)

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { closeQuietly, startSession, waitReady, watch } from './harness.js';

let session;
before(async () => {
  session = await startSession();
});
after(() => closeQuietly(session));

/** A fresh page whose formulas are below the first screen (so still pending). */
async function freshPage() {
  const context = await session.browser.newContext({ viewport: { width: 1400, height: 700 } });
  const page = await context.newPage();
  watch(page, session.events, '[print] ');
  await page.goto(session.url);
  await waitReady(page);
  const before = await page.evaluate(() => ({
    pending: [...document.querySelectorAll('.tex-pending')].filter((el) => el.checkVisibility()).length,
    katex: document.querySelectorAll('.katex').length,
  }));
  assert.ok(before.pending >= 4, `visible formulas waiting for KaTeX: ${before.pending}`);
  assert.equal(before.katex, 0, 'KaTeX is not loaded before a formula is scrolled into view');
  return { context, page };
}

test('Ctrl+P loads KaTeX and prints with every formula typeset', async () => {
  const { context, page } = await freshPage();
  await page.evaluate(() => {
    window.print = () => {
      window.__printed = { pending: document.querySelectorAll('.tex-pending').length, katex: document.querySelectorAll('.katex').length };
    };
  });
  await page.keyboard.press('Control+P');
  await page.waitForFunction(() => window.__printed !== undefined);
  const printed = await page.evaluate(() => window.__printed);
  assert.equal(printed.pending, 0, 'no formula left blank');
  assert.ok(printed.katex >= 4, `${printed.katex} formulas typeset`);
  await context.close();
});

test("a print from the browser's menu shows the pending formulas' TeX source, then KaTeX typesets them", async () => {
  const { context, page } = await freshPage();
  // After the page's own listener (registered when tex.js loaded): what the print lays out.
  await page.evaluate(() =>
    addEventListener('beforeprint', () => {
      const blank = [...document.querySelectorAll('.tex-pending')].filter((el) => el.checkVisibility() && !el.textContent.trim());
      window.__atPrint = {
        blank: blank.map((el) => el.id || el.className),
        sources: document.querySelectorAll('.tex-pending .tex-source').length,
      };
    }),
  );
  await page.pdf({ format: 'A4' });
  const atPrint = await page.evaluate(() => window.__atPrint);
  assert.deepEqual(atPrint.blank, [], 'no blank formula in the print');
  assert.ok(atPrint.sources >= 4, `${atPrint.sources} formulas show their TeX source`);
  await page.waitForFunction(
    () => document.querySelectorAll('.tex-pending').length === 0 && document.querySelectorAll('.katex').length >= 4,
  );
  assert.equal(await page.locator('.tex-source').count(), 0, 'the TeX source is replaced by the typeset formula');
  await context.close();
});
