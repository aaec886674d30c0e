// The import checks in the page (one page for the file): a decoder file with some heads not causal is
// detected and its flagged heads listed largest above-diagonal mass first, with badges scaled to
// the mass, a sort key, a filter and a CSV column equal to `attn analyze`'s (float32 rounding); typed layer numbers
// on cards, titles, the per-layer table and the CSV; a min/max range while sorted by layer, head;
// a second run compared, its table and CSV equal to `attn compare`'s to float32 rounding.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { near, screenshotPath, sharedPage, openImportTab } from './harness.js';
import { npy } from '../node/npy.js';

const CLI = fileURLToPath(new URL('../../build/native/attn', import.meta.url));
const TMP = mkdtempSync(join(tmpdir(), 'attn-import-checks-'));
process.on('exit', () => rmSync(TMP, { recursive: true, force: true }));

let page;
sharedPage('[checks] ', (p) => {
  page = p;
});

const [L, H, n] = [3, 4, 10];
/** A decoder [L, H, n, n]: causal softmax rows; the heads in `leaks` move that fraction of each
 *  row (t < n - 1) onto the keys above the diagonal. */
function decoder(leaks, seed) {
  let x = seed;
  const rnd = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
  const out = new Float64Array(L * H * n * n);
  for (let h = 0; h < L * H; h++)
    for (let t = 0; t < n; t++) {
      const row = new Float64Array(n);
      let sum = 0;
      for (let j = 0; j <= t; j++) sum += row[j] = Math.exp(3 * rnd());
      const leak = t < n - 1 ? (leaks[h] ?? 0) : 0;
      for (let j = 0; j <= t; j++) row[j] = ((1 - leak) * row[j]) / sum;
      for (let j = t + 1; j < n; j++) row[j] = leak / (n - 1 - t);
      out.set(row, (h * n + t) * n);
    }
  return out;
}
const fileA = join(TMP, 'decoder_a.npy');
const fileB = join(TMP, 'decoder_b.npy');
writeFileSync(fileA, npy([L, H, n, n], decoder({ 1: 0.0007, 6: 0.57, 9: 0.02 }, 1)));
writeFileSync(fileB, npy([L, H, n, n], decoder({ 1: 0.3, 6: 0.1 }, 2)));

const cli = (args) => {
  const r = spawnSync(CLI, args, { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
};
const parseCsv = (text) => {
  const [header, ...lines] = text.trim().split(/\r?\n/);
  const cols = header.split(',');
  return lines.map((l) => Object.fromEntries(l.split(',').map((v, i) => [cols[i], v])));
};
async function downloadOf(selector) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  return readFileSync(await dl.path(), 'utf8');
}
const cardNames = () => page.$$eval('#import-grid .head-card .card-name', (els) => els.map((e) => e.textContent));

test('flagged heads: detected, listed by mass with the mass, badges, sort, filter, CSV column = attn analyze', async () => {
  await openImportTab(page);
  await page.setInputFiles('#import-file', fileA);
  await page.waitForFunction((name) => {
    const s = window.attentionPlayground.imported();
    return s.source?.name === name && !s.running && s.heads.length === 12;
  }, basename(fileA));
  const warning = await page.textContent('#import-warnings');
  assert.match(warning, /Mostly causal: 9 of 12 heads.*L1 H2 \(mass 0\.513,.*L2 H1 \(mass 0\.018,.*L0 H1 \(mass 0\.00063,/);
  // Badges: three, their text the mass, their bar scaled to it.
  const badges = await page.$$eval('#import-grid .card-flag', (els) =>
    els.map((e) => ({ mass: Number(e.dataset.mass), text: e.textContent, width: e.querySelector('.card-flag-bar').style.width })),
  );
  assert.equal(badges.length, 3);
  const big = badges.find((b) => b.mass > 0.5);
  const tiny = badges.find((b) => b.mass < 0.001);
  assert.match(big.text, /0\.51/);
  assert.equal(big.width, '51%');
  assert.equal(tiny.width, '2%');
  // Sort by the mass, largest first: the flagged heads lead in that order; filter: only them.
  await page.selectOption('#import-sort', 'aboveDiagonalMass');
  await page.check('#import-desc');
  assert.deepEqual((await cardNames()).slice(0, 3), ['L1 H2', 'L2 H1', 'L0 H1']);
  await page.selectOption('#import-filter', 'flagged');
  assert.deepEqual(await cardNames(), ['L1 H2', 'L2 H1', 'L0 H1']);
  await page.selectOption('#import-filter', '');
  await page.screenshot({ path: screenshotPath('import-checks-flagged') });
  // The Metrics CSV column equals the CLI's (the same core, float64 printed in full by both).
  const pageCsv = parseCsv(await downloadOf('#export-heads-csv'));
  const cliCsv = parseCsv(cli(['analyze', fileA, '--format', 'csv']));
  assert.equal(pageCsv.length, 12);
  for (let i = 0; i < 12; i++) {
    // WebAssembly and native: the same code, equal to float32 rounding.
    for (const k of ['above_diagonal_mass', 'tl_previous_token', 'mean_normalized_entropy'])
      assert.ok(Math.abs(Number(pageCsv[i][k]) - Number(cliCsv[i][k])) <= 1e-6, `${k} ${i}: ${pageCsv[i][k]} vs ${cliCsv[i][k]}`);
    assert.equal(pageCsv[i].causal_structure, cliCsv[i].causal_structure);
  }
});

test('a min/max range applies while sorted by layer, head', async () => {
  await page.selectOption('#import-sort', 'order');
  await page.uncheck('#import-desc');
  await page.selectOption('#import-range', 'aboveDiagonalMass');
  await page.fill('#import-min', '0.01');
  await page.dispatchEvent('#import-min', 'input');
  assert.deepEqual(await cardNames(), ['L1 H2', 'L2 H1']);
  await page.fill('#import-min', '');
  await page.dispatchEvent('#import-min', 'input');
  assert.equal((await cardNames()).length, 12);
});

test('typed layer numbers: cards, layer rows, detail title, per-layer table and CSV', async () => {
  await page.fill('#import-layer-numbers', '0,2,4');
  await page.dispatchEvent('#import-layer-numbers', 'change');
  await page.waitForFunction(() => document.querySelector('#import-grid .layer-label')?.textContent === 'L0');
  assert.deepEqual(await page.$$eval('#import-grid .layer-label', (els) => els.map((e) => e.textContent)), ['L0', 'L2', 'L4']);
  assert.ok((await cardNames()).includes('L4 H1'));
  assert.deepEqual(await page.$$eval('#layer-summary tbody tr td:first-child', (els) => els.map((e) => e.textContent)), ['0', '2', '4']);
  await page.click('#head-card-4-1');
  await page.waitForSelector('#import-detail .detail-head h3', { timeout: 5000 }).catch(async (e) => {
    throw new Error(`${e.message}: ${await page.textContent('#import-detail')}`);
  });
  assert.match(await page.textContent('#import-detail .detail-head h3'), /^L4 H1 \(layer 4, head 1\)/);
  assert.match(await page.textContent('#detail-field-scores'), /previous token 0\.\d+/);
  const csv = parseCsv(await downloadOf('#export-heads-csv'));
  assert.deepEqual(
    csv.map((r) => r.layer),
    ['0', '0', '0', '0', '2', '2', '2', '2', '4', '4', '4', '4'],
  );
  // A list that does not fit is refused, saying why; the numbers stay.
  await page.fill('#import-layer-numbers', '0,2');
  await page.dispatchEvent('#import-layer-numbers', 'change');
  assert.match(await page.textContent('#import-errors'), /fewer numbers than the 3 layers/);
  assert.ok((await cardNames()).includes('L4 H1'));
  await page.fill('#import-layer-numbers', '');
  await page.dispatchEvent('#import-layer-numbers', 'change');
  await page.waitForFunction(() => document.querySelector('#import-grid .layer-label:last-of-type')?.textContent !== 'L4');
});

test('two runs compared: the grid, the sortable table, the CSV equal to attn compare', async () => {
  await page.setInputFiles('#import-compare-file', fileB);
  await page.waitForFunction(() => /12 heads compared/.test(document.getElementById('import-compare-summary')?.textContent ?? ''));
  assert.equal(await page.$$eval('#import-compare-grid .compare-cell', (els) => els.length), 12);
  // Sorted by mean JSD, largest first (the default), then ascending by a click. Its column is
  // found by its sort button (the table has one difference column per head metric before it).
  const jsdColumn = await page.$$eval(
    '#import-compare-table thead th',
    (ths) => ths.findIndex((th) => th.querySelector('button[data-sort="meanJsd"]')) + 1,
  );
  assert.ok(jsdColumn > 0, 'no mean JSD column');
  const jsdCells = `#import-compare-table tbody tr td:nth-child(${jsdColumn})`;
  const jsd = await page.$$eval(jsdCells, (els) => els.map((e) => Number(e.textContent)));
  assert.deepEqual(
    jsd,
    [...jsd].sort((a, b) => b - a),
  );
  await page.click('#import-compare-table th button[data-sort="meanJsd"]');
  const up = await page.$$eval(jsdCells, (els) => els.map((e) => Number(e.textContent)));
  assert.deepEqual(
    up,
    [...up].sort((a, b) => a - b),
  );
  // The grid's colours are explained beside it, with the scale: the largest mean JSD of the table.
  const legend = await page.textContent('#import-compare-legend');
  assert.match(legend, /the stronger the colour, the more the rows differ \(full colour: ([\d.e-]+) nats\)/);
  near(Number(legend.match(/full colour: ([\d.e-]+)/)[1]), Math.max(...jsd), 5e-3 * Math.max(...jsd), 'legend scale');
  await page.screenshot({ path: screenshotPath('import-checks-compare') });
  const pageCsv = parseCsv(await downloadOf('#export-compare-csv'));
  const cliCsv = parseCsv(cli(['compare', fileA, fileB, '--format', 'csv']));
  assert.deepEqual(Object.keys(pageCsv[0]), Object.keys(cliCsv[0]));
  for (let i = 0; i < 12; i++)
    for (const k of Object.keys(cliCsv[i])) {
      const a = pageCsv[i][k];
      const b = cliCsv[i][k];
      if (Number.isFinite(Number(b)) && b !== '')
        assert.ok(Math.abs(Number(a) - Number(b)) <= 1e-6 * Math.max(1, Math.abs(Number(b))), `${k} ${i}: ${a} vs ${b}`);
      else assert.equal(a, b, `${k} ${i}`);
    }
});
