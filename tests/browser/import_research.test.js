// A researcher's findings on the Import tab (docs/import.md), one page for the file. Token-dependent
// scores: the TransformerLens duplicate-token and induction scores of every head of a real GPT-2
// layer, with the analysis split over two import workers, whether the tokens are chosen before the
// file or added after it; the reference is computed here from the definition (docs/import.md,
// head_detector.py's "mul" mode), in float64 from the file's JSON copy, not from the code under
// test. Then a cross-attention head's panel, Copy link's size, a Cancel at once, stale errors.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { closeQuietly, near, openImportTab, openPage, startSession } from './harness.js';
import { npy, uniformCausal } from '../node/npy.js';

const DIR = new URL('../../web/data/real/gpt2-small_L0_nlp-sentence/', import.meta.url);
const NPY = new URL('attention.npy', DIR).pathname;
const TOKENS = new URL('tokens.json', DIR).pathname;
const doc = JSON.parse(readFileSync(new URL('attention.json', DIR), 'utf8'));
const tokens = JSON.parse(readFileSync(TOKENS, 'utf8'));
const heads = doc.attention.flat(1); // [12][33][33]

/** score = Σ A[t][j] P[t][j] / Σ A[t][j], P from the tokens (TransformerLens head_detector, "mul"). */
function reference(a) {
  const n = a.length;
  let total = 0;
  let dup = 0;
  let ind = 0;
  for (let t = 0; t < n; t++)
    for (let j = 0; j < n; j++) {
      total += a[t][j];
      if (j < t && tokens[j] === tokens[t]) dup += a[t][j]; // duplicate: an earlier copy of token t
      if (j >= 1 && j <= t && tokens[j - 1] === tokens[t]) ind += a[t][j]; // induction: the key after one
    }
  return { duplicateToken: dup / total, induction: ind / total };
}
const expected = heads.map(reference);

let session;
let page;
before(async () => {
  session = await startSession();
  // Two workers whatever the machine: heads 1, 3, 5, ... are analysed by the second one.
  ({ page } = await openPage(session, '?importWorkers=2', { label: '[tokens] ' }));
  await openImportTab(page);
});
after(() => closeQuietly(session));

const imported = () => page.evaluate(() => window.attentionPlayground.imported());
const analysed = (name) =>
  page.waitForFunction((n) => {
    const s = window.attentionPlayground.imported();
    return s.source?.name === n && !s.running && s.heads.length === 12;
  }, name);

function assertScores(s, when) {
  assert.equal(s.heads.length, 12);
  // Not a vacuous check: the sentence repeats "," and " the", so several heads score above 0.01.
  assert.ok(expected.filter((e) => e.duplicateToken > 0.01).length >= 3);
  s.heads.forEach((r, i) => {
    near(r.field?.duplicateToken, expected[i].duplicateToken, 1e-5, `${when}: head ${i} duplicate token`);
    near(r.field?.induction, expected[i].induction, 1e-5, `${when}: head ${i} induction`);
  });
}

test('tokens chosen before the file: every head has its duplicate-token and induction scores (two workers)', async () => {
  await page.setInputFiles('#import-tokens', TOKENS);
  await page.setInputFiles('#import-file', NPY);
  await analysed('attention.npy');
  assertScores(await imported(), 'tokens before');
  // Copy link with no head inspected: the file's size in KiB (52,400 bytes), the CLI that makes
  // a one-file page (a visitor of the page has no repository to find dist/ in).
  await page.click('#copy-link');
  await page.waitForFunction(() => /cannot travel in a link/.test(document.getElementById('copy-status').textContent));
  const status = await page.textContent('#copy-status');
  assert.match(status, /attention\.npy, 51\.2 KiB/);
  assert.match(status, /attn html attention\.npy/);
  assert.doesNotMatch(status, /dist\//);
});

test('tokens added after the file: the token-dependent scores are computed again for every head, table and CSV', async () => {
  // A fresh page state: no token file chosen.
  await page.reload();
  await page.waitForFunction(() => window.attentionPlayground !== undefined);
  await openImportTab(page);
  await page.setInputFiles('#import-file', NPY);
  await analysed('attention.npy');
  const first = await imported();
  assert.ok(first.heads.every((r) => r.field?.duplicateToken === null || !Number.isFinite(r.field?.duplicateToken)));
  await page.setInputFiles('#import-tokens', TOKENS);
  await page.waitForFunction(() => {
    const s = window.attentionPlayground.imported();
    return !s.running && s.heads.length === 12 && s.heads.every((r) => Number.isFinite(r.field?.duplicateToken));
  });
  assertScores(await imported(), 'tokens after');
  // The Metrics CSV carries them (tl_duplicate_token, tl_induction were empty).
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#export-heads-csv')]);
  const [header, ...lines] = readFileSync(await dl.path(), 'utf8')
    .trim()
    .split(/\r?\n/);
  const cols = header.split(',');
  const [dupCol, indCol] = [cols.indexOf('tl_duplicate_token'), cols.indexOf('tl_induction')];
  assert.ok(dupCol > 0 && indCol > 0, header);
  assert.equal(lines.length, 12);
  lines.forEach((l, i) => {
    const v = l.split(',');
    near(Number(v[dupCol]), expected[i].duplicateToken, 1e-5, `CSV head ${i} tl_duplicate_token`);
    near(Number(v[indCol]), expected[i].induction, 1e-5, `CSV head ${i} tl_induction`);
  });
  // A token file that does not fit (12 tokens for 33 keys) is refused, and said so.
  await page.setInputFiles('#import-tokens', {
    name: 'twelve.json',
    mimeType: 'application/json',
    buffer: Buffer.from(JSON.stringify(tokens.slice(0, 12))),
  });
  await page.waitForFunction(() => /twelve\.json/.test(document.getElementById('import-errors').textContent));
});

test("a file opened after one that took a token file starts without those tokens: they were that file's", async () => {
  await page.reload();
  await page.waitForFunction(() => window.attentionPlayground !== undefined);
  await openImportTab(page);
  await page.setInputFiles('#import-tokens', TOKENS);
  await page.setInputFiles('#import-file', NPY);
  await analysed('attention.npy');
  assert.equal((await imported()).source.keyTokens.length, 33, 'attention.npy took tokens.json');
  // Another file of the same 33 positions: before, tokens.json (still in its picker) was applied to it too.
  await page.setInputFiles('#import-file', { name: 'other.npy', mimeType: 'application/octet-stream', buffer: readFileSync(NPY) });
  await analysed('other.npy');
  assert.equal((await imported()).source.keyTokens.length, 0, "no tokens of attention.npy's");
  assert.equal(await page.evaluate(() => document.getElementById('import-tokens').files.length), 0, 'the token picker is cleared');
  assert.doesNotMatch(await page.textContent('#import-info'), /tokens\.json/);
  assert.equal(await page.isHidden('#import-errors'), true);
});

test('a cross-attention head (5 queries x 9 keys): its panel says it is not square, the info line counts both token lists', async () => {
  const [nQ, nK] = [5, 9];
  const rows = Array.from({ length: nQ }, (_, t) => {
    const e = Array.from({ length: nK }, (_, j) => Math.exp(Math.sin(t + 2 * j)));
    const s = e.reduce((a, b) => a + b, 0);
    return e.map((x) => x / s);
  });
  const queryTokens = ['Le', ' chat', ' est', ' noir', '.'];
  const keyTokens = ['The', ' cat', ' is', ' black', ' and', ' it', ' sleeps', '.', '</s>'];
  const json = JSON.stringify({ queryTokens, keyTokens, attention: [[rows]] });
  await page.setInputFiles('#import-file', { name: 'cross.json', mimeType: 'application/json', buffer: Buffer.from(json) });
  await page.waitForFunction(() => {
    const s = window.attentionPlayground.imported();
    return s.source?.name === 'cross.json' && !s.running && s.heads.length === 1;
  });
  assert.match(await page.textContent('#import-info'), /5 query and 9 key tokens from the file/);
  assert.match(await page.textContent('#import-progress-text'), /^Analysed 1 head\.$/);
  // The 12-token file rejected for the previous import: its error is gone with the new file.
  assert.equal(await page.isHidden('#import-errors'), true, await page.textContent('#import-errors'));
  await page.click('#head-card-0-0');
  await page.waitForSelector('#detail-field-scores');
  const field = await page.textContent('#detail-field-scores');
  assert.match(field, /previous token — \(not square: 5 queries × 9 keys\), duplicate token — \(not square/);
  assert.doesNotMatch(field, /needs the tokens/);
  const structure = await page.textContent('#detail-structure');
  assert.match(structure, /Not square \(5 queries × 9 keys/);
  assert.doesNotMatch(structure, /above the diagonal \(largest/);
  // Layer numbers that do not fit: the core's message, its subject said once.
  await page.fill('#import-layer-numbers', '1,2');
  await page.dispatchEvent('#import-layer-numbers', 'change');
  const err = await page.textContent('#import-errors');
  assert.match(err, /^Could not use the typed layer numbers "1,2": /);
  assert.doesNotMatch(err, /Layer numbers: layer numbers/);
  await page.fill('#import-layer-numbers', '');
  await page.dispatchEvent('#import-layer-numbers', 'change');
});

test('a Cancel clicked the moment it is enabled stops the run; the count says k of the 48 heads', async () => {
  const [L, H, n] = [4, 12, 33];
  const one = uniformCausal(n);
  const values = new Float64Array(L * H * n * n);
  for (let i = 0; i < L * H; i++) values.set(one, i * n * n);
  await page.evaluate(() => {
    // Click Cancel in the same task as the button is enabled (before the helpers open the file).
    const b = document.getElementById('import-cancel');
    new MutationObserver((_, obs) => {
      if (!b.disabled) {
        obs.disconnect();
        b.click();
      }
    }).observe(b, { attributes: true, attributeFilter: ['disabled'] });
  });
  await page.setInputFiles('#import-file', {
    name: 'uniform48.npy',
    mimeType: 'application/octet-stream',
    buffer: Buffer.from(npy([L, H, n, n], values)),
  });
  await page.waitForFunction(() => {
    const s = window.attentionPlayground.imported();
    return s.source?.name === 'uniform48.npy' && !s.running;
  });
  const k = (await imported()).heads.length;
  assert.ok(k < 48, `cancelled: ${k} of 48 heads analysed`);
  assert.match(await page.textContent('#import-progress-text'), new RegExp(`Cancelled after ${k} of 48 heads`));
  assert.equal(await page.textContent('#import-count'), `${k} of 48 heads (${k} analysed)`);
});
