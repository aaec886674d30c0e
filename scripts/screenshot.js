// Takes a full-page screenshot of the playground in headless Debian Chromium, for looking at
// what the page shows (the browser tests save one per preset on every run).
//   node scripts/screenshot.js [URL] [out.png] [javascript to run in the page first]
// Without a URL it serves web/ itself. Prints console errors and page errors.
import { chromium } from 'playwright-core';
import { serve } from './serve.js';
import { CHROMIUM_ARGS } from './chromium.js';

const [urlArg, out = 'screenshot.png', script] = process.argv.slice(2);
const served = urlArg ? null : await serve({ port: 0 });
const url = urlArg || served.url;
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
try {
  const page = await browser.newPage({ viewport: { width: 1500, height: 1000 } });
  page.on('console', (m) => {
    if (m.type() === 'error') console.log('console error:', m.text());
  });
  page.on('pageerror', (e) => console.log('page error:', e.message));
  await page.goto(url);
  await page.evaluate(() => window.attentionPlayground.ready);
  if (script) await page.evaluate(script);
  await page.waitForTimeout(200);
  await page.screenshot({ path: out, fullPage: true });
  console.log(`saved ${out}`);
} finally {
  await browser.close();
  served?.server.close();
}
