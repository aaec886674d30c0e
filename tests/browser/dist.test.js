// The release (npm run dist, docs/deploy.md) as a teacher hosts it: dist/ served from a sub-path
// (/courses/attention/) by a plain static server (python3 -m http.server), end to end (the lesson,
// a link's round trip, an import, the lab, the embed example); a second visit with the network
// cut (the service worker); and a Chinese class link loading under a phone-class profile, checked
// every 100 ms in the page: no English text and no control the link hides is ever visible.
//
// Builds its own copy of the release first (node scripts/dist.js --fast into test-results/), so it
// tests the sources of this checkout; the build needs web/wasm and web/vendor (scripts/build.sh).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { ROOT, WEB, requireBuild, serveOnTestPort, startCourseSite, waitReady, watch } from './harness.js';
import { iframeSnippet } from '../../web/page/snippets.js';
import { testPorts } from '../ports.js';
import { englishWords } from '../node/i18n_words.js';
import { HIDE_TARGETS } from '../../web/page/page-options.js';
import { CHROMIUM_ARGS } from '../../scripts/chromium.js';
import { pathToFileURL } from 'node:url';

const OUT = join(ROOT, 'test-results', 'dist-test');
const DIST = join(OUT, 'courses', 'attention');
const BUILT = join(OUT, 'release');
const CLASS_HIDE = ['import', 'lab', 'mode', 'scale'];
const NPY = join(WEB, 'data/real/gpt2-small_L0_nlp-sentence');

let python;
let base;
let browser;
const events = { consoleErrors: [], pageErrors: [], requestFailures: [], dialogs: [] };

before(async () => {
  requireBuild();
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(join(OUT, 'courses'), { recursive: true });
  execFileSync(process.execPath, [join(ROOT, 'scripts/dist.js'), '--fast'], { env: { ...process.env, DIST_DIR: BUILT }, stdio: 'pipe' });
  symlinkSync(BUILT, DIST);
  // On the first port of ATTN_TEST_PORTS that python3 can listen on (or one the system picks).
  let port = null;
  for (const tryPort of testPorts()) {
    python = spawn('python3', ['-m', 'http.server', String(tryPort), '--bind', '127.0.0.1', '--directory', OUT], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    port = await new Promise((resolve) => {
      let text = '';
      python.stdout.on('data', (d) => {
        text += d;
        const m = /port (\d+)/.exec(text);
        if (m) resolve(m[1]);
      });
      python.on('exit', () => resolve(null)); // the port is taken: the next one
    });
    if (port) break;
  }
  if (!port) throw new Error(`python3 -m http.server found no free port in ${testPorts().join(', ')}`);
  base = `http://127.0.0.1:${port}/courses/attention/`;
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
});

after(async () => {
  await browser?.close();
  python?.kill();
  assert.deepEqual(events.pageErrors, [], 'uncaught page errors');
  assert.deepEqual(events.consoleErrors, [], 'console errors');
});

async function open(url, context) {
  const page = await context.newPage();
  watch(page, events);
  await page.goto(url);
  await waitReady(page);
  return page;
}

describe('dist/ from a sub-path of a plain static server', () => {
  let context;
  let page;
  before(async () => {
    context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    page = await open(base, context);
  });
  after(() => context.close());

  test('the release: hashed assets, relative URLs, the policy and the service worker in index.html', async () => {
    const html = await (await fetch(base)).text();
    assert.match(html, /<script type="module" src="assets\/main-[a-z0-9]+\.js"><\/script>/);
    assert.doesNotMatch(html, /(src|href)="\//, 'no absolute path');
    // The page's policy, plus exactly the sha256 hashes of the two elements the release inlines
    // (the stylesheet and early.js); no 'unsafe-inline'. A wrong hash would also block early.js,
    // which the Chinese link's test below would see.
    const policyOf = (text) => /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(text)[1];
    const inlined = (tag) => {
      const found = [...html.matchAll(new RegExp(`<${tag}>([^]*?)</${tag}>`, 'g'))].map((m) => m[1]);
      assert.equal(found.length, 1, `one inline <${tag}>`);
      return `'sha256-${createHash('sha256').update(found[0]).digest('base64')}'`;
    };
    const policy = policyOf(readFileSync(join(WEB, 'index.html'), 'utf8'))
      .replace("script-src 'self'", `script-src 'self' ${inlined('script')}`)
      .replace("style-src 'self'", `style-src 'self' ${inlined('style')}`);
    assert.equal(policyOf(html), policy);
    assert.doesNotMatch(policyOf(html), /'unsafe-inline'|'unsafe-eval'/);
    assert.doesNotMatch(html, /<link rel="stylesheet"|<script src=/, 'the stylesheet and early.js are inlined, not fetched');
    const wasm = await fetch(`${base}${/href="(assets\/attn_simd-[0-9a-f]+\.wasm)"/.exec(html)[1]}`);
    assert.equal(wasm.headers.get('content-type'), 'application/wasm');
    for (const dev of ['bench.html', 'scenarios.html', 'formulas-demo.html']) assert.equal((await fetch(base + dev)).status, 404, dev);
    // The footer links the real heads' notes where the release serves them (not a repository path).
    const notes = /<a id="footer-data" href="([^"]+)"/.exec(html)[1];
    assert.equal(notes, 'assets/data/real/README.md');
    assert.match(await (await fetch(base + notes)).text(), /TransformerLens/);
  });

  test('the lesson, a link round trip, the lab and an import', async () => {
    await page.click('#lesson-toggle');
    await page.waitForFunction(() => window.attentionPlayground.getState().lesson?.step === 1);
    await page.waitForSelector('#lesson-panel #lesson-step-1');
    // The link reopens the same state, in another page.
    const link = await page.evaluate(() => window.attentionPlayground.shareUrl());
    assert.ok(link.startsWith(base), link);
    const again = await open(link, context);
    assert.deepEqual(
      await again.evaluate(() => window.attentionPlayground.getState()),
      await page.evaluate(() => window.attentionPlayground.getState()),
    );
    await again.close();
    // The lab: a view chunk loaded on first use.
    await page.click('#lab-tab-linear');
    await page.waitForFunction(() => document.querySelector('#lab-view')?.textContent.length > 50);
    // The import view (loaded on first use), with a real head file.
    await page.click('#tab-import');
    await page.setInputFiles('#import-tokens', join(NPY, 'tokens.json'));
    await page.setInputFiles('#import-file', join(NPY, 'attention.npy'));
    await page.waitForFunction(
      () => window.attentionPlayground.imported().heads.length === 12 && !window.attentionPlayground.imported().running,
    );
  });

  test('no developer page in the release: the sample course page and dev/ stay out', async () => {
    // dev/embed-demo.html (served at /dev/ by npm run serve) and the other developer pages are not
    // released; a course page embedding the release is tested below and in pack.test.js.
    const names = readdirSync(DIST, { recursive: true }).map(String);
    const dev = names.filter((n) => /embed-demo|bench|scenarios|formulas-demo|(^|\/)dev(\/|$)/.test(n));
    assert.deepEqual(dev, [], 'developer files in dist/');
    const response = await fetch(`${base}embed-demo.html`);
    assert.equal(response.status, 404);
  });

  test('a second visit works with the network cut (the service worker)', async () => {
    await page.evaluate(() => navigator.serviceWorker.ready);
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
    await context.setOffline(true);
    try {
      const offline = await open(`${base}#lang=zh-CN`, context);
      assert.equal(await offline.evaluate(() => document.documentElement.lang), 'zh-CN');
      assert.ok(await offline.evaluate(() => navigator.serviceWorker.controller !== null), 'the service worker answered');
      assert.ok(await offline.evaluate(() => window.attentionPlayground.results().weights.length > 0));
      // The release loads only the page's language: the default state's source line is still
      // recognised and worded in Chinese (it once fell back to the state's English sentence).
      const source = await offline.evaluate(() => document.getElementById('source').textContent);
      assert.match(source, /课程例题一/, source);
      assert.doesNotMatch(source, /Worked example/, source);
      await offline.close();
    } finally {
      await context.setOffline(false);
    }
  });
});

// The share dialog's iframe snippet on a course page of another origin, the frame sandboxed to
// scripts only (origin "null": no storage, and reading navigator.serviceWorker throws).
describe('the release in <iframe sandbox="allow-scripts"> on another origin', () => {
  let course;
  let preview;
  let context;
  before(async () => {
    course = await startCourseSite();
    // npm run preview -- --base /courses/attention/: it sends Access-Control-Allow-Origin.
    preview = await serveOnTestPort({ root: BUILT, staticHost: true, base: '/courses/attention/' });
    context = await browser.newContext({ viewport: { width: 1000, height: 800 }, locale: 'zh-CN' });
  });
  after(async () => {
    await context?.close();
    for (const server of [course, preview?.server]) {
      server?.closeAllConnections?.();
      await new Promise((done) => server?.close(done));
    }
  });
  const coursePage = (link) => {
    course.html = `<!doctype html><html lang="zh-CN"><meta charset="utf-8"><title>第三周</title><body><h1>第三周</h1>${iframeSnippet(link, { title: '注意力实验场' }).replace('<iframe ', '<iframe sandbox="allow-scripts" ')}</body>`;
    return `http://127.0.0.1:${course.address().port}/course.html`;
  };

  test('on a host that sends Access-Control-Allow-Origin: starts with no page error; the frame does not scroll', async () => {
    const host = await context.newPage();
    watch(host, events, '[sandboxed release] ');
    assert.match(preview.url, /\/courses\/attention\/$/);
    await host.goto(coursePage(`${preview.url}#lang=zh-CN&embed=1`));
    const frame = await (await host.waitForSelector('iframe')).contentFrame();
    await waitReady(frame);
    assert.equal(await frame.evaluate(() => origin), 'null');
    // early.js went on past the service worker check: the release's preload hints are in.
    assert.ok(await frame.evaluate(() => document.querySelectorAll('link[rel="modulepreload"]').length > 0), 'preload hints');
    await host.waitForFunction(() => document.querySelector('iframe').style.height !== '');
    const height = await host.evaluate(() => parseFloat(document.querySelector('iframe').style.height));
    await frame.waitForFunction((h) => Math.abs(document.scrollingElement.clientHeight - h) < 2, height);
    const sizes = await frame.evaluate(() => [document.scrollingElement.scrollHeight, document.scrollingElement.clientHeight]);
    assert.ok(sizes[0] <= sizes[1], `the frame scrolls inside itself: scrollHeight ${sizes[0]} > clientHeight ${sizes[1]}`);
    await host.close();
  });

  test('on a host without it (python3 -m http.server): only the message, in the page language', async () => {
    const host = await context.newPage(); // not watched: the blocked modules are console errors
    const pageErrors = [];
    host.on('pageerror', (err) => pageErrors.push(err.message));
    await host.goto(coursePage(`${base}#lang=zh-CN&embed=1`));
    const frame = await (await host.waitForSelector('iframe')).contentFrame();
    await frame.waitForSelector('#loading[role="alert"]', { timeout: 15000 });
    const shown = await frame.evaluate(() => ({
      text: document.getElementById('loading').textContent,
      lang: document.documentElement.lang,
      others: [...document.body.querySelectorAll('*')]
        .filter((el) => !el.closest('#loading') && el.checkVisibility())
        .map((el) => el.id || el.tagName),
    }));
    assert.match(shown.text, /脚本无法加载/);
    assert.doesNotMatch(shown.text, /docs\/|\.md\b/);
    assert.equal(shown.lang, 'zh-CN');
    assert.deepEqual(shown.others, [], 'no toolbar');
    assert.deepEqual(pageErrors, [], 'early.js runs to its end');
    await host.close();
  });
});

test("index.html opened as a file: it says to serve the folder or open the one-file page, in the link's language", async () => {
  const context = await browser.newContext();
  const page = await context.newPage(); // not watched: the blocked module is a console error
  const url = `${pathToFileURL(join(DIST, 'index.html')).href}#lang=zh-CN`;
  await page.goto(url);
  await page.waitForSelector('#loading[role="alert"]', { timeout: 15000 });
  const text = await page.textContent('#loading');
  assert.match(text, /无法直接从磁盘上的文件启动/);
  assert.match(text, /attention-playground\.html/);
  assert.doesNotMatch(text, /沙箱/, 'not the sandboxed-frame reason');
  await context.close();
});

test('a Chinese class link under CPU 4x and 1.6 Mbps / 150 ms: no English and no hidden control at any moment', async () => {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const setup = await open(base, context);
  await setup.click('#lesson-toggle');
  await setup.waitForFunction(() => window.attentionPlayground.getState().lesson?.step === 1);
  const fragment = (await setup.evaluate(() => window.attentionPlayground.shareUrl())).split('#')[1].replace(/(^|&)lang=[^&]*/g, '');
  await setup.close();
  await context.close();

  const cold = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const selectors = CLASS_HIDE.flatMap((name) => HIDE_TARGETS[name]);
  // Every 100 ms from the first script on: the visible text, and any visible hidden control.
  await cold.addInitScript((hidden) => {
    const samples = (window.__loadSamples = []);
    const skip = 'script, style, title, .katex, [translate="no"]';
    const tick = () => {
      if (!document.body) return;
      const texts = [];
      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const el = n.parentElement;
        if (!n.data.trim() || el.closest(skip) || !(el.closest('select') ?? el).checkVisibility({ visibilityProperty: true })) continue;
        texts.push(n.data.trim());
      }
      const shown = hidden.filter((sel) =>
        [...document.querySelectorAll(sel)].some((el) => el.checkVisibility({ visibilityProperty: true })),
      );
      samples.push({ t: performance.now(), texts, shown, ready: Boolean(window.__ready) });
    };
    setInterval(tick, 100);
    document.addEventListener('readystatechange', tick);
  }, selectors);
  const page = await cold.newPage();
  watch(page, events);
  const cdp = await cold.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 150, downloadThroughput: 200000, uploadThroughput: 93750 });
  await page.goto(`${base}#${fragment}&lang=zh-CN&${CLASS_HIDE.map((n) => `${n}_hide=1`).join('&')}`);
  await waitReady(page);
  await page.waitForTimeout(300);
  const samples = await page.evaluate(() => window.__loadSamples);
  await cold.close();
  assert.ok(samples.length >= 5, `only ${samples.length} samples`);
  const english = [...new Set(samples.flatMap((s) => s.texts))].filter((text) => englishWords(text).length > 0);
  assert.deepEqual(english, [], 'English text visible while the Chinese link loads');
  assert.deepEqual([...new Set(samples.flatMap((s) => s.shown))], [], 'hidden controls visible while the link loads');
  assert.ok(samples.at(-1).texts.length > 20, 'the page shows its text in the end');
});
