// `npm run bench:single-file`: the one-file page (scripts/single-file.js) against its budget
// (<= 1.5 MB on disk, usable <= 2 s from file:// unthrottled). Builds the page into
// bench-results/, opens it from file:// in Debian's Chromium RUNS times, each in a fresh context
// (cold: nothing cached), with no throttling, and prints per run the time to usable (the core
// ready, the weights heatmap drawn, a temperature change computed) and the main thread's busy
// time; writes bench-results/single-file.json. A benchmark, not a test: nothing is asserted.
// On a shared machine the times follow its load (printed beside them).
import { chromium } from 'playwright-core';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildSingleFile, MAX_FILE_BYTES } from '../scripts/single-file.js';
import { CHROMIUM_ARGS } from '../scripts/chromium.js';

const RUNS = Number(process.env.RUNS ?? 7);
const OUT = fileURLToPath(new URL('../bench-results/', import.meta.url));
mkdirSync(OUT, { recursive: true });
const built = await buildSingleFile();
const file = `${OUT}attention-playground.html`;
writeFileSync(file, built.html);

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
const runs = [];
for (let i = 0; i < RUNS; i++) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Performance.enable');
  await page.goto(pathToFileURL(file).href);
  await page.waitForFunction(() => window.attentionPlayground);
  await page.evaluate(() => window.attentionPlayground.ready);
  await page.waitForSelector('#weights-view [data-value]');
  await page.evaluate(() => window.attentionPlayground.setState({ ...window.attentionPlayground.getState(), tau: 2 }));
  const usableMs = await page.evaluate(() => performance.now());
  const metrics = Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
  runs.push({
    usableMs: Math.round(usableMs),
    mainThreadMs: Math.round(metrics.TaskDuration * 1000),
    load1: Number(loadavg()[0].toFixed(1)),
  });
  await context.close();
}
await browser.close();

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const result = {
  bytes: built.bytes,
  budgetBytes: MAX_FILE_BYTES,
  variants: built.variants,
  realPresets: built.data,
  katexFonts: built.fonts,
  runs,
  medianUsableMs: median(runs.map((r) => r.usableMs)),
  budgetUsableMs: 2000,
};
writeFileSync(`${OUT}single-file.json`, `${JSON.stringify(result, null, 1)}\n`);
console.log(`one-file page: ${built.bytes} bytes (budget ${MAX_FILE_BYTES}), ${built.variants.join(' + ')}`);
for (const r of runs) console.log(`  usable ${r.usableMs} ms, main thread ${r.mainThreadMs} ms (load average ${r.load1})`);
console.log(`median time to usable from file://: ${result.medianUsableMs} ms (budget 2000 ms) -> bench-results/single-file.json`);
