// Where the page import's time goes (docs/performance.md "The page import"): the scenario of bench/browser-import.js (a
// generated [12, 12, 512, 512] float32 .npy, 151 MB, dropped on the import view), timed and traced
// in Chromium. Per run it prints the drop -> grid time and, with --trace, each thread's busy time
// in that window (the page's main thread, the import workers, the browser's threads that serve
// the File reads) and the main thread's time by trace event; with --profile, the main thread's
// JavaScript by function (self time, CDP Profiler). Several web roots (--roots a,b) are run
// interleaved, root by root within each run, for an A/B on a shared machine.
//   node bench/import-trace.js [--workers 1,2] [--runs 1] [--roots web,/tmp/old/web] [--trace]
//                              [--save trace.json] [--profile] [--disk]
// --disk: the same file written to disk first and dropped as a File of the file system (what a
// user's drop gives, and what the `import` scenario of bench/scenarios.js times: reads come from
// the file, not from a Blob the page built in memory).
import { rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadavg } from 'node:os';
import { chromium } from 'playwright-core';
import { serve } from '../scripts/serve.js';
import { arg } from './lib/node-env.js';
import { CHROMIUM_ARGS } from '../scripts/chromium.js';
import { chooseFile, dropChosen, dropGeneratedIn, openImportView, writeGenerated } from './browser-import.js';

const WEB = fileURLToPath(new URL('../web/', import.meta.url));
const workerCounts = arg('--workers', '1,2').split(',').map(Number);
const runs = Number(arg('--runs', '1'));
const roots = arg('--roots', WEB).split(',');
const trace = process.argv.includes('--trace');
const profile = process.argv.includes('--profile');
const disk = process.argv.includes('--disk');
const save = arg('--save', null); // a file name: the last trace is written there (chrome://tracing, Perfetto)

/** Busy time per thread (top-level tasks) and the main thread's time by event, in [t0, t1] µs. */
function summariseTrace(events) {
  const names = new Map(); // `${pid}:${tid}` -> thread name
  for (const e of events) if (e.ph === 'M' && e.name === 'thread_name') names.set(`${e.pid}:${e.tid}`, e.args.name);
  const drop = events.find((e) => e.name === 'TimeStamp' && e.args?.data?.message === 'import-drop');
  const done = events.find((e) => e.name === 'TimeStamp' && e.args?.data?.message === 'import-done');
  const t0 = drop?.ts ?? -Infinity;
  const t1 = done?.ts ?? Infinity;
  const inside = (e) => e.ph === 'X' && e.ts >= t0 && e.ts <= t1 && e.dur;
  // Busy time per thread: the union of its top-level tasks (nested task events counted once).
  const spans = new Map();
  for (const e of events) {
    if (!inside(e) || !/RunTask$/.test(e.name)) continue;
    const k = `${e.pid}:${e.tid}`;
    if (!spans.has(k)) spans.set(k, []);
    spans.get(k).push([e.ts, e.ts + e.dur, e.tdur ?? 0]);
  }
  const busy = new Map();
  const cpuOf = new Map();
  for (const [k, list] of spans) {
    list.sort((a, b) => a[0] - b[0]);
    let total = 0;
    let cpu = 0; // thread time of the outermost tasks (what the thread got of a core)
    let end = -Infinity;
    for (const [a, b, t] of list) {
      if (b <= end) continue;
      if (a >= end) cpu += t;
      total += b - Math.max(a, end);
      end = b;
    }
    busy.set(k, total);
    cpuOf.set(k, cpu);
  }
  const threads = [...busy.entries()]
    .map(([k, us]) => ({ thread: names.get(k) ?? k, ms: us / 1000, cpuMs: cpuOf.get(k) / 1000 }))
    .filter((x) => x.ms >= 5)
    .sort((a, b) => b.ms - a.ms);
  // The page's main thread: the renderer's CrRendererMain with the most busy time in the window.
  const mainKey = [...busy.entries()].filter(([k]) => names.get(k) === 'CrRendererMain').sort((a, b) => b[1] - a[1])[0]?.[0];
  // Time by event on one thread: the main thread, then the busiest import worker.
  const eventsOf = (key) => {
    const byName = new Map();
    for (const e of events) {
      if (!inside(e) || `${e.pid}:${e.tid}` !== key) continue;
      if (/RunTask/.test(e.name)) continue;
      const fn =
        e.name === 'FunctionCall'
          ? `FunctionCall ${e.args?.data?.functionName || '(anonymous)'} ${e.args?.data?.url?.split('/').pop() ?? ''}`
          : e.name;
      byName.set(fn, (byName.get(fn) ?? 0) + e.dur);
    }
    return [...byName.entries()]
      .map(([name, us]) => ({ name, ms: us / 1000 }))
      .filter((x) => x.ms >= 3)
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 25);
  };
  const main = eventsOf(mainKey);
  const workerKey = [...busy.entries()].filter(([k]) => names.get(k) === 'DedicatedWorker thread').sort((a, b) => b[1] - a[1])[0]?.[0];
  const worker = workerKey ? eventsOf(workerKey) : [];
  return { windowMs: (t1 - t0) / 1000, threads, main, worker };
}

/** Self time per function of a CDP Profiler profile (ms), the largest first. */
function summariseProfile(p) {
  const self = new Map(p.nodes.map((n) => [n.id, 0]));
  for (let i = 0; i < p.samples.length; i++) self.set(p.samples[i], self.get(p.samples[i]) + (p.timeDeltas[i] ?? 0));
  const byFn = new Map();
  for (const n of p.nodes) {
    const f = n.callFrame;
    if (f.functionName === '(idle)' || f.functionName === '(program)') continue;
    const k = `${f.functionName || '(anonymous)'} ${f.url.split('/').pop()}:${f.lineNumber + 1}`;
    byFn.set(k, (byFn.get(k) ?? 0) + self.get(n.id));
  }
  return [...byFn.entries()]
    .map(([fn, us]) => ({ fn, ms: us / 1000 }))
    .filter((x) => x.ms >= 2)
    .sort((a, b) => b.ms - a.ms)
    .slice(0, 20);
}

const diskFile = disk ? await writeGenerated({ layers: 12, heads: 12, n: 512 }) : null;
const servers = await Promise.all(roots.map((root) => serve({ port: 0, root })));
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
const results = roots.map(() => workerCounts.map(() => []));
try {
  for (let r = 0; r < runs; r++) {
    for (let k = 0; k < roots.length; k++) {
      for (let w = 0; w < workerCounts.length; w++) {
        const page = await browser.newPage();
        page.on('console', (m) => {
          if (m.type() === 'error') console.error(`console error: ${m.text()}`);
        });
        await page.goto(`${servers[k].url}index.html?importWorkers=${workerCounts[w]}`);
        await page.evaluate(() => window.attentionPlayground.ready);
        await openImportView(page);
        // The trace marks the drop and the end (console.timeStamp) around the scenario.
        await page.evaluate(() => {
          const drop = document.getElementById('import-drop');
          drop.addEventListener('drop', () => console.timeStamp('import-drop'), { capture: true });
        });
        if (trace) {
          await browser.startTracing(page, {
            categories: ['toplevel', 'devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8', 'blink'],
          });
        }
        const cdp = profile ? await page.context().newCDPSession(page) : null;
        if (cdp) {
          await cdp.send('Profiler.enable');
          await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
          await cdp.send('Profiler.start');
        }
        if (diskFile) await chooseFile(page, diskFile);
        const load = loadavg()[0];
        const ms = diskFile ? await page.evaluate(dropChosen, 144) : await dropGeneratedIn(page, { layers: 12, heads: 12, n: 512 });
        await page.evaluate(() => console.timeStamp('import-done'));
        results[k][w].push(ms);
        console.log(`run ${r + 1} ${roots[k]} workers ${workerCounts[w]}: ${ms.toFixed(0)} ms (load average ${load.toFixed(2)})`);
        if (cdp) {
          const { profile: p } = await cdp.send('Profiler.stop');
          console.log('  main thread JS, self time:');
          for (const x of summariseProfile(p)) console.log(`    ${x.ms.toFixed(1).padStart(7)} ms  ${x.fn}`);
        }
        if (trace) {
          const buf = await browser.stopTracing();
          if (save) writeFileSync(save, buf);
          const s = summariseTrace(JSON.parse(buf.toString()).traceEvents);
          console.log(`  traced window ${s.windowMs.toFixed(0)} ms; per thread, busy (wall) / CPU:`);
          for (const x of s.threads) console.log(`    ${x.ms.toFixed(1).padStart(7)} / ${x.cpuMs.toFixed(1).padStart(7)} ms  ${x.thread}`);
          console.log('  main thread by event (nested events counted in each):');
          for (const x of s.main) console.log(`    ${x.ms.toFixed(1).padStart(7)} ms  ${x.name}`);
          console.log('  the busiest import worker by event:');
          for (const x of s.worker) console.log(`    ${x.ms.toFixed(1).padStart(7)} ms  ${x.name}`);
        }
        await page.close();
      }
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  for (let k = 0; k < roots.length; k++) {
    const line = workerCounts.map(
      (n, w) => `${n} worker(s) ${median(results[k][w]).toFixed(0)} ms [${results[k][w].map((x) => x.toFixed(0)).join(', ')}]`,
    );
    const scale =
      workerCounts.length > 1 ? `; scaling ${(median(results[k][0]) / median(results[k][workerCounts.length - 1])).toFixed(2)}x` : '';
    console.log(`${roots[k]}: ${line.join('; ')}${scale}`);
  }
} finally {
  await browser.close();
  for (const s of servers) s.server.close();
  if (diskFile) rmSync(dirname(diskFile), { recursive: true, force: true });
}
