// The benchmark runner shared by node (bench/node.js) and Chromium (dev/bench.js, through the
// bundle web/vendor/bench-vendor.js): seeded inputs, correctness against the JS reference before
// timing, interleaved timed batches, medians, ratios and the text table.
//
// Timing: every series (one variant, one kernel, one n) is timed in batches of at least
// `minBatchMs` (performance.now() is coarse in a page that is not cross-origin isolated), and the
// batches of all series of one n are interleaved round by round, so slow phases of this shared,
// noisy machine hit every variant alike and ratios of medians from the same run stay meaningful.

import { softmaxEntropyJS, checkReferenceRows } from './reference.js';
import { mulberry32 } from '../../web/presets/random.js';

export const KERNELS = ['softmax_entropy', 'softmax'];

export { mulberry32 } from '../../web/presets/random.js';

/** rows x n scores ~ N(0, scale^2) (Box-Muller on mulberry32), like attention logits. */
export function randomScores(rows, n, seed, scale = 2) {
  const rng = mulberry32(seed);
  const x = new Float32Array(rows * n);
  for (let i = 0; i < x.length; i += 2) {
    const u = 1 - rng();
    const v = rng();
    const r = scale * Math.sqrt(-2 * Math.log(u));
    x[i] = r * Math.cos(2 * Math.PI * v);
    if (i + 1 < x.length) x[i + 1] = r * Math.sin(2 * Math.PI * v);
  }
  return x;
}

export function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const k = s.length >> 1;
  return s.length % 2 ? s[k] : (s[k - 1] + s[k]) / 2;
}

/** Max |a_i - b_i|; NaN anywhere (in either) gives NaN, so a broken variant cannot pass. */
export function maxAbsError(a, b) {
  if (!a || !b) return null;
  if (a.length !== b.length) return NaN;
  let e = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i] - b[i]);
    if (!(d <= e)) e = d; // also takes NaN
    if (Number.isNaN(e)) return NaN;
  }
  return e;
}

const pause = () => new Promise((done) => setTimeout(done, 0));

/**
 * Runs the benchmark.
 *   variants: [{variant, kernel, label, prepare(input, rows, n, tau) -> instance}] where an
 *             instance has run() (one call of the kernel on the whole matrix), read() ->
 *             {weights, entropy?} (after run(); copies) and dispose().
 *   sizes:    matrix sizes n (the matrix is n x n).
 *   runs:     timed batches per series (the median is reported).
 *   minBatchMs: the shortest batch.
 *   tau, seed: temperature of the kernels (see softmaxTau) and input seed.
 *   softmaxTau: temperature of the softmax-alone kernels (1: tf.softmax has no temperature, so
 *             the softmax-alone comparison times the plain softmax everywhere).
 *   log(msg): progress lines.
 * Returns {config, results: [{variant, kernel, label, n, melems_per_s, runs, ms_per_call,
 * calls_per_batch, max_abs_err_weights, max_abs_err_entropy}], checks}.
 */
export async function runBench({
  variants,
  sizes = [256, 1024, 4096],
  runs = 7,
  minBatchMs = 120,
  tau = 0.8,
  softmaxTau = 1,
  seed = 20261130,
  log = () => {},
}) {
  const results = [];
  const checks = [];
  for (const n of sizes) {
    const rows = n;
    const elems = rows * n;
    const input = randomScores(rows, n, seed + n);

    // The oracle: the JS reference at each kernel's temperature, checked against the definition.
    const refs = {};
    for (const kernel of KERNELS) {
      const t = kernel === 'softmax' ? softmaxTau : tau;
      const weights = new Float32Array(elems);
      const entropy = new Float32Array(rows);
      softmaxEntropyJS(input, weights, entropy, rows, n, t);
      refs[kernel] = { weights, entropy: kernel === 'softmax' ? null : entropy };
      const self = checkReferenceRows(input, weights, entropy, n, t);
      checks.push({ n, kernel, what: 'JS reference vs double definition (first 8 rows)', ...self });
    }

    // Prepare every series, check its output, and calibrate its batch length.
    const series = [];
    for (const v of variants) {
      const t = v.kernel === 'softmax' ? softmaxTau : tau;
      let inst;
      try {
        inst = await v.prepare(input, rows, n, t);
      } catch (e) {
        log(`n=${n} ${v.label}: skipped (${e.message})`);
        continue;
      }
      inst.run();
      const out = inst.read();
      const errW = maxAbsError(out.weights, refs[v.kernel].weights);
      const errH = v.kernel === 'softmax' ? null : maxAbsError(out.entropy, refs[v.kernel].entropy);
      log(`n=${n} ${v.label}: max abs error vs JS reference: weights ${fmtErr(errW)}` + (errH === null ? '' : `, entropy ${fmtErr(errH)}`));
      // Calibrate: double the calls until a batch takes a quarter of minBatchMs, then size it.
      let calls = 1;
      let ms = timeCalls(inst, 1);
      while (ms < minBatchMs / 4) {
        calls *= 2;
        ms = timeCalls(inst, calls);
      }
      const perCall = ms / calls;
      series.push({
        v,
        inst,
        errW,
        errH,
        calls: Math.max(1, Math.ceil((minBatchMs * 1.1) / perCall)),
        samples: [],
      });
      await pause();
    }

    // One untimed round first: JIT tiers, page faults of fresh outputs, TF.js's allocator.
    for (const s of series) {
      timeCalls(s.inst, s.calls);
      await pause();
    }

    // Timed rounds: every series once per round, starting at a different series each round.
    for (let r = 0; r < runs; r++) {
      for (let k = 0; k < series.length; k++) {
        const s = series[(k + r) % series.length];
        const ms = timeCalls(s.inst, s.calls);
        s.samples.push(ms / s.calls);
        await pause();
      }
      log(`n=${n}: round ${r + 1}/${runs} done`);
    }

    for (const s of series) {
      s.inst.dispose();
      const mps = s.samples.map((ms) => elems / (ms * 1e3));
      results.push({
        variant: s.v.variant,
        kernel: s.v.kernel,
        label: s.v.label,
        n,
        melems_per_s: round(median(mps), 1),
        runs: mps.map((x) => round(x, 1)),
        ms_per_call: round(median(s.samples), 3),
        calls_per_batch: s.calls,
        max_abs_err_weights: s.errW,
        max_abs_err_entropy: s.errH,
      });
    }
  }
  return {
    config: { sizes, runs, minBatchMs, tau, softmaxTau, seed, scores: 'N(0, 2^2), mulberry32 + Box-Muller' },
    results,
    checks,
  };
}

function timeCalls(inst, calls) {
  const t0 = performance.now();
  for (let i = 0; i < calls; i++) inst.run();
  return performance.now() - t0;
}

const round = (x, digits) => Number(x.toFixed(digits));
const fmtErr = (e) => (e === null ? 'n/a' : Number.isNaN(e) ? 'NaN' : e.toExponential(1));

// ---------------------------------------------------------------------------------------------
// Ratios and targets (docs/performance.md "Targets and latest results"). Every ratio divides two medians from the same run.

export const RATIOS = [
  {
    id: 'simd_vs_scalar_wasm',
    label: 'WASM SIMD / WASM scalar (softmax+entropy)',
    num: ['wasm-simd', 'softmax_entropy'],
    den: ['wasm-scalar', 'softmax_entropy'],
    target: 2.5,
  },
  {
    id: 'simd_vs_native_sse41',
    label: 'WASM SIMD / native SSE4.1 (softmax+entropy)',
    num: ['wasm-simd', 'softmax_entropy'],
    den: ['native-sse4.1', 'softmax_entropy'],
    target: 0.9,
  },
  {
    id: 'simd_vs_js',
    label: 'WASM SIMD / plain JS (softmax+entropy)',
    num: ['wasm-simd', 'softmax_entropy'],
    den: ['js', 'softmax_entropy'],
    target: 6,
    targetEnv: 'node',
  },
  {
    id: 'simd_vs_tfjs_chain',
    label: 'WASM SIMD / TF.js softmax->entropy chain',
    num: ['wasm-simd', 'softmax_entropy'],
    den: ['tfjs-wasm', 'softmax_entropy'],
    target: 3.5,
  },
  {
    id: 'simd_softmax_vs_tfjs_softmax',
    label: 'WASM SIMD softmax / TF.js softmax',
    num: ['wasm-simd', 'softmax'],
    den: ['tfjs-wasm', 'softmax'],
    target: 1.0,
  },
  // Row metrics: every row metric (attn_bench's row_metrics: softmax_row with top-k, sink, row sum,
  // support) at <= 1.5x the fused kernel's time, i.e. >= 1 / 1.5 of its speed, on the same rows.
  ...['sse4.1', 'avx2'].map((set) => ({
    id: `native_${set}_row_metrics_vs_fused`,
    label: `native ${set}: all row metrics / fused softmax+entropy (speed)`,
    num: [`native-${set}`, 'row_metrics'],
    den: [`native-${set}`, 'softmax_entropy'],
    target: 0.67, // 1 / 1.5, rounded up
  })),
  // Context, no target.
  {
    id: 'simd_vs_scalar_wasm_softmax',
    label: 'WASM SIMD / WASM scalar (softmax alone)',
    num: ['wasm-simd', 'softmax'],
    den: ['wasm-scalar', 'softmax'],
  },
  {
    id: 'simd_vs_native_avx2',
    label: 'WASM SIMD / native AVX2 (softmax+entropy)',
    num: ['wasm-simd', 'softmax_entropy'],
    den: ['native-avx2', 'softmax_entropy'],
  },
  {
    id: 'tfjs_chain_logsoftmax_vs_chain',
    label: 'TF.js logSoftmax chain / softmax chain',
    num: ['tfjs-wasm-logsoftmax', 'softmax_entropy'],
    den: ['tfjs-wasm', 'softmax_entropy'],
  },
];

/**
 * Ratios per n from a result list (node or page results, plus native ones if merged in).
 * env: 'node' or 'chromium'; a target whose targetEnv differs is reported without a verdict.
 */
export function computeRatios(results, env) {
  const find = (variant, kernel, n) => results.find((r) => r.variant === variant && r.kernel === kernel && r.n === n);
  const sizes = [...new Set(results.map((r) => r.n))].sort((a, b) => a - b);
  const out = [];
  for (const def of RATIOS) {
    const values = {};
    const met = {};
    for (const n of sizes) {
      const a = find(...def.num, n);
      const b = find(...def.den, n);
      if (!a || !b || !(b.melems_per_s > 0)) continue;
      const ratio = a.melems_per_s / b.melems_per_s;
      values[n] = round(ratio, 2);
      // The verdict uses the unrounded ratio (0.897 shows as 0.90 but misses >= 0.9).
      if (def.target !== undefined && (!def.targetEnv || def.targetEnv === env)) met[n] = ratio >= def.target;
    }
    if (Object.keys(values).length === 0) continue;
    out.push({
      id: def.id,
      label: def.label,
      target: def.target ?? null,
      target_applies: def.target !== undefined && (!def.targetEnv || def.targetEnv === env),
      values,
      met,
    });
  }
  return out;
}

/** Text table of the results (Melem/s, median and spread) and of the ratios. */
export function formatTables(results, ratios, title = '') {
  const sizes = [...new Set(results.map((r) => r.n))].sort((a, b) => a - b);
  const keys = [];
  for (const r of results) {
    const k = `${r.kernel}\u0000${r.variant}`;
    if (!keys.includes(k)) keys.push(k);
  }
  keys.sort((a, b) => KERNELS.indexOf(a.split('\u0000')[0]) - KERNELS.indexOf(b.split('\u0000')[0]));
  const head = ['kernel', 'variant', ...sizes.map((n) => `n=${n}`), 'max abs err (w / H)'];
  const rows = keys.map((k) => {
    const [kernel, variant] = k.split('\u0000');
    const cells = sizes.map((n) => {
      const r = results.find((x) => x.kernel === kernel && x.variant === variant && x.n === n);
      if (!r) return '-';
      const spread = r.runs.length > 1 ? (Math.max(...r.runs) - Math.min(...r.runs)) / (2 * r.melems_per_s) : 0;
      return `${r.melems_per_s.toFixed(1)} ±${Math.round(spread * 100)}%`;
    });
    const errs = results.filter((x) => x.kernel === kernel && x.variant === variant);
    const worst = (key) => {
      const vals = errs.map((x) => x[key]).filter((e) => e !== null && e !== undefined);
      if (vals.length === 0) return 'n/a';
      return vals.some(Number.isNaN) ? 'NaN' : Math.max(...vals).toExponential(1);
    };
    const err = kernel === 'softmax' ? worst('max_abs_err_weights') : `${worst('max_abs_err_weights')} / ${worst('max_abs_err_entropy')}`;
    return [kernel, variant, ...cells, err];
  });
  let text = title ? `${title}\n` : '';
  text += 'M elements/s, median of the runs (±: half the min-max spread)\n';
  text += grid(head, rows);
  const rhead = ['ratio', ...sizes.map((n) => `n=${n}`), 'target', 'met'];
  const rrows = ratios.map((r) => [
    r.label,
    ...sizes.map((n) => (r.values[n] === undefined ? '-' : `${r.values[n].toFixed(2)}x`)),
    r.target === null ? '' : `>= ${r.target}x${r.target_applies ? '' : ' (node only)'}`,
    !r.target_applies
      ? ''
      : sizes
          .filter((n) => n in r.met)
          .map((n) => (r.met[n] ? 'yes' : 'NO'))
          .join(' / '),
  ]);
  text +=
    "Errors: max abs difference from the plain JS reference (native rows: attn_bench's own check\n" +
    'against a double-precision softmax, at tau 1).\n';
  text += '\nRatios (same run)\n' + grid(rhead, rrows);
  return text;
}

function grid(head, rows) {
  const widths = head.map((h, i) => Math.max(String(h).length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) =>
    cells
      .map((c, i) =>
        i < 2 && head[0] !== 'ratio' ? String(c).padEnd(widths[i]) : i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]),
      )
      .join('  ');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n') + '\n';
}
