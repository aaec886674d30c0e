// The page under its content security policy (docs/security.md "Content security policy"):
// index.html and the sample course page dev/embed-demo.html carry a strict policy in a <meta> tag, and
// every part of the page works under it without a single violation — the default page, each input
// mode, the formulas (KaTeX), every analysis of the lab, the guided lesson through all its steps,
// the share dialog and its preview frame, a real .npy imported (the import worker), a large head
// (the compute worker), every export, a real head fetched from data/real, embed mode, the Chinese
// interface, and the course page with its iframe and its <attention-playground> element.
//
// Violations are caught three ways, in every frame of every page: the `securitypolicyviolation`
// event (a listener added before any of the page's scripts run), console messages that name the
// Content Security Policy, and uncaught errors (an EvalError, say). The policy itself is compared
// with POLICY word for word, so weakening it (adding 'unsafe-inline' or 'unsafe-eval') fails here
// too, and a first test checks that the policy is in force (an injected inline script is blocked).
//
//   node --test --test-concurrency=1 tests/browser/csp.test.js   (after the build)

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { LAB_VIEWS } from '../../web/core/state-schema.js';
import { getState, screenshotPath, startSession, trySetState, waitReady, watch } from './harness.js';

/** The policy of the pages, exactly (docs/security.md explains each directive). */
export const POLICY = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "worker-src 'self'",
  "frame-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

/** The pages that ship with the policy. */
const PAGES = ['web/index.html', 'dev/embed-demo.html'];

const REAL_NPY = new URL('../../web/data/real/gpt2-small_L0_nlp-sentence/attention.npy', import.meta.url).pathname;

let session;
let context;
let page;
const violations = []; // every violation seen, in any frame of any page of the context

/** Runs in every frame before its scripts: reports each violation to the test. */
function listen() {
  document.addEventListener('securitypolicyviolation', (e) => {
    window.__cspReport?.(`${e.violatedDirective} blocked ${e.blockedURI || '(inline)'} at ${e.sourceFile}:${e.lineNumber} ${e.sample}`);
  });
}

/** A context whose pages and frames report their violations into `into`. */
async function newContext(into, { viewport = { width: 1400, height: 1000 }, watched = true } = {}) {
  const ctx = await session.browser.newContext({ viewport, acceptDownloads: true });
  await ctx.exposeBinding('__cspReport', ({ frame }, text) => {
    into.push(`[${frame.url().split('#')[0]}] ${text}`);
  });
  await ctx.addInitScript(listen);
  ctx.on('page', (p) => {
    if (watched) watch(p, session.events, '[csp] ');
    p.on('console', (msg) => {
      if (/Content.Security.Policy|unsafe-eval|unsafe-inline/i.test(msg.text())) into.push(`console ${msg.type()}: ${msg.text()}`);
    });
    p.on('pageerror', (err) => {
      if (/Content.Security.Policy|EvalError/i.test(`${err.name} ${err.message}`)) into.push(`pageerror: ${err.message}`);
    });
  });
  return ctx;
}

/** Asserts that nothing was reported since `mark` (an index into `violations`). */
async function noneSince(mark, what) {
  await page.waitForTimeout(150); // reports are delivered asynchronously
  assert.deepEqual(violations.slice(mark), [], `CSP violations while ${what}`);
}

before(async () => {
  session = await startSession();
  context = await newContext(violations);
  page = await context.newPage();
  await page.goto(session.url);
  await waitReady(page);
});

after(async () => {
  await session?.close();
  assert.deepEqual(violations, [], 'CSP violations');
  const { consoleErrors, pageErrors, dialogs } = session?.events ?? {};
  assert.deepEqual(pageErrors ?? [], [], 'uncaught page errors');
  assert.deepEqual(consoleErrors ?? [], [], 'console errors');
  assert.deepEqual(dialogs ?? [], [], 'dialogs');
});

describe('the policy', () => {
  test('each shipped page carries exactly POLICY, first in <head>, without unsafe-inline or unsafe-eval', () => {
    assert.doesNotMatch(POLICY, /'unsafe-inline'|'unsafe-eval'|'unsafe-hashes'|'strict-dynamic'|\*|script-src[^;]*(data:|blob:|https?:)/);
    for (const name of PAGES) {
      const html = readFileSync(new URL(`../../${name}`, import.meta.url), 'utf8');
      const metas = [...html.matchAll(/<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]*)"\s*>/gi)];
      assert.equal(metas.length, 1, `${name}: one CSP meta tag`);
      assert.equal(metas[0][1], POLICY, `${name}: the policy`);
      // A meta policy covers only what comes after it: nothing loads before it.
      const head = html.slice(0, metas[0].index);
      assert.doesNotMatch(head, /<(script|link|style)\b/i, `${name}: nothing before the policy`);
      // No inline code or styles the policy would block (the test below also proves it in Chromium).
      assert.doesNotMatch(html, /<style\b/i, `${name}: no <style> element`);
      assert.doesNotMatch(html.replace(/<!--[\s\S]*?-->/g, ''), /\sstyle="/i, `${name}: no style attribute`);
      assert.doesNotMatch(html.replace(/<!--[\s\S]*?-->/g, ''), /\son[a-z]+="/i, `${name}: no inline event handler`);
      for (const [, attrs] of html.matchAll(/<script\b([^>]*)>/gi)) assert.match(attrs, /\ssrc="/, `${name}: every script is a file`);
    }
  });

  test('the policy is in force: inline scripts, inline styles and eval are blocked', async () => {
    const seen = [];
    const ctx = await newContext(seen, { watched: false }); // its violations are on purpose
    // A same-origin script (allowed by script-src 'self') that tries eval: the test's own
    // page.evaluate runs outside the policy, so the attempt must come from a script of the page.
    await ctx.route('**/__csp_probe.js', (route) =>
      route.fulfill({
        contentType: 'text/javascript',
        body:
          'try { window.__evalResult = eval("1 + 1"); } catch (e) { window.__evalResult = e.name; }\n' +
          'try { window.__functionResult = new Function("return 2")(); } catch (e) { window.__functionResult = e.name; }',
      }),
    );
    const probe = await ctx.newPage();
    await probe.goto(session.url);
    await waitReady(probe);
    const result = await probe.evaluate(async () => {
      const s = document.createElement('script');
      s.textContent = 'window.__inlineRan = true;';
      document.head.append(s);
      const st = document.createElement('style');
      st.textContent = 'body { outline: 5px solid red; }';
      document.head.append(st);
      const file = document.createElement('script');
      file.src = '__csp_probe.js';
      await new Promise((done) => {
        file.onload = done;
        file.onerror = done;
        document.head.append(file);
      });
      return {
        inlineRan: window.__inlineRan === true,
        outline: getComputedStyle(document.body).outlineStyle,
        eval: window.__evalResult,
        fn: window.__functionResult,
      };
    });
    await probe.waitForTimeout(200);
    assert.deepEqual(result, { inlineRan: false, outline: 'none', eval: 'EvalError', fn: 'EvalError' });
    assert.ok(
      seen.some((v) => /script-src/.test(v)),
      `the blocked script was reported: ${seen.join('\n')}`,
    );
    assert.ok(
      seen.some((v) => /style-src/.test(v)),
      `the blocked style was reported: ${seen.join('\n')}`,
    );
    await ctx.close();
  });
});

describe('the playground under the policy', () => {
  test('default page, each input mode, the formulas', async () => {
    const mark = violations.length;
    assert.equal(
      await page.evaluate(() => document.getElementById('core-variant').dataset.variant?.startsWith('wasm')),
      true,
      'the WebAssembly core runs',
    );
    for (const mode of ['logits', 'weights', 'x', 'qkv']) {
      await page.check(`input[name="mode"][value="${mode}"]`);
      await page.waitForFunction((m) => window.attentionPlayground.getState().mode === m, mode);
    }
    assert.equal(await page.evaluate(() => document.getElementById('formulas-box').open), true);
    // KaTeX loads once a formula is near the viewport (web/views/tex.js).
    await page.locator('#formula-softmax').scrollIntoViewIfNeeded();
    await page.waitForSelector('#formula-softmax .katex');
    // KaTeX's layout depends on its inline styles (set through the CSSOM, which the policy allows).
    const katex = await page.evaluate(() => {
      const struts = [...document.querySelectorAll('#formulas .katex-html .katex-strut, #formulas .katex-html .pstrut')];
      return {
        struts: struts.length,
        styled: struts.filter((s) => s.style.height !== '').length,
        font: getComputedStyle(document.querySelector('#formulas .katex')).fontFamily,
      };
    });
    assert.ok(katex.struts > 0 && katex.styled === katex.struts, `KaTeX struts keep their heights: ${JSON.stringify(katex)}`);
    assert.match(katex.font, /KaTeX_Main/);
    assert.equal(await page.evaluate(() => document.fonts.check('16px KaTeX_Main')), true, 'KaTeX fonts loaded');
    await noneSince(mark, 'showing the modes and the formulas');
  });

  test('every analysis of the lab', async () => {
    const mark = violations.length;
    const base = await getState(page);
    for (const view of LAB_VIEWS) {
      assert.equal(await trySetState(page, { ...base, lab: { view, params: {} } }), null, view);
      await page.waitForFunction(() => document.getElementById('lab-view').childElementCount > 0);
      await page.waitForTimeout(50);
    }
    await noneSince(mark, 'showing every lab view');
    assert.equal(await trySetState(page, base), null);
  });

  test('a large head (the compute worker) and a real head (fetched from data/real)', async () => {
    const mark = violations.length;
    const base = await getState(page);
    const n = 64;
    const logits = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => Math.sin(i * 7 + j * 3)));
    const large = {
      ...base,
      mode: 'logits',
      head: 0,
      row: 0,
      topK: 2,
      lab: undefined,
      lesson: undefined,
      heads: [{ name: 'large', Q: null, K: null, V: null, logits, weights: null }],
      tokens: { queries: Array.from({ length: n }, (_, i) => `t${i}`), keys: Array.from({ length: n }, (_, i) => `t${i}`) },
      mask: { causal: true, window: 0, padding: Array(n).fill(false), allow: null },
    };
    delete large.lab;
    delete large.lesson;
    assert.equal(await trySetState(page, large), null);
    await page.waitForFunction(() => window.attentionPlayground.results()?.large);
    const real = await page.$$eval('#preset option', (os) => os.map((o) => o.value).find((v) => v.includes('.')));
    await page.selectOption('#preset', real);
    await page.waitForFunction((want) => window.attentionPlayground.getState().view.preset === want, real);
    await noneSince(mark, 'showing a large and a real head');
    assert.equal(await trySetState(page, base), null);
  });

  test('the guided lesson, every step revealed', async () => {
    const mark = violations.length;
    await page.click('#lesson-toggle');
    await page.waitForSelector('#lesson-panel:not([hidden]) #lesson-step-title');
    for (let step = 1; step <= 5; step++) {
      await page.waitForFunction((n) => window.attentionPlayground.getState().lesson?.step === n, step);
      // A prediction (the first choice of each question), then the reveal with its formulas.
      for (const name of await page.$$eval('#lesson-panel input[type="radio"]:not([disabled])', (rs) => [
        ...new Set(rs.map((r) => r.name)),
      ])) {
        await page.click(`#lesson-panel input[name="${name}"]:not([disabled]) >> nth=0`);
      }
      const box = await page.$('#lesson-panel input[type="checkbox"]:not([disabled])');
      if (box) await box.click();
      if (await page.isEnabled('#lesson-reveal').catch(() => false)) await page.click('#lesson-reveal');
      for (const summary of await page.$$('#lesson-panel details:not([open]) > summary')) await summary.click();
      await page.waitForTimeout(50);
      if (step < 5) await page.click('#lesson-next');
    }
    await page.screenshot({ path: screenshotPath('csp-lesson'), fullPage: true });
    await page.click('#lesson-toggle');
    await noneSince(mark, 'going through the lesson');
  });

  test('the share dialog and its live preview', async () => {
    const mark = violations.length;
    await page.click('#share-class');
    await page.waitForFunction(() => document.getElementById('share-dialog')?.open);
    await page.check('#share-dialog [data-field="readonly"]');
    await page.check('#share-dialog [data-field="hide-tau"]');
    const link = await page.inputValue('#share-link');
    await page.waitForFunction((l) => document.getElementById('share-preview-frame').src === l, link);
    const preview = await (await page.$('#share-preview-frame')).contentFrame();
    await preview.waitForFunction(() => window.attentionPlayground && document.documentElement.classList.contains('ap-hide-tau'));
    await preview.evaluate(() => window.attentionPlayground.ready);
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => !document.getElementById('share-dialog').open);
    await noneSince(mark, 'using the share dialog');
  });

  test('every export and the saved state', async () => {
    const mark = violations.length;
    for (const id of ['export-png', 'export-svg', 'export-csv', 'export-json', 'export-html', 'save-state']) {
      const [download] = await Promise.all([page.waitForEvent('download'), page.click(`#${id}`)]);
      assert.ok(await download.path(), `${id} downloads`);
    }
    await noneSince(mark, 'exporting');
  });

  test('a real .npy imported (the import worker), its overview, a head opened in the playground', async () => {
    const mark = violations.length;
    await page.click('#tab-import');
    await page.setInputFiles('#import-file', REAL_NPY);
    await page.waitForFunction(
      () => {
        const s = window.attentionPlayground.imported();
        return s.source && !s.running && s.heads.length === 12;
      },
      null,
      { timeout: 30000 },
    );
    await page.waitForSelector('#detail-canvas', { state: 'attached' }).catch(() => {});
    await page.screenshot({ path: screenshotPath('csp-import'), fullPage: true });
    await page.click('#tab-playground');
    await noneSince(mark, 'importing a real .npy');
  });

  test('the Chinese interface, with the formulas open', async () => {
    const mark = violations.length;
    await page.selectOption('#lang', 'zh-CN');
    await page.waitForFunction(() => document.documentElement.lang === 'zh-CN');
    await page.locator('#formula-softmax').scrollIntoViewIfNeeded();
    await page.waitForSelector('#formula-softmax .katex');
    await page.evaluate(() => document.fonts.ready);
    await page.screenshot({ path: screenshotPath('csp-zh-CN-formulas'), fullPage: true });
    await page.locator('#formulas-box').screenshot({ path: screenshotPath('csp-zh-CN-formulas-box') });
    await page.selectOption('#lang', 'en');
    await noneSince(mark, 'switching to Chinese');
  });

  test('embed mode, read-only, hidden controls', async () => {
    const mark = violations.length;
    const link = await page.evaluate(() => window.attentionPlayground.shareUrl());
    const embedded = await context.newPage();
    await embedded.goto(`${link}&embed=1&readonly=1&tau_hide=1&lab_hide=1&lang=zh-CN`);
    await waitReady(embedded);
    assert.equal(
      await embedded.evaluate(() =>
        ['ap-embed', 'ap-readonly', 'ap-hide-tau'].every((c) => document.documentElement.classList.contains(c)),
      ),
      true,
    );
    assert.equal(await embedded.isVisible('#tau'), false, 'the hide rules (a constructed style sheet) apply');
    await embedded.close();
    await noneSince(mark, 'showing embed mode');
  });

  test('the course page (dev/embed-demo.html): its iframe and its <attention-playground> element', async () => {
    const mark = violations.length;
    const host = await context.newPage();
    await host.setViewportSize({ width: 1000, height: 900 });
    await host.goto(`${session.url}dev/embed-demo.html`);
    await host.evaluate(() => document.getElementById('example-element').scrollIntoView());
    for (const locate of ['#example-frame', '#example-element']) {
      await host.waitForFunction(
        (sel) => {
          const el = document.querySelector(sel);
          const frame = el.shadowRoot ? el.shadowRoot.querySelector('iframe') : el;
          const doc = frame?.contentDocument;
          if (!doc?.documentElement || !frame.contentWindow.attentionPlayground) return false;
          const inner = Math.ceil(doc.documentElement.getBoundingClientRect().height);
          return inner > 300 && Math.abs(frame.getBoundingClientRect().height - inner) <= 1;
        },
        locate,
        { timeout: 20000 },
      );
    }
    // The element's own styles (a constructed sheet in its shadow root) apply under the policy.
    assert.equal(await host.evaluate(() => getComputedStyle(document.getElementById('example-element')).display), 'block');
    await host.screenshot({ path: screenshotPath('csp-embed-demo'), fullPage: true });
    await host.close();
    await noneSince(mark, 'showing the course page');
  });
});
