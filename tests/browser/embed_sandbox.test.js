// A class link pasted with the share dialog's iframe snippet into a course page of another origin,
// with the iframe sandboxed (sandbox="allow-scripts", no allow-same-origin: the page inside has the
// origin "null"): the served page loads its modules and .wasm (the server sends
// Access-Control-Allow-Origin: *, as static hosts do), the lesson runs and says it has no storage,
// and the snippet's script sizes the frame from its "null"-origin height messages. On a host that
// does not send the header the page says why it cannot start, in the page's language, instead of
// a spinner (web/early.js). A finding of the lesson's classroom trial.
//
//   node --test --test-concurrency=1 tests/browser/embed_sandbox.test.js   (after the build)

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, get } from 'node:http';
import { iframeSnippet } from '../../web/page/snippets.js';
import { closeQuietly, listenOnTestPort, startCourseSite, startSession, waitReady, watch } from './harness.js';

let session;
let course; // the course site: another origin
let context;
before(async () => {
  session = await startSession();
  course = await startCourseSite();
  context = await session.browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, locale: 'zh-CN' });
});
after(async () => {
  course?.closeAllConnections?.();
  await new Promise((done) => course?.close(done));
  await closeQuietly(session);
});

/** The course page with the snippet of `link`, its iframe sandboxed to scripts only. */
function coursePage(link) {
  const snippet = iframeSnippet(link, { title: '注意力实验场' }).replace('<iframe ', '<iframe sandbox="allow-scripts" ');
  course.html = `<!doctype html><html lang="zh-CN"><meta charset="utf-8"><title>第三周</title><body><h1>第三周</h1>${snippet}</body>`;
  return `http://127.0.0.1:${course.address().port}/course.html`;
}

/** A class link with the lesson at step 1: read-only, embedded, in Chinese. */
async function classLink() {
  const teacher = await context.newPage();
  watch(teacher, session.events, '[teacher] ');
  await teacher.goto(`${session.url}#lang=zh-CN`);
  await waitReady(teacher);
  await teacher.click('#lesson-toggle');
  await teacher.waitForFunction(() => window.attentionPlayground.getState().lesson?.step === 1);
  const link = (await teacher.evaluate(() => window.attentionPlayground.shareUrl())).split('#')[0];
  const fragment = (await teacher.evaluate(() => window.attentionPlayground.shareUrl())).split('#')[1];
  await teacher.close();
  return `${link}#${fragment.replace(/&lang=[^&]*/, '')}&lang=zh-CN&embed=1&readonly=1`;
}

test('a sandboxed iframe (allow-scripts only) on another origin loads the lesson and takes its height', async () => {
  const host = await context.newPage();
  watch(host, session.events, '[sandboxed course] ');
  await host.goto(coursePage(await classLink()));
  const iframe = await host.waitForSelector('iframe[data-attention-playground]');
  const frame = await iframe.contentFrame();
  await frame.waitForFunction(() => window.attentionPlayground !== undefined, null, { timeout: 20000 });
  await waitReady(frame);
  await frame.waitForSelector('#lesson-step-title');
  assert.equal(await frame.evaluate(() => self.origin), 'null', 'the page in the frame has no origin');
  await frame.waitForSelector('#lesson-no-storage');
  // The snippet's script takes the frame's height messages though their origin is "null".
  await host.waitForFunction(() => {
    const f = document.querySelector('iframe[data-attention-playground]');
    return f.style.height !== '' && Math.abs(parseFloat(f.style.height) - 800) > 50;
  });
  // Sized to the page's height, the frame does not scroll inside itself (the live region once
  // stuck out 17 px below <html>, which is the height the page reports).
  const height = await host.evaluate(() => parseFloat(document.querySelector('iframe[data-attention-playground]').style.height));
  await frame.waitForFunction((h) => Math.abs(document.scrollingElement.clientHeight - h) < 2, height);
  const sizes = await frame.evaluate(() => ({
    scroll: document.scrollingElement.scrollHeight,
    client: document.scrollingElement.clientHeight,
  }));
  assert.ok(sizes.scroll <= sizes.client, `the frame scrolls: scrollHeight ${sizes.scroll} > clientHeight ${sizes.client}`);
  await host.close();
});

test('on a host without Access-Control-Allow-Origin the sandboxed page says why it cannot start', async () => {
  // The same files through a host that sends no Access-Control-Allow-Origin (a proxy that drops it).
  const bare = createServer((req, res) => {
    get(new URL(req.url, session.url), (up) => {
      const headers = { ...up.headers };
      delete headers['access-control-allow-origin'];
      res.writeHead(up.statusCode, headers);
      up.pipe(res);
    });
  });
  await listenOnTestPort(bare);
  const link = (await classLink()).replace(session.url, `http://127.0.0.1:${bare.address().port}/`);
  const host = await context.newPage(); // not watched: the blocked modules are console errors here
  const pageErrors = [];
  host.on('pageerror', (err) => pageErrors.push(err.message)); // but early.js itself throws nothing
  await host.goto(coursePage(link));
  const frame = await (await host.waitForSelector('iframe[data-attention-playground]')).contentFrame();
  await frame.waitForSelector('#loading[role="alert"]', { timeout: 15000 });
  const shown = await frame.evaluate(() => ({
    text: document.getElementById('loading').textContent,
    visible: document.getElementById('loading').checkVisibility(),
    booting: document.documentElement.classList.contains('ap-booting'),
    lang: document.documentElement.lang,
    // Everything else the page shows: its markup is English and its controls cannot work.
    others: [...document.body.querySelectorAll('*')]
      .filter((el) => el.id !== 'loading' && !el.closest('#loading') && el.checkVisibility())
      .map((el) => el.id || el.tagName),
  }));
  assert.equal(shown.visible, true);
  assert.equal(shown.booting, false, 'no endless spinner');
  assert.match(shown.text, /脚本无法加载/);
  assert.equal(shown.lang, 'zh-CN', 'the page says it is in Chinese');
  assert.deepEqual(shown.others, [], 'nothing but the message shows (no English toolbar that cannot work)');
  assert.doesNotMatch(shown.text, /docs\/|\.md\b/, 'no repository path for a student to look up');
  assert.deepEqual(pageErrors, []);
  await host.close();
  // The browser keeps connections to the proxy (a context shared by the file's tests): close them,
  // or close() waits for one still waiting for a response and the test never ends (seen once in
  // a clean-clone CI run: 13 minutes idle here).
  bare.closeAllConnections();
  await new Promise((done) => bare.close(done));
});
