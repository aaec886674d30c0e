// Shared helpers of the browser tests: serve web/ with the project's own server, drive the Debian
// Chromium through playwright-core, watch every page for console errors, page errors and dialogs,
// and read the numbers the page shows (data-value attributes) back into plain arrays.
//
// The build must exist first (web/wasm, web/vendor): `bash scripts/build.sh`. The servers listen
// on a free port of ATTN_TEST_PORTS (e.g. 9100-9199), or on one the system picks (tests/ports.js).

import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer } from 'node:http';
import { chromium } from 'playwright-core';
import { listenOnTestPort, serveOnTestPort } from '../ports.js';
import { CHROMIUM_ARGS } from '../../scripts/chromium.js';
import { ROW_METRICS } from '../node/metrics.js';

export { listenOnTestPort, serveOnTestPort };

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const WEB = fileURLToPath(new URL('../../web/', import.meta.url));
export const SCREENSHOTS = fileURLToPath(new URL('../../test-results/screenshots/', import.meta.url));

/** Fails early with a clear message when the WASM build is missing. */
export function requireBuild(root = WEB) {
  for (const file of ['wasm/attn.js', 'wasm/attn.wasm', 'vendor/vendor.js', 'vendor/katex.js']) {
    if (!existsSync(join(root, file))) {
      throw new Error(`web/${file} is missing: run \`bash scripts/build.sh\` before the browser tests`);
    }
  }
}

/**
 * Starts the static server on a free port (of ATTN_TEST_PORTS when set) and Chromium. Returns {server, url, browser, events,
 * close()}. `events` collects, for every page opened through openPage(), console messages of type
 * "error", uncaught page errors, failed requests and dialogs, for the whole test file.
 */
export async function startSession() {
  // PLAYGROUND_WEB_ROOT serves another copy of web/ (e.g. a deliberately broken one, to check
  // that the tests fail); the default is this checkout's web/.
  const root = process.env.PLAYGROUND_WEB_ROOT || WEB;
  requireBuild(root);
  const { server, url } = await serveOnTestPort({ root });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
  const events = { consoleErrors: [], pageErrors: [], requestFailures: [], dialogs: [] };
  return {
    server,
    url,
    browser,
    events,
    async close() {
      await browser.close().catch(() => {});
      await new Promise((done) => server.close(done));
    },
  };
}

/** Attaches the listeners that feed `events` to a page; dialogs are recorded and dismissed. */
export function watch(page, events, label = '') {
  page.on('console', (msg) => {
    if (msg.type() === 'error') {
      const loc = msg.location();
      events.consoleErrors.push(`${label}${msg.text()}${loc?.url ? ` (${loc.url}:${loc.lineNumber})` : ''}`);
    }
  });
  page.on('pageerror', (err) => events.pageErrors.push(`${label}${err.stack || err.message}`));
  page.on('requestfailed', (req) => events.requestFailures.push(`${label}${req.url()}: ${req.failure()?.errorText}`));
  page.on('response', (res) => {
    if (res.status() >= 400) events.requestFailures.push(`${label}${res.url()}: HTTP ${res.status()}`);
  });
  page.on('dialog', (dialog) => {
    events.dialogs.push(`${label}${dialog.type()}: ${dialog.message()}`);
    dialog.dismiss().catch(() => {});
  });
}

/**
 * Opens `url` (with an optional '#fragment') in a new browser context and waits until the page's
 * API is ready. Returns {context, page}.
 */
export async function openPage(session, fragment = '', { label = '' } = {}) {
  const context = await session.browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const page = await context.newPage();
  watch(page, session.events, label);
  const target = fragment.startsWith('http') ? fragment : `${session.url}${fragment}`;
  await page.goto(target);
  await waitReady(page);
  return { context, page };
}

/** Waits for window.attentionPlayground.ready (rejects if the page could not start). */
export async function waitReady(page) {
  await page.waitForFunction(() => window.attentionPlayground !== undefined);
  await page.evaluate(() => window.attentionPlayground.ready);
}

/**
 * Shows the Import tab and waits for the import view, which the page loads on first use
 * (web/page/exports.js loadImportView): its drop zone is there once the view is drawn.
 */
export async function openImportTab(page) {
  if (await page.isHidden('#import-view')) await page.click('#tab-import');
  await page.waitForSelector('#import-drop', { state: 'attached' });
}

export const getState = (page) => page.evaluate(() => window.attentionPlayground.getState());
export const getResults = (page) => page.evaluate(() => window.attentionPlayground.results());
export const shareUrl = (page) => page.evaluate(() => window.attentionPlayground.shareUrl());

/** Calls setState in the page; resolves to null on success or to the rejection's message. */
export function trySetState(page, state) {
  return page.evaluate(async (s) => {
    try {
      await window.attentionPlayground.setState(s);
      return null;
    } catch (e) {
      return { message: String(e && e.message), isError: e instanceof Error };
    }
  }, state);
}

/** Chooses a preset in the #preset select (its change event) and waits until it is shown. */
export async function choosePreset(page, id) {
  await page.selectOption('#preset', id);
  await page.waitForFunction((want) => window.attentionPlayground.getState()?.view?.preset === want, id);
}

/**
 * Reads a heatmap (id "scores" or "weights") or the output table ("output") from the DOM:
 * a matrix of numbers from the cells' data-value, null where data-value is empty (masked), plus
 * the masked flags (class "masked"). Throws if a cell is missing.
 */
export function readMatrix(page, id, rows, cols) {
  return page.evaluate(
    ({ id, rows, cols }) => {
      const values = [];
      const masked = [];
      for (let i = 0; i < rows; i++) {
        values.push([]);
        masked.push([]);
        for (let j = 0; j < cols; j++) {
          const el = document.getElementById(`${id}-r${i}-c${j}`);
          if (!el) throw new Error(`no element #${id}-r${i}-c${j}`);
          const v = el.dataset.value;
          if (v === undefined) throw new Error(`#${id}-r${i}-c${j} has no data-value`);
          values[i].push(v === '' ? null : Number(v));
          masked[i].push(el.classList.contains('masked'));
        }
      }
      return { values, masked };
    },
    { id, rows, cols },
  );
}

/** The selected row's metrics as shown in the row panel (#metric-<key> data-value). */
export function readMetrics(page) {
  return page.evaluate(
    (keys) => {
      const out = {};
      for (const key of keys) {
        const el = document.getElementById(`metric-${key}`);
        if (!el) throw new Error(`no element #metric-${key}`);
        const v = el.dataset.value;
        out[key] = v === '' ? null : Number(v);
        out[`${key}Text`] = el.textContent.trim();
      }
      return out;
    },
    ROW_METRICS.map((m) => m.key),
  );
}

/** Fills a text/number input (fires the input event, as typing does). */
export async function typeInto(page, selector, text) {
  await page.fill(selector, text);
  // Number boxes commit on Enter or on leaving them (or 350 ms after typing stops): do what a
  // person does when done typing.
  await page.dispatchEvent(selector, 'change');
}

/** Asserts |actual - expected| <= tol with a message naming what is compared. */
export function near(actual, expected, tol, what) {
  if (typeof actual !== 'number' || !(Math.abs(actual - expected) <= tol)) {
    throw new Error(`${what}: expected ${expected} within ${tol}, got ${actual}`);
  }
}

/** Softmax of the finite entries of `z` at temperature tau (null entries get weight 0). */
export function softmax(z, tau = 1) {
  const live = z.filter((x) => x !== null);
  const m = Math.max(...live.map((x) => x / tau));
  const e = z.map((x) => (x === null ? 0 : Math.exp(x / tau - m)));
  const s = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / s);
}

export function screenshotPath(name) {
  mkdirSync(SCREENSHOTS, { recursive: true });
  return `${SCREENSHOTS}${name.replace(/[^A-Za-z0-9._-]/g, '_')}.png`;
}

/**
 * One Chromium session and one page for a whole test file (the lab view tests): registers the
 * node:test before/after hooks, hands the page to `onPage`, and after the file asserts that there
 * were no uncaught page errors, console errors or dialogs.
 */
export function sharedPage(label, onPage) {
  let session;
  before(async () => {
    session = await startSession();
    const { page } = await openPage(session, '', { label });
    onPage(page, session);
  });
  after(() => closeQuietly(session));
}

/**
 * Closes a session, then asserts it saw no uncaught page error, console error or dialog (and, with
 * `requests: true`, no failed request). Every test file's after-hook.
 */
export async function closeQuietly(session, { requests = false } = {}) {
  await session?.close();
  const { consoleErrors, pageErrors, dialogs, requestFailures } = session?.events ?? {};
  assert.deepEqual(pageErrors ?? [], [], 'uncaught page errors');
  assert.deepEqual(consoleErrors ?? [], [], 'console errors');
  assert.deepEqual(dialogs ?? [], [], 'dialogs');
  if (requests) assert.deepEqual(requestFailures ?? [], [], 'failed requests');
}

/**
 * A course site on another origin (its own port on 127.0.0.1, of ATTN_TEST_PORTS when set): it serves whatever page the test
 * puts in its `html` property. Close it with `close(callback)`.
 * @returns {Promise<import('node:http').Server & {html?: string}>}
 */
export async function startCourseSite() {
  const site = createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(site.html ?? '');
  });
  return listenOnTestPort(site);
}
