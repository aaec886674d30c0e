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
