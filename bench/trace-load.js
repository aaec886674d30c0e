// `node bench/trace-load.js [--root dist] [--out FILE] [--cpu 4] [--no-samples] [--first]`: where the offline repeat visit of the class
// link spends its main thread (docs/performance.md "Loading"). As bench/load.js's offline run (a
// first visit installs the service worker, then the link again with the network cut, CPU 4x), with
// a DevTools trace (devtools.timeline, v8, the sampling profiler) of the second visit. Prints the
// main thread's tasks over 8 ms (start and duration in ms from the frame's commit), the layouts'
// text shaping, V8's lazy WebAssembly compilation, and the JS and WebAssembly samples under the
// core's entry points, and the main thread's CPU time up to usable by part; writes the trace
// (default /tmp/trace-load.json, for chrome://tracing or Perfetto). Timings under a loaded machine
// are inflated; the counts and the shares are not. For A/B comparisons on a busy machine use
// `--cpu 1 --no-samples`: no CPU throttling (whose thread times are inflated) and no sampling
// profiler (which logs every lazily compiled WebAssembly function and inflates the core's first
// calls); the CPU time up to usable then moves by ~10 % between runs.
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serve } from '../scripts/serve.js';
import { CHROMIUM_ARGS } from '../scripts/chromium.js';
import { arg } from './lib/node-env.js';
import { NETWORK, makeLinks, usableInPage, visitThenGoOffline } from './lib/load-page.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const root = resolve(ROOT, arg('--root', 'dist'));
const out = arg('--out', '/tmp/trace-load.json');
// --first: the first visit instead (cold cache, no service worker, bench/load.js's network profile).
const first = process.argv.includes('--first');
const CATEGORIES = [
  'devtools.timeline',
  'v8',
  'v8.wasm',
  'blink',
  'loading',
  'blink.user_timing',
  'disabled-by-default-devtools.timeline',
  ...(process.argv.includes('--no-samples') ? [] : ['disabled-by-default-v8.cpu_profiler']),
].join(',');

const { server, url } = await serve({ port: 0, root, staticHost: true });
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
try {
  const link = (await makeLinks(browser, url))['class-zh'];
  const context = await browser.newContext({ serviceWorkers: first ? 'block' : 'allow' });
  if (!first) await visitThenGoOffline(context, link);
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: Number(arg('--cpu', '4')) });
  if (first) await cdp.send('Network.emulateNetworkConditions', NETWORK);
  const events = [];
  cdp.on('Tracing.dataCollected', (e) => events.push(...e.value));
  const done = new Promise((r) => cdp.once('Tracing.tracingComplete', r));
  await cdp.send('Tracing.start', { categories: CATEGORIES, transferMode: 'ReportEvents' });
  await page.goto(link, { waitUntil: 'commit' });
  const times = await page.evaluate(usableInPage);
  await cdp.send('Tracing.end');
  await done;
  writeFileSync(out, JSON.stringify(events));
  summarise(events, times);
} finally {
  await browser.close();
  server.close();
}

function summarise(events, times) {
  const main = events.find((e) => e.name === 'thread_name' && e.args.name === 'CrRendererMain');
  const t0 = events.find((e) => e.name === 'markAsMainFrame').ts;
  const ms = (us) => (us / 1000).toFixed(0);
  const mine = events.filter((e) => e.pid === main.pid && e.tid === main.tid && e.ph === 'X' && e.ts >= t0);
  console.log(`drawn ${Math.round(times.drawn)} ms, usable ${Math.round(times.usable)} ms (since the navigation)`);
  console.log('main-thread tasks over 8 ms: start, duration (ms), the largest step inside');
  for (const task of mine.filter((e) => e.name === 'RunTask' && e.dur > 8000)) {
    const inside = mine.filter((e) => e !== task && e.name !== 'RunTask' && e.ts >= task.ts && e.ts + e.dur <= task.ts + task.dur);
    const big = inside.sort((a, b) => b.dur - a.dur)[0];
    const what = big ? `${big.name} ${(big.args?.data?.url ?? '').split('/').pop().split('#')[0]}` : '';
    console.log(`${ms(task.ts - t0).padStart(6)} ${ms(task.dur).padStart(5)}  ${what}`);
  }
  const sum = (name) => mine.filter((e) => e.name === name);
  const shape = sum('InlineNode::ShapeTextIncludingFirstLine');
  const layouts = sum('LocalFrameView::performLayout');
  const lazy = sum('wasm.CompileLazy');
  const total = (list) => ms(list.reduce((a, e) => a + e.dur, 0));
  console.log(`layouts ${layouts.length} (${total(layouts)} ms), text shaping ${shape.length} calls (${total(shape)} ms)`);
  console.log(`WebAssembly functions compiled on first call: ${lazy.length} (${total(lazy)} ms)`);
  // CPU time of the main thread (the events' thread durations, unthrottled and much less moved by
  // other jobs on the machine than the wall clock): the tasks up to "usable", and their parts.
  const tUsable = t0 + times.usable * 1000;
  const before = mine.filter((e) => e.ts < tUsable && e.tdur !== undefined);
  // Outermost events only: a task runs nested tasks, a layout nested layouts.
  const outermost = (list) => list.filter((e) => !list.some((o) => o !== e && o.ts <= e.ts && o.ts + o.dur >= e.ts + e.dur));
  const cpu = (name) => outermost(before.filter((e) => e.name === name)).reduce((a, e) => a + e.tdur, 0);
  const parts = {
    all: cpu('RunTask'),
    style: cpu('UpdateLayoutTree'),
    layout: cpu('Layout'),
    shaping: cpu('InlineNode::ShapeTextIncludingFirstLine'),
    paint: cpu('Paint') + cpu('PrePaint'),
    'script eval': cpu('v8.evaluateModule') + cpu('EvaluateScript'),
    'wasm lazy compile': cpu('wasm.CompileLazy'),
    gc: cpu('MinorGC') + cpu('MajorGC'),
  };
  console.log(
    'main-thread CPU time up to usable (ms):',
    Object.entries(parts)
      .map(([k, v]) => `${k} ${ms(v)}`)
      .join(', '),
  );
  // Sampled JS: which of the core's entry points the WebAssembly samples are under.
  const nodes = new Map();
  const chunks = events.filter((e) => e.name === 'ProfileChunk' && e.pid === main.pid);
  for (const c of chunks) for (const n of c.args.data.cpuProfile?.nodes ?? []) nodes.set(`${c.id}:${n.id}`, n);
  const under = new Map();
  let js = 0;
  let wasm = 0;
  for (const c of chunks) {
    for (const s of c.args.data.cpuProfile?.samples ?? []) {
      let n = nodes.get(`${c.id}:${s}`);
      if (!n || ['(program)', '(idle)', '(garbage collector)'].includes(n.callFrame.functionName)) continue;
      js += 1;
      let inWasm = false;
      let entry = null;
      for (; n; n = n.parent === undefined ? null : nodes.get(`${c.id}:${n.parent}`)) {
        const f = n.callFrame.functionName;
        if (/wasm/.test(f) || /\.wasm$/.test(n.callFrame.url ?? '')) inWasm = true;
        if (/^(validateAndCompute|decodeLink|compute|lab|validateState)$/.test(f)) entry = f;
      }
      if (inWasm) {
        wasm += 1;
        under.set(entry, (under.get(entry) ?? 0) + 1);
      }
    }
  }
  console.log(`JS samples ${js}, in WebAssembly ${wasm}:`, Object.fromEntries(under));
}
