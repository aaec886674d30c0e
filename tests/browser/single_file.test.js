// The one-file page (scripts/single-file.js) and `attn html` (cpp/cli/html.cpp): the file stays in
// its budget, opens from file:// with no request leaving the page, runs a lesson, runs inside an
// <iframe sandbox="allow-scripts" srcdoc> (no storage, no clipboard: the link is selected for
// copying by hand, the language still switches), and the CLI's pages open on their embedded state
// (validated first, too large refused) or file (the import overview, numbers checked against the
// array computed here). One browser, one page per context; the build is made once (~3 s).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { closeQuietly, near, screenshotPath, softmax, startSession, waitReady, watch } from './harness.js';
import { buildSingleFile, MAX_FILE_BYTES, MAX_EMBEDDED_BYTES } from '../../scripts/single-file.js';
import { LESSON_PRESETS } from '../../web/presets/presets.js';
import { npy } from '../node/npy.js';

const OUT = fileURLToPath(new URL('../../test-results/single-file/', import.meta.url));
const CLI = process.env.ATTN_CLI ?? fileURLToPath(new URL('../../build/native/attn', import.meta.url));
const PAGE = `${OUT}attention-playground.html`;

let session;
let built;

/** `attn html ARGS --template PAGE`; returns {status, stderr}. */
function attnHtml(args) {
  const run = spawnSync(CLI, ['html', ...args, '--template', PAGE], { encoding: 'utf8' });
  return { status: run.status, stderr: run.stderr };
}

/** A page of a fresh context on `url`, ready; the frame the app runs in. */
async function open(url, { frame = false } = {}) {
  const context = await session.browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  watch(page, session.events, `${url.slice(-40)}: `);
  // Nothing may leave the page: any request other than the file itself (and its blob: workers) fails the test.
  page.on('request', (req) => {
    if (!/^(file|blob|data|about):/.test(req.url()) && !req.url().startsWith(session.url))
      session.events.requestFailures.push(`request to ${req.url()}`);
  });
  await page.goto(url);
  const app = frame ? await (await page.waitForSelector('iframe')).contentFrame() : page;
  await waitReady(app);
  return { context, page, app };
}

// Four heads of five tokens (2 layers x 2 heads), rows made positive and normalised here.
const N = 5;
const HEADS = Array.from({ length: 4 }, (_, h) =>
  Array.from({ length: N }, (_, i) => {
    const row = Array.from({ length: N }, (_, j) => 1 + ((h * 7 + i * 3 + j * 5) % 11));
    const sum = row.reduce((a, b) => a + b, 0);
    return row.map((x) => Math.fround(x / sum));
  }),
);
const meanEntropy = (head) => head.reduce((acc, row) => acc - row.reduce((a, p) => a + (p > 0 ? p * Math.log(p) : 0), 0), 0) / head.length;

before(async () => {
  mkdirSync(OUT, { recursive: true });
  built = await buildSingleFile();
  writeFileSync(PAGE, built.html);
  assert.ok(existsSync(CLI), `${CLI} is missing: run scripts/build.sh (or set ATTN_CLI)`);
  const lessonState = LESSON_PRESETS.lessonGuided.make();
  lessonState.tokens.queries[0] = '</script><b>q</b>'; // text inside the page's data block, never markup
  writeFileSync(`${OUT}lesson.state.json`, JSON.stringify(lessonState));
  writeFileSync(`${OUT}heads.npy`, npy([2, 2, N, N], HEADS.flat(2)));
  writeFileSync(`${OUT}heads_tokens.json`, JSON.stringify(['The', '<b>cat</b>', 'sat', 'on', 'mat']));
  session = await startSession();
});
after(() => closeQuietly(session, { requests: true }));

describe('one-file page', () => {
  test('stays within its budget on disk and carries the SIMD core', () => {
    assert.equal(statSync(PAGE).size, built.bytes);
    assert.ok(built.bytes <= MAX_FILE_BYTES, `${built.bytes} bytes > ${MAX_FILE_BYTES}`);
    assert.ok(built.variants.includes('wasm-simd128'));
    assert.match(built.html, /script-src 'sha256-[^']+' 'sha256-[^']+' blob: 'wasm-unsafe-eval'/);
    const markup = built.html.replace(/<script type="module">[\s\S]*?<\/script>/, '');
    assert.doesNotMatch(markup, /<script[^>]* src=|<link rel="stylesheet"/);
    assert.doesNotMatch(built.html, /id="footer-data"/, 'no link to notes the one file does not carry');
  });

  test('from file://: computes worked example 1 with the SIMD core, as softmax gives it here', async () => {
    const { context, page } = await open(pathToFileURL(PAGE).href);
    assert.equal(await page.getAttribute('#core-variant', 'data-variant'), 'wasm-simd128');
    const s = await page.evaluate(() => window.attentionPlayground.getState());
    const r = await page.evaluate(() => window.attentionPlayground.results());
    // Independent: softmax of q . k_j * scale / tau.
    const h = s.heads[0];
    const scale = s.scale === 'auto' ? 1 / Math.sqrt(h.Q[0].length) : s.scale;
    const logits = h.K.map((k) => k.reduce((a, x, i) => a + x * h.Q[0][i], 0) * scale);
    softmax(logits, s.tau).forEach((w, j) => near(r.weights[0][j], w, 1e-6, `weight ${j}`));
    await page.evaluate(() => window.attentionPlayground.setState({ ...window.attentionPlayground.getState(), tau: 2 }));
    const link = await page.evaluate(() => window.attentionPlayground.shareUrl());
    assert.match(link, /^file:/);
    // The real-attention presets it does not carry are offered disabled and say so; those it
    // carries are offered (scripts/single-file.js keeps as many as fit: built.data of them).
    const real = await page.$$eval('#preset optgroup:nth-of-type(2) option', (os) =>
      os.map((o) => ({ disabled: o.disabled, text: o.textContent })),
    );
    assert.ok(real.length >= 4, `${real.length} real presets listed`);
    assert.equal(real.filter((o) => !o.disabled).length, built.data, JSON.stringify(real));
    for (const o of real.filter((x) => x.disabled)) assert.match(o.text, /not in this one-file page/);
    await context.close();
  });

  test('in <iframe sandbox="allow-scripts" srcdoc>: no storage, no clipboard; the link is selected for copying', async () => {
    const context = await session.browser.newContext({ viewport: { width: 1280, height: 1000 } });
    const page = await context.newPage();
    watch(page, session.events, 'sandbox: ');
    await page.goto('about:blank');
    await page.evaluate((html) => {
      document.body.replaceChildren();
      const f = document.createElement('iframe');
      f.setAttribute('sandbox', 'allow-scripts');
      f.style.cssText = 'width: 1200px; height: 900px; border: 0';
      f.srcdoc = html;
      document.body.append(f);
    }, built.html);
    const app = await (await page.waitForSelector('iframe')).contentFrame();
    await waitReady(app);
    assert.equal(await app.evaluate(() => origin), 'null');
    assert.equal(
      await app.evaluate(() => {
        try {
          localStorage.length;
          return 'storage';
        } catch {
          return 'blocked';
        }
      }),
      'blocked',
    );
    await app.click('#copy-link');
    const box = await app.waitForSelector('#copy-status input.link-box');
    const selected = await box.evaluate((el) => el.value.slice(el.selectionStart, el.selectionEnd));
    assert.ok(selected.length > 20 && selected === (await box.inputValue()), 'the whole link is selected');
    // The language switches (its memory is blocked storage); a lesson step opens.
    await app.selectOption('#lang', 'zh-CN');
    await app.waitForFunction(() => document.documentElement.lang === 'zh-CN');
    await app.selectOption('#preset', 'lessonGuided');
    await app.waitForFunction(() => window.attentionPlayground.getState().lesson?.step === 1);
    assert.ok(await app.isVisible('#lesson-panel'));
    await app.click('#lesson-next');
    await app.waitForFunction(() => window.attentionPlayground.getState().lesson.step === 2);
    await page.screenshot({ path: screenshotPath('single-file-sandbox-zh') });
    await context.close();
  });
});

describe('attn html', () => {
  test('a state: validated, embedded, opened in the playground at the lesson', async () => {
    const out = `${OUT}lesson.html`;
    assert.deepEqual(attnHtml([`${OUT}lesson.state.json`, '--out', out]), { status: 0, stderr: '' });
    const { context, page } = await open(pathToFileURL(out).href);
    const s = await page.evaluate(() => window.attentionPlayground.getState());
    assert.equal(s.view.preset, 'lessonGuided');
    assert.equal(s.lesson.step, 1);
    assert.equal(s.tokens.queries[0], '</script><b>q</b>');
    assert.equal(await page.locator('b').count(), 0);
    assert.ok(await page.isVisible('#lesson-panel'));
    await context.close();
  });

  test('an invalid state and an input over the limit are refused with the reason', () => {
    writeFileSync(`${OUT}bad.state.json`, JSON.stringify({ ...LESSON_PRESETS.example1.make(), tau: -1 }));
    const bad = attnHtml([`${OUT}bad.state.json`, '--out', `${OUT}bad.html`]);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /not a valid state: .*tau/);
    const big = `${OUT}big.npy`;
    writeFileSync(big, new Uint8Array(MAX_EMBEDDED_BYTES + 1));
    const large = attnHtml([big, '--out', `${OUT}big.html`]);
    assert.equal(large.status, 2);
    assert.match(large.stderr, /embeds at most 50 MB/);
    assert.equal(existsSync(`${OUT}big.html`), false, 'nothing written');
    // Files the page's import would refuse are refused when the page is made, not when it is opened.
    const notAttention = [
      ['not-json.json', 'not json'],
      ['cut.json', '[1,2'],
      ['fake.npy', 'hello'],
    ];
    for (const [name, text] of notAttention) {
      writeFileSync(`${OUT}${name}`, text);
      const run = attnHtml([`${OUT}${name}`, '--out', `${OUT}${name}.html`]);
      assert.equal(run.status, 2, `${name}: ${run.stderr}`);
      assert.match(run.stderr, /is neither a state document .* nor an attention file .*: bad_file: /, name);
      assert.equal(existsSync(`${OUT}${name}.html`), false, `${name}: nothing written`);
    }
  });

  test('a .npy with tokens: opens on the import overview; per-head entropy matches the array', async () => {
    const out = `${OUT}heads.html`;
    assert.equal(attnHtml([`${OUT}heads.npy`, '--tokens', `${OUT}heads_tokens.json`, '--out', out]).status, 0);
    const { context, page } = await open(pathToFileURL(out).href);
    await page.waitForFunction(() => {
      const s = window.attentionPlayground.imported();
      return s.heads.length === 4 && !s.running && s.heads.every((h) => h.computed);
    });
    assert.equal(await page.evaluate(() => document.body.dataset.view), 'import');
    const imported = await page.evaluate(() => window.attentionPlayground.imported());
    assert.deepEqual(imported.source.queryTokens, ['The', '<b>cat</b>', 'sat', 'on', 'mat']);
    imported.heads.forEach((h, i) => near(h.summary.meanEntropy, meanEntropy(HEADS[i]), 1e-5, `head ${i} mean entropy`));
    assert.equal(await page.locator('#import-view b').count(), 0, 'a token is text, never markup');
    await context.close();
  });
});
