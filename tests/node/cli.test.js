// `attn analyze` (build/native/attn; ATTN_CLI overrides the binary): the bundled real sets read
// from .npy and from JSON give the same numbers, every refusal says why, .npz members, float16,
// CSV, and a 151 MB file analysed in bounded memory. Test files are written here byte by byte
// (the .npy layout as NumPy documents it; zip by fflate), independently of the C++ importer.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, openSync, writeSync, closeSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { zipSync } from 'fflate';
import { npy, npyHeader, uniformCausal } from './npy.js';
import { HEAD_METRICS, HEAD_SCORES, ROW_METRICS } from './metrics.js';

const CLI = process.env.ATTN_CLI ?? fileURLToPath(new URL('../../build/native/attn', import.meta.url));
const REAL = fileURLToPath(new URL('../../web/data/real/', import.meta.url));
const SETS = [
  { folder: 'gpt2-small_L0_nlp-sentence', heads: 12, n: 33 },
  { folder: 'gpt2-small_L5H5_induction_random-repeated', heads: 1, n: 40, layer: 5 }, // its JSON: "layers": [5]
  { folder: 'gpt2-small_induction-heads_repeated-sentence', heads: 2, n: 43 },
  { folder: 't5-small_encoder_L0_bidirectional', heads: 8, n: 12 },
];
const T5_SCORES = join(REAL, 'NOT_PROBABILITIES_t5-small_decoder_L0_raw-scores');

const TMP = mkdtempSync(join(tmpdir(), 'attn-cli-test-'));
process.on('exit', () => rmSync(TMP, { recursive: true, force: true }));

function analyze(args, options = {}) {
  const run = spawnSync(CLI, ['analyze', ...args], { encoding: 'utf8', maxBuffer: 1 << 28, ...options });
  if (run.error) throw run.error;
  return run;
}

/** Runs and parses the JSON document; fails with stderr when the exit status is not `status`. */
function analyzeJson(args, status = 0) {
  const run = analyze(args);
  assert.equal(run.status, status, run.stderr);
  return JSON.parse(run.stdout);
}

function tmpFile(name, bytes) {
  const path = join(TMP, name);
  writeFileSync(path, bytes);
  return path;
}

/** RFC 4180 parser: quoted fields may hold commas, doubled quotes and line breaks. */
function parseCsv(text) {
  const rows = [];
  let row = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  assert.equal(quoted, false, 'unterminated quoted field');
  if (field !== '' || row.length) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

/** A CSV number field: empty means undefined (null in the JSON). */
const csvNumber = (field) => (field === '' ? null : Number(field));

// The file's names of its heads and layers (the JSON's "heads", "layers") aside.
const withoutLabel = (heads) => heads.map(({ label, layer, ...rest }) => rest);

// ---------------------------------------------------------------------------------------------

test('the binary exists (npm run build)', () => {
  assert.ok(existsSync(CLI), `${CLI} is missing: run scripts/build.sh (or set ATTN_CLI)`);
});

test("attn html's help: its examples write with --out (a redirect leaves an empty file when refused)", () => {
  const run = spawnSync(CLI, ['html', '--help'], { encoding: 'utf8' });
  const text = run.stdout + run.stderr;
  assert.match(text, /usage: attn html INPUT/);
  assert.match(text, /Save state/, 'says where a state file comes from');
  const examples = text.slice(text.indexOf('Examples:'));
  assert.match(examples, /attn html lesson\.state\.json --out lesson\.html/);
  assert.doesNotMatch(examples, /> \S+\.html/);
});

test('help lists the analyze command', () => {
  const run = spawnSync(CLI, ['--help'], { encoding: 'utf8' });
  assert.equal(run.status, 0);
  assert.match(run.stdout, /attn analyze FILE/);
  assert.match(run.stdout, /--read auto\|weights\|logits/);
  assert.equal(analyze([]).status, 64);
  assert.equal(analyze(['x.npy', '--frobnicate']).status, 64);
  assert.equal(analyze(['x.npy', '--format', 'xml']).status, 64);
});

for (const set of SETS) {
  test(`${set.folder}: .npy and .json give identical heads`, () => {
    const dir = join(REAL, set.folder);
    const tokens = JSON.parse(readFileSync(join(dir, 'tokens.json'), 'utf8'));
    const fromNpy = analyzeJson([join(dir, 'attention.npy'), '--tokens', join(dir, 'tokens.json'), '--rows']);
    const fromJson = analyzeJson([join(dir, 'attention.json'), '--rows']);
    assert.equal(fromNpy.format, 'npy');
    assert.equal(fromNpy.dtype, 'float32');
    assert.deepEqual(fromNpy.shape, [1, set.heads, set.n, set.n]);
    assert.equal(fromJson.format, 'attention-json');
    assert.equal(fromJson.dtype, null);
    for (const doc of [fromNpy, fromJson]) {
      assert.equal(doc.layers, 1);
      assert.equal(doc.headsPerLayer, set.heads);
      assert.equal(doc.nQ, set.n);
      assert.equal(doc.nK, set.n);
      assert.equal(doc.reading, 'weights');
      assert.deepEqual(doc.tokens.queries, tokens);
      assert.deepEqual(doc.tokens.keys, tokens);
      assert.equal(doc.heads.length, set.heads);
      doc.heads.forEach((h, i) => {
        // The JSON's own layer number ("layers"); the .npy has none: its position.
        assert.equal(h.layer, doc === fromJson ? (set.layer ?? 0) : 0);
        assert.equal(h.layerIndex, 0);
        assert.equal(h.head, i);
        assert.equal(h.verdict, 'probabilities', `head ${i}`);
        assert.equal(h.summary.rows, set.n);
        assert.equal(h.rows.entropy.length, set.n);
        assert.equal(h.check.nonfinite, 0);
      });
    }
    assert.deepEqual(withoutLabel(fromNpy.heads), withoutLabel(fromJson.heads));
    assert.deepEqual(fromNpy.warnings, fromJson.warnings);
  });
}

test('L5H5 (an induction head on 20 random tokens repeated) is an offset-19 stripe', () => {
  // Query t >= 20 repeats token t - 20 and attends to the token after it, key t - 19 (0.88 of
  // its mass on average, read from attention.json); queries before the repeat rest on key 0.
  const dir = join(REAL, 'gpt2-small_L5H5_induction_random-repeated');
  const [head] = analyzeJson([join(dir, 'attention.npy')]).heads;
  assert.equal(head.pattern.kind, 'offset', JSON.stringify(head.pattern));
  assert.equal(head.pattern.parameter, 19);
  assert.equal(head.pattern.scores.offsetD, 19);
});

test('GPT-2 layer 0 from .npy: the JSON header, and --layers / --heads select', () => {
  const dir = join(REAL, 'gpt2-small_L0_nlp-sentence');
  const doc = analyzeJson([join(dir, 'attention.npy'), '--heads', '1,3-4,3']);
  assert.deepEqual(
    doc.heads.map((h) => h.head),
    [1, 3, 4],
  );
  assert.equal(doc.file, join(dir, 'attention.npy'));
  assert.equal(doc.topK, 2);
  assert.equal(doc.causal, false);
  assert.equal(doc.tokens, undefined);
  const all = analyzeJson([join(dir, 'attention.npy')]);
  assert.deepEqual(doc.heads, [all.heads[1], all.heads[3], all.heads[4]]);
  const k3 = analyzeJson([join(dir, 'attention.npy'), '--heads', '0', '--top-k', '3']);
  assert.ok(k3.heads[0].summary.meanTopKMass >= all.heads[0].summary.meanTopKMass);
  // The file's labels (JSON) are carried along.
  const labelled = analyzeJson([join(REAL, 'gpt2-small_induction-heads_repeated-sentence', 'attention.json')]);
  assert.deepEqual(
    labelled.heads.map((h) => h.label),
    ['L6H9', 'L5H5'],
  );
});

test('CSV: one line per head, numbers equal to the JSON ones', () => {
  const file = join(REAL, 'gpt2-small_L0_nlp-sentence', 'attention.npy');
  const run = analyze([file, '--format', 'csv']);
  assert.equal(run.status, 0, run.stderr);
  const rows = parseCsv(run.stdout);
  // The columns: the metrics table's head means (metrics.def, through the generated schema).
  assert.deepEqual(rows[0], [
    'layer',
    'head',
    'verdict',
    'rows',
    'empty_rows',
    ...HEAD_METRICS.map((m) => m.head.csv),
    'pattern',
    'confidence',
    'parameter',
    'above_diagonal_mass',
    'causal_structure',
    ...HEAD_SCORES.map((x) => x.csv),
  ]);
  assert.equal(rows.length, 13);
  const doc = analyzeJson([file]);
  const col = (name) => rows[0].indexOf(name);
  rows.slice(1).forEach((r, i) => {
    const h = doc.heads[i];
    assert.equal(Number(r[0]), 0);
    assert.equal(Number(r[1]), i);
    assert.equal(r[2], h.verdict);
    assert.equal(Number(r[3]), h.summary.rows);
    assert.equal(Number(r[4]), h.summary.emptyRows);
    for (const m of HEAD_METRICS) assert.equal(csvNumber(r[col(m.head.csv)]), h.summary[m.head.key], m.head.csv);
    assert.equal(r[col('pattern')], h.pattern.kind);
    assert.equal(csvNumber(r[col('confidence')]), h.pattern.confidence);
    assert.equal(Number(r[col('parameter')]), h.pattern.parameter);
  });
});

test('--rows: per-row metrics in JSON, and CSV lines with the query token quoted as needed', () => {
  const n = 6;
  const tokens = ['<s>', 'a,b', 'say "hi"', 'two\nlines', ' lead', '=1+1'];
  const file = tmpFile('rows.npy', npy([n, n], uniformCausal(n)));
  const tokFile = tmpFile('rows-tokens.json', JSON.stringify(tokens));
  const doc = analyzeJson([file, '--tokens', tokFile, '--rows', '--causal']);
  const [h] = doc.heads;
  assert.equal(h.verdict, 'probabilities');
  assert.deepEqual(h.rows.visible, [1, 2, 3, 4, 5, 6]);
  // Row t is uniform over t + 1 keys: entropy ln(t + 1), N_eff t + 1, sink mass 1 / (t + 1).
  h.rows.entropy.forEach((x, t) => assert.ok(Math.abs(x - Math.log(t + 1)) < 1e-6, `row ${t}: ${x}`));
  h.rows.nEff.forEach((x, t) => assert.ok(Math.abs(x - (t + 1)) < 1e-5, `row ${t}: ${x}`));
  h.rows.sinkMass.forEach((x, t) => assert.ok(Math.abs(x - 1 / (t + 1)) < 1e-6, `row ${t}: ${x}`));
  assert.equal(h.check.rowsAboveDiagonal, 0);

  const run = analyze([file, '--tokens', tokFile, '--rows', '--format', 'csv']);
  assert.equal(run.status, 0, run.stderr);
  const rows = parseCsv(run.stdout);
  assert.deepEqual(rows[0], ['layer', 'head', 'row', 'query_token', 'empty', ...ROW_METRICS.map((m) => m.csv)]);
  assert.equal(rows.length, 1 + n);
  // Exact but for a token starting with a formula character (=, +, -, @, tab, CR): prefixed
  // with ' as the page's CSV export does (one rule: text.hpp kCsvFormulaStart).
  assert.deepEqual(
    rows.slice(1).map((r) => r[3]),
    tokens.map((x) => (/^[=+\-@\t\r]/.test(x) ? `'${x}` : x)),
  );
  const col = (name) => rows[0].indexOf(name);
  rows.slice(1).forEach((r, t) => {
    assert.equal(r.length, 5 + ROW_METRICS.length);
    assert.equal(Number(r[2]), t);
    // Every metric's cell equals the JSON's (the CSV's numbers are the shortest round trip).
    for (const m of ROW_METRICS) assert.equal(csvNumber(r[col(m.csv)]), h.rows[m.key][t], `${m.csv} row ${t}`);
    assert.equal(Number(r[col('visible')]), t + 1);
    assert.equal(r[4], '0');
  });
});

test('cross-attention tokens: --tokens are the queries, --key-tokens the keys', () => {
  const file = tmpFile('cross.npy', npy([2, 3], [0.5, 0.5, 0, 0.2, 0.3, 0.5]));
  const q = tmpFile('q.txt', 'x\ny\n');
  const k = tmpFile('k.txt', 'a\r\nb\r\nc\r\n');
  const doc = analyzeJson([file, '--tokens', q, '--key-tokens', k]);
  assert.deepEqual(doc.tokens, { queries: ['x', 'y'], keys: ['a', 'b', 'c'] });
  assert.equal(doc.nQ, 2);
  assert.equal(doc.nK, 3);
  // One list for both: the queries are its last n_q tokens.
  assert.deepEqual(analyzeJson([file, '--tokens', k]).tokens, { queries: ['b', 'c'], keys: ['a', 'b', 'c'] });
  assert.equal(analyze([file, '--key-tokens', k]).status, 64);
});

test('refusals: bad magic, Fortran order, big-endian, integers, truncated data, batch', () => {
  const cases = [
    { name: 'garbage.npy', bytes: Buffer.from('this is not an array\n'), message: /\\x93NUMPY/ },
    { name: 'empty.json', bytes: Buffer.alloc(0), message: /empty\.json is empty/ },
    {
      name: 'fortran.npy',
      bytes: npy([2, 3], [1, 0, 0, 1, 0, 0], { fortran: true }),
      message: /Fortran-order arrays are not supported: save with np\.ascontiguousarray/,
    },
    {
      name: 'big.npy',
      bytes: npy([2, 2], [1, 0, 0.5, 0.5], { descr: '>f4' }),
      message: /big-endian float32 \('>f4'\): convert with arr\.astype\('<f4'\)/,
    },
    { name: 'ints.npy', bytes: npy([2, 2], [1, 0, 0, 1], { descr: '<i8' }), message: /'<i8'/ },
    { name: 'short.npy', bytes: npy([4, 4], uniformCausal(4)).subarray(0, 128 + 40), message: /truncated \.npy data/ },
    { name: 'batch.npy', bytes: npy([2, 1, 1, 2, 2], new Array(8).fill(0.5)), message: /pick one example: the batch axis has 2 entries/ },
    { name: 'rank1.npy', bytes: npy([4], [1, 0, 0, 0]), message: /shape \[4\] has 1 axis/ },
    { name: 'notjson.json', bytes: Buffer.from('{"attention": [[1, 0]'), message: /not valid JSON/ },
    { name: 'ragged.json', bytes: Buffer.from('{"attention": [[1, 0], [1]]}'), message: /attention\[1\] has 1 entries, expected 2/ },
    {
      name: 'state.json',
      bytes: Buffer.from('{"version": 1, "mode": "qkv", "heads": []}'),
      message: /this is a playground state \(docs\/state\.md\), not an attention file/,
    },
  ];
  for (const c of cases) {
    const run = analyze([tmpFile(c.name, c.bytes)]);
    assert.equal(run.status, 2, `${c.name}: ${run.stderr}`);
    assert.equal(run.stdout, '', c.name);
    assert.match(run.stderr, /^attn: /, c.name);
    assert.match(run.stderr, c.message, c.name);
  }
  // Told apart by content, not by name: a .npy named .json is read as .npy.
  const renamed = tmpFile('really-npy.json', npy([2, 2], [1, 0, 0.5, 0.5]));
  assert.equal(analyzeJson([renamed]).format, 'npy');
});

test('12 tokens for a 16-key tensor is refused with both numbers', () => {
  const file = tmpFile('sixteen.npy', npy([16, 16], uniformCausal(16)));
  const tokens = tmpFile('twelve.json', JSON.stringify(Array.from({ length: 12 }, (_, i) => `t${i}`)));
  const run = analyze([file, '--tokens', tokens]);
  assert.equal(run.status, 2);
  assert.match(run.stderr, /^attn: 12 tokens for a tensor with 16 keys/);
});

test('the T5 raw scores are not probabilities: exit 3 under auto, analysed with --read logits', () => {
  const file = join(T5_SCORES, 'scores.npy');
  const run = analyze([file]);
  assert.equal(run.status, 3, run.stderr);
  assert.equal(run.stdout, '');
  assert.match(run.stderr, /^attn: values are not probabilities \(/);
  assert.match(run.stderr, /finite values from -3\.4e\+38/); // -FLT_MAX fill (meta.json: min -3.4028234663852886e+38)
  assert.match(run.stderr, /55 entries are a mask fill/); // head 0: the 55 cells above the diagonal of 11 x 11
  assert.match(run.stderr, /rows sum to/);
  assert.match(run.stderr, /rerun with --read logits to treat them as scores/);

  const doc = analyzeJson([file, '--read', 'logits', '--tokens', join(T5_SCORES, 'tokens.json'), '--causal']);
  assert.equal(doc.reading, 'logits');
  assert.equal(doc.heads.length, 8);
  for (const h of doc.heads) {
    assert.equal(h.verdict, 'not_probabilities');
    assert.equal(h.check.fill, 55);
    assert.equal(h.summary.rows, 11);
    assert.equal(h.summary.emptyRows, 0);
    assert.ok(h.pattern !== null);
  }
  assert.equal(doc.tokens.keys[0], '<pad>');
  // --read weights insists: each head is reported, not analysed, and the status says so.
  const forced = analyze([file, '--read', 'weights', '--heads', '0-1']);
  assert.equal(forced.status, 3);
  const forcedDoc = JSON.parse(forced.stdout);
  assert.deepEqual(
    forcedDoc.heads.map((h) => [h.verdict, h.summary]),
    [
      ['not_probabilities', null],
      ['not_probabilities', null],
    ],
  );
  assert.match(forcedDoc.warnings.join(' '), /2 heads are not probabilities/);
});

test('NaN is located: layer, head, query and key', () => {
  const n = 4;
  const good = uniformCausal(n);
  const bad = good.slice();
  bad[2 * n + 1] = NaN; // head 1: query 2, key 1
  // Head 0 fine, head 1 broken: the document is complete, the status and message name the place.
  const file = tmpFile('nan.npy', npy([1, 2, n, n], [...good, ...bad]));
  const run = analyze([file]);
  assert.equal(run.status, 2, run.stderr);
  const doc = JSON.parse(run.stdout);
  assert.deepEqual(
    doc.heads.map((h) => h.verdict),
    ['probabilities', 'invalid'],
  );
  assert.deepEqual(doc.heads[1].check.firstNonfinite, { row: 2, col: 1 });
  assert.equal(doc.heads[1].summary, null);
  assert.match(run.stderr, /attn: layer 0, head 1 holds NaN at query 2, key 1 \(1 non-finite entry/);
  // The first selected head broken: nothing to decide the reading from, nothing printed.
  const first = analyze([file, '--heads', '1']);
  assert.equal(first.status, 2);
  assert.equal(first.stdout, '');
  assert.match(first.stderr, /layer 0, head 1 holds NaN at query 2, key 1/);
  // JSON null is NaN too, and +Inf from a float64 beyond float32's range.
  const json = tmpFile(
    'inf.json',
    JSON.stringify({
      attention: [
        [1, 0],
        [1e300, 0],
      ],
    }),
  );
  assert.match(analyze([json]).stderr, /layer 0, head 0 holds \+Inf at query 1, key 0/);
});

test('--layers / --heads outside the file name the valid range', () => {
  const file = join(REAL, 'gpt2-small_L0_nlp-sentence', 'attention.npy');
  const layers = analyze([file, '--layers', '0,2']);
  assert.equal(layers.status, 64);
  assert.match(layers.stderr, /--layers 0,2: layer 2 is out of range: the file has 1 layer \(0\)/);
  const heads = analyze([file, '--heads', '10-12']);
  assert.equal(heads.status, 64);
  assert.match(heads.stderr, /head 12 is out of range: the file has 12 heads \(0-11\)/);
  assert.equal(analyze([file, '--heads', '3-1']).status, 64);
  assert.equal(analyze([file, '--heads', 'x']).status, 64);
});

test('.npz: a member picked by --array, with or without .npy; several members need one', () => {
  const induction = readFileSync(join(REAL, 'gpt2-small_L5H5_induction_random-repeated', 'attention.npy'));
  const scores = readFileSync(join(T5_SCORES, 'scores.npy'));
  const file = tmpFile(
    'run.npz',
    Buffer.from(
      zipSync({
        'patterns.npy': [new Uint8Array(induction), { level: 6 }], // deflated
        'scores.npy': [new Uint8Array(scores), { level: 0 }], // stored
      }),
    ),
  );
  const none = analyze([file]);
  assert.equal(none.status, 64);
  assert.match(none.stderr, /holds 2 arrays \(patterns, scores\): pick one with --array NAME/);
  const fromNpz = analyzeJson([file, '--array', 'patterns']);
  assert.equal(fromNpz.format, 'npz');
  assert.equal(fromNpz.array, 'patterns');
  assert.deepEqual(fromNpz.shape, [1, 1, 40, 40]);
  const fromNpy = analyzeJson([join(REAL, 'gpt2-small_L5H5_induction_random-repeated', 'attention.npy')]);
  assert.deepEqual(fromNpz.heads, fromNpy.heads);
  assert.equal(analyze([file, '--array', 'scores.npy']).status, 3);
  const logits = analyzeJson([file, '--array', 'scores', '--read', 'logits', '--layers', '0', '--heads', '7']);
  assert.deepEqual(
    logits.heads.map((h) => h.head),
    [7],
  );
  const missing = analyze([file, '--array', 'weights']);
  assert.equal(missing.status, 64);
  assert.match(missing.stderr, /no such member; it holds patterns, scores/);
  // One member: no --array needed.
  const single = tmpFile('single.npz', Buffer.from(zipSync({ 'arr_0.npy': new Uint8Array(induction) })));
  assert.deepEqual(analyzeJson([single]).heads, fromNpy.heads);
  assert.equal(analyze([tmpFile('broken.npz', Buffer.from('PK\x03\x04 truncated'))]).status, 2);
});

test('float16 and float64 .npy, versions 1 and 2, read like float32', () => {
  const dir = join(REAL, 'gpt2-small_L5H5_induction_random-repeated');
  const values = JSON.parse(readFileSync(join(dir, 'attention.json'), 'utf8')).attention[0][0].flat();
  const f32 = analyzeJson([join(dir, 'attention.npy')]).heads[0];
  const f64 = analyzeJson([tmpFile('l5h5-f64.npy', npy([40, 40], values, { descr: '<f8', version: 2 }))]);
  assert.equal(f64.dtype, 'float64');
  // The JSON numbers are float32 values written as doubles: float64 reads back the same float32s.
  assert.deepEqual(f64.heads[0], f32);
  const f16 = analyzeJson([tmpFile('l5h5-f16.npy', npy([1, 1, 40, 40], values, { descr: '<f2' }))]);
  assert.equal(f16.dtype, 'float16');
  const h = f16.heads[0];
  assert.ok(['probabilities', 'probabilities_warn'].includes(h.verdict), h.verdict);
  assert.ok(h.check.maxRowSumError < 1e-2, String(h.check.maxRowSumError));
  assert.ok(Math.abs(h.summary.meanEntropy - f32.summary.meanEntropy) < 1e-2);
  assert.equal(h.pattern.kind, f32.pattern.kind);
});

test('a 151 MB [12, 12, 512, 512] float32 file is analysed a head at a time', () => {
  const n = 512;
  const path = join(TMP, 'big.npy');
  // Two causal heads, alternating: half on key 0 and half on the previous key; uniform.
  const previous = new Float32Array(n * n);
  const uniform = new Float32Array(n * n);
  for (let t = 0; t < n; t++) {
    previous[t * n] += t < 2 ? 1 : 0.5;
    if (t >= 2) previous[t * n + t - 1] = 0.5;
    for (let j = 0; j <= t; j++) uniform[t * n + j] = 1 / (t + 1);
  }
  const started = Date.now();
  const fd = openSync(path, 'w');
  writeSync(fd, npyHeader([12, 12, n, n]));
  for (let i = 0; i < 144; i++) writeSync(fd, i % 2 ? uniform : previous);
  closeSync(fd);
  const written = Date.now();
  try {
    const run = analyze([path, '--stats']);
    const analysed = Date.now();
    assert.equal(run.status, 0, run.stderr);
    const doc = JSON.parse(run.stdout);
    assert.equal(doc.heads.length, 144);
    assert.deepEqual(doc.shape, [12, 12, n, n]);
    assert.ok(doc.heads.every((h) => h.verdict === 'probabilities'));
    assert.deepEqual(doc.heads[13], { ...doc.heads[1], layer: 1, layerIndex: 1, head: 1 });
    const rss = Number(/attn: peak RSS (\d+) KiB/.exec(run.stderr)?.[1]);
    assert.ok(rss > 0, run.stderr);
    assert.ok(rss < 64 * 1024, `peak RSS ${rss} KiB`);
    console.log(`# 151 MB file: written in ${written - started} ms, analysed in ${analysed - written} ms, peak RSS ${rss} KiB`);
  } finally {
    rmSync(path, { force: true });
  }
});

test('--threads 1, 2 and 3 print byte-identical JSON and CSV (warnings and a broken head included)', () => {
  // 7 heads of 48 x 48: softmax rows of seeded logits, one head whose rows sum to 1.0005 (a
  // warning), one holding a NaN (invalid: its message and the exit status 2 must not depend on
  // which thread saw it first), one uniform causal head (ties in every row's support).
  const H = 7;
  const n = 48;
  const values = new Float32Array(H * n * n);
  let seed = 20261202;
  const rand = () => {
    seed = (seed * 1664525 + 1013904223) >>> 0;
    return seed / 2 ** 32;
  };
  const uniform = uniformCausal(n);
  for (let h = 0; h < H; h++) {
    for (let t = 0; t < n; t++) {
      const row = values.subarray((h * n + t) * n, (h * n + t + 1) * n);
      if (h === 5) {
        row.set(uniform.subarray(t * n, (t + 1) * n));
        continue;
      }
      let z = 0;
      for (let j = 0; j <= t; j++) z += row[j] = Math.exp(4 * rand());
      for (let j = 0; j <= t; j++) row[j] /= h === 2 ? z / 1.0005 : z;
    }
  }
  values[(4 * n + 7) * n + 3] = NaN;
  const file = join(TMP, 'threads.npy');
  writeFileSync(file, npy([H, n, n], values));
  for (const extra of [[], ['--rows'], ['--format', 'csv'], ['--format', 'csv', '--rows', '--causal']]) {
    const runs = [1, 2, 3].map((t) => analyze([file, '--threads', String(t), ...extra]));
    assert.equal(runs[0].status, 2, runs[0].stderr);
    assert.ok(runs[0].stdout.split('\n').length > 8, runs[0].stdout + runs[0].stderr);
    for (const run of runs.slice(1)) {
      assert.equal(run.status, runs[0].status);
      assert.equal(run.stdout, runs[0].stdout, `stdout of ${extra.join(' ')} differs with more threads`);
      assert.equal(run.stderr, runs[0].stderr);
    }
  }
  assert.equal(analyze([file, '--threads', '0']).status, 64);
});
