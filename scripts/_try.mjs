import { chromium } from 'playwright-core';
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox','--disable-gpu'] });
const page = await browser.newPage();
page.on('console', (m) => console.log('console', m.type(), m.text().slice(0,300)));
page.on('pageerror', (e) => console.log('pageerror', e.message));
for (const f of process.argv.slice(2)) {
const t0 = Date.now();
await page.goto('file://' + f);
await page.waitForFunction(() => window.attentionPlayground, null, {timeout: 10000});
await page.evaluate(() => window.attentionPlayground.ready);
console.log(f, 'ready ms', Date.now() - t0);
await page.waitForTimeout(1500);
console.log(await page.evaluate(() => [document.body.dataset.view, window.attentionPlayground.getState().tau, JSON.stringify(window.attentionPlayground.imported()).slice(0, 400)]));
await page.screenshot({ path: f + '.png' });
}
await browser.close();
