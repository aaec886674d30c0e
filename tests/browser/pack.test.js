// The published package (package.json files/exports): `npm pack` of the release, installed with
// npm into an empty folder, served the way a CDN serves npm packages (unpkg, jsDelivr: the
// package's files under /<name>/..., with Access-Control-Allow-Origin: *), and embedded in a
// course page on another origin: the <attention-playground> element (dist/embed.js) and the
// iframe snippet (web/page/share-dialog.js iframeSnippet, sized by dist/embed-frames.js) both show the
// state, with URLs derived from where the package is served (no placeholder).
//
// The release is scripts/dist.js's (`npm run dist`, here --fast into the staging folder) when the
// project has it, else web/ copied (no developer pages) with the one-file page; either way it is
// packed from a staging copy, so the checkout is not touched.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { closeQuietly, listenOnTestPort, near, serveOnTestPort, startSession, waitReady, watch, ROOT } from './harness.js';
import { buildSingleFile } from '../../scripts/single-file.js';
import { iframeSnippet } from '../../web/page/snippets.js';
import { LESSON_PRESETS } from '../../web/presets/presets.js';

const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const DEV_PAGES = /^(bench\.|bench-|scenarios\.|formulas-demo\.)/;
const TYPES = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
};

let tmp;
let session;
let cdn;
let course;

/** The release: scripts/dist.js (--fast, into `into`) if the project has it, else web/ and the one-file page. */
async function release(into) {
  if (existsSync(join(ROOT, 'scripts/dist.js'))) {
    const run = spawnSync(process.execPath, [join(ROOT, 'scripts/dist.js'), '--fast'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, DIST_DIR: into },
    });
    assert.equal(run.status, 0, run.stderr);
  } else {
    cpSync(join(ROOT, 'web'), into, { recursive: true, filter: (src) => !DEV_PAGES.test(src.split('/').pop()) });
  }
  if (!existsSync(join(into, 'attention-playground.html')))
    writeFileSync(join(into, 'attention-playground.html'), (await buildSingleFile()).html);
}

/** A static server like a CDN's: any origin may load the files (CORS), .wasm as application/wasm. */
function cdnServer(root) {
  const server = createServer(async (req, res) => {
    const path = normalize(join(root, decodeURIComponent(new URL(req.url, 'http://x').pathname)));
    if (!path.startsWith(root)) return res.writeHead(403).end();
    try {
      const body = await readFile(path);
      res
        .writeHead(200, { 'content-type': TYPES[extname(path)] ?? 'application/octet-stream', 'access-control-allow-origin': '*' })
        .end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  return listenOnTestPort(server).then(() => ({ server, url: `http://127.0.0.1:${server.address().port}/` }));
}

before(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'ap-pack-'));
  const stage = join(tmp, 'stage');
  mkdirSync(stage);
  await release(join(stage, 'dist'));
  for (const f of ['package.json', 'README.md', ...PKG.files.filter((f) => !f.startsWith('dist'))]) {
    if (existsSync(join(ROOT, f))) cpSync(join(ROOT, f), join(stage, f), { recursive: true });
  }
  const pack = spawnSync('npm', ['pack', '--silent', '--ignore-scripts', '--pack-destination', tmp], { cwd: stage, encoding: 'utf8' });
  assert.equal(pack.status, 0, pack.stderr);
  const tarball = join(tmp, pack.stdout.trim().split('\n').pop());
  const site = join(tmp, 'site');
  mkdirSync(site);
  writeFileSync(join(site, 'package.json'), '{"name": "course-site", "private": true}\n');
  const install = spawnSync('npm', ['install', '--offline', '--ignore-scripts', '--no-audit', '--no-fund', tarball], {
    cwd: site,
    encoding: 'utf8',
  });
  assert.equal(install.status, 0, install.stderr);
  cdn = await cdnServer(join(site, 'node_modules'));
  session = await startSession();
});

after(async () => {
  await new Promise((done) => (cdn ? cdn.server.close(done) : done()));
  await new Promise((done) => (course ? course.server.close(done) : done()));
  await closeQuietly(session);
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

test('the packed package holds the release; the element and the iframe embed it in a course page on another origin', async () => {
  const installed = join(tmp, 'site/node_modules', PKG.name);
  for (const f of ['dist/index.html', 'dist/embed.js', 'dist/embed-frames.js', 'dist/attention-playground.html', 'package.json']) {
    assert.ok(existsSync(join(installed, f)), `the package has ${f}`);
  }
  for (const target of Object.values(PKG.exports).filter((t) => !t.includes('*')))
    assert.ok(existsSync(join(installed, target)), `export ${target}`);
  assert.equal(existsSync(join(installed, 'dist/bench.html')), false, 'no developer page');

  const base = `${cdn.url}${PKG.name}/dist/`;
  const state = LESSON_PRESETS.example2.make();
  const { encodeLink } = await import('../../web/codec/link.js');
  const link = `${base}index.html#${encodeLink(state)}&embed=1`;
  const coursePage = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Week 3</title><link rel="icon" href="data:,">
<meta http-equiv="Content-Security-Policy" content="default-src 'self'; img-src data:; script-src 'self' ${cdn.url}; frame-src ${cdn.url}; style-src 'self' 'unsafe-inline'">
<script type="module" src="${base}embed.js"></script>
<script src="${base}embed-frames.js"></script></head>
<body><h1>Attention, week 3</h1>
<attention-playground id="el" state='${JSON.stringify(state).replace(/'/g, '&#39;')}' embed></attention-playground>
${iframeSnippet(link, { title: 'Attention Playground' }).replace(/<script>[\s\S]*<\/script>/, '')}
</body></html>`;
  const dir = join(tmp, 'course');
  mkdirSync(dir);
  writeFileSync(join(dir, 'index.html'), coursePage);
  course = await serveOnTestPort({ root: dir });
  const courseUrl = course.url.replace('127.0.0.1', 'localhost');
  assert.notEqual(new URL(courseUrl).origin, new URL(cdn.url).origin);

  const context = await session.browser.newContext({ viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  watch(page, session.events, 'course: ');
  await page.goto(courseUrl);
  const frames = async () => {
    await page.waitForFunction(() => document.querySelectorAll('iframe[data-attention-playground]').length >= 1);
    return page.frames().filter((f) => f.url().startsWith(`${base}index.html`));
  };
  await page.waitForFunction(() => document.getElementById('el').shadowRoot?.querySelector('iframe')?.src);
  let shown = await frames();
  for (let i = 0; shown.length < 2 && i < 50; i++) {
    await page.waitForTimeout(100);
    shown = await frames();
  }
  assert.equal(shown.length, 2, 'the element and the iframe each show the page from the package');
  // Both compute the state's weights (softmax of the logits the state gives, checked here).
  for (const frame of shown) {
    await waitReady(frame);
    const r = await frame.evaluate(() => window.attentionPlayground.results());
    const s = await frame.evaluate(() => window.attentionPlayground.getState());
    assert.equal(r.weights.length, state.tokens.queries.length);
    r.weights.forEach((row, t) =>
      near(
        row.reduce((a, w) => a + (w ?? 0), 0),
        1,
        1e-6,
        `row ${t} sums to 1`,
      ),
    );
    assert.deepEqual(s.tokens, state.tokens);
  }
  // embed-frames.js sizes the snippet's iframe from the page's height message.
  await page.waitForFunction(() => document.querySelector('body > iframe[data-attention-playground]').style.height !== '');
  const elementSrc = await page.evaluate(() => document.getElementById('el').shadowRoot.querySelector('iframe').src);
  assert.ok(elementSrc.startsWith(`${base}index.html#`), `the element's frame comes from where embed.js was served: ${elementSrc}`);
  await context.close();
});
