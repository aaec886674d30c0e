// Token context of the views in Chromium (docs/import.md "Token views"): token labels on the axes of the inspected
// head of the import, the SVG and PNG exports as figures (labels, colour bar, title, source line),
// the token views (text and lines) reproducing a query's weights from the file itself, a hover at
// 512 tokens, Copy link on the Import tab, and the inspected head scrolled into view.
// One page for the file; the expected weights are read from the .npy here (independent of the page).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { openPage, screenshotPath, startSession, openImportTab } from './harness.js';
import { npy } from '../node/npy.js';

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
  await session?.close();
  assert.deepEqual(session.events.pageErrors, [], 'page errors');
  assert.deepEqual(session.events.consoleErrors, [], 'console errors');
});

async function importFiles(files, tokens) {
  await openImportTab(page);
  if (tokens) await page.setInputFiles('#import-tokens', tokens);
  await page.setInputFiles('#import-file', files);
  await page.waitForFunction((name) => {
    const s = window.attentionPlayground.imported();
    return s.source?.name === name && !s.running && s.heads.length === s.source.layout.layers * s.source.layout.heads;
  }, basename(files));
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
    await openImportTab(page);
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
    // A figure read alone says where its colours saturate, exactly when the page does (a trial
    // read the colour bar's 0.572 as the largest weight of a head whose largest is 1).
    const pageSaturates = await page.$eval('#import-detail', (e) => /Colours saturate at/.test(e.textContent));
    assert.equal(/colours saturate at [0-9.]+ \(the 99th percentile of the cells\)/.test(svg), pageSaturates, 'the saturation note');
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
  /** The weights a view should show for (head, query i): the file's row, exact zeros not visible. */
  const expectRow = (head, i) => Array.from({ length: n }, (_, j) => weight(head, i, j));
  const meanRow = (i) =>
    Array.from({ length: n }, (_, j) => {
      const live = Array.from({ length: shape[1] }, (_, hd) => weight(hd, i, j)).filter((x) => x > 0);
      return live.length ? live.reduce((a, b) => a + b, 0) / live.length : NaN;
    });
  const assertRow = (got, want, what) => {
    assert.equal(got.length, want.length, `${what}: length`);
    got.forEach((g, j) => {
      if (!(want[j] > 0)) assert.ok(g === null || g === 0, `${what}: key ${j} not visible or 0, got ${g}`);
      else assert.ok(g !== null && Math.abs(g - want[j]) <= 1e-6, `${what}: key ${j} ${g} vs ${want[j]}`);
    });
  };
  const shadedWeights = () =>
    page.$$eval('#token-chooser .tok', (els) => els.map((e) => (e.dataset.weight ? Number(e.dataset.weight) : null)));

  test('text view: a query shades the tokens by its weights (one head, the mean of the layer), keyboard, SVG export', async () => {
    await page.waitForSelector('#token-chooser');
    await page.locator('#token-views').scrollIntoViewIfNeeded();
    // Head 3 is the inspected one: the view starts on it.
    assert.equal(await page.inputValue('#token-which'), '3');
    // No token chosen yet: the figure says so, not the page's instruction to hover one.
    await page.mouse.move(0, 0);
    assert.match(await page.textContent('#token-readout'), /No token chosen/);
    await page.focus('#token-export-svg');
    const [first] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
    const plain = readFileSync(await first.path(), 'utf8');
    assert.match(plain, /no token chosen \(no weights shaded\)/);
    assert.doesNotMatch(plain, /hover one/);
    await page.hover('#token-chooser-20');
    assertRow(await shadedWeights(), expectRow(3, 20), 'head 3, query 20');
    assert.match(await page.textContent('#token-readout'), /Query 20/);
    // The mean over the 12 heads, as the core computes it.
    await page.selectOption('#token-which', '-1');
    assertRow(await shadedWeights(), meanRow(20), 'mean, query 20');
    // Keyboard: focus the text, arrows move the query, Enter keeps it.
    await page.selectOption('#token-which', '7');
    await page.focus('#token-chooser');
    await page.keyboard.press('End');
    await page.keyboard.press('ArrowLeft');
    assertRow(await shadedWeights(), expectRow(7, n - 2), 'head 7, query n-2 by keyboard');
    assert.equal(await page.getAttribute('#token-chooser', 'aria-activedescendant'), `token-chooser-${n - 2}`);
    await page.keyboard.press('Enter');
    await page.hover('#token-chooser-3');
    assertRow(await shadedWeights(), expectRow(7, n - 2), 'locked: a hover does not move it');
    await page.screenshot({ path: screenshotPath('views-token-text') });
    const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#token-export-svg')]);
    const svg = readFileSync(await dl.path(), 'utf8');
    assert.match(dl.suggestedFilename(), /tokens-text\.svg$/);
    assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    assert.equal((svg.match(/<text x=[^>]*xml:space="preserve">/g) ?? []).length, n, 'every token in the figure');
    await page.keyboard.press('Escape');
  });

  test("line view: a query's lines carry its weights per head; heads toggle; keyboard; SVG export", async () => {
    await page.click('#token-tab-lines');
    await page.waitForSelector('#token-lines');
    await page.hover('#token-lines text[data-side="query"][data-i="12"]');
    const lines = await page.$$eval('#token-lines g[data-head] line', (els) =>
      els.map((e) => ({
        head: Number(e.parentElement.dataset.head),
        q: Number(e.dataset.q),
        k: Number(e.dataset.k),
        w: Number(e.dataset.weight),
      })),
    );
    for (const hd of [0, 3, 11]) {
      const got = Array(n).fill(null);
      for (const l of lines.filter((x) => x.head === hd)) {
        assert.equal(l.q, 12);
        got[l.k] = l.w;
      }
      assertRow(got, expectRow(hd, 12), `lines of head ${hd}, query 12`);
    }
    assert.equal(new Set(lines.map((l) => l.head)).size, 12, 'one group per head');
    await page.uncheck('#token-head-5');
    assert.equal(await page.locator('#token-lines g[data-head="5"]').count(), 0, 'head 5 hidden');
    assert.equal(await page.locator('#token-lines g[data-head="4"]').count(), 1);
    // Keyboard: move to keys with ArrowRight: the lines into key 2 (its column).
    await page.focus('#token-lines');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowDown');
    const col = await page.$$eval('#token-lines g[data-head="0"] line', (els) =>
      els.map((e) => [Number(e.dataset.q), Number(e.dataset.k), Number(e.dataset.weight)]),
    );
    assert.ok(col.length > 0 && col.every(([, k]) => k === 13), 'the lines of key 13');
    for (const [q, , w] of col) assert.ok(Math.abs(w - weight(0, q, 13)) <= 1e-6);
    await page.screenshot({ path: screenshotPath('views-token-lines') });
    const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#token-export-svg')]);
    const svg = readFileSync(await dl.path(), 'utf8');
    assert.match(svg, /<svg[^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    assert.equal((svg.match(/<line /g) ?? []).length, await page.locator('#token-lines line').count(), 'the lines on screen');
    await page.check('#token-head-5');
  });

  test('line view SVG export: every head in a wrapped legend inside the figure, a hovered token left out', async () => {
    await page.focus('#token-lines');
    await page.keyboard.press('Escape'); // no token chosen
    await page.hover('#token-lines text[data-side="query"][data-i="22"]');
    assert.match(await page.textContent('#token-lines-readout'), /Query 22/);
    const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#token-export-svg')]);
    const svg = readFileSync(await dl.path(), 'utf8');
    const width = Number(svg.match(/<svg[^>]* width="(\d+)"/)[1]);
    const legend = [...svg.matchAll(/<text x="([\d.]+)" y="([\d.]+)" fill="[^"]+">■ ([^<]+)<\/text>/g)].map((m) => ({
      x: Number(m[1]),
      y: Number(m[2]),
      label: m[3],
    }));
    assert.deepEqual(
      legend.map((l) => l.label),
      Array.from({ length: 12 }, (_, k) => `L0 H${k}`),
      'all 12 heads in the legend',
    );
    // Each item starts inside the figure with room for "■ L0 H11" (8 characters at <= 8 px).
    for (const l of legend) assert.ok(l.x >= 10 && l.x + 8 * 8 <= width, `${l.label} at x ${l.x} inside ${width}`);
    assert.ok(new Set(legend.map((l) => l.y)).size > 1, 'wrapped over more than one line');
    const height = Number(svg.match(/<svg[^>]* height="(\d+)"/)[1]);
    assert.ok(Math.max(...legend.map((l) => l.y)) < height - 10, 'the legend above the bottom edge');
    // The hover is not in the figure: no "Query 22", and the lines are the resting view's (every
    // weight >= 0.02 of every head, from the file).
    assert.doesNotMatch(svg, /Query 22/);
    let resting = 0;
    for (let hd = 0; hd < 12; hd++) for (let q = 0; q < n; q++) for (let k = 0; k < n; k++) resting += weight(hd, q, k) >= 0.02 ? 1 : 0;
    assert.equal((svg.match(/<line /g) ?? []).length, resting, 'the lines of the resting view');
    // The page still shows the hovered query.
    assert.match(await page.textContent('#token-lines-readout'), /Query 22/);
  });

  test('Copy link on the Import tab shares the inspected head; the link opens it in the playground', async () => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: session.url });
    await page.click('#copy-link');
    await page.waitForFunction(() => /Link to L0 H3 copied/.test(document.getElementById('copy-status').textContent));
    const url = await page.evaluate(() => navigator.clipboard.readText());
    const { page: other, context: c2 } = await openPage(session, url, { label: '[views link] ' });
    const st = await other.evaluate(() => window.attentionPlayground.getState());
    assert.equal(st.heads[0].name, 'L0 H3');
    assert.deepEqual(st.tokens.keys, tokens);
    assert.equal(st.heads[0].weights[5][2], weight(3, 5, 2), 'the head itself travelled (float32 values)');
    await c2.close();
  });

  test('smaller items: metric numbers do not wrap at the exponent', async () => {
    // Rows table of head 3: a sink mass written with an exponent stays on one line.
    const lines = await page.$$eval('#detail-rows tbody td', (tds) =>
      tds
        .filter((td) => /e-/.test(td.textContent))
        .map((td) => {
          const r = document.createRange();
          r.selectNodeContents(td);
          return new Set([...r.getClientRects()].map((x) => Math.round(x.top))).size;
        }),
    );
    assert.ok(lines.length > 0, 'some values are written with an exponent');
    assert.ok(
      lines.every((k) => k === 1),
      `every exponent value on one line (${lines.join(',')})`,
    );
  });

  test('smaller items: the entropy formula of a 33-token head fits its box', async () => {
    await page.click('#open-in-playground');
    await page.waitForFunction(() => window.attentionPlayground.getState().view.preset === 'import');
    // Typeset once it is near the viewport (web/views/tex.js): measured typeset, not pending.
    await page.locator('#formula-entropy').scrollIntoViewIfNeeded();
    await page.waitForSelector('#formula-entropy .katex');
    const m = await page.$eval('#formula-entropy', (el) => [el.scrollWidth, el.clientWidth]);
    assert.ok(m[0] <= m[1] + 1, `the formula is ${m[0]} px wide in a ${m[1]} px box`);
    await openImportTab(page);
  });
});

describe('512 tokens', () => {
  test('a hover in the text view and in the line view takes < 100 ms (median of 7) at 512 tokens', async () => {
    // A [1, 4, 512, 512] causal file of random rows (softmax of uniform logits, here in float64).
    const n = 512;
    const H = 4;
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const values = new Float64Array(H * n * n);
    for (let hd = 0; hd < H; hd++)
      for (let i = 0; i < n; i++) {
        let z = 0;
        const row = hd * n * n + i * n;
        for (let j = 0; j <= i; j++) z += values[row + j] = Math.exp(4 * rand());
        for (let j = 0; j <= i; j++) values[row + j] /= z;
      }
    const file = join(dir, 'random512.npy');
    writeFileSync(file, npy([1, H, n, n], values));
    await importFiles(file);
    // No head inspected yet: Copy link says why a whole file cannot travel in a link.
    await page.click('#copy-link');
    await page.waitForFunction(() => /cannot travel in a link/.test(document.getElementById('copy-status').textContent));
    assert.match(
      await page.textContent('#copy-status'),
      /random512\.npy, 4\.0 MiB\).*make a one-file page with it \(attn html random512\.npy/,
    );
    await page.click('#head-card-0-1');
    await page.waitForSelector('#token-chooser');
    const times = await page.evaluate(async () => {
      const out = { text: [], lines: [] };
      const hover = (el) => el.dispatchEvent(new MouseEvent('mouseover', { bubbles: true }));
      const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      for (let k = 0; k < 7; k++) {
        const el = document.getElementById(`token-chooser-${100 + k * 50}`);
        const t0 = performance.now();
        hover(el);
        out.text.push(performance.now() - t0);
        await frame();
      }
      document.getElementById('token-tab-lines').click();
      await frame();
      for (let k = 0; k < 7; k++) {
        const el = document.querySelector(`#token-lines text[data-side="query"][data-i="${100 + k * 50}"]`);
        const t0 = performance.now();
        hover(el);
        out.lines.push(performance.now() - t0);
        await frame();
      }
      return out;
    });
    const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
    assert.ok(median(times.text) < 100, `text view hover median ${median(times.text).toFixed(1)} ms`);
    assert.ok(median(times.lines) < 100, `line view hover median ${median(times.lines).toFixed(1)} ms`);
    // The last hovered query's lines carry its row (head 0 of the random file).
    const i = 400;
    const got = await page.$$eval('#token-lines g[data-head="0"] line', (els) =>
      els.map((e) => [Number(e.dataset.k), Number(e.dataset.weight)]),
    );
    assert.equal(got.length, i + 1);
    for (const [j, w] of got) assert.ok(Math.abs(w - Math.fround(values[i * n + j])) <= 1e-6, `key ${j}`);
    console.log(`# 512 tokens: text hover median ${median(times.text).toFixed(1)} ms, lines ${median(times.lines).toFixed(1)} ms`);
  });
});

describe('canvas heatmaps and wide layers', () => {
  test('a heatmap of more than 64 x 64 cells is a canvas with token axes, the same keys and hover, repainted in place', async () => {
    const got = await page.evaluate(async () => {
      const { renderHeatmap } = await import('/views/heatmap.js');
      const n = 80;
      const box = document.createElement('div');
      box.id = 'canvas-test';
      document.body.prepend(box);
      const matrix = (k) =>
        Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (j <= i ? ((i * 7 + j * 3 + k) % 10) / 10 : null)));
      const picked = [];
      const o = (k) => ({
        id: 'big',
        title: 'big',
        matrix: matrix(k),
        visible: Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => j <= i)),
        rowLabels: Array.from({ length: n }, (_, i) => `query-token-number-${i}`),
        colLabels: Array.from({ length: n }, (_, j) => `k${j}`),
        domain: [0, 1],
        selectedRow: 0,
        showNumbers: false,
        onSelectRow: (i) => picked.push(i),
      });
      renderHeatmap(box, o(0));
      const canvas = box.querySelector('canvas#big');
      const out = { table: box.querySelectorAll('table').length, labels: box.querySelectorAll('.axis-label:not(.current)').length };
      out.title = box.querySelector('#big-queries .axis-label').title;
      out.text = box.querySelector('#big-queries .axis-label').textContent;
      canvas.focus();
      const key = (k) => canvas.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true }));
      key('ArrowDown');
      key('ArrowDown');
      key('ArrowRight');
      const readout = box.querySelector('#big-readout');
      out.afterKeys = [readout.dataset.row, readout.dataset.col, readout.dataset.value, readout.textContent];
      out.picked = [...picked];
      const r = canvas.getBoundingClientRect();
      canvas.dispatchEvent(
        new MouseEvent('mousemove', { clientX: r.left + (20.5 / n) * r.width, clientY: r.top + (30.5 / n) * r.height, bubbles: true }),
      );
      out.hover = [readout.dataset.row, readout.dataset.col, readout.dataset.value];
      renderHeatmap(box, o(1));
      out.same = box.querySelector('canvas#big') === canvas;
      box.remove();
      return out;
    });
    assert.equal(got.table, 0, 'no table of 6,400 cells');
    assert.ok(got.labels >= (2 * 80) / 2, `token labels on both axes (${got.labels})`);
    assert.equal(got.title, '0 query-token-number-0', 'the full token on hover');
    assert.equal(got.text, 'query-token…', 'a long token is elided');
    assert.deepEqual(got.afterKeys.slice(0, 3), ['2', '1', String(((2 * 7 + 1 * 3) % 10) / 10)]);
    assert.match(got.afterKeys[3], /query-token-number-2/);
    assert.deepEqual(got.picked, [1, 2], 'moving into a row selects it');
    assert.deepEqual(got.hover, ['30', '20', String(((30 * 7 + 20 * 3) % 10) / 10)]);
    assert.equal(got.same, true, 'new values repaint the same canvas');
  });

  test('32 heads of one layer wrap in a 1,340 px window', async () => {
    await page.setViewportSize({ width: 1340, height: 900 });
    const n = 8;
    const H = 32;
    const values = new Float64Array(H * n * n);
    for (let hd = 0; hd < H; hd++) for (let i = 0; i < n; i++) for (let j = 0; j <= i; j++) values[hd * n * n + i * n + j] = 1 / (i + 1);
    const file = join(dir, 'wide32.npy');
    writeFileSync(file, npy([1, H, n, n], values));
    await importFiles(file);
    const m = await page.evaluate(() => {
      const g = document.getElementById('import-grid');
      const last = document.getElementById('head-card-0-31').getBoundingClientRect();
      return { scroll: g.scrollWidth, client: g.clientWidth, right: last.right, gridRight: g.getBoundingClientRect().right };
    });
    assert.ok(m.scroll <= m.client + 1, `no horizontal overflow (${m.scroll} > ${m.client})`);
    assert.ok(m.right <= m.gridRight + 1, 'the last head is inside the window');
    await page.screenshot({ path: screenshotPath('views-32-heads') });
    await page.setViewportSize({ width: 1400, height: 1000 });
  });
});
