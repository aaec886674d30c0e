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
import { basePath, serve } from '../../scripts/serve.js';

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

const get = (url) => fetch(url, { redirect: 'manual' });

test('--base serves the folder under the path only', async () => {
  const { server, url } = await serve({ port: 0, root: join(dir, 'site'), staticHost: true, base: '/courses/attention/' });
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
    server.close();
  }
});

test('without --base the folder is at /', async () => {
  const { server, url } = await serve({ port: 0, root: join(dir, 'site') });
  try {
    assert.equal(new URL(url).pathname, '/');
    assert.equal((await get(`${url}assets/a.js`)).status, 200);
  } finally {
    server.close();
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
    '0',
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
