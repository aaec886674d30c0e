// scripts/chromium.js: the Chromium the tests and benchmarks launch runs no renderer of its own
// toolbar WebUI (the omnibox popup), which took a core of this 2-core machine from the page under
// test (docs/performance.md "Chromium's toolbar renderer"). The flag's test: with playwright-core's own
// --disable-features alone, such a renderer is there.
//
//   node --test tests/browser/chromium_args.test.js

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS } from '../../scripts/chromium.js';

/** The command lines of the processes under `pid`, itself included. */
function processTree(pid) {
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => line.trim().match(/^(\d+)\s+(\d+)\s+(.*)$/))
    .filter(Boolean)
    .map(([, p, pp, args]) => ({ pid: Number(p), ppid: Number(pp), args }));
  const tree = new Set([pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const r of rows) if (tree.has(r.ppid) && !tree.has(r.pid)) (tree.add(r.pid), (grew = true));
  }
  return rows.filter((r) => tree.has(r.pid)).map((r) => r.args);
}

async function renderersWith(args) {
  const server = await chromium.launchServer({ executablePath: '/usr/bin/chromium', headless: true, args });
  try {
    const browser = await chromium.connect(server.wsEndpoint());
    const page = await browser.newPage();
    await page.goto('about:blank');
    await page.setContent('<p>x</p>');
    await new Promise((r) => setTimeout(r, 1500));
    const tree = processTree(server.process().pid);
    await browser.close();
    return { all: tree.filter((a) => a.includes('--type=renderer')), webui: tree.filter((a) => a.includes('--top-chrome-webui')) };
  } finally {
    await server.close();
  }
}

test('no toolbar WebUI renderer with CHROMIUM_ARGS; one without its --disable-features', async () => {
  const ours = await renderersWith(CHROMIUM_ARGS);
  assert.ok(ours.all.length >= 1, 'the page has a renderer');
  assert.deepEqual(ours.webui, []);
  const without = await renderersWith(CHROMIUM_ARGS.filter((a) => !a.startsWith('--disable-features=')));
  assert.equal(without.webui.length, 1, 'the check can fail: playwright-core alone leaves the toolbar WebUI renderer');
});
