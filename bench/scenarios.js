// `npm run bench:scenarios`: the scenario timings of dev/scenarios.js in Debian's Chromium
// (headless, playwright-core). Prints a table and writes bench-results/scenarios-chromium.json.
//   node bench/scenarios.js [--runs 5] [--only heads|dump|long|import|interaction|cli]
// cli: the native `attn analyze` (build/native/attn) on the import's file, 1 and <cores> threads
// (bench/cli-analyze.js); it needs no browser page.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serve } from '../scripts/serve.js';
import { arg, gitInfo, machine } from './lib/node-env.js';
import { interactionScenarios } from './browser-interaction.js';
import { importScenarios } from './browser-import.js';
import { cpus } from 'node:os';
import { cliScenarios } from './cli-analyze.js';
import { CHROMIUM_ARGS } from '../scripts/chromium.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const query = new URLSearchParams({ runs: arg('--runs', '5') });
const only = arg('--only', null);

const { server, url } = await serve({ port: 0 });
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
try {
  const page = await browser.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error') console.error(`console error: ${m.text()}`);
  });
  page.setDefaultTimeout(15 * 60 * 1000);
  let results = { scenarios: [] };
  // The scenarios page runs the in-page scenarios asked for and always times the fused kernel alone
  // (its ns per cell gives every row's ratio); `only=kernel` runs no scenario of its own.
  const pageOnly = only && !['heads', 'dump', 'long'].includes(only) ? 'kernel' : only;
  if (pageOnly) query.set('only', pageOnly);
  if (only !== 'cli') {
    await page.goto(`${url}dev/scenarios.html?${query}`);
    results = await page.evaluate(() => window.scenarioResults);
  }
  if (!only || only === 'import') {
    results.scenarios.push(
      ...(await importScenarios(browser, url, { runs: Math.min(3, Number(arg('--runs', '3'))), cores: cpus().length })),
    );
  }
  if (!only || only === 'interaction') results.scenarios.push(...(await interactionScenarios(browser, url)));
  if (!only || only === 'cli') {
    const runs = Math.max(3, Number(arg('--runs', '5')));
    results.scenarios.push(...(await cliScenarios(join(ROOT, 'build', 'native', 'attn'), { runs, cores: cpus().length })));
  }
  const ns = results.kernelNsPerCell;
  const rows = results.scenarios.map((s) => [
    s.name,
    `${s.runsMs.length > 1 ? `${s.stat ?? 'median'} ` : ''}${s.medianMs.toFixed(1)} ms`,
    s.targetMs ? `target <= ${s.targetMs} ms: ${s.medianMs <= s.targetMs ? 'met' : 'NOT met'}` : '',
    s.cells && ns ? `${(s.medianMs / ((s.cells * ns) / 1e6)).toFixed(1)}x the fused kernel alone` : '',
    s.speedup ? `${s.speedup.toFixed(2)}x ${s.speedupOf ?? 'one worker'}` : '',
    s.outputIdentical ? 'output byte-identical' : '',
    s.firstRunMs !== undefined ? `first round ${s.firstRunMs.toFixed(1)} ms` : '',
    s.peakMemoryMiB
      ? `${s.peakMemoryMiB.toFixed(0)} MiB (< ${s.targetMemoryMiB}: ${s.peakMemoryMiB < s.targetMemoryMiB ? 'met' : 'NOT met'})`
      : '',
  ]);
  if (results.variant) {
    console.log(`Chromium, ${results.variant} (${results.kernels})`);
    console.log(`fused softmax + entropy kernel alone: ${ns?.toFixed(3)} ns per cell`);
  }
  for (const r of rows) console.log(`  ${r[0]}\n      ${r.slice(1).filter(Boolean).join('  ')}`);
  mkdirSync(join(ROOT, 'bench-results'), { recursive: true });
  const out = join(ROOT, 'bench-results', 'scenarios-chromium.json');
  writeFileSync(out, JSON.stringify({ machine: machine(), git: gitInfo(ROOT), ...results }, null, 2));
  console.log(`wrote ${out}`);
} finally {
  await browser.close();
  server.close();
}
