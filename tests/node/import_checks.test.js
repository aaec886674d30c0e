// The import checks, the analysis side, in `attn analyze` / `attn compare` (build/native/attn) and in the
// page's importer (web/import/readers.js, source-heads.js and summary.js over the WebAssembly core): the causal structure detected and
// the flagged heads sorted by their above-diagonal mass, float16 zeros as visible keys
// (H / ln(t + 1)), finite mask fills of logits, layer numbers, TransformerLens's head-detector
// scores against an independent NumPy transcription (tests/node/reference/head_detector.py), two
// runs compared, and the small fixes (the -inf message, "topK": 1e400, CSV formula guard).
// Expected values are computed here from the numbers written, never read from the code under test.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, openAsBlob } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadCore } from '../../web/core/core.js';
import { openComparison, openSource } from '../../web/import/readers.js';
import { analyzeSourceHead, compareSourceHead } from '../../web/import/source-heads.js';
import { summarise } from '../../web/import/summary.js';
import { ROW_METRIC_COLUMNS, headMetricsCsv } from '../../web/export/files.js';
import { npy, npz, float16Bits } from './npy.js';

const CLI = process.env.ATTN_CLI ?? fileURLToPath(new URL('../../build/native/attn', import.meta.url));
const REAL = fileURLToPath(new URL('../../web/data/real/', import.meta.url));
const REFERENCE = fileURLToPath(new URL('./reference/head_detector.py', import.meta.url));
const SETS = [
  'gpt2-small_L0_nlp-sentence',
  'gpt2-small_L5H5_induction_random-repeated',
  'gpt2-small_induction-heads_repeated-sentence',
  't5-small_encoder_L0_bidirectional',
];
const TMP = mkdtempSync(join(tmpdir(), 'attn-checks-test-'));
process.on('exit', () => rmSync(TMP, { recursive: true, force: true }));

let core;
before(async () => {
  core = await loadCore();
});

function run(args, input) {
  const r = spawnSync(CLI, args, { encoding: 'utf8', maxBuffer: 1 << 28, input });
  if (r.error) throw r.error;
  return r;
}
function json(args) {
  const r = run(args);
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}
function csv(args) {
  const r = run(args);
  assert.equal(r.status, 0, r.stderr);
  const [header, ...lines] = r.stdout.trim().split('\n');
  const cols = header.split(',');
  return lines.map((l) => Object.fromEntries(l.split(',').map((v, i) => [cols[i], v])));
}
function tmp(name, bytes) {
  const p = join(TMP, name);
  writeFileSync(p, bytes);
  return p;
}
const blob = (bytes) => new Blob([bytes]);
const near = (got, want, tol, what) =>
  assert.ok(Math.abs(got - want) <= tol * Math.max(1, Math.abs(want)), `${what}: got ${got}, want ${want} (tol ${tol})`);

/** Float16 bits back to a number (IEEE 754 binary16), to know what a float16 file holds. */
function fromFloat16(bits) {
  const s = bits & 0x8000 ? -1 : 1;
  const e = (bits >> 10) & 0x1f;
  const m = bits & 0x3ff;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m ? NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

/**
 * A decoder file [layers, heads, n, n]: causal heads (softmax of random scores over keys 0..t)
 * and, at the heads of `leaks` ({[layer * heads + head]: fraction}), that fraction of each row
 * moved onto the keys above the diagonal (spread evenly). Float64 values, rows sum to 1.
 */
function decoder(layers, heads, n, leaks, seed = 1) {
  let x = seed;
  const rnd = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
  const out = new Float64Array(layers * heads * n * n);
  for (let h = 0; h < layers * heads; h++) {
    for (let t = 0; t < n; t++) {
      const row = new Float64Array(n);
      let sum = 0;
      for (let j = 0; j <= t; j++) sum += row[j] = Math.exp(3 * rnd());
      const leak = t < n - 1 ? (leaks[h] ?? 0) : 0;
      for (let j = 0; j <= t; j++) row[j] = ((1 - leak) * row[j]) / sum;
      for (let j = t + 1; j < n; j++) row[j] = leak / (n - 1 - t);
      out.set(row, (h * n + t) * n);
    }
  }
  return out;
}

/** The above-diagonal mass of head h as defined (mean over rows of the weight on keys j > t). */
function aboveMass(values, h, n) {
  let s = 0;
  for (let t = 0; t < n; t++) for (let j = t + 1; j < n; j++) s += values[(h * n + t) * n + j];
  return s / n;
}

test('one schema: the structure object of attn analyze, attn compare and the page; the rows CSV columns of the CLI and the page', async () => {
  const [L, H, n] = [2, 3, 8];
  const values = decoder(L, H, n, { 4: 0.3 });
  const file = tmp('schema.npy', npy([L, H, n, n], values));
  const source = await openSource(core, blob(npy([L, H, n, n], values)), { name: 'schema.npy' });
  const heads = [];
  for (let i = 0; i < L * H; i++) heads.push(await analyzeSourceHead(core, source, i));
  const page = core.structureSummary(heads, false, 'weights'); // what the page's JSON exports hold
  for (const [what, doc] of [
    ['analyze', json(['analyze', file])],
    ['compare', json(['compare', file, file])],
  ]) {
    const cli = doc.structure;
    assert.deepEqual(Object.keys(cli), Object.keys(page), `${what}: the keys`);
    assert.deepEqual(Object.keys(cli.flagged[0]), Object.keys(page.flagged[0]), `${what}: the keys of a flagged head`);
    assert.deepEqual([cli.structure, cli.stated, cli.causalHeads, cli.analysed], ['mixed', false, 5, 6], what);
    assert.deepEqual([page.structure, page.stated, page.causalHeads, page.analysed], ['mixed', false, 5, 6], 'page');
    assert.deepEqual([cli.flagged[0].layer, cli.flagged[0].head], [1, 1], what);
    near(cli.flagged[0].aboveDiagonalMass, page.flagged[0].aboveDiagonalMass, 1e-6, `${what}: mass`);
  }
  // A causal file compared: "causal" is the --causal flag (false), the structure says what was found.
  const causal = tmp('schema-causal.npy', npy([1, 2, n, n], decoder(1, 2, n, {})));
  const cmp = json(['compare', causal, causal]);
  assert.equal(cmp.causal, false);
  assert.equal(cmp.structure.structure, 'causal');
  // Rows CSV: the page's columns (web/export/metrics-files.js) after layer, head; empty rows as 1/0.
  const rows = run(['analyze', file, '--rows', '--format', 'csv', '--heads', '0']);
  assert.equal(rows.status, 0, rows.stderr);
  const [header, first] = rows.stdout.split('\n');
  assert.deepEqual(header.split(','), ['layer', 'head', ...ROW_METRIC_COLUMNS]);
  assert.equal(first.split(',')[ROW_METRIC_COLUMNS.indexOf('empty') + 2], '0');
});

test('a decoder file with some heads not causal: detected, flagged largest above-diagonal mass first (CLI JSON/CSV, page)', async () => {
  const [L, H, n] = [3, 4, 10];
  const leaks = { 1: 0.0007, 6: 0.57, 9: 0.02 };
  const values = decoder(L, H, n, leaks);
  const file = tmp('mixed.npy', npy([L, H, n, n], values));
  const doc = json(['analyze', file]);
  assert.equal(doc.structure.structure, 'mixed');
  assert.equal(doc.structure.causalHeads, 9);
  const want = Object.keys(leaks)
    .map(Number)
    .map((h) => ({ h, mass: aboveMass(values, h, n) }))
    .sort((a, b) => b.mass - a.mass);
  assert.deepEqual(
    doc.structure.flagged.map((f) => f.layer * H + f.head),
    want.map((w) => w.h),
  );
  doc.structure.flagged.forEach((f, i) => near(f.aboveDiagonalMass, want[i].mass, 1e-6, `mass of L${f.layer} H${f.head}`));
  // The stderr says what was detected and lists them in that order, with the mass.
  const r = run(['analyze', file, '--format', 'csv']);
  assert.match(r.stderr, /structure: mixed \(detected: 9 of 12 analysed heads are zero above the diagonal, 3 not\)/);
  // Row t < n - 1 moves the fraction onto its keys above the diagonal: mass = fraction (n - 1) / n.
  assert.match(
    r.stderr,
    /largest above-diagonal mass first: layer 1, head 2 \(mass 0\.513, .*; layer 2, head 1 \(mass 0\.018, .*; layer 0, head 1 \(mass 0\.00063,/,
  );
  const rows = csv(['analyze', file, '--format', 'csv']);
  for (let h = 0; h < L * H; h++) {
    near(Number(rows[h].above_diagonal_mass), aboveMass(values, h, n), 1e-6, `CSV mass ${h}`);
    assert.equal(rows[h].causal_structure, h in leaks ? 'false' : 'true');
  }

  // The page: the same flags from the core, and the same column in its Metrics CSV.
  const source = await openSource(core, blob(npy([L, H, n, n], values)), { name: 'mixed.npy' });
  const heads = [];
  for (let i = 0; i < L * H; i++) heads.push(await analyzeSourceHead(core, source, i));
  const st = core.structureSummary(heads, false, 'weights');
  assert.equal(st.structure, 'mixed');
  assert.deepEqual(
    st.flagged.map((f) => f.layer * H + f.head),
    want.map((w) => w.h),
  );
  const s = summarise(heads, { structure: st });
  assert.equal(s.warnings.length, 1);
  assert.match(s.warnings[0], /^Mostly causal: 9 of 12 heads.*L1 H2 \(mass 0\.513,.*L2 H1 \(mass 0\.018,.*L0 H1 \(mass 0\.00063,/);
  const pageCsv = headMetricsCsv(heads).trim().split('\r\n');
  const col = pageCsv[0].split(',').indexOf('above_diagonal_mass');
  assert.ok(col > 0);
  // The page's WebAssembly and the native CLI: the same code, equal to float32 rounding.
  for (let h = 0; h < L * H; h++) near(Number(pageCsv[h + 1].split(',')[col]), Number(rows[h].above_diagonal_mass), 1e-6, `page CSV ${h}`);
  // Said causal by the user: the same heads flagged; all causal: none, and "causal" said.
  assert.equal(core.structureSummary(heads, true, 'weights').flagged.length, 3);
  const causal = decoder(2, 2, n, {});
  const cs = await openSource(core, blob(npy([2, 2, n, n], causal)), { name: 'c.npy' });
  const ch = [];
  for (let i = 0; i < 4; i++) ch.push(await analyzeSourceHead(core, cs, i));
  const cst = core.structureSummary(ch, false, 'weights');
  assert.equal(cst.structure, 'causal');
  assert.match(summarise(ch, { structure: cst }).notes[0], /^Causal structure detected: all 4 heads are zero above the diagonal/);
});

test('a causal float16 file with exact zeros: normalised entropy = H / ln(t + 1) (page and CLI, to 1e-6)', async () => {
  const n = 24;
  // Row t: keys 0..t, every third key 3e-9 (underflows to exactly 0 in float16), the rest spread.
  const values = new Float64Array(n * n);
  for (let t = 0; t < n; t++) {
    let sum = 0;
    for (let j = 0; j <= t; j++) sum += values[t * n + j] = j % 3 === 2 ? 3e-9 : 1 + ((j * 7 + t) % 5);
    for (let j = 0; j <= t; j++) values[t * n + j] /= sum;
  }
  const bytes = npy([1, 1, n, n], values, { descr: '<f2' });
  // What the file holds, decoded here, and H / ln(t + 1) of each row in double.
  const held = Array.from(values, (x) => fromFloat16(float16Bits(x)));
  assert.ok(
    held.some((x, i) => x === 0 && i % n <= Math.floor(i / n)),
    'some weights below the diagonal are exactly 0',
  );
  const want = [];
  for (let t = 0; t < n; t++) {
    const row = held.slice(t * n, t * n + n);
    const sum = row.reduce((a, b) => a + b, 0);
    const hh = row.reduce((a, x) => (x > 0 ? a - (x / sum) * Math.log(x / sum) : a), 0);
    want.push(t === 0 ? 0 : hh / Math.log(t + 1));
  }
  const source = await openSource(core, blob(bytes), { name: 'f16.npy' });
  const r = await analyzeSourceHead(core, source, 0, { wantRows: true });
  assert.equal(r.causalVisibility, true);
  for (let t = 0; t < n; t++) {
    near(r.rows.normalizedEntropy[t], want[t], 1e-6, `page row ${t}`);
    assert.equal(r.rows.visible[t], t + 1);
  }
  near(r.summary.meanNormalizedEntropy, want.reduce((a, b) => a + b, 0) / n, 1e-6, 'page mean');
  const doc = json(['analyze', tmp('f16.npy', bytes), '--rows']);
  doc.heads[0].rows.normalizedEntropy.forEach((x, t) => near(x, want[t], 1e-6, `CLI row ${t}`));
});

test('logits with each of the five mask fills give the visible counts of -inf', async () => {
  const n = 8;
  const base = Array.from({ length: n * n }, (_, i) => Math.sin(i * 1.7) * 3);
  const filled = (fill) => base.map((x, i) => (i % n > Math.floor(i / n) ? fill : x));
  const visibleOf = async (fill) => {
    const source = await openSource(core, blob(npy([1, 1, n, n], filled(fill))), { name: 'l.npy' });
    const r = await analyzeSourceHead(core, source, 0, { reading: 'logits', wantRows: true });
    const cli = json(['analyze', tmp('l.npy', npy([1, 1, n, n], filled(fill))), '--read', 'logits', '--rows']).heads[0];
    assert.deepEqual(Array.from(cli.rows.visible), Array.from(r.rows.visible));
    return { visible: Array.from(r.rows.visible), hn: r.summary.meanNormalizedEntropy, check: r.check };
  };
  const inf = await visibleOf(-Infinity);
  assert.deepEqual(
    inf.visible,
    Array.from({ length: n }, (_, t) => t + 1),
  );
  for (const fill of [-1e4, -1e9, -65504, -3.4e38]) {
    const got = await visibleOf(fill);
    assert.deepEqual(got.visible, inf.visible, `fill ${fill}`);
    assert.equal(got.hn, inf.hn, `fill ${fill}`);
    assert.equal(got.check.finiteFill, (n * (n - 1)) / 2);
  }
});

test('layer numbers from JSON, .npz member names and typed lists: the same in CLI JSON/CSV and the page', async () => {
  const n = 5;
  const layer = decoder(1, 2, n, {});
  const nested = (v) =>
    Array.from({ length: 2 }, (_, h) => Array.from({ length: n }, (_, t) => Array.from(v.slice((h * n + t) * n, (h * n + t + 1) * n))));
  const four = [0, 1, 2, 3].map(() => nested(layer));
  const doc = JSON.stringify({ tokens: ['a', 'b', 'c', 'd', 'e'], attention: four, layers: [0, 2, 4, 5], heads: [0, 1] });
  const file = tmp('layers.json', doc);
  const fromJson = json(['analyze', file]);
  assert.deepEqual(fromJson.layerNumbers, [0, 2, 4, 5]);
  assert.deepEqual(
    fromJson.heads.map((h) => [h.layer, h.layerIndex, h.head]),
    [0, 1, 2, 3].flatMap((i) => [0, 1].map((h) => [[0, 2, 4, 5][i], i, h])),
  );
  assert.deepEqual(
    csv(['analyze', file, '--format', 'csv']).map((r) => Number(r.layer)),
    [0, 0, 2, 2, 4, 4, 5, 5],
  );
  // A .npy and a typed list: the same numbers.
  const npyFile = tmp('layers.npy', npy([4, 2, n, n], [...layer, ...layer, ...layer, ...layer]));
  assert.deepEqual(
    json(['analyze', npyFile, '--layer-numbers', '0,2,4,5']).heads.map((h) => h.layer),
    [0, 0, 2, 2, 4, 4, 5, 5],
  );
  assert.equal(run(['analyze', npyFile, '--layer-numbers', '0,2,4']).status, 64);
  // The page: JSON labels, .npz member names (one member per layer) and the typed list.
  const js = await openSource(core, blob(doc), { name: 'layers.json' });
  assert.deepEqual(js.layerNumbers, [0, 2, 4, 5]);
  const members = Object.fromEntries([5, 0, 4, 2].map((l) => [`layer_${l}`, npy([2, n, n], layer)]));
  // The CLI reads the same archive as one file of those layers, in the order of their numbers.
  const npzFile = tmp('layers.npz', npz(members));
  assert.deepEqual(
    json(['analyze', npzFile]).heads.map((h) => [h.layer, h.layerIndex]),
    [0, 1, 2, 3].flatMap((i) => [0, 1].map(() => [[0, 2, 4, 5][i], i])),
  );
  const z = await openSource(core, blob(npz(members)), { name: 'layers.npz' });
  assert.deepEqual(z.layerNumbers, [0, 2, 4, 5]);
  assert.deepEqual(z.layout, { layers: 4, heads: 2, nQ: n, nK: n });
  assert.deepEqual(core.parseLayerNumbers('0,2,4,5', 4), [0, 2, 4, 5]);
  assert.throws(() => core.parseLayerNumbers('0,2', 4), /fewer numbers than the 4 layers/);
  const { headName } = await import('../../web/import/text.js');
  const { numberHead } = await import('../../web/import/view-state.js');
  const r = numberHead(js, await analyzeSourceHead(core, js, 7));
  assert.equal(headName(js, r), 'L5 H1');
  assert.equal(headMetricsCsv([r]).split('\r\n')[1].split(',')[0], '5');
});

test('TransformerLens head-detector scores match an independent NumPy transcription on every bundled head (1e-6)', async () => {
  let compared = 0;
  for (const set of SETS) {
    const dir = join(REAL, set);
    const ref = spawnSync('/usr/bin/python3', [REFERENCE, join(dir, 'attention.npy'), join(dir, 'tokens.json')], { encoding: 'utf8' });
    assert.equal(ref.status, 0, ref.stderr);
    const want = JSON.parse(ref.stdout);
    const doc = json(['analyze', join(dir, 'attention.npy'), '--tokens', join(dir, 'tokens.json')]);
    const source = await openSource(core, await openAsBlob(join(dir, 'attention.npy')), { name: 'attention.npy' });
    const tokens = JSON.parse(readFileSync(join(dir, 'tokens.json'), 'utf8'));
    source.queryTokens = tokens;
    source.keyTokens = tokens;
    for (let i = 0; i < want.length; i++) {
      const page = await analyzeSourceHead(core, source, i);
      const cli = doc.heads[i].fieldScores;
      const names = ['previousToken', 'duplicateToken', 'induction'];
      names.forEach((k, m) => {
        near(cli[k], want[i][m], 1e-6, `${set} head ${i} ${k} (CLI)`);
        near(page.field[k], want[i][m], 1e-6, `${set} head ${i} ${k} (page)`);
        compared++;
      });
    }
  }
  assert.equal(compared, 3 * (12 + 1 + 2 + 8));
});

test('attn compare and the page comparison agree to float32 rounding on two bundled files', async () => {
  // The bundled GPT-2 layer 0 and the same file with its heads in another order (a "patched run").
  const dir = join(REAL, 'gpt2-small_L0_nlp-sentence');
  const a = join(dir, 'attention.npy');
  const n = 33;
  const raw = readFileSync(a);
  const offset = raw.length - 12 * n * n * 4;
  const data = new Float32Array(raw.buffer.slice(raw.byteOffset + offset, raw.byteOffset + raw.length));
  const rotated = new Float32Array(data.length);
  for (let h = 0; h < 12; h++) rotated.set(data.subarray(((h + 1) % 12) * n * n, (((h + 1) % 12) + 1) * n * n), h * n * n);
  const b = tmp('rotated.npy', npy([1, 12, n, n], rotated));
  const doc = json(['compare', a, b]);
  const lines = csv(['compare', a, b, '--format', 'csv']);
  const sa = await openSource(core, await openAsBlob(a), { name: 'a.npy' });
  const sb = await openComparison(core, await openAsBlob(b), sa, { name: 'b.npy' });
  for (let i = 0; i < 12; i++) {
    const page = await compareSourceHead(core, sa, sb, i);
    const cli = doc.heads[i];
    near(page.meanJsd, cli.meanJsd, 1e-6, `meanJsd ${i}`);
    near(page.maxJsd, cli.maxJsd, 1e-6, `maxJsd ${i}`);
    near(page.deltaEntropy, cli.delta.meanEntropy, 1e-6, `dH ${i}`);
    near(page.deltaNormalizedEntropy, cli.delta.meanNormalizedEntropy, 1e-6, `dHn ${i}`);
    near(page.deltaSinkMass, cli.delta.meanSinkMass, 1e-6, `dSink ${i}`);
    assert.equal(page.labelChanged, cli.labelChanged);
    assert.equal(lines[i].label_changed, String(cli.labelChanged));
    assert.ok(cli.meanJsd > 0, 'different heads differ');
  }
  // A file compared with itself: JSD 0, no change.
  const self = json(['compare', a, a]);
  assert.ok(self.heads.every((h) => h.meanJsd === 0 && !h.labelChanged && h.delta.meanEntropy === 0));
  // Different shapes are refused, saying both.
  const other = join(REAL, 't5-small_encoder_L0_bidirectional', 'attention.npy');
  const bad = run(['compare', a, other]);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /is \[1, 12, 33, 33\] .* and .* is \[1, 8, 12, 12\]: compare needs two files of the same shape/);
  await assert.rejects(
    openComparison(core, await openAsBlob(other), sa, { name: 't5.npy' }),
    /a comparison needs two files of the same shape/,
  );
});

test('the small fixes: the -inf message, "topK": 1e400 named, CSV formula guard', () => {
  // Weights with -inf where masked: min is the finite values', the -inf said as such.
  const n = 4;
  const v = [];
  for (let t = 0; t < n; t++) for (let j = 0; j < n; j++) v.push(j <= t ? 1 / (t + 1) : -Infinity);
  const r = run(['analyze', tmp('inf.npy', npy([1, 1, n, n], v))]);
  assert.equal(r.status, 3);
  assert.match(r.stderr, /6 entries are -inf \(masked keys of logits\), finite values from 0\.25 to 1\)/);
  assert.doesNotMatch(r.stderr, /min 0|<= -1e30/);
  // compute: a number out of float64 range is named by its key.
  const c = run(['compute'], '{"version": 1, "topK": 1e400}');
  assert.equal(c.status, 2);
  const err = JSON.parse(c.stdout).error;
  assert.equal(err.field, 'topK');
  assert.match(err.message, /topK = 1e400 is out of range/);
  // CSV: a token starting with = + - @ tab CR is guarded with ' (the page's rule), then quoted.
  const tokens = ['=HYPERLINK("http://x","y")', '+a', '-b', '@c', '\tt', 'plain'];
  const m = tokens.length;
  const u = [];
  for (let t = 0; t < m; t++) for (let j = 0; j < m; j++) u.push(j <= t ? 1 / (t + 1) : 0);
  const out = run([
    'analyze',
    tmp('tok.npy', npy([1, 1, m, m], u)),
    '--tokens',
    tmp('tok.json', JSON.stringify(tokens)),
    '--rows',
    '--format',
    'csv',
  ]);
  assert.equal(out.status, 0, out.stderr);
  const lines = out.stdout.split('\n');
  assert.ok(lines[1].startsWith('0,0,0,"\'=HYPERLINK(""http://x"",""y"")",'), lines[1]);
  assert.ok(lines[2].startsWith("0,0,1,'+a,"));
  assert.ok(lines[3].startsWith("0,0,2,'-b,"));
  assert.ok(lines[4].startsWith("0,0,3,'@c,"));
  assert.ok(lines[5].startsWith("0,0,4,'\tt,"), JSON.stringify(lines[5]));
  assert.ok(lines[6].startsWith('0,0,5,plain,'));
});

test('an all-zero head (an unfilled buffer) is not probabilities in the page and the CLI; one zero row is an empty row', async () => {
  const n = 5;
  const zeros = new Float64Array(2 * n * n);
  // Head 0: causal uniform rows, one of them all zero (an empty row); head 1: all zero.
  for (let t = 0; t < n; t++) for (let j = 0; j <= t; j++) if (t !== 2) zeros[t * n + j] = 1 / (t + 1);
  const bytes = npy([1, 2, n, n], zeros);
  const source = await openSource(core, blob(bytes), { name: 'zeros.npy' });
  const heads = [await analyzeSourceHead(core, source, 0), await analyzeSourceHead(core, source, 1)];
  assert.deepEqual(
    heads.map((r) => r.verdict),
    ['probabilities', 'not_probabilities'],
  );
  assert.equal(heads[0].summary.emptyRows, 1);
  const said = summarise(heads);
  assert.equal(said.errors.length, 1);
  assert.match(said.errors[0], /^1 of 2 heads are not probabilities \(L0 H1: every row is all zero \(5 rows; an unfilled buffer\?\)\)/);
  assert.equal(said.offerLogits, false, 'no logits offer for an all-zero head: read so it is uniform rows');
  assert.match(said.errors[0], /nothing to analyse; check that the export filled the array\.$/);
  assert.doesNotMatch(said.errors[0], /read them as logits/);
  const scores = [heads[0], { ...heads[1], check: { ...heads[1].check, zeroRows: 0, negative: 3, minValue: -2 } }];
  assert.equal(summarise(scores).offerLogits, true, 'negative values: scores, the offer stands');
  assert.match(summarise(heads, { lang: 'zh-CN' }).errors[0], /每一行都全为 0（共 5 行；是否是未填充的缓冲区？）/);
  // The CLI: a file whose first head is all zero is refused as weights (exit 3), with the reason.
  const file = tmp('zeros.npy', npy([1, 1, n, n], new Float64Array(n * n)));
  const r = run(['analyze', file]);
  assert.equal(r.status, 3);
  assert.match(r.stderr, /values are not probabilities \(layer 0, head 0: every row is all zero \(5 rows; an unfilled buffer\?\)/);
  // Read as logits, all-zero scores are uniform rows: entropy ln(n) per row (no mask).
  const logits = json(['analyze', file, '--read', 'logits']);
  near(logits.heads[0].summary.meanEntropy, Math.log(n), 1e-6, 'uniform rows');
});
