// scripts/serve.js: the folder at / or under --base (npm run preview -- --base /courses/attention/,
// the release as a course site's sub-path holds it): the path without its slash redirects, a file
// outside the base or the folder is not served, the CLI prints the URL with the base.
//
//   node --test tests/node/serve.test.js

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer } from 'node:http';
import { basePath } from '../../scripts/serve.js';
import { listenOnTestPort, serveOnTestPort, testPortRange, testPorts } from '../ports.js';

const SERVE = fileURLToPath(new URL('../../scripts/serve.js', import.meta.url));
let dir;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'serve-test-'));
  mkdirSync(join(dir, 'site', 'assets'), { recursive: true });
  writeFileSync(join(dir, 'site', 'index.html'), '<!doctype html><title>site</title>');
  writeFileSync(join(dir, 'site', 'assets', 'a.js'), 'export const a = 1;');
  writeFileSync(join(dir, 'secret.txt'), 'not served');
});
after(() => rmSync(dir, { recursive: true, force: true }));

// One connection per request: with ATTN_TEST_PORTS the next test's server may get the port of the
// one just closed, and fetch would send its request down a kept-alive connection to the old one.
const get = (url) => fetch(url, { redirect: 'manual', headers: { connection: 'close' } });

const close = (server) => new Promise((done) => server.close(done));

test('--base serves the folder under the path only', async () => {
  const { server, url } = await serveOnTestPort({ root: join(dir, 'site'), staticHost: true, base: '/courses/attention/' });
  try {
    const origin = new URL(url).origin;
    assert.equal(url, `${origin}/courses/attention/`);
    const index = await get(url);
    assert.equal(index.status, 200);
    assert.match(await index.text(), /<title>site/);
    assert.equal(index.headers.get('access-control-allow-origin'), '*');
    const js = await get(`${url}assets/a.js`);
    assert.equal(js.status, 200);
    assert.match(js.headers.get('content-type'), /javascript/);
    assert.match(js.headers.get('cache-control'), /immutable/);
    const bare = await get(`${origin}/courses/attention`);
    assert.equal(bare.status, 301);
    assert.equal(bare.headers.get('location'), '/courses/attention/');
    for (const outside of [
      '/',
      '/index.html',
      '/courses/',
      '/courses/attentionX/index.html',
      '/courses/attention/../secret.txt',
      '/courses/attention/%2e%2e/secret.txt',
      '/courses/attention/..%2fsecret.txt',
    ])
      assert.ok([403, 404].includes((await get(origin + outside)).status), outside);
  } finally {
    await close(server);
  }
});

test('without --base the folder is at /', async () => {
  const { server, url } = await serveOnTestPort({ root: join(dir, 'site') });
  try {
    assert.equal(new URL(url).pathname, '/');
    assert.equal((await get(`${url}assets/a.js`)).status, 200);
  } finally {
    await close(server);
  }
});

test('basePath writes one form and refuses what is not a plain path', () => {
  for (const text of ['/courses/attention/', '/courses/attention', 'courses/attention/', '//courses//attention'])
    assert.equal(basePath(text), '/courses/attention/', text);
  assert.equal(basePath('/'), '/');
  for (const bad of ['/a/../b/', '/a/./b', '/a%2f/', '/a?b']) assert.throws(() => basePath(bad), /--base must be a plain path/, bad);
});

test('the command line: --base in the printed URL; a bad one is refused', async () => {
  const run = spawn(process.execPath, [
    SERVE,
    '--root',
    join(dir, 'site'),
    '--static-host',
    '--base',
    '/courses/attention/',
    '--port',
    String(testPorts()[0]),
  ]);
  try {
    const line = await new Promise((resolve, reject) => {
      let out = '';
      run.stdout.on('data', (d) => {
        out += d;
        if (out.includes('\n')) resolve(out);
      });
      run.on('exit', (code) => reject(new Error(`exited ${code}`)));
    });
    const url = /http:\S+/.exec(line)[0];
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/courses\/attention\/$/);
    assert.equal((await get(url)).status, 200);
  } finally {
    run.kill();
  }
  const bad = spawn(process.execPath, [SERVE, '--base', '/a/../b', '--port', '0']);
  let err = '';
  bad.stderr.on('data', (d) => (err += d));
  const code = await new Promise((resolve) => bad.on('exit', resolve));
  assert.equal(code, 64);
  assert.match(err, /--base must be a plain path/);
});

test('ATTN_TEST_PORTS: a range or one port; unset or empty, the system picks; anything else is refused', () => {
  assert.deepEqual(testPortRange('9100-9199'), { first: 9100, last: 9199 });
  assert.deepEqual(testPortRange(' 9100 - 9101 '), { first: 9100, last: 9101 });
  assert.deepEqual(testPortRange('9100'), { first: 9100, last: 9100 });
  assert.equal(testPortRange(''), null);
  assert.equal(testPortRange('  '), null);
  assert.deepEqual(testPorts(null), [0]);
  assert.deepEqual(testPorts({ first: 9100, last: 9102 }), [9100, 9101, 9102]);
  for (const bad of ['0-10', '9199-9100', '70000', '9100-', 'ports', '9100,9101'])
    assert.throws(() => testPortRange(bad), /ATTN_TEST_PORTS must be a port or a range of ports/, bad);
});

test('ATTN_TEST_PORTS: a server takes the next free port of the range, and says so when none is free', async () => {
  // Two neighbouring ports p, p + 1 that are free: p held by `holder`, p + 1 checked and let go.
  let holder;
  let first;
  for (let attempt = 0; attempt < 20 && first === undefined; attempt++) {
    holder = await listenOnTestPort(createServer(), { range: null });
    const p = holder.address().port;
    const probe = await listenOnTestPort(createServer(), { range: { first: p + 1, last: p + 1 } }).catch(() => null);
    if (probe) {
      await close(probe);
      first = p;
    } else await close(holder);
  }
  assert.ok(first !== undefined, 'no two free neighbouring ports');
  const range = { first, last: first + 1 };
  const servers = [];
  try {
    // The first port is taken: the next one.
    servers.push(await listenOnTestPort(createServer(), { range }));
    assert.equal(servers[0].address().port, first + 1);
    // Both taken: refused, naming the range.
    await assert.rejects(listenOnTestPort(createServer(), { range }), new RegExp(`no free port in ATTN_TEST_PORTS=${first}-${first + 1}`));
    // The first one free again: taken first.
    await close(holder);
    holder = null;
    servers.push(await listenOnTestPort(createServer(), { range }));
    assert.equal(servers[1].address().port, first);
  } finally {
    for (const server of [holder, ...servers]) if (server) await close(server);
  }
});
