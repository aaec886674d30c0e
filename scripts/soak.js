// Soak: many recomputes of random states in ONE page session, watching for leaks (docs/security.md "Soak").
//
//   node scripts/soak.js                       10,000 recomputes, heap numbers every 1,000
//   node scripts/soak.js --recomputes 2000 --every 500 --seed 7
//
// The page is driven through window.attentionPlayground.setState (the same validation, compute
// and render as a link or a control). At each checkpoint the page is put back on one fixed
// reference state, garbage is collected, and these are read through the Chrome DevTools Protocol
// (nothing in web/ is changed for it; see openSoakPage for how the core is found):
//   - the WebAssembly memory of the core: Core.memoryBytes() (the module's linear memory, which
//     only grows);
//   - Embind handles: the module's count_emval_handles() (live emscripten::val handles); the
//     core binds functions only (no class_), so there is no C++ object a JS caller could forget
//     to delete(); if class bindings ever appear, getInheritedInstanceCount() is read too;
//   - the JS heap: Runtime.getHeapUsage after HeapProfiler.collectGarbage;
//   - DOM nodes and JS event listeners: Memory.getDOMCounters.
// The bounds (BOUNDS) are checked against the first checkpoint after the warm-up, which fills
// the undo stack (100 entries) and every cache. tests/browser/soak.test.js runs a short version
// in the test suite; docs/security.md records the long run.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mulberry32 } from '../web/presets/random.js';
import { defaultState, LAB_VIEWS } from '../web/core/state-schema.js';
import { WEB, startSession, waitReady, watch } from '../tests/browser/harness.js';

const MiB = 2 ** 20;

/**
 * What may grow between the first checkpoint after the warm-up and any later one.
 * - wasmBytes: 0. The linear memory only grows, in steps of at least 20% (Emscripten's growth
 *   policy), so a leak shows as soon as it outruns the free space of the 16 MiB heap: 64 KB
 *   malloc'ed and never freed per compute grows it by 64 MiB in the short version.
 * - jsHeapBytes: 2 MiB of the JS heap after a forced GC. Measured: about +0.3 MiB over 1,000 and
 *   +0.6 MiB over 10,000 recomputes, flat after about 4,000 (not a per-compute leak). A leak of
 *   4 KB per compute (an array of 512 numbers kept in core.compute) fails the short version.
 * - emvalHandles, classHandles: 0 (handles are counted exactly).
 * - elements, listeners: 0 on the same reference state (elements in the document; JS event
 *   listeners anywhere).
 * - domNodes: 100. Chromium's node counter also counts text nodes and detached nodes that a GC
 *   has not reclaimed yet; on the same reference state it moves by about a dozen.
 */
export const BOUNDS = Object.freeze({
  wasmBytes: 0,
  jsHeapBytes: 2 * MiB,
  emvalHandles: 0,
  classHandles: 0,
  elements: 0,
  listeners: 0,
  domNodes: 100,
});

const int = (rng, lo, hi) => lo + Math.floor(rng() * (hi - lo + 1));
const pick = (rng, list) => list[Math.floor(rng() * list.length)];
const uniform = (rng, lo, hi) => lo + (hi - lo) * rng();
const matrix = (rng, rows, cols, cell) => Array.from({ length: rows }, () => Array.from({ length: cols }, () => cell()));
const TOKEN_WORDS = ['the', 'cat', 'sat', '<b>on</b>', 'mat', '日本', '🙂', '&amp;', 'x"y', ' '];

/**
 * A random valid state: modes qkv, logits, weights and x; 1 to 16 tokens; 1 to 4 heads; causal,
 * window, stride, sinks, padding and allow masks; tau from 0.05 to 20; a gate now and then; a
 * lab view about one time in ten. Deterministic for a given rng.
 */
export function soakState(rng, index = 0) {
  const mode = pick(rng, ['qkv', 'qkv', 'logits', 'weights', 'x']);
  const nK = int(rng, 1, 16);
  const nQ = mode === 'x' ? nK : int(rng, 1, 16);
  const nHeads = int(rng, 1, mode === 'x' ? 3 : 4);
  const value = () => Math.round(uniform(rng, -3, 3) * 1000) / 1000;
  const gate = () => (rng() < 0.2 ? { gate: Array.from({ length: nQ }, () => uniform(rng, -6, 6)) } : {});
  let heads;
  let x;
  if (mode === 'x') {
    const dModel = int(rng, 1, 8);
    heads = Array.from({ length: nHeads }, (_, h) => {
      const dK = int(rng, 1, 6);
      return {
        name: `head ${h}`,
        Q: null,
        K: null,
        V: null,
        logits: null,
        weights: null,
        WQ: matrix(rng, dModel, dK, value),
        WK: matrix(rng, dModel, dK, value),
        WV: matrix(rng, dModel, int(rng, 1, 6), value),
        ...gate(),
      };
    });
    const sumDv = heads.reduce((sum, h) => sum + h.WV[0].length, 0);
    const dOut = rng() < 0.5 ? dModel : int(rng, 1, 8);
    const WO = rng() < 0.7 ? matrix(rng, sumDv, dOut, value) : null;
    x = { X: matrix(rng, nQ, dModel, value), WO, residual: (WO ? dOut : sumDv) === dModel && rng() < 0.5 };
  } else {
    heads = Array.from({ length: nHeads }, (_, h) => {
      const dK = int(rng, 1, 8);
      const V = rng() < 0.8 ? matrix(rng, nK, int(rng, 0, 6), value) : null;
      const head = { name: `head ${h}`, Q: null, K: null, V, logits: null, weights: null, ...gate() };
      if (mode === 'qkv') {
        head.Q = matrix(rng, nQ, dK, value);
        head.K = matrix(rng, nK, dK, value);
      }
      if (mode === 'logits') head.logits = matrix(rng, nQ, nK, () => (rng() < 0.1 ? null : uniform(rng, -5, 5)));
      if (mode === 'weights') head.weights = matrix(rng, nQ, nK, () => (rng() < 0.15 ? 0 : rng()));
      return head;
    });
  }
  const word = () => pick(rng, TOKEN_WORDS);
  const mask = {
    causal: rng() < 0.5,
    window: rng() < 0.3 ? int(rng, 1, nK) : 0,
    padding: Array.from({ length: nK }, () => rng() < 0.1),
    allow: rng() < 0.1 ? matrix(rng, nQ, nK, () => rng() < 0.8) : null,
  };
  if (rng() < 0.15) mask.stride = int(rng, 2, 4);
  if (rng() < 0.15) mask.sinks = int(rng, 1, 3);
  const state = {
    version: 1,
    mode,
    heads,
    head: int(rng, 0, nHeads - 1),
    tokens: { queries: Array.from({ length: nQ }, word), keys: Array.from({ length: nK }, word) },
    mask,
    tau: Math.exp(uniform(rng, Math.log(0.05), Math.log(20))),
    scale: rng() < 0.5 ? 'auto' : uniform(rng, 0.1, 2),
    topK: int(rng, 1, nK),
    row: int(rng, 0, nQ - 1),
    view: { panel: pick(rng, ['weights', 'scores']), preset: 'custom', numbers: pick(rng, ['auto', 'on', 'off']) },
    source: `soak state ${index}`,
  };
  if (rng() < 0.1) state.lab = { view: pick(rng, LAB_VIEWS), params: {} };
  if (x) state.x = x;
  return state;
}

/**
 * Opens the page with a hook on the core: a conditional breakpoint (DevTools Protocol) on the
 * first line of the Core constructor in core.js whose condition records `this` in
 * globalThis.__soakCores and is false, so the page never pauses and web/ is not changed. (CDP's
 * Runtime.queryObjects would find the instance without it, but crashes this Chromium's renderer
 * on this page.) Returns {context, page, cdp}.
 */
export async function openSoakPage(session, { label = '[soak] ' } = {}) {
  const root = process.env.PLAYGROUND_WEB_ROOT || WEB;
  const lines = readFileSync(join(root, 'core/core.js'), 'utf8').split('\n');
  const ctor = lines.findIndex((line) => /^\s*constructor\(mod\b/.test(line));
  if (ctor < 0) throw new Error('scripts/soak.js: no "constructor(mod, ...)" in web/core/core.js to hook; update openSoakPage');
  const context = await session.browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const page = await context.newPage();
  watch(page, session.events, label);
  page.on('crash', () => session.events.pageErrors.push(`${label}the page crashed`));
  const cdp = await context.newCDPSession(page);
  await cdp.send('Debugger.enable');
  const { breakpointId } = await cdp.send('Debugger.setBreakpointByUrl', {
    urlRegex: '/core\\.js$',
    lineNumber: ctor + 1,
    condition: '((globalThis.__soakCores ??= []).push(this), false)',
  });
  await page.goto(session.url);
  await waitReady(page);
  await cdp.send('Debugger.removeBreakpoint', { breakpointId });
  await cdp.send('Debugger.disable');
  return { context, page, cdp };
}

/** Heap sizes and handle counts of the page after a forced GC (DevTools Protocol). */
async function probe(page, cdp) {
  await cdp.send('HeapProfiler.collectGarbage');
  await cdp.send('HeapProfiler.collectGarbage');
  const cores = await page.evaluate(() =>
    (globalThis.__soakCores ?? []).map((c) => ({
      variant: c.variant,
      wasmBytes: c.memoryBytes(),
      emvalHandles: c.mod.count_emval_handles(),
      classBindings: typeof c.mod.getInheritedInstanceCount === 'function',
      classHandles: typeof c.mod.getInheritedInstanceCount === 'function' ? c.mod.getInheritedInstanceCount() : 0,
    })),
  );
  if (cores.length !== 1) throw new Error(`expected one Core in the page, found ${cores.length}`);
  const attached = await page.evaluate(() => document.getElementsByTagName('*').length);
  const heap = await cdp.send('Runtime.getHeapUsage');
  const dom = await cdp.send('Memory.getDOMCounters');
  return {
    ...cores[0],
    jsHeapBytes: heap.usedSize,
    jsHeapTotalBytes: heap.totalSize,
    domNodes: dom.nodes,
    listeners: dom.jsEventListeners,
    documents: dom.documents,
    elements: attached,
  };
}

/** setState for a batch of states in one round trip; returns the rejections' messages. */
function setStates(page, states) {
  return page.evaluate(async (list) => {
    const rejected = [];
    for (const s of list) {
      try {
        await window.attentionPlayground.setState(s);
      } catch (e) {
        rejected.push(String(e && e.message));
      }
    }
    return rejected;
  }, states);
}

/**
 * Runs the soak in an open page: `warmup` recomputes, then `recomputes` more with a checkpoint
 * every `every` (`recomputes` at a checkpoint counts the warm-up too). Returns {checkpoints:
 * [{phase, recomputes, seconds, ...probe}], rejected,
 * baseline, final, growth, within, bounds}.
 * @param {{page: import('playwright-core').Page, cdp: import('playwright-core').CDPSession}} opened
 *   what openSoakPage() returned
 * @param {{recomputes?: number, every?: number, warmup?: number, seed?: number, batch?: number,
 *   log?: (line: string) => void}} options
 */
export async function soak(
  { page, cdp },
  { recomputes = 10_000, every = 1_000, warmup = 200, seed = 20240607, batch = 50, log = () => {} } = {},
) {
  const rng = mulberry32(seed);
  const reference = defaultState();
  const checkpoints = [];
  const rejected = [];
  let done = 0;
  const started = Date.now();
  let phase = 'start';
  const checkpoint = async () => {
    rejected.push(...(await setStates(page, [reference])));
    const p = { phase, recomputes: done, seconds: (Date.now() - started) / 1000, ...(await probe(page, cdp)) };
    checkpoints.push(p);
    log(formatCheckpoint(p));
    return p;
  };
  log(`soak: ${recomputes} recomputes after a warm-up of ${warmup}, seed ${seed}, checkpoint every ${every}`);
  log(formatRow(['phase', 'recomputes', 'seconds', 'wasm MiB', 'emval', 'JS heap MiB', 'DOM nodes', 'listeners', 'elements']));
  await checkpoint();
  const run = async (count, checkEvery) => {
    let next = done + checkEvery;
    const target = done + count;
    while (done < target) {
      const n = Math.min(batch, target - done, next - done);
      const states = Array.from({ length: n }, (_, i) => soakState(rng, done + i));
      rejected.push(...(await setStates(page, states)));
      done += n;
      if (done === next || done === target) {
        await checkpoint();
        next = done + checkEvery;
      }
    }
  };
  phase = 'warm-up';
  await run(warmup, warmup);
  const baseline = checkpoints[checkpoints.length - 1];
  phase = 'soak';
  await run(recomputes, every);
  const after = checkpoints.slice(checkpoints.indexOf(baseline) + 1);
  const growth = {};
  for (const key of Object.keys(BOUNDS)) growth[key] = Math.max(...after.map((p) => p[key])) - baseline[key];
  const within = Object.fromEntries(Object.entries(BOUNDS).map(([k, bound]) => [k, growth[k] <= bound]));
  return {
    checkpoints,
    rejected,
    baseline,
    final: checkpoints[checkpoints.length - 1],
    growth,
    within,
    bounds: BOUNDS,
    seconds: (Date.now() - started) / 1000,
  };
}

/** Columns padded with spaces (a TAP log would show tabs as "\\t"). */
function formatRow(cells) {
  return cells.map((cell, i) => String(cell).padStart(i === 0 ? 8 : 12)).join('');
}

function formatCheckpoint(p) {
  return formatRow([
    p.phase,
    p.recomputes,
    p.seconds.toFixed(1),
    (p.wasmBytes / MiB).toFixed(2),
    p.emvalHandles,
    (p.jsHeapBytes / MiB).toFixed(2),
    p.domNodes,
    p.listeners,
    p.elements,
  ]);
}

async function main() {
  const args = process.argv.slice(2);
  const option = (name, fallback) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? Number(args[i + 1]) : fallback;
  };
  const session = await startSession();
  let code = 0;
  try {
    const out = await soak(await openSoakPage(session), {
      recomputes: option('recomputes', 10_000),
      every: option('every', 1_000),
      warmup: option('warmup', 200),
      seed: option('seed', 20240607),
      log: (line) => console.log(line),
    });
    const { pageErrors, consoleErrors, dialogs } = session.events;
    console.log(
      `core ${out.final.variant}; class bindings: ${out.final.classBindings ? 'yes' : 'none'}; ${out.seconds.toFixed(0)} s in all`,
    );
    console.log(
      `growth after the warm-up (bound): ${Object.entries(out.growth)
        .map(
          ([k, v]) =>
            `${k} ${k.endsWith('Bytes') ? `${(v / MiB).toFixed(2)} MiB` : v} (${k.endsWith('Bytes') ? `${(BOUNDS[k] / MiB).toFixed(2)} MiB` : BOUNDS[k]})`,
        )
        .join(', ')}`,
    );
    console.log(
      `rejected states: ${out.rejected.length}; page errors: ${pageErrors.length}; console errors: ${consoleErrors.length}; dialogs: ${dialogs.length}`,
    );
    for (const line of [...out.rejected, ...pageErrors, ...consoleErrors, ...dialogs].slice(0, 10)) console.log(`  ${line}`);
    const ok =
      Object.values(out.within).every(Boolean) &&
      out.rejected.length === 0 &&
      pageErrors.length === 0 &&
      consoleErrors.length === 0 &&
      dialogs.length === 0;
    console.log(ok ? 'soak: within bounds' : 'soak: FAILED');
    code = ok ? 0 : 1;
  } finally {
    await session.close();
  }
  process.exit(code);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
