// `npm run bench:browser`: the kernel benchmark in Debian's Chromium (headless, driven by
// playwright-core; never `npx playwright install`). Serves web/ with scripts/serve.js on a free
// port, opens dev/bench.html, waits for window.benchResults, adds the native variants of
// build/native/attn_bench (run alone just before and just after, pooled) so that the WASM SIMD / native SSE4.1 ratio
// compares Chromium with native code measured in the same session, prints the table and writes
// bench-results/bench-chromium.json.
//
//   node bench/browser.js [--sizes 256,1024,4096] [--runs 7] [--min-ms 120] [--no-native] [--out FILE]
//                         [--web-root DIR (default web/, a built copy)]
//
// Needs web/vendor/bench-vendor.js and web/vendor/tfjs/ (`npm run build:bench`; scripts/bench.sh
// browser builds them).

import { writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

import { serve } from '../scripts/serve.js';
import { computeRatios, formatTables } from './lib/harness.js';
import { nativeResults } from './lib/variants.js';
import { arg, machine, runNative, poolNative, gitInfo } from './lib/node-env.js';
import { CHROMIUM_ARGS } from '../scripts/chromium.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const WEB = arg('--web-root', join(ROOT, 'web'));
const sizes = arg('--sizes', '256,1024,4096');
const runs = arg('--runs', '7');
const minMs = arg('--min-ms', '120');
const outFile = arg('--out', join(ROOT, 'bench-results', 'bench-chromium.json'));
const log = (msg) => console.error(msg);

for (const f of ['wasm/attn.js', 'wasm/attn_simd.js', 'vendor/bench-vendor.js', 'vendor/tfjs/tfjs-backend-wasm-simd.wasm']) {
  if (!existsSync(join(WEB, f))) throw new Error(`web/${f} is missing: run \`npm run build\` and \`npm run build:bench\``);
}

const started = Date.now();
const nativeOpts = { sizes: sizes.split(',').map(Number), runs: Number(runs), minBatchMs: Number(minMs) };
const nativeBefore = runNative(ROOT, log, nativeOpts);
if (nativeBefore.skipped) log(`native: skipped (${nativeBefore.skipped})`);

const { server, url } = await serve({ port: 0, root: WEB });
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
let pageReport;
let browserVersion;
try {
  browserVersion = browser.version();
  const page = await browser.newPage();
  const problems = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(msg.text());
    else if (msg.type() === 'log') log(`page: ${msg.text()}`);
  });
  page.on('pageerror', (err) => problems.push(err.stack || err.message));
  page.on('response', (res) => {
    if (res.status() >= 400) problems.push(`${res.url()}: HTTP ${res.status()}`);
  });
  // Progress: the page writes every step to #status; echo it here.
  await page.exposeFunction('__benchProgress', (msg) => log(`chromium: ${msg}`));
  await page.addInitScript(() => {
    addEventListener('DOMContentLoaded', () => {
      const status = document.getElementById('status');
      new MutationObserver(() => window.__benchProgress(status.textContent)).observe(status, {
        childList: true,
        characterData: true,
        subtree: true,
      });
    });
  });
  const target = `${url}dev/bench.html?sizes=${sizes}&runs=${runs}&minMs=${minMs}`;
  log(`chromium ${browserVersion}: ${target}`);
  await page.goto(target);
  await page
    .waitForFunction(() => window.benchResults !== undefined, null, { timeout: 30_000 })
    .catch(() => {
      throw new Error(`the page did not start: ${problems.join('; ') || 'window.benchResults never set'}`);
    });
  pageReport = await page.evaluate(() => window.benchResults);
  if (problems.length) log(`page problems: ${problems.join('; ')}`);
} finally {
  await browser.close().catch(() => {});
  await new Promise((done) => server.close(done));
}

// Native again, with Chromium closed; both native runs are pooled (poolNative).
const native = nativeBefore.skipped ? nativeBefore : poolNative(nativeBefore, runNative(ROOT, log, nativeOpts));
const results = [...pageReport.results, ...nativeResults(native).filter((r) => pageReport.config.sizes.includes(r.n))];
const ratios = computeRatios(results, 'chromium');
const report = {
  ...pageReport,
  browser: `Chromium ${browserVersion}`,
  machine: { ...machine(), browser: pageReport.machine, native: native.machine ?? null },
  git: gitInfo(ROOT),
  results,
  ratios,
  native_skipped: native.skipped ?? null,
  seconds: Math.round((Date.now() - started) / 1000),
};
delete report.table;

mkdirSync(dirname(outFile), { recursive: true });
writeFileSync(outFile, JSON.stringify(report, null, 1) + '\n');
console.log(formatTables(report.results, report.ratios, `Kernel benchmark, ${report.browser}, ${report.machine.cpu}`));
if (report.git)
  console.log(`checkout ${report.git.commit}${report.git.dirty ? ' with uncommitted changes (the build may include them)' : ''}`);
console.log(`wrote ${outFile} (${report.seconds} s)`);
