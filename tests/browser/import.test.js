// Import in Chromium: a real GPT-2 file dropped on the page, the layer x head overview, sorting
// and filtering, inspecting a head (hover, lock, Escape), opening it in the playground, exports,
// every validation message, hostile token strings, and a [12, 12, 512, 512] file with a progress
// bar while the page keeps painting.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { getResults, getState, near, openPage, screenshotPath, startSession, openImportTab } from './harness.js';
import { npy, uniformCausal } from '../node/npy.js';
import { HEAD_METRICS, HEAD_SCORES, ROW_METRICS } from '../node/metrics.js';
import { cjkShare, cjkText, englishWords, setLanguage, waitForLanguage } from './lang_check.js';

const REAL = new URL('../../web/data/real/', import.meta.url);
const L0 = 'gpt2-small_L0_nlp-sentence';
const realFile = (set, name) => new URL(`${set}/${name}`, REAL).pathname;

let session;
before(async () => {
  session = await startSession();
});
after(async () => {
  assert.deepEqual(session.events.pageErrors, [], 'page errors');
  assert.deepEqual(session.events.consoleErrors, [], 'console errors');
  assert.deepEqual(session.events.dialogs, [], 'no token may open a dialog');
  await session?.close();
});

const imported = (page) => page.evaluate(() => window.attentionPlayground.imported());

/** Imports files through the file picker and waits until every head is analysed. */
async function importFiles(page, files, { tokens = null } = {}) {
  await openImportTab(page);
  if (tokens) await page.setInputFiles('#import-tokens', tokens);
  await page.setInputFiles('#import-file', files);
  await page.waitForFunction((name) => {
    const s = window.attentionPlayground.imported();
    return s.source?.name === name && !s.running && s.heads.length === s.source.layout.layers * s.source.layout.heads;
  }, basename(files));
}

async function downloadOf(page, selector) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  return { name: dl.suggestedFilename(), text: readFileSync(await dl.path(), 'utf8') };
}

describe('a real GPT-2 layer', () => {
  test('drop, overview, sort, filter, inspect with hover and lock, open in the playground', async () => {
    const { page, context } = await openPage(session, '', { label: '[l0] ' });
    // Drag and drop: a File built from the bytes of the real .npy, dropped on the drop zone.
    await openImportTab(page);
    const bytes = [...readFileSync(realFile(L0, 'attention.npy'))];
    await page.evaluate((b) => {
      const dt = new DataTransfer();
      dt.items.add(new File([new Uint8Array(b)], 'gpt2_L0.npy'));
      document.getElementById('import-drop').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, bytes);
    await page.waitForFunction(() => window.attentionPlayground.imported().heads.length === 12);
    await page.setInputFiles('#import-tokens', realFile(L0, 'tokens.json'));
    // Tokens added after the file: the heads are analysed again (their token-dependent scores).
    await page.waitForFunction(() => {
      const s = window.attentionPlayground.imported();
      return s.source.keyTokens.length === 33 && !s.running && s.heads.length === 12;
    });
    assert.match(
      await page.textContent('#import-info'),
      /gpt2_L0\.npy: npy, float32, shape \[1, 12, 33, 33\] → 1 layer × 12 heads × 33 × 33; 33 tokens from tokens\.json/,
    );
    assert.equal(await page.locator('.head-card').count(), 12);
    assert.equal(await page.isHidden('#import-errors'), true);

    // The overview's numbers are the core's: the mean sink mass of each head against the file.
    const doc = JSON.parse(readFileSync(realFile(L0, 'attention.json'), 'utf8'));
    const heads = doc.attention.flat(1);
    const s = await imported(page);
    s.heads.forEach((r, i) => {
      const ref = heads[i].reduce((acc, row) => acc + row[0] / row.reduce((a, b) => a + b, 0), 0) / heads[i].length;
      near(r.summary.meanSinkMass, ref, 1e-6, `head ${i} mean sink mass`);
    });

    // Sort by sink mass, descending: the first card is the head with the most mass on BOS.
    await page.selectOption('#import-sort', 'meanSinkMass');
    await page.check('#import-desc');
    const top = s.heads.reduce((a, b) => (b.summary.meanSinkMass > a.summary.meanSinkMass ? b : a));
    assert.equal(await page.getAttribute('.head-card >> nth=0', 'data-index'), String(top.index));
    // Filter: only the heads of one pattern, and a range of the sort metric.
    const kind = s.heads[0].pattern.kind;
    await page.selectOption('#import-filter', kind);
    const n = s.heads.filter((r) => r.pattern.kind === kind).length;
    assert.equal(await page.locator('.head-card').count(), n);
    assert.equal(await page.textContent('#import-count'), `${n} of 12 heads`);
    await page.selectOption('#import-filter', '');
    await page.fill('#import-min', '0.2');
    const above = s.heads.filter((r) => r.summary.meanSinkMass >= 0.2).length;
    assert.equal(await page.locator('.head-card').count(), above);
    await page.fill('#import-min', '');
    await page.selectOption('#import-sort', 'order');
    await page.uncheck('#import-desc');
    assert.equal(await page.locator('#layer-summary tbody tr').count(), 1);
    assert.equal(await page.locator('#head-summary tbody tr').count(), 12);

    // Inspect head 3: hover a cell for query token, key token and weight; click locks it.
    await page.click('#head-card-0-3');
    await page.waitForSelector('#detail-canvas');
    await page.locator('#detail-canvas').scrollIntoViewIfNeeded();
    const box = await page.locator('#detail-canvas').boundingBox();
    const cell = (i, j) => ({ x: box.x + ((j + 0.5) / 33) * box.width, y: box.y + ((i + 0.5) / 33) * box.height });
    const tokens = JSON.parse(readFileSync(realFile(L0, 'tokens.json'), 'utf8'));
    const at = cell(5, 2);
    await page.mouse.move(at.x, at.y);
    const w52 = heads[3][5][2] / heads[3][5].reduce((a, b) => a + b, 0);
    const readout = await page.textContent('#detail-readout');
    assert.ok(readout.includes(`query 5 “${tokens[5].replace(/^ /, '␣')}” → key 2 “${tokens[2].replace(/^ /, '␣')}”`), readout);
    near(Number(readout.split('weight ')[1]), w52, 5e-4, 'hovered weight');
    await page.mouse.click(at.x, at.y);
    assert.match(await page.textContent('#detail-readout'), /^locked: query 5/);
    const other = cell(20, 10);
    await page.mouse.move(other.x, other.y);
    assert.match(await page.textContent('#detail-readout'), /^locked: query 5/, 'a locked readout does not follow the pointer');
    await page.keyboard.press('Escape');
    assert.doesNotMatch(await page.textContent('#detail-readout'), /locked/);
    await page.mouse.move(other.x, other.y + 1);
    assert.match(await page.textContent('#detail-readout'), /^query 20/);
    await page.screenshot({ path: screenshotPath('import-overview-gpt2-L0'), fullPage: true });

    // Open in the playground: the head's weights become the state, its metrics match the overview.
    await page.click('#open-in-playground');
    await page.waitForFunction(() => window.attentionPlayground.getState().view.preset === 'import');
    assert.equal(await page.isVisible('#app'), true);
    const state = await getState(page);
    assert.equal(state.mode, 'weights');
    assert.deepEqual(state.tokens.keys, tokens);
    assert.equal(state.heads[0].name, 'L0 H3');
    assert.equal(state.heads[0].weights[5][2], Math.fround(heads[3][5][2]));
    const res = await getResults(page);
    near(res.summary.meanSinkMass, s.heads[3].summary.meanSinkMass, 1e-9, 'playground vs overview mean sink mass');
    near(res.summary.meanEntropy, s.heads[3].summary.meanEntropy, 1e-9, 'playground vs overview mean entropy');
    await page.screenshot({ path: screenshotPath('import-opened-head') });

    // Exports of the playground view.
    const csv = await downloadOf(page, '#export-csv');
    assert.equal(csv.text.split('\r\n')[0], ['row', 'query_token', 'empty', ...ROW_METRICS.map((m) => m.csv)].join(','));
    assert.equal(csv.text.trim().split('\r\n').length, 34);
    const svg = await downloadOf(page, '#export-svg');
    assert.match(svg.name, /\.svg$/);
    assert.match(svg.text, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    assert.equal((svg.text.match(/<rect x=/g) ?? []).length, 33 * 33, 'one rect per cell');
    const html = await downloadOf(page, '#export-html');
    assert.match(html.text, /<!doctype html>/);
    assert.doesNotMatch(html.text, /<script/);
    const png = await Promise.all([page.waitForEvent('download'), page.click('#export-png')]);
    assert.match(png[0].suggestedFilename(), /\.png$/);
    assert.deepEqual([...readFileSync(await png[0].path()).subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);

    // Exports of the overview: metrics per head.
    await openImportTab(page);
    const heads_csv = await downloadOf(page, '#export-heads-csv');
    const lines = heads_csv.text.trim().split('\r\n');
    assert.equal(lines.length, 13);
    const header = lines[0].split(',');
    assert.deepEqual(header, [
      ...['layer', 'head', 'verdict', 'rows', 'empty_rows'],
      ...HEAD_METRICS.map((m) => m.head.csv),
      ...['pattern', 'confidence', 'parameter', 'above_diagonal_mass', 'causal_structure'],
      ...HEAD_SCORES.map((x) => x.csv),
    ]);
    for (const m of HEAD_METRICS)
      near(Number(lines[4].split(',')[header.indexOf(m.head.csv)]), s.heads[3].summary[m.head.key], 1e-12, `CSV ${m.head.csv} of head 3`);
    const json = JSON.parse((await downloadOf(page, '#export-heads-json')).text);
    assert.equal(json.heads.length, 12);
    assert.deepEqual(json.shape, [1, 12, 33, 33]);
    await context.close();
  });
});

describe('validation: each bad input says what is wrong and keeps what was there', () => {
  test('not probabilities -> offered as logits; token mismatch; a broken file keeps the import', async () => {
    const { page, context } = await openPage(session, '', { label: '[bad] ' });
    await importFiles(page, realFile('NOT_PROBABILITIES_t5-small_decoder_L0_raw-scores', 'scores.npy'));
    assert.match(await page.textContent('#import-errors'), /8 of 8 heads are not probabilities .*look like scores \(logits\)/);
    assert.equal(await page.isVisible('#import-as-logits'), true);
    await page.click('#import-as-logits');
    await page.waitForFunction(() => {
      const s = window.attentionPlayground.imported();
      return !s.running && s.reading === 'logits' && s.heads.length === 8 && s.heads.every((r) => r.computed);
    });
    assert.equal(await page.isHidden('#import-errors'), true);

    // 12 tokens for a 16-key tensor: the message names both; the tensor stays loaded.
    const dir = mkdtempSync(join(tmpdir(), 'attn-import-'));
    try {
      const f16 = join(dir, 'a16.npy');
      writeFile(f16, npy([16, 16], uniformCausal(16)));
      await importFiles(page, f16);
      const twelve = join(dir, 'twelve.json');
      writeFile(twelve, Buffer.from(JSON.stringify(Array.from({ length: 12 }, (_, i) => `t${i}`))));
      await page.setInputFiles('#import-tokens', twelve);
      await page.waitForSelector('#import-errors:not([hidden])');
      assert.match(await page.textContent('#import-errors'), /12 tokens for a tensor with 16 keys/);
      assert.equal((await imported(page)).heads.length, 1);

      // A Fortran-order file is refused; the previous import stays on screen.
      const fortran = join(dir, 'fortran.npy');
      writeFile(fortran, npy([4, 4], uniformCausal(4), { fortran: true }));
      await page.setInputFiles('#import-file', fortran);
      await page.waitForFunction(() => /Fortran/.test(document.getElementById('import-errors').textContent));
      assert.match(await page.textContent('#import-info'), /a16\.npy/);
      assert.equal(await page.locator('.head-card').count(), 1);

      // NaN: located by layer, head, query and key.
      const a = new Float32Array(uniformCausal(4));
      a[2 * 4 + 1] = NaN;
      const nan = join(dir, 'nan.npy');
      writeFile(nan, npy([4, 4], a));
      await importFiles(page, nan);
      assert.match(await page.textContent('#import-errors'), /L0 H0: 1 NaN\/Inf value, the first at query 2, key 1/);

      // A playground state file opens in the playground.
      const st = await getState(page);
      st.tau = 2.5;
      const stFile = join(dir, 'saved.state.json');
      writeFile(stFile, Buffer.from(JSON.stringify(st)));
      await page.setInputFiles('#import-file', stFile);
      await page.waitForFunction(() => window.attentionPlayground.getState().tau === 2.5);
      assert.equal(await page.isVisible('#app'), true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    await context.close();
  });

  test('a bidirectional file said to be causal: the heads and rows with weight above the diagonal are flagged', async () => {
    const { page, context } = await openPage(session, '', { label: '[causal] ' });
    await openImportTab(page);
    await page.check('#import-causal');
    await importFiles(page, realFile('t5-small_encoder_L0_bidirectional', 'attention.npy'));
    assert.match(
      await page.textContent('#import-warnings'),
      // Largest above-diagonal mass first (the T5 encoder's head 6 puts 0.915 of each row there).
      /You said the model is causal, but 8 heads put weight above the diagonal \(largest above-diagonal mass first\): L0 H6 \(mass 0\.915, 11 rows from query 0/,
    );
    assert.equal(await page.locator('.card-flag').count(), 8);
    await page.uncheck('#import-causal');
    await page.waitForFunction(
      () => document.querySelectorAll('.card-flag').length === 0 && !window.attentionPlayground.imported().running,
    );
    assert.equal(await page.isHidden('#import-warnings'), true);
    await context.close();
  });

  test('heads the file names, tokens dropped with the file, keyboard inspection, unanalysed heads', async () => {
    const { page, context } = await openPage(session, '', { label: '[details] ' });
    await openImportTab(page);
    const rows = [
      [1, 0, 0],
      [0.5, 0.5, 0],
      [0.25, 0.25, 0.5],
    ];
    const doc = JSON.stringify({ attention: [[rows, rows]], heads: ['L9H9', 'L9H6'] });
    // Dropped together: the attention JSON and a token list (named *tokens*), in either order.
    await page.evaluate(
      ({ doc }) => {
        const dt = new DataTransfer();
        dt.items.add(new File(['x\ny\nz\n'], 'my_tokens.txt'));
        dt.items.add(new File([doc], 'ioi.json'));
        document.getElementById('import-drop').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
      },
      { doc },
    );
    await page.waitForFunction(() => window.attentionPlayground.imported().heads.length === 2);
    assert.match(await page.textContent('#import-info'), /3 tokens from my_tokens\.txt/);
    assert.deepEqual(await page.$$eval('.head-card .card-name', (els) => els.map((e) => e.textContent)), ['L9H9', 'L9H6']);

    // Keyboard: focus the inspected map, move with the arrows, Enter locks.
    await page.click('#head-card-0-1');
    await page.waitForSelector('#detail-canvas');
    await page.focus('#detail-canvas');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowRight');
    assert.match(await page.textContent('#detail-readout'), /^query 2 “z” → key 1 “y”: weight 0\.25/);
    await page.keyboard.press('Enter');
    assert.match(await page.textContent('#detail-readout'), /^locked: query 2/);
    await page.keyboard.press('Escape');
    assert.match(await page.textContent('#detail-readout'), /^query 2/);

    // A token file chosen before the attention file: its mismatch survives the analysis.
    const dir = mkdtempSync(join(tmpdir(), 'attn-details-'));
    try {
      const twelve = join(dir, 'twelve.json');
      writeFile(twelve, Buffer.from(JSON.stringify(Array.from({ length: 12 }, (_, i) => `t${i}`))));
      await page.setInputFiles('#import-tokens', twelve);
      const scores = realFile('NOT_PROBABILITIES_t5-small_decoder_L0_raw-scores', 'scores.npy');
      await importFiles(page, scores);
      const errors = await page.textContent('#import-errors');
      assert.match(errors, /Tokens from twelve\.json not used: 12 tokens for a tensor with 11 keys/);
      assert.match(errors, /not probabilities/);
      // An unanalysed head says why instead of drawing nothing.
      await page.click('#head-card-0-0');
      await page.waitForSelector('#detail-why');
      assert.match(await page.textContent('#detail-why'), /Not analysed: its values are not probabilities: read the file as logits first/);
      await page.click('#import-as-logits');
      await page.waitForSelector('#detail-canvas');
      // Random bytes named .npy: the message says it is not a .npy.
      const junk = join(dir, 'junk.npy');
      writeFile(junk, Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 251)));
      await page.setInputFiles('#import-file', junk);
      await page.waitForFunction(() => /junk\.npy is not a \.npy file/.test(document.getElementById('import-errors').textContent));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    await context.close();
  });

  test('token strings are text: HTML, special tokens and broken UTF-8 render as they are', async () => {
    const { page, context } = await openPage(session, '', { label: '[tokens] ' });
    const dir = mkdtempSync(join(tmpdir(), 'attn-tokens-'));
    try {
      const n = 6;
      const file = join(dir, 'six.npy');
      writeFile(file, npy([n, n], uniformCausal(n)));
      // One per line; line 5 is the first two bytes of an emoji's UTF-8 (invalid on its own).
      const lines = Buffer.concat([
        Buffer.from('<|endoftext|>\n</s>\n<pad>\n"><img src=x onerror=alert(1)>\nĠthe\n'),
        Buffer.from([0xf0, 0x9f]),
        Buffer.from('\n'),
      ]);
      const tokens = join(dir, 'tokens.txt');
      writeFile(tokens, lines);
      await importFiles(page, file, { tokens });
      // A file of one head opens on it, without a click (a notebook's show(head, tokens)).
      await page.waitForSelector('#detail-rows');
      assert.equal(await page.$eval('#head-card-0-0', (e) => e.classList.contains('selected')), true, 'the one head is inspected');
      await page.click('#head-card-0-0');
      await page.waitForSelector('#detail-rows');
      const cells = await page.$$eval('#detail-rows tbody tr td:nth-child(2)', (tds) => tds.map((td) => td.textContent));
      assert.deepEqual(cells, ['<|endoftext|>', '</s>', '<pad>', '"><img src=x onerror=alert(1)>', 'Ġthe', '\uFFFD']);
      assert.equal(await page.locator('#import-view img').count(), 0, 'no element was made from a token');
      await page.click('#open-in-playground');
      await page.waitForFunction(() => window.attentionPlayground.getState().view.preset === 'import');
      assert.equal(await page.locator('#app img').count(), 0);
      const svg = await downloadOf(page, '#export-svg');
      assert.ok(svg.text.includes('&quot;&gt;&lt;img src=x onerror=alert(1)&gt;'));
      assert.ok(!svg.text.includes('<img'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    await context.close();
  });
});

describe('in Chinese (#lang=zh-CN)', () => {
  test('a real layer, its inspected head and its messages in Chinese; data stays as it is; a language switch redraws without analysing again', async () => {
    const { page, context } = await openPage(session, '#lang=zh-CN', { label: '[zh] ' });
    // Counts what the page asks its import worker to read or analyse.
    await page.evaluate(() => {
      const post = Worker.prototype.postMessage;
      window.workerAsks = [];
      Worker.prototype.postMessage = function count(msg, ...rest) {
        if (['open', 'tokens', 'analyze', 'rows'].includes(msg?.type)) window.workerAsks.push(msg.type);
        return post.call(this, msg, ...rest);
      };
    });
    await importFiles(page, realFile(L0, 'attention.npy'), { tokens: realFile(L0, 'tokens.json') });
    await page.click('#head-card-0-3');
    await page.waitForSelector('#detail-canvas');
    await page.hover('#detail-canvas', { position: { x: 100, y: 120 } });
    assert.deepEqual(await englishWords(page, '#import-view'), [], 'English words in the Chinese import view');
    assert.ok((await cjkShare(page, '#import-view')) > 0.4, 'most of the import view is Chinese');
    // Data stays data: the file name, the tokens and the head names are marked translate="no".
    const info = await page.$eval('#import-info', (el) => ({
      text: el.textContent,
      data: [...el.querySelectorAll('[translate="no"]')].map((e) => e.textContent),
    }));
    assert.match(info.text, /形状 \[1, 12, 33, 33\] → 1 层 × 12 个头 × 33 × 33；33 个词元，取自 tokens\.json/);
    assert.ok(info.data.includes('attention.npy') && info.data.includes('tokens.json'), `file names as data: ${info.data}`);
    assert.match(await page.textContent('#detail-readout'), /^查询 \d+“.+”→ 键 \d+“.+”：权重 /);
    await page.screenshot({ path: screenshotPath('import-zh'), fullPage: true });

    // To English and back: drawn again from the analysis held, nothing read or analysed again.
    const asked = await page.evaluate(() => window.workerAsks.length);
    assert.ok(asked >= 3, `the worker was asked ${asked} times`);
    await setLanguage(page, 'en');
    await waitForLanguage(page, '#import-view', 'en');
    assert.deepEqual(await cjkText(page, '#import-view'), [], 'Chinese left in the English import view');
    assert.match(await page.textContent('#import-info'), /33 tokens from tokens\.json/);
    assert.match(await page.textContent('#head-card-0-3'), /self 0\.82/);
    await setLanguage(page, 'zh-CN');
    await waitForLanguage(page, '#import-view', 'zh-CN');
    assert.match(await page.textContent('#head-card-0-3'), /自身 0\.82/);
    assert.deepEqual(await page.evaluate(() => window.workerAsks.slice(-2)), ['analyze', 'rows']);
    assert.equal(await page.evaluate(() => window.workerAsks.length), asked, 'a language switch read or analysed again');

    // Messages: the page's own sentence in Chinese, the file name and the core's English detail as data.
    const dir = mkdtempSync(join(tmpdir(), 'attn-import-zh-'));
    try {
      const junk = join(dir, 'junk.npy');
      writeFile(junk, Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 251)));
      await page.setInputFiles('#import-file', junk);
      await page.waitForSelector('#import-errors:not([hidden])');
      assert.match(await page.textContent('#import-errors'), /^无法读取 junk\.npy：junk\.npy 不是 \.npy 文件：开头不是魔数 \\x93NUMPY$/);
      const fortran = join(dir, 'fortran.npy');
      writeFile(fortran, npy([4, 4], uniformCausal(4), { fortran: true }));
      await page.setInputFiles('#import-file', fortran);
      await page.waitForFunction(() => /Fortran/.test(document.getElementById('import-errors').textContent));
      const err = await page.$eval('#import-errors', (el) => ({
        text: el.textContent,
        data: [...el.querySelectorAll('[translate="no"]')].map((e) => e.textContent).join(' | '),
      }));
      assert.match(err.text, /^无法读取 fortran\.npy：/);
      assert.match(err.data, /Fortran/, "the core's English detail is marked as data");
      assert.deepEqual(await englishWords(page, '#import-view'), [], 'English words around the messages');
      const nan = new Float32Array(uniformCausal(4));
      nan[2 * 4 + 1] = NaN;
      const nanFile = join(dir, 'nan.npy');
      writeFile(nanFile, npy([4, 4], nan));
      await importFiles(page, nanFile);
      assert.match(await page.textContent('#import-errors'), /L0 H0：有 1 个 NaN\/Inf 值，第一个位于查询 2、键 1/);
      assert.deepEqual(await englishWords(page, '#import-view'), [], 'English words in the analysis messages');
      await page.screenshot({ path: screenshotPath('import-zh-errors'), fullPage: true });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    await context.close();
  });
});

describe('on a phone (390 x 844)', () => {
  test('every select of the import view shows its whole chosen option, in Chinese and in English', async () => {
    for (const lang of ['zh-CN', 'en']) {
      const context = await session.browser.newContext({
        viewport: { width: 390, height: 844 },
        isMobile: true,
        hasTouch: true,
        locale: lang,
      });
      const page = await context.newPage();
      await page.goto(`${session.url}#lang=${lang}`);
      await page.waitForFunction(() => window.attentionPlayground !== undefined);
      await page.evaluate(() => window.attentionPlayground.ready);
      await openImportTab(page);
      // A select cannot wrap its text: one narrower than its own width (a copy laid out with no
      // width limit) cuts the chosen option off ("自动（先按概率解读，不符合时再询" once).
      const cut = await page.evaluate(() =>
        [...document.querySelectorAll('#import-view select')]
          .filter((el) => el.checkVisibility())
          .map((el) => {
            const free = el.cloneNode(true);
            free.removeAttribute('id');
            free.style.cssText = 'position: absolute; left: 0; top: 0; width: max-content; max-width: none; min-width: 0';
            document.body.append(free);
            free.value = el.value;
            const need = free.getBoundingClientRect().width;
            free.remove();
            const box = el.getBoundingClientRect();
            return { id: el.id, need, width: box.width, right: box.right };
          })
          .filter((m) => m.width + 0.5 < m.need || m.right > document.documentElement.clientWidth + 0.5),
      );
      assert.deepEqual(cut, [], `${lang}: selects too narrow for their option, or past the screen`);
      assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 390, `${lang}: the page stays 390 px wide`);
      await page.locator('#import-reading').scrollIntoViewIfNeeded();
      await page.screenshot({ path: screenshotPath(`import-phone-${lang}`) });
      await context.close();
    }
  });
});

describe('a [12, 12, 512, 512] float32 file', () => {
  test('imports with a progress bar while the page keeps painting', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'attn-big-'));
    const file = join(dir, 'big.npy');
    try {
      writeBig(file, 12, 12, 512);
      const { page, context } = await openPage(session, '', { label: '[big] ' });
      await openImportTab(page);
      await page.evaluate(() => {
        window.__gaps = [];
        window.__progressSeen = false;
        let last = performance.now();
        const tick = (now) => {
          window.__gaps.push(now - last);
          last = now;
          const p = document.getElementById('import-progress');
          if (p && !p.hidden && document.getElementById('import-progress-bar').value < 144) window.__progressSeen = true;
          requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
      });
      await page.setInputFiles('#import-file', file);
      await page.waitForFunction(() => window.attentionPlayground.imported().heads.length >= 20, null, { timeout: 120_000 });
      await page.screenshot({ path: screenshotPath('import-big-progress') });
      await page.waitForFunction(
        () => {
          const s = window.attentionPlayground.imported();
          return !s.running && s.heads.length === 144;
        },
        null,
        { timeout: 300_000 },
      );
      const { gaps, seen } = await page.evaluate(() => ({ gaps: window.__gaps.slice(1), seen: window.__progressSeen }));
      assert.ok(seen, 'the progress bar was shown while heads were analysed');
      assert.match(await page.textContent('#import-progress-text'), /Analysed 144 heads/);
      // A freeze detector, not a speed test: the analysis runs in a worker.
      const worst = Math.max(...gaps);
      assert.ok(worst < 1000, `the main thread froze for ${worst.toFixed(0)} ms`);
      assert.equal(await page.locator('.head-card').count(), 144);
      const s = await imported(page);
      // Head (l, h) of the generated file has row t uniform over keys max(0, t - w) .. t with
      // w = 1 + (l * 12 + h) % 7: its mean sink mass is the share of rows that still see key 0.
      for (const r of [s.heads[0], s.heads[143]]) {
        const w = 1 + (r.index % 7);
        const ref = Array.from({ length: 512 }, (_, t) => (t - w <= 0 ? 1 / (t + 1) : 0)).reduce((a, b) => a + b, 0) / 512;
        near(r.summary.meanSinkMass, ref, 1e-6, `head ${r.index} mean sink mass`);
      }
      await page.screenshot({ path: screenshotPath('import-big-overview') });
      // Cancel stops every import worker (the page uses one per core): analysed again (the causal
      // box), cancelled after a few heads, no head arrives afterwards.
      await page.click('#import-causal');
      await page.waitForFunction(() => window.attentionPlayground.imported().heads.length >= 6, null, { timeout: 120_000 });
      await page.click('#import-cancel');
      await page.waitForFunction(() => !window.attentionPlayground.imported().running, null, { timeout: 60_000 });
      const stopped = (await imported(page)).heads.length;
      assert.ok(stopped < 144, `cancelled after ${stopped} heads`);
      await page.waitForTimeout(1500);
      assert.equal((await imported(page)).heads.length, stopped, 'a head arrived after Cancel');
      assert.match(await page.textContent('#import-progress-text'), new RegExp(`${stopped}`));
      await context.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

function writeFile(path, bytes) {
  const fd = openSync(path, 'w');
  writeSync(fd, bytes);
  closeSync(fd);
}

/** Writes [L, H, n, n] float32 banded causal heads a head at a time (never the whole array). */
export function writeBig(path, layers, heads, n) {
  const header = npy([layers, heads, n, n], [], { descr: '<f4' });
  const fd = openSync(path, 'w');
  writeSync(fd, header);
  const head = new Float32Array(n * n);
  for (let i = 0; i < layers * heads; i++) {
    const w = 1 + (i % 7);
    head.fill(0);
    for (let t = 0; t < n; t++) {
      const lo = Math.max(0, t - w);
      for (let j = lo; j <= t; j++) head[t * n + j] = 1 / (t - lo + 1);
    }
    writeSync(fd, new Uint8Array(head.buffer));
  }
  closeSync(fd);
}
