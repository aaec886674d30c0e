// Token context of the views in Chromium (issue 15): token labels on the axes of the inspected
// head of the import, the SVG and PNG exports as figures (labels, colour bar, title, source line),
// the token views (text and lines) reproducing a query's weights from the file itself, a hover at
// 512 tokens, Copy link on the Import tab, and the inspected head scrolled into view.
// One page for the file; the expected weights are read from the .npy here (independent of the page).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPage, screenshotPath, startSession } from './harness.js';

const REAL = new URL('../../web/data/real/', import.meta.url);
const L0 = 'gpt2-small_L0_nlp-sentence';
const realFile = (set, name) => new URL(`${set}/${name}`, REAL).pathname;

/** The float32 values of a little-endian .npy [layers, heads, n, n] file, as nested arrays. */
function readNpy(path) {
  const b = readFileSync(path);
  const headerLen = b.readUInt16LE(8);
  const header = b.subarray(10, 10 + headerLen).toString('latin1');
  const shape = /'shape': \(([^)]*)\)/
    .exec(header)[1]
    .split(',')
    .filter((x) => x.trim())
    .map(Number);
  assert.match(header, /'descr': '<f4'/);
  const data = new Float32Array(b.buffer.slice(b.byteOffset + 10 + headerLen, b.byteOffset + b.length));
  return { shape, data };
}

let session;
let page;
let context;
let dir;
before(async () => {
  session = await startSession();
  ({ page, context } = await openPage(session, '', { label: '[views] ' }));
  dir = mkdtempSync(join(tmpdir(), 'views-'));
});
after(async () => {
  rmSync(dir, { recursive: true, force: true });
  await context?.close();
  assert.deepEqual(session.events.pageErrors, [], 'page errors');
  assert.deepEqual(session.events.consoleErrors, [], 'console errors');
  await session?.close();
});

async function importFiles(files, tokens) {
  if (await page.isHidden('#import-view')) await page.click('#tab-import');
  if (tokens) await page.setInputFiles('#import-tokens', tokens);
  await page.setInputFiles('#import-file', files);
  await page.waitForFunction(() => {
    const s = window.attentionPlayground.imported();
    return s.source && !s.running && s.heads.length === s.source.layout.layers * s.source.layout.heads;
  });
}

async function downloadOf(selector) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  return { name: dl.suggestedFilename(), bytes: readFileSync(await dl.path()) };
}

describe('a real GPT-2 layer (12 heads, 33 tokens)', () => {
  const tokens = JSON.parse(readFileSync(realFile(L0, 'tokens.json'), 'utf8'));
  const { shape, data } = readNpy(realFile(L0, 'attention.npy'));
  const n = shape[3];
  const weight = (head, i, j) => data[((0 * shape[1] + head) * n + i) * n + j];

  test('the inspected head has token labels on both axes; SVG and PNG exports are labelled figures', async () => {
    await page.setInputFiles('#import-tokens', realFile(L0, 'tokens.json'));
    await importFiles(realFile(L0, 'attention.npy'));
    await page.waitForFunction((k) => window.attentionPlayground.imported().source.keyTokens.length === k, tokens.length);
    await page.click('#head-card-0-3');
    await page.waitForSelector('#detail-canvas');
    // The inspected head is scrolled into view (it opens below the grid).
    await page.waitForFunction(() => {
      const r = document.getElementById('import-detail').getBoundingClientRect();
      return r.top >= -1 && r.top < 50;
    });
    const keys = await page.$$eval('#detail-keys .axis-label:not(.current)', (els) => els.map((e) => [e.textContent, e.title]));
    const queries = await page.$$eval('#detail-queries .axis-label:not(.current)', (els) => els.map((e) => [e.textContent, e.title]));
    assert.equal(keys.length, n, 'every key labelled (33 cells of 10.9 px)');
    assert.equal(queries.length, n);
    assert.equal(keys[1][1], `1 ${tokens[1]}`, 'the full token in the title');
    assert.equal(queries[5][1], `5 ${tokens[5]}`);
    // Hover a cell: its row and column labels are highlighted.
    await page.locator('#detail-canvas').scrollIntoViewIfNeeded();
    const box = await page.locator('#detail-canvas').boundingBox();
    await page.mouse.move(box.x + ((7 + 0.5) / n) * box.width, box.y + ((20 + 0.5) / n) * box.height);
    await page.screenshot({ path: screenshotPath('views-detail-axes'), fullPage: false });
    assert.equal(await page.$eval('#detail-queries .axis-label.current', (e) => e.dataset.cell), '20');
    assert.equal(await page.$eval('#detail-keys .axis-label.current', (e) => e.dataset.cell), '7');

    const svg = (await downloadOf('#export-detail-svg')).bytes.toString('utf8');
    const texts = (cls) =>
      [...svg.matchAll(new RegExp(`<text class="${cls}"[^>]*><title>([^<]*)</title>([^<]*)</text>`, 'g'))].map((m) => m[2]);
    assert.equal(texts('col-label').length, n, 'a label per key');
    assert.equal(texts('row-label').length, n, 'a label per query');
    const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
    assert.equal(texts('row-label')[2], esc(tokens[2].replace(/^ | $/g, '␣')));
    assert.match(svg, /<text class="axis-title"[^>]*>key →<\/text>/);
    assert.match(svg, /<text class="axis-title"[^>]*>query →<\/text>/);
    assert.match(svg, /<linearGradient id="colour-bar"/);
    assert.equal((svg.match(/class="legend-tick"/g) ?? []).length, 5, 'five ticks on the colour bar');
    assert.match(svg, /class="legend-title"[^>]*>attention weight</);
    assert.match(svg, /class="source"[^>]*>Source: attention\.npy, /);
    assert.match(svg, /<text x="12" y="22" font-size="15" font-weight="600">attention\.npy/);
    // Cell (5, 2)'s title holds its weight as read from the file.
    const at = svg.indexOf(`<title>query 5 ${esc(tokens[5])}, key 2 ${esc(tokens[2])}: `);
    const cell = /: ([0-9.e-]+)<\/title>/.exec(svg.slice(at));
    assert.ok(Math.abs(Number(cell[1]) - weight(3, 5, 2)) < 1e-6, `cell (5,2) ${cell[1]} vs ${weight(3, 5, 2)}`);

    const png = (await downloadOf('#export-detail-png')).bytes;
    assert.deepEqual([...png.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
    const pngW = png.readUInt32BE(16);
    const svgW = Number(/width="(\d+)"/.exec(svg)[1]);
    assert.equal(pngW, svgW * 2, 'the PNG is the figure at 2x');
    // Look at the PNG as a person would: shown on a page, screenshotted.
    await page.evaluate((b64) => {
      const img = document.createElement('img');
      img.id = 'png-preview';
      img.src = `data:image/png;base64,${b64}`;
      img.style.cssText = 'position:fixed;left:0;top:0;z-index:99;background:#fff;max-width:100vw';
      document.body.append(img);
      return img.decode();
    }, png.toString('base64'));
    await page.locator('#png-preview').screenshot({ path: screenshotPath('views-detail-png-export') });
    await page.evaluate(() => document.getElementById('png-preview').remove());
  });
});
