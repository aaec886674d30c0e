// Node-only helpers of bench/node.js and bench/browser.js: the machine description and the native
// variants (build/native/attn_bench --json).

import { readFileSync, existsSync, rmSync, mkdtempSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

export const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};

/** The checkout the build came from: HEAD and whether the work tree had changes (then the
 * numbers may include uncommitted code). */
export function gitInfo(root) {
  const run = (...args) => spawnSync('git', ['-C', root, ...args], { encoding: 'utf8' });
  const head = run('rev-parse', '--short', 'HEAD');
  if (head.status !== 0) return null;
  const dirty = run('status', '--porcelain', '--untracked-files=no').stdout.trim() !== '';
  return { commit: head.stdout.trim(), dirty };
}

/** CPU model, logical CPUs, the SIMD flags that matter here, node and V8 versions. */
export function machine() {
  const info = readFileSync('/proc/cpuinfo', 'utf8');
  const model = /model name\s*:\s*(.*)/.exec(info)?.[1] ?? cpus()[0]?.model;
  const flags = /flags\s*:\s*(.*)/.exec(info)?.[1]?.split(' ') ?? [];
  return {
    cpu: model,
    logical_cpus: cpus().length,
    simd_flags: ['sse4_1', 'avx2', 'fma', 'avx512f'].filter((f) => flags.includes(f)),
    node: process.version,
    v8: process.versions.v8,
    platform: `${process.platform} ${process.arch}`,
  };
}

/**
 * Runs build/native/attn_bench --json (same sizes, runs and batch length) and returns its parsed report ({machine, results}), or
 * {skipped: reason}. It runs alone: the caller is idle meanwhile.
 */
export function runNative(root, log, { sizes, runs, minBatchMs } = {}) {
  const exe = join(root, 'build', 'native', 'attn_bench');
  if (process.argv.includes('--no-native')) return { skipped: '--no-native' };
  if (!existsSync(exe)) return { skipped: 'build/native/attn_bench missing' };
  const dir = mkdtempSync(join(tmpdir(), 'attn-bench-'));
  const file = join(dir, 'native.json');
  const args = ['--json', file];
  if (sizes) args.push('--sizes', sizes.join(','));
  if (runs) args.push('--runs', String(Math.max(5, runs)));
  if (minBatchMs) args.push('--min-ms', String(Math.round(minBatchMs)));
  log(`native: build/native/attn_bench ${args.join(' ')}`);
  const res = spawnSync(exe, args, { stdio: ['ignore', 'ignore', 'inherit'], timeout: 120_000 });
  try {
    if (res.status !== 0) return { skipped: `attn_bench exited with ${res.status ?? res.signal}` };
    return JSON.parse(readFileSync(file, 'utf8'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Pools two attn_bench reports (one run before the JS/WASM phase, one after it): the runs of each
 * (variant, n, kernel) are concatenated and the median is taken over all of them, so that a slow or
 * fast phase of this shared machine does not decide the native side of a ratio alone.
 */
export function poolNative(before, after) {
  const reports = [before, after].filter((r) => r && !r.skipped);
  if (reports.length === 0) return before;
  const pooled = new Map();
  for (const rep of reports) {
    for (const r of rep.results ?? []) {
      const key = `${r.variant}|${r.n}|${r.kernel}`;
      const p = pooled.get(key);
      if (!p) {
        pooled.set(key, { ...r, runs: [...r.runs] });
      } else {
        p.runs.push(...r.runs);
        for (const k of ['max_abs_err_weights', 'max_abs_err_entropy']) {
          if (typeof r[k] === 'number') p[k] = Math.max(p[k] ?? 0, r[k]);
        }
      }
    }
  }
  for (const p of pooled.values()) {
    const s = [...p.runs].sort((a, b) => a - b);
    const k = s.length >> 1;
    p.melems_per_s = s.length % 2 ? s[k] : (s[k - 1] + s[k]) / 2;
  }
  return { machine: reports[0].machine, config: { ...reports[0].config, invocations: reports.length }, results: [...pooled.values()] };
}
