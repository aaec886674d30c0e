// The page import scenario of bench/scenarios.js (issue 16): a generated [12, 12, 512, 512]
// float32 .npy (151 MB) dropped on the import view, as a user drops a file (a File in a
// DataTransfer, the drop zone's own handler), timed from the drop to the complete grid (every
// head's card drawn, the analysis finished). Once per worker count 1..cores
// (index.html?importWorkers=N, web/import/worker-client.js).
import { npyParts } from './lib/npy.js';

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
  // Runs interleaved (1, 2, .., 1, 2, ..): a change of the machine's load hits every column alike.
  for (let r = 0; r < runs; r++) {
    for (let workers = 1; workers <= cores; workers++) {
      const page = await browser.newPage();
      await page.goto(`${url}index.html?importWorkers=${workers}`);
      await page.evaluate(() => window.attentionPlayground.ready);
      await openImportView(page);
      times[workers - 1].push(await dropGeneratedIn(page, { layers: 12, heads: 12, n: 512 }));
      await page.close();
    }
  }
  const out = [];
  for (let workers = 1; workers <= cores; workers++) {
    const sorted = [...times[workers - 1]].sort((a, b) => a - b);
    out.push({
      name: `[12, 12, 512, 512] .npy (151 MB) dropped in the page -> grid complete, ${workers} worker${workers > 1 ? 's' : ''}`,
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
