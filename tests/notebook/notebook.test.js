// The notebook call (python/attention_playground.py): a notebook that computes an attention tensor
// with numpy and calls show(attention, tokens) is executed by nbclient with an ipykernel (the
// Debian python, /usr/bin/python3); its output cell's HTML opens in Chromium, and the per-head
// numbers the WebAssembly core computes in that cell match `attn analyze` of the same array and
// the entropies numpy computed in the notebook. Needs python3-nbclient, python3-ipykernel,
// python3-numpy (scripts/setup.sh), the one-file page (built here) and build/native/attn.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { closeQuietly, near, startSession, waitReady, watch } from '../browser/harness.js';
import { buildSingleFile } from '../../scripts/single-file.js';
import { HEAD_METRICS } from '../node/metrics.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const OUT = `${ROOT}test-results/notebook/`;
const PYTHON = process.env.ATTN_PYTHON ?? '/usr/bin/python3';
const CLI = process.env.ATTN_CLI ?? `${ROOT}build/native/attn`;
const PAGE = `${OUT}attention-playground.html`;
const TOKENS = ['When', ' Mary', ' and', ' John', '<', '/script>'];

const code = (source) => ({ cell_type: 'code', metadata: {}, execution_count: null, outputs: [], source });
const NOTEBOOK = {
  nbformat: 4,
  nbformat_minor: 5,
  metadata: {},
  cells: [
    code(
      [
        'import json, sys',
        'import numpy as np',
        `sys.path.insert(0, ${JSON.stringify(`${ROOT}python`)})`,
        'from attention_playground import show',
        'rng = np.random.default_rng(7)',
        'logits = rng.normal(size=(2, 3, 6, 6)) * 2',
        'attention = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)  # [layers, heads, n, n]',
        `tokens = ${JSON.stringify(TOKENS)}`,
        `np.save(${JSON.stringify(`${OUT}attention.npy`)}, attention.astype(np.float32))`,
        `json.dump(tokens, open(${JSON.stringify(`${OUT}tokens.json`)}, 'w'))`,
        'entropy = -(attention * np.log(attention)).sum(-1).mean(-1).reshape(-1)  # per head, nats',
        'print(json.dumps(entropy.tolist()))',
      ].join('\n'),
    ),
    code(`show(attention, tokens, template=${JSON.stringify(PAGE)})`),
    // One head of the model named as the model numbers it (layer 5, head 7).
    code(`show(attention[1:2, 2:3], tokens, layers=[5], heads=[7], template=${JSON.stringify(PAGE)})`),
  ],
};

let session;
before(async () => {
  mkdirSync(OUT, { recursive: true });
  const probe = spawnSync(PYTHON, ['-c', 'import nbclient, ipykernel, numpy']);
  assert.equal(probe.status, 0, `${PYTHON} lacks nbclient, ipykernel or numpy: run scripts/setup.sh`);
  assert.ok(existsSync(CLI), `${CLI} is missing: run scripts/build.sh (or set ATTN_CLI)`);
  writeFileSync(PAGE, (await buildSingleFile()).html);
  session = await startSession();
});
after(() => closeQuietly(session));

test('show(attention, tokens) in an executed notebook renders the heads; the numbers match attn analyze and numpy', async () => {
  const path = `${OUT}show.ipynb`;
  writeFileSync(path, JSON.stringify(NOTEBOOK));
  const run = spawnSync(PYTHON, ['-Xfrozen_modules=off', `${ROOT}tests/notebook/run_notebook.py`, path, OUT], {
    encoding: 'utf8',
    env: { ...process.env, PYDEVD_DISABLE_FILE_VALIDATION: '1' },
  });
  assert.equal(run.status, 0, run.stderr);
  const [first, second, third] = JSON.parse(readFileSync(path, 'utf8')).cells;
  const numpyEntropy = JSON.parse([first.outputs.find((o) => o.name === 'stdout').text].flat().join(''));
  const html = [second.outputs.find((o) => o.data?.['text/html']).data['text/html']].flat().join('');
  assert.match(html, /^<div class="attention-playground"><iframe srcdoc="/);
  assert.deepEqual(
    second.outputs.filter((o) => o.name === 'stderr'),
    [],
    'no warnings',
  );

  const cli = spawnSync(CLI, ['analyze', `${OUT}attention.npy`, '--tokens', `${OUT}tokens.json`], { encoding: 'utf8' });
  assert.equal(cli.status, 0, cli.stderr);
  const expected = JSON.parse(cli.stdout).heads;

  // The output cell as a notebook front end shows it: the HTML inside a page of its own.
  writeFileSync(`${OUT}output-cell.html`, `<!doctype html><meta charset="utf-8"><title>output cell</title>${html}`);
  const page = await (await session.browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  watch(page, session.events, 'notebook: ');
  await page.goto(pathToFileURL(`${OUT}output-cell.html`).href);
  const frame = await (await page.waitForSelector('iframe')).contentFrame();
  await waitReady(frame);
  await frame.waitForFunction(() => {
    const s = window.attentionPlayground.imported();
    return s.heads.length === 6 && !s.running && s.heads.every((h) => h.computed);
  });
  const imported = await frame.evaluate(() => window.attentionPlayground.imported());
  assert.deepEqual(imported.source.queryTokens, TOKENS);
  assert.equal(imported.heads.length, expected.length);
  imported.heads.forEach((h, i) => {
    for (const key of HEAD_METRICS.map((m) => m.head.key)) {
      near(h.summary[key], expected[i].summary[key], 1e-6, `head ${i} ${key} (attn analyze)`);
    }
    near(h.summary.meanEntropy, numpyEntropy[i], 1e-5, `head ${i} mean entropy (numpy)`);
    assert.equal(h.pattern.kind, expected[i].pattern.kind, `head ${i} pattern`);
  });
  assert.equal(await frame.evaluate(() => document.body.dataset.view), 'import');
  // The tokens are said to come from the notebook, not from a file the user never had.
  assert.match(await frame.textContent('#import-info'), /6 tokens from notebook-tokens\.json/);
  // The output cell (760 px) shows the overview: no preset, lesson, sharing or undo controls, and
  // the first row of head cards inside the frame.
  for (const id of ['preset', 'lesson-toggle', 'share-class', 'save-state', 'copy-link', 'undo'])
    assert.equal(await frame.evaluate((i) => document.getElementById(i).checkVisibility(), id), false, `#${id} hidden`);
  await page.screenshot({ path: `${OUT}output-cell.png` });
  const bottom = await frame.evaluate(() => document.querySelector('.head-card').getBoundingClientRect().bottom);
  assert.ok(bottom <= 760, `the first row of head cards ends at ${bottom} px of 760`);

  // layers=/heads=: the head is named as the model numbers it, with its numbers unchanged.
  const html3 = [third.outputs.find((o) => o.data?.['text/html']).data['text/html']].flat().join('');
  writeFileSync(`${OUT}output-cell-named.html`, `<!doctype html><meta charset="utf-8"><title>output cell</title>${html3}`);
  await page.goto(pathToFileURL(`${OUT}output-cell-named.html`).href);
  const named = await (await page.waitForSelector('iframe')).contentFrame();
  await waitReady(named);
  await named.waitForFunction(() => {
    const s = window.attentionPlayground.imported();
    return s.heads.length === 1 && !s.running;
  });
  assert.equal(await named.textContent('.head-card .card-name'), 'L5 H7');
  // The per-head table numbers the head as the card does (it once gave its index in the array, 0).
  const cells = await named.evaluate(() =>
    [...document.querySelector('#import-head-table tbody tr').cells].slice(0, 2).map((c) => c.textContent),
  );
  assert.deepEqual(cells, ['5', '7']);
  const one = (await named.evaluate(() => window.attentionPlayground.imported())).heads[0];
  near(one.summary.meanEntropy, numpyEntropy[1 * 3 + 2], 1e-5, 'L5 H7 mean entropy (numpy, layer 1 head 2 of the array)');
});

test('page() refuses what the page cannot take, with the reason: too large, wrong token count, no template', () => {
  const script = [
    'import sys, numpy as np',
    `sys.path.insert(0, ${JSON.stringify(`${ROOT}python`)})`,
    'from attention_playground import page',
    'for call in (lambda: page(np.zeros((4000, 4000))), lambda: page(np.eye(3), ["a"]), lambda: page(np.eye(3), template="/nonexistent")):',
    '    try:',
    '        call()',
    '        print("accepted")',
    '    except (ValueError, FileNotFoundError) as e:',
    '        print(type(e).__name__, e)',
  ].join('\n');
  const run = spawnSync(PYTHON, ['-c', script], { encoding: 'utf8', env: { ...process.env, ATTN_HTML_TEMPLATE: PAGE } });
  assert.equal(run.status, 0, run.stderr);
  const lines = run.stdout.trim().split('\n');
  assert.match(lines[0], /^ValueError the input is 122\.1 MB; the one-file page embeds at most 50 MB/);
  assert.equal(lines[1], 'ValueError 1 tokens for an axis of length 3');
  assert.equal(lines[2], 'FileNotFoundError no one-file page at /nonexistent');
});
