// `npm run bench:load`: how fast the page loads on a phone-class profile (docs/performance.md
// "Loading"). Debian's Chromium (playwright-core) with, through the DevTools protocol, the CPU
// slowed 4x (Emulation.setCPUThrottlingRate) and the network at 1.6 Mbps down, 750 Kbps up and
// 150 ms round trip (Network.emulateNetworkConditions: Lighthouse's mobile profile), a cold cache
// (a new browser context per run). Links:
//   default   the page with no link
//   class-zh  a Chinese class link: the guided lesson at step 1, the import view, the lab, the
//             mode and the scale controls hidden
//   gpt2-l0   the GPT-2 small layer 0 preset (a real head, 12 heads)
//   offline   class-zh again in the same context after a first visit, with the network cut (the
//             service worker answers; dist/ only)
// Per run: bytes transferred (Resource Timing's transferSize, headers included) and requests of the page until the
// network is quiet (nothing in flight, nothing new for 1.5 s) after it is usable, first paint and
// first contentful paint, and time to usable: the core ready (attentionPlayground.ready), the view
// drawn (the weights heatmap in the DOM, the next frame painted) and an input accepted (a state
// change applied and drawn). The first visits run with service workers blocked, so every byte the
// page needs is the page's own request (the worker's background download of the whole release,
// after the page is up, is not counted; docs/deploy.md gives its size).
//
//   node bench/load.js [--root dist|web] [--runs 3] [--out FILE] [--label NAME] [--no-throttle] [--only LINK,...]
//   --root dist (default): serves dist/ like a static host (precompressed .br/.gz, scripts/serve.js
//   --static-host); run `npm run dist` first. --root web: web/ as `npm start` serves it (no
//   compression), the state before the release build.
// Writes bench-results/load-<label>.json (label: the root's name by default). Prints a table and
// the loading budgets (the class link <= 400 KB and 3.0 s, the default page <= 450 KB and
// 3.5 s, the offline repeat visit <= 1.0 s); a budget missed is reported, not an error.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serve } from '../scripts/serve.js';
import { arg, gitInfo, machine } from './lib/node-env.js';
import { CHROMIUM_ARGS } from '../scripts/chromium.js';
import { NETWORK, makeLinks, usableInPage, visitThenGoOffline } from './lib/load-page.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const root = resolve(ROOT, arg('--root', 'dist'));
const isDist = existsSync(join(root, 'sw.js'));
const runs = Number(arg('--runs', '3'));
const label = arg('--label', basename(root));
const outFile = arg('--out', join(ROOT, 'bench-results', `load-${label}.json`));
const throttle = !process.argv.includes('--no-throttle');
const only = arg('--only', '') ? arg('--only', '').split(',') : null; // e.g. class-zh,offline
const PROFILE = {
  cpu: 4,
  latencyMs: NETWORK.latency,
  downKbps: (NETWORK.downloadThroughput * 8) / 1000,
  upKbps: (NETWORK.uploadThroughput * 8) / 1000,
};
const BUDGETS = { 'class-zh': { kb: 400, ms: 3000 }, default: { kb: 450, ms: 3500 }, offline: { ms: 1000 } };
const log = (msg) => console.error(msg);

if (!existsSync(join(root, 'index.html'))) {
  console.error(`bench:load: ${root}/index.html is missing (run \`npm run dist\` for dist/)`);
  process.exit(1);
}

async function throttled(page, { network = true } = {}) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  if (throttle) {
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: PROFILE.cpu });
    if (network) {
      await cdp.send('Network.emulateNetworkConditions', NETWORK);
    }
  }
  const traffic = { bytes: 0, requests: 0, files: {}, inflight: new Set() };
  cdp.on('Network.requestWillBeSent', (e) => {
    traffic.requests++;
    traffic.inflight.add(e.requestId);
  });
  cdp.on('Network.loadingFailed', (e) => traffic.inflight.delete(e.requestId));
  const urls = new Map();
  cdp.on('Network.responseReceived', (e) => urls.set(e.requestId, e.response.url));
  cdp.on('Network.loadingFinished', (e) => {
    traffic.inflight.delete(e.requestId);
    traffic.bytes += e.encodedDataLength;
    const name = (urls.get(e.requestId) ?? '?').split('/').pop().split('#')[0] || 'index.html';
    traffic.files[name] = (traffic.files[name] ?? 0) + e.encodedDataLength;
  });
  return traffic;
}

/** Opens `link` in `page` and measures it (see the top of the file). */
async function measure(page, url, traffic) {
  const t0 = Date.now();
  await page.goto(url, { waitUntil: 'commit' });
  const ready = await page.evaluate(usableInPage);
  // Until the network is quiet: what the first screen fetches after it is usable counts too.
  let last = -1;
  while (last !== traffic.requests || traffic.inflight.size > 0) {
    last = traffic.requests;
    await page.waitForTimeout(throttle ? 1500 : 500);
  }
  // Bytes as the page's Resource Timing counts them (transferSize: body as sent plus headers; CDP's
  // encodedDataLength reports 0 for some font loads), per file.
  const entries = await page.evaluate(() =>
    [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')].map((e) => [
      e.name.split('#')[0].split('/').pop() || 'index.html',
      e.transferSize,
      Math.round(e.startTime),
      Math.round(e.responseEnd),
    ]),
  );
  const files = entries.map(([name, n]) => [name, n]);
  const bytes = files.reduce((sum, [, n]) => sum + n, 0);
  return {
    ...ready,
    wallMs: Date.now() - t0,
    bytes,
    requests: traffic.requests,
    files: Object.fromEntries(files),
    // When each file was requested and when its last byte arrived (ms since the navigation).
    waterfall: entries.map(([name, n, start, end]) => ({ name, bytes: n, start, end })),
    cdpBytes: traffic.bytes,
  };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  const { server, url } = await serve({ port: 0, root, staticHost: isDist });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
  const links = await makeLinks(browser, url);
  const results = {};
  try {
    for (const [name, link] of Object.entries(links)) {
      if (only && !only.includes(name)) continue;
      results[name] = [];
      for (let i = 0; i < runs; i++) {
        // No service worker on the measured first visits: it would fetch the rest of the release in
        // the background and then answer the page's late requests (fonts) from its cache, moving
        // their bytes out of the page's count. Its download is reported apart (docs/deploy.md).
        const context = await browser.newContext({ serviceWorkers: 'block' });
        const page = await context.newPage();
        const traffic = await throttled(page);
        results[name].push(await measure(page, link, traffic));
        await context.close();
        log(`${name} run ${i + 1}: ${JSON.stringify({ ...results[name].at(-1), files: undefined, waterfall: undefined })}`);
      }
    }
    if (isDist && (!only || only.includes('offline'))) {
      results.offline = [];
      for (let i = 0; i < runs; i++) {
        const context = await browser.newContext();
        await visitThenGoOffline(context, links['class-zh']);
        const page = await context.newPage();
        const traffic = await throttled(page, { network: false });
        results.offline.push(await measure(page, links['class-zh'], traffic));
        await context.close();
        log(`offline run ${i + 1}: ${JSON.stringify({ ...results.offline.at(-1), files: undefined, waterfall: undefined })}`);
      }
    }
  } finally {
    await browser.close();
    server.close();
  }

  const summary = {};
  const rows = [];
  for (const [name, list] of Object.entries(results)) {
    const s = {
      kb: Math.round(median(list.map((r) => r.bytes)) / 1024),
      requests: median(list.map((r) => r.requests)),
      firstPaintMs: Math.round(median(list.map((r) => r.firstPaint ?? NaN))),
      fcpMs: Math.round(median(list.map((r) => r.fcp ?? NaN))),
      usableMs: Math.round(median(list.map((r) => r.usable))),
    };
    const b = BUDGETS[name];
    const bytesMet = b?.kb === undefined || s.kb <= b.kb;
    const timeMet = !b || s.usableMs <= b.ms;
    s.budget = b ? { ...b, bytesMet, timeMet, met: bytesMet && timeMet } : null;
    summary[name] = s;
    const word = (ok) => (ok ? 'met' : 'MISSED');
    const budget = b
      ? [b.kb ? `<= ${b.kb} KB: ${word(bytesMet)}` : null, `<= ${b.ms} ms: ${word(timeMet)}`].filter(Boolean).join(', ')
      : '';
    rows.push(`| ${name} | ${s.kb} KB | ${s.requests} | ${s.firstPaintMs} ms | ${s.fcpMs} ms | ${s.usableMs} ms | ${budget} |`);
  }
  const profile = throttle
    ? `CPU ${PROFILE.cpu}x, ${PROFILE.downKbps} / ${PROFILE.upKbps} Kbps, ${PROFILE.latencyMs} ms RTT`
    : 'unthrottled';
  console.log(`\nbench:load ${label} (${root}${isDist ? ', precompressed' : ''}), ${profile}, cold cache, median of ${runs}`);
  console.log('| link | transferred | requests | first paint | first contentful paint | usable | budget |');
  console.log('|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
  mkdirSync(join(ROOT, 'bench-results'), { recursive: true });
  writeFileSync(
    outFile,
    `${JSON.stringify({ label, root, precompressed: isDist, profile: throttle ? PROFILE : null, runs, machine: machine(), git: gitInfo(ROOT), links, summary, results }, null, 1)}\n`,
  );
  console.log(`wrote ${outFile}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
