// The `attn analyze` scenario of bench/scenarios.js (its targets: `attn analyze` on
// that file (native) <= 0.25 s on 2 cores, and >= 1.7x from one thread to two): the native CLI
// (build/native/attn) on the generated [12, 12, 512, 512] float32 .npy of the page import scenario
// (bench/lib/npy.js, the same bytes), with --threads 1 and --threads <cores>, runs interleaved
// (1, cores, 1, cores, ...), the wall clock of the whole process (start to exit: reading the
// 151 MB file included). Every run's output must be byte-identical to the first one's.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { writeNpy } from './lib/npy.js';

/**
 * @param {string} attn  the native CLI (build/native/attn)
 * @param {{runs?: number, cores?: number}} o
 * @returns {Promise<object[]>} one scenario row per thread count (1, then cores when > 1)
 */
export async function cliScenarios(attn, { runs = 5, cores = 2 } = {}) {
  if (!existsSync(attn)) throw new Error(`${attn} is missing: build it first (bash scripts/build.sh)`);
  const dir = mkdtempSync(join(tmpdir(), 'attn-cli-'));
  try {
    const file = await writeNpy(join(dir, 'generated_12x12x512x512.npy'), { layers: 12, heads: 12, n: 512 });
    const counts = cores > 1 ? [1, cores] : [1];
    const times = counts.map(() => []);
    let reference = null;
    for (let r = 0; r < runs; r++) {
      for (let c = 0; c < counts.length; c++) {
        const t0 = performance.now();
        const p = spawnSync(attn, ['analyze', file, '--threads', String(counts[c])], { maxBuffer: 64 * 1024 * 1024 });
        const ms = performance.now() - t0;
        if (p.status !== 0) throw new Error(`attn analyze --threads ${counts[c]} failed (${p.status}): ${p.stderr}`);
        reference ??= p.stdout;
        if (!p.stdout.equals(reference)) throw new Error(`attn analyze --threads ${counts[c]}: output differs from --threads ${counts[0]}`);
        times[c].push(ms);
      }
    }
    const rows = counts.map((threads, c) => {
      const sorted = [...times[c]].sort((a, b) => a - b);
      return {
        name: `attn analyze (native) on the [12, 12, 512, 512] .npy (151 MB), --threads ${threads}`,
        medianMs: sorted[Math.floor(sorted.length / 2)],
        runsMs: times[c],
        targetMs: 250,
        threads,
        outputIdentical: true, // checked above: every run printed the same bytes
      };
    });
    for (const s of rows) s.speedup = rows[0].medianMs / s.medianMs;
    for (const s of rows) s.speedupOf = 'one thread';
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
