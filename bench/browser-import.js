// The page import scenario of bench/scenarios.js (docs/performance.md "Scenario timings"): a generated [12, 12, 512, 512]
// float32 .npy (151 MB, bench/lib/npy.js) dropped on the import view, as a user drops a file (a
// File in a DataTransfer, the drop zone's own handler), timed from the drop to the complete grid
// (every head's card drawn, the analysis finished). Once per worker count 1..cores
// (index.html?importWorkers=N, web/import/worker-client.js).
//
// The file is written to disk once and chosen as a file of the file system (an input's
// setInputFiles), what a user's file gives: the page's reads come from the file. A File the page
// builds in memory (dropGenerated, `import-trace.js` without --disk) is not the same measure:
// every File.slice of it is copied by the browser's IO thread (~3 ms of CPU per 4 MiB read,
// ~250 ms per import), CPU that a chosen file does not cost and that competes with the workers
// on a 2-core machine; and the 151 MB it holds are built in the page just before the timing.
import { mkdtempSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { tmpdir } from 'node:os';
import { npyParts, writeNpy } from './lib/npy.js';

/**
 * In the page: builds the file (makeParts: bench/lib/npy.js npyParts, whose source the caller
 * evaluates in the page), drops it, resolves to the ms until the grid is complete.
 */
export async function dropGenerated({ layers, heads, n }, makeParts) {
  const { header, heads: values, count } = makeParts({ layers, heads, n });
  const parts = [header];
  for (let i = 0; i < count; i++) parts.push(values[i % values.length]);
  const file = new File(parts, 'generated_12x12x512x512.npy');
  const total = layers * heads;
  await new Promise((r) => setTimeout(r, 200));
  const t0 = performance.now();
  const dt = new DataTransfer();
  dt.items.add(file);
  document.getElementById('import-drop').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  return new Promise((resolve) => {
    const check = () => {
      // Cards first (cheap); the import's state (a copy of every head) only once they are all drawn.
      const cards = document.querySelectorAll('#import-view .head-card').length;
      const s = cards === total ? window.attentionPlayground.imported() : null;
      if (s?.source && !s.running && s.heads.length === total) resolve(performance.now() - t0);
      else setTimeout(check, 20);
    };
    check();
  });
}

/** page.evaluate() of dropGenerated(shape) with the generator of bench/lib/npy.js. */
export const dropGeneratedIn = (page, shape) => page.evaluate(`(${dropGenerated})(${JSON.stringify(shape)}, ${npyParts})`);

/** Adds the hidden input#bench-file to the page and chooses `path` in it. */
export async function chooseFile(page, path) {
  await page.evaluate(() => {
    const input = Object.assign(document.createElement('input'), { type: 'file', id: 'bench-file', hidden: true });
    document.body.append(input);
  });
  await page.setInputFiles('#bench-file', path);
}

/** In the page: drops the file of input#bench-file, resolves to the ms until the grid is complete. */
export async function dropChosen(total) {
  const file = document.getElementById('bench-file').files[0];
  await new Promise((r) => setTimeout(r, 200));
  const t0 = performance.now();
  const dt = new DataTransfer();
  dt.items.add(file);
  document.getElementById('import-drop').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  return new Promise((resolve) => {
    const check = () => {
      const cards = document.querySelectorAll('#import-view .head-card').length;
      const s = cards === total ? window.attentionPlayground.imported() : null;
      if (s?.source && !s.running && s.heads.length === total) resolve(performance.now() - t0);
      else setTimeout(check, 20);
    };
    check();
  });
}

/** Writes the scenario's file to a new temporary directory; returns its path. */
export const writeGenerated = (shape) => writeNpy(join(mkdtempSync(join(tmpdir(), 'attn-import-')), 'generated_12x12x512x512.npy'), shape);

/**
 * Opens the Import tab and waits for its view (loaded on first use: its drop zone is there once
 * the view is drawn) and for its workers' cores (started with the view; `workersReady`, absent in
 * pages before it, is then not waited for), so the timing starts at the drop.
 */
export async function openImportView(page) {
  await page.click('#tab-import');
  await page.waitForSelector('#import-drop', { state: 'attached' });
  await page.waitForFunction(() => window.attentionPlayground.imported().workersReady !== false, null, { timeout: 60_000 });
}

/**
 * @param {import('playwright-core').Browser} browser
 * @param {string} url  the served web/ root
 * @param {{runs?: number, cores?: number}} o
 * @returns {Promise<object[]>} one scenario row per worker count
 */
export async function importScenarios(browser, url, { runs = 3, cores = 2 } = {}) {
  const times = Array.from({ length: cores }, () => []);
  const file = await writeGenerated({ layers: 12, heads: 12, n: 512 });
  try {
    // Runs interleaved (1, 2, .., 1, 2, ..): a change of the machine's load hits every column alike.
    for (let r = 0; r < runs; r++) {
      for (let workers = 1; workers <= cores; workers++) {
        const page = await browser.newPage();
        await page.goto(`${url}index.html?importWorkers=${workers}`);
        await page.evaluate(() => window.attentionPlayground.ready);
        await openImportView(page);
        await chooseFile(page, file);
        times[workers - 1].push(await page.evaluate(dropChosen, 144));
        await page.close();
      }
    }
  } finally {
    rmSync(dirname(file), { recursive: true, force: true });
  }
  const out = [];
  for (let workers = 1; workers <= cores; workers++) {
    const sorted = [...times[workers - 1]].sort((a, b) => a - b);
    out.push({
      name: `[12, 12, 512, 512] .npy (151 MB) chosen from disk and dropped -> grid complete, ${workers} worker${workers > 1 ? 's' : ''}`,
      medianMs: sorted[Math.floor(sorted.length / 2)],
      runsMs: times[workers - 1],
      targetMs: 1000,
      workers,
      cells: 144 * 512 * 512, // every key of every row is visible (the analysis is not told causal)
    });
  }
  const one = out[0].medianMs;
  for (const s of out) s.speedup = one / s.medianMs;
  return out;
}
