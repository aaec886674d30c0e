// The kernel benchmark page (dev/bench.html): the same runner as `npm run bench` (bench/lib,
// bundled with TF.js into vendor/bench-vendor.js by `npm run build:bench`), timed in this browser.
// Shows the table and exposes window.benchResults, a Promise of {env, machine, config, results,
// ratios, checks, table} (`npm run bench:browser` reads it through playwright-core).
//
// Query parameters: ?sizes=256,1024,4096&runs=7&minMs=120

// The bundle is imported when the page runs (not statically) so that a missing bundle becomes a
// message on the page instead of a silent module-graph failure.
let tf, setWasmPaths, runBench, computeRatios, formatTables, allVariants;

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const sizes = (params.get('sizes') ?? '256,1024,4096').split(',').map(Number);
const runs = Number(params.get('runs') ?? 7);
const minBatchMs = Number(params.get('minMs') ?? 120);

function log(msg) {
  $('log').textContent += `${msg}\n`;
  $('status').textContent = msg;
}

/** Emscripten ES6 factory; in the browser the glue finds its .wasm through import.meta.url. */
async function loadWasm(name) {
  const factory = (await import(`../wasm/${name}.js`)).default;
  return factory();
}

async function loadTfjs() {
  setWasmPaths(new URL('../vendor/tfjs/', import.meta.url).href);
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false); // one thread, like the WASM kernels
  if (!(await tf.setBackend('wasm'))) throw new Error('TF.js WASM backend failed to start');
  await tf.ready();
  return {
    version: tf.version_core,
    backend: tf.getBackend(),
    simd: tf.env().getBool('WASM_HAS_SIMD_SUPPORT'),
    threads: 1,
  };
}

function cell(row, text, tag = 'td') {
  const el = document.createElement(tag);
  el.textContent = text;
  row.append(el);
  return el;
}

function showResults(results) {
  const table = $('results');
  table.replaceChildren();
  const ns = [...new Set(results.map((r) => r.n))].sort((a, b) => a - b);
  const head = table.insertRow();
  for (const h of ['kernel', 'variant', ...ns.map((n) => `n = ${n}`), 'max abs error (weights / H)']) cell(head, h, 'th');
  const order = ['softmax_entropy', 'softmax'];
  const keys = [...new Set(results.map((r) => `${r.kernel}|${r.variant}`))].sort(
    (a, b) => order.indexOf(a.split('|')[0]) - order.indexOf(b.split('|')[0]),
  );
  for (const key of keys) {
    const [kernel, variant] = key.split('|');
    const row = table.insertRow();
    cell(row, kernel);
    cell(row, variant);
    const errs = [];
    for (const n of ns) {
      const r = results.find((x) => x.kernel === kernel && x.variant === variant && x.n === n);
      const td = cell(row, r ? r.melems_per_s.toFixed(1) : '–');
      if (r) {
        td.dataset.value = String(r.melems_per_s);
        td.title = `runs: ${r.runs.join(', ')}`;
        errs.push([r.max_abs_err_weights, r.max_abs_err_entropy]);
      }
    }
    const worst = (i) => {
      const v = errs.map((e) => e[i]).filter((e) => e !== null && e !== undefined);
      return v.length ? Math.max(...v).toExponential(1) : 'n/a';
    };
    cell(row, kernel === 'softmax' ? worst(0) : `${worst(0)} / ${worst(1)}`);
  }
}

function showRatios(ratios) {
  const table = $('ratios');
  table.replaceChildren();
  const ns = [...new Set(ratios.flatMap((r) => Object.keys(r.values).map(Number)))].sort((a, b) => a - b);
  const head = table.insertRow();
  for (const h of ['ratio', ...ns.map((n) => `n = ${n}`), 'target']) cell(head, h, 'th');
  for (const r of ratios) {
    const row = table.insertRow();
    cell(row, r.label);
    for (const n of ns) {
      const td = cell(row, r.values[n] === undefined ? '–' : `${r.values[n].toFixed(2)}×`);
      if (n in r.met) td.textContent += r.met[n] ? ' ✓' : ' ✗';
    }
    cell(row, r.target === null ? '' : `≥ ${r.target}×${r.target_applies ? '' : ' (node only)'}`);
  }
}

async function main() {
  let vendor;
  try {
    vendor = await import('../vendor/bench-vendor.js');
  } catch (e) {
    throw new Error(`vendor/bench-vendor.js could not be loaded (${e.message}): run \`npm run build:bench\``);
  }
  ({ tf, setWasmPaths, runBench, computeRatios, formatTables, allVariants } = vendor);
  const [scalar, simd, tfjs] = await Promise.all([loadWasm('attn'), loadWasm('attn_simd'), loadTfjs()]);
  const machine = {
    userAgent: navigator.userAgent,
    hardwareConcurrency: navigator.hardwareConcurrency,
    crossOriginIsolated: self.crossOriginIsolated === true,
  };
  $('machine').textContent =
    `${machine.userAgent}; ${machine.hardwareConcurrency} logical CPUs; TF.js ${tfjs.version} ` +
    `(${tfjs.backend}, SIMD ${tfjs.simd}, one thread)`;
  const kernels = { 'wasm-scalar': scalar.kernelName?.(), 'wasm-simd': simd.kernelName?.() };
  log(`WASM kernels: scalar build "${kernels['wasm-scalar']}", SIMD build "${kernels['wasm-simd']}"`);
  const bench = await runBench({
    variants: allVariants({ scalar, simd, tf }),
    sizes,
    runs,
    minBatchMs,
    log,
  });
  const ratios = computeRatios(bench.results, 'chromium');
  showResults(bench.results);
  showRatios(ratios);
  $('status').textContent = 'Done.';
  return {
    env: 'chromium',
    date: new Date().toISOString(),
    machine,
    config: { ...bench.config, kernels, tfjs },
    checks: bench.checks,
    results: bench.results,
    ratios,
    table: formatTables(bench.results, ratios),
  };
}

window.benchResults = main();
window.benchResults.catch((e) => {
  $('status').textContent = `The benchmark failed: ${e.message}`;
  $('status').classList.add('error');
  console.error(e);
});
