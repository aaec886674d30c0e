// The page's importer (web/import/readers.js, source-heads.js and summary.js over the WebAssembly core) on the bundled real attention
// and on synthetic files written by tests/node/npy.js: formats, verdicts and messages, and the same
// numbers as the native CLI (`attn analyze`) and as an independent double-precision computation.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, openAsBlob, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadCore, AttentionError } from '../../web/core/core.js';
import { IMPORT_LIMITS, openSource, readTokens } from '../../web/import/readers.js';
import { READ_BYTES, analyzeAll, analyzeSourceHead, headValues, headsPerRead, readHeads } from '../../web/import/source-heads.js';
import { summarise } from '../../web/import/summary.js';
import { npy, npz, uniformCausal } from './npy.js';
import { assertClose as closeTo } from './tolerance.js';

const CLI = fileURLToPath(new URL('../../build/native/attn', import.meta.url));
const REAL = new URL('../../web/data/real/', import.meta.url);
const SETS = readdirSync(REAL, { withFileTypes: true })
  .filter((d) => d.isDirectory() && !d.name.startsWith('NOT_'))
  .map((d) => d.name);
const NOT_PROB = new URL('NOT_PROBABILITIES_t5-small_decoder_L0_raw-scores/', REAL);
let core;

before(async () => {
  core = await loadCore();
});

const blobOf = (bytes) => new Blob([bytes]);
const fileOf = (url) => openAsBlob(fileURLToPath(url));

const assertClose = (a, b, path = 'results', tol = 1e-9) => closeTo(a, b, path, tol);

/** Mean entropy and mean sink mass of a head in double precision, straight from the nested JSON
 *  rows: each row renormalised over its entries > 0, 0 ln 0 = 0 (MATH.md). */
function independentMeans(rows) {
  let h = 0;
  let sink = 0;
  let n = 0;
  for (const row of rows) {
    const sum = row.reduce((a, b) => a + b, 0);
    if (sum === 0) continue;
    let e = 0;
    for (const x of row) if (x > 0) e -= (x / sum) * Math.log(x / sum);
    h += e;
    sink += row[0] / sum;
    n += 1;
  }
  return { meanEntropy: h / n, meanSinkMass: sink / n };
}

for (const set of SETS) {
  test(`${set}: .npy and JSON import to the same tensor, tokens and metrics`, async () => {
    const fromNpy = await openSource(core, await fileOf(new URL(`${set}/attention.npy`, REAL)), { name: 'attention.npy' });
    const fromJson = await openSource(core, await fileOf(new URL(`${set}/attention.json`, REAL)), { name: 'attention.json' });
    const doc = JSON.parse(readFileSync(new URL(`${set}/attention.json`, REAL), 'utf8'));
    const tokens = JSON.parse(readFileSync(new URL(`${set}/tokens.json`, REAL), 'utf8'));
    assert.equal(fromNpy.dtype, 'float32');
    assert.deepEqual(fromNpy.layout, fromJson.layout);
    assert.deepEqual(fromJson.keyTokens, tokens);
    const withTokens = await readTokens(core, await fileOf(new URL(`${set}/tokens.json`, REAL)), fromNpy);
    assert.deepEqual(withTokens.queryTokens, tokens);
    const a = await analyzeAll(core, fromNpy, { thumbnail: 8 });
    const b = await analyzeAll(core, fromJson, { thumbnail: 8 });
    assert.equal(a.length, fromNpy.layout.layers * fromNpy.layout.heads);
    for (let i = 0; i < a.length; i++) {
      assert.equal(a[i].verdict, 'probabilities', `head ${i}`);
      assert.ok(a[i].computed);
      assertClose(a[i].summary, b[i].summary, `head ${i}`, 0);
      assert.deepEqual(a[i].pattern, b[i].pattern);
      // Independent check of two metrics on the JSON numbers (float32 data, double maths).
      const heads = doc.attention.flat(Math.max(0, depth(doc.attention) - 3));
      const ref = independentMeans(heads[i]);
      assertClose(a[i].summary.meanEntropy, ref.meanEntropy, `head ${i} mean entropy`, 1e-5);
      assertClose(a[i].summary.meanSinkMass, ref.meanSinkMass, `head ${i} mean sink mass`, 1e-5);
    }
    // The values of a head come back exactly as stored.
    const v = await headValues(core, fromNpy, 0);
    const heads = doc.attention.flat(Math.max(0, depth(doc.attention) - 3));
    assert.deepEqual(Array.from(v), heads[0].flat().map(Math.fround));
  });

  test(`${set}: the page's numbers equal the CLI's (attn analyze)`, async () => {
    const run = spawnSync(CLI, ['analyze', fileURLToPath(new URL(`${set}/attention.npy`, REAL)), '--format', 'json'], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    const cli = JSON.parse(run.stdout);
    const page = await analyzeAll(core, await openSource(core, await fileOf(new URL(`${set}/attention.npy`, REAL))), { thumbnail: 8 });
    assert.equal(cli.heads.length, page.length);
    const num = (x) => (x === null ? NaN : x);
    for (let i = 0; i < page.length; i++) {
      const c = cli.heads[i];
      assert.equal(c.layer, page[i].layer);
      assert.equal(c.head, page[i].head);
      assert.equal(c.verdict, page[i].verdict);
      // Same C++ compiled twice (g++ with AVX2/SSE kernels, Emscripten): float32 rounding apart.
      for (const k of Object.keys(page[i].summary)) assertClose(num(c.summary[k]), page[i].summary[k], `head ${i} ${k}`, 1e-6);
      assert.equal(c.pattern.kind, page[i].pattern.kind, `head ${i} pattern`);
      assert.equal(c.pattern.parameter, page[i].pattern.parameter, `head ${i} pattern parameter`);
      assertClose(c.pattern.confidence, page[i].pattern.confidence, `head ${i} confidence`, 1e-6);
    }
  });
}

function depth(x) {
  return Array.isArray(x) ? 1 + depth(x[0]) : 0;
}

test('float16, float64 and float32 files of the same weights give the same verdicts and metrics', async () => {
  // Weights exactly representable in float16 (multiples of 2^-10), so the three files hold the
  // same numbers and must give identical results.
  const n = 6;
  const a = uniformCausal(n).map((x) => Math.round(x * 1024) / 1024);
  const results = {};
  for (const descr of ['<f2', '<f4', '<f8']) {
    const src = await openSource(core, blobOf(npy([1, n, n], a, { descr })), { name: `w${descr}.npy` });
    assert.equal(src.dtype, { '<f2': 'float16', '<f4': 'float32', '<f8': 'float64' }[descr]);
    assert.deepEqual(src.layout, { layers: 1, heads: 1, nQ: n, nK: n });
    results[descr] = (await analyzeAll(core, src))[0];
  }
  // Rounding 1/3, 1/6 ... to 2^-10 leaves row sums off by up to ~1e-3: accepted with a warning.
  assert.equal(results['<f2'].verdict, 'probabilities_warn');
  assert.deepEqual(results['<f2'].summary, results['<f4'].summary);
  assert.deepEqual(results['<f8'].summary, results['<f4'].summary);
  const s = summarise([results['<f2']], {});
  assert.equal(s.errors.length, 0);
  assert.match(s.warnings[0], /^1 head has rows summing to 1 only within .*Accepted/);
});

test('heads read a few at a time (readHeads) are the heads read one by one; float32 analysed in place equals converted', async () => {
  // [2, 3, n, n] float32, a different banded causal profile per head.
  const n = 24;
  const heads = 6;
  const values = [];
  for (let i = 0; i < heads; i++) {
    for (let t = 0; t < n; t++) {
      const lo = Math.max(0, t - 1 - i);
      for (let j = 0; j < n; j++) values.push(j >= lo && j <= t ? 1 / (t - lo + 1) : 0);
    }
  }
  const src = await openSource(core, blobOf(npy([2, 3, n, n], values)), { name: 'six.npy' });
  assert.equal(headsPerRead(src.headBytes), Math.floor(READ_BYTES / (n * n * 4)));
  assert.equal(headsPerRead(READ_BYTES * 2), 1, 'a head larger than a read is read alone');
  const one = [];
  for (let i = 0; i < heads; i++) one.push(await analyzeSourceHead(core, src, i, { thumbnail: 8 }));
  // Any list of indices, runs and gaps, in the order given: each head's bytes are its own.
  for (const list of [
    [0, 1, 2, 3, 4, 5],
    [5, 0, 2, 3, 1],
    [1, 3, 5],
  ]) {
    const got = [];
    for await (const { index, bytes } of readHeads(src, list)) {
      got.push(index);
      assert.equal(bytes.length, src.headBytes);
    }
    assert.deepEqual(got, list);
    const all = await analyzeAll(core, src, { thumbnail: 8 }, () => {}, list);
    assert.deepEqual(
      all.map((r) => [r.index, r.summary, r.pattern, [...r.thumbnail]]),
      list.map((i) => [i, one[i].summary, one[i].pattern, [...one[i].thumbnail]]),
    );
  }
  // The binding reads an aligned float32 head where it lies and converts an unaligned one: the
  // same numbers either way.
  const bytes = new Uint8Array(await src.blob.slice(src.dataOffset, src.dataOffset + src.headBytes).arrayBuffer());
  const ptr = core.alloc(bytes.length + 4);
  try {
    const spec = { reading: 'weights', causal: false, topK: 2, sinkKeys: 1, delta: 0.1, thumbnail: 8, dtype: 'float32', nQ: n, nK: n };
    core.writeU8(ptr, bytes);
    const aligned = core.analyzeHead({ ...spec, ptr });
    core.writeU8(ptr + 1, bytes);
    const unaligned = core.analyzeHead({ ...spec, ptr: ptr + 1 });
    assert.deepEqual(unaligned.summary, aligned.summary);
    assert.deepEqual(unaligned.summary, one[0].summary);
    assert.deepEqual([...unaligned.thumbnail], [...aligned.thumbnail]);
  } finally {
    core.free(ptr);
  }
});

test('every accepted shape maps to layers x heads x queries x keys; version 2 headers too', async () => {
  const cases = [
    [[4, 4], { layers: 1, heads: 1, nQ: 4, nK: 4 }],
    [[3, 4, 4], { layers: 1, heads: 3, nQ: 4, nK: 4 }],
    [[2, 3, 4, 4], { layers: 2, heads: 3, nQ: 4, nK: 4 }],
    [[1, 2, 3, 4, 4], { layers: 2, heads: 3, nQ: 4, nK: 4 }],
    [[1, 3, 2, 5], { layers: 1, heads: 3, nQ: 2, nK: 5 }],
  ];
  for (const [shape, layout] of cases) {
    const count = shape.reduce((x, y) => x * y, 1);
    for (const version of [1, 2]) {
      const src = await openSource(core, blobOf(npy(shape, new Float32Array(count).fill(1 / shape.at(-1)), { version })));
      assert.deepEqual(src.layout, layout, `${shape} v${version}`);
    }
  }
});

test('bad .npy files are refused with a message that says why', async () => {
  const ok = npy([2, 2], [1, 0, 0.5, 0.5]);
  const cases = [
    [npy([2, 2], [1, 0, 0.5, 0.5], { fortran: true }), /Fortran/i],
    [npy([2, 2], [1, 0, 0.5, 0.5], { descr: '>f4' }), /big-endian/i],
    [npy([2, 2], [1, 0, 0.5, 0.5], { descr: '<i8' }), /<i8/],
    [npy([2, 2], [1, 0, 0.5, 0.5], { descr: '|O' }), /\|O/],
    [npy([2, 2, 2, 2], new Float32Array(16), { dict: "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 1, 2, 2, 2), }" }), /batch/i],
    [ok.subarray(0, 9), /truncated/i],
    [ok.subarray(0, 40), /truncated/i],
    [ok.subarray(0, ok.length - 3), /truncated/i],
  ];
  for (const [bytes, message] of cases) {
    await assert.rejects(
      openSource(core, blobOf(bytes), { name: 'bad.npy' }),
      (e) => e instanceof AttentionError && message.test(e.message),
      String(message),
    );
  }
});

test("the importer's error message is English in any page language; its bundle holds its own strings only", async () => {
  // The message is the importer's English template (web/i18n/import.js) beside the key, not the
  // page's t(): in the release a Chinese page loads only the Chinese strings.
  const { setLang, getLang } = await import('../../web/i18n/i18n.js');
  const was = getLang();
  await setLang('zh-CN');
  try {
    await assert.rejects(openSource(core, blobOf(new TextEncoder().encode('not numpy')), { name: 'bad.npy' }), (e) => {
      assert.equal(e.message, 'bad.npy is not a .npy file: it does not start with the magic bytes \\x93NUMPY');
      assert.equal(e.i18n.key, 'import.err.notNpy');
      return true;
    });
    // summarise() words its verdicts in the language asked for (the page's), English by default.
    const invalid = [{ verdict: 'invalid', layer: 0, head: 0, check: { nonfinite: 2, firstNonfiniteRow: 1, firstNonfiniteCol: 0 } }];
    assert.match(summarise(invalid).errors[0], /^[\x20-\x7e]+$/, 'English by default');
    assert.match(summarise(invalid, { lang: 'zh-CN' }).errors[0], /[\u4e00-\u9fff]/, 'Chinese when asked');
  } finally {
    await setLang(was);
  }
  // The import worker's bundle: the import table and the filler, none of the page's other tables.
  const { build } = await import('esbuild');
  const bundled = await build({
    entryPoints: [fileURLToPath(new URL('../../web/import/import-worker.js', import.meta.url))],
    bundle: true,
    format: 'esm',
    write: false,
    metafile: true,
    logLevel: 'silent',
    external: ['node:*'],
    outdir: tmpdir(),
  });
  const strings = Object.keys(bundled.metafile.inputs).filter((p) => /i18n/.test(p));
  assert.deepEqual(strings.sort(), ['web/i18n/fill.js', 'web/i18n/import.js']);
});

test('a .npz with two arrays asks which one; the chosen member is read', async () => {
  const n = 5;
  const weights = uniformCausal(n);
  const scores = new Float32Array(n * n).fill(-3.4028234663852886e38).map((x, i) => (i % n <= Math.floor(i / n) ? i % 3 : x));
  for (const compress of [true, false]) {
    const bytes = npz({ patterns: npy([1, 1, n, n], weights, { descr: '<f8' }), scores: npy([1, 1, n, n], scores) }, { compress });
    const listing = await openSource(core, blobOf(bytes), { name: 'run.npz' });
    assert.equal(listing.needsMember, true);
    assert.deepEqual(listing.members.map((m) => m.name).sort(), ['patterns', 'scores']);
    const src = await openSource(core, blobOf(bytes), { name: 'run.npz', member: 'patterns' });
    assert.equal(src.member, 'patterns');
    assert.equal(src.dtype, 'float64');
    const [r] = await analyzeAll(core, src);
    assert.equal(r.verdict, 'probabilities');
    // Uniform causal rows: H_t = ln(t + 1) exactly.
    const mean = [0, 1, 2, 3, 4].reduce((acc, t) => acc + Math.log(t + 1), 0) / n;
    assertClose(r.summary.meanEntropy, mean, 'uniform causal mean entropy', 1e-6);
    await assert.rejects(openSource(core, blobOf(bytes), { member: 'nope' }), /no array named "nope"/);
  }
});

test("finite mask fills (-1e9, -65504, -1e4) are named as mask fills, with the CLI's count, not as values <= -1e30", async () => {
  // Causal scores (logits) of 3 heads x 6 x 6, the cells above the diagonal filled with one of
  // the finite fills; the scores below it are in [-2, 2], a few of them negative.
  const [H, n] = [3, 6];
  const fills = [-1e9, -65504, -1e4];
  const values = new Float64Array(H * n * n);
  for (let h = 0; h < H; h++)
    for (let t = 0; t < n; t++)
      for (let j = 0; j < n; j++) values[(h * n + t) * n + j] = j > t ? fills[h] : Math.sin(1 + h + 3 * t + j) * 2;
  let negativeScores = 0; // head 0's negative scores that are not fills
  for (let t = 0; t < n; t++) for (let j = 0; j <= t; j++) negativeScores += Math.sin(1 + 3 * t + j) * 2 < 0 ? 1 : 0;
  const bytes = npy([1, H, n, n], values);
  const src = await openSource(core, blobOf(bytes), { name: 'fills.npy' });
  const s = summarise(await analyzeAll(core, src), {});
  const fillCount = (n * (n - 1)) / 2; // 15 cells above the diagonal
  assert.match(
    s.errors[0],
    new RegExp(
      `^3 of 3 heads are not probabilities \\(L0 H0: ${fillCount} entries are a mask fill \\(-1e4, -65504, -1e9 or ≤ -1e30: masked keys of logits\\), ${negativeScores} negative values`,
    ),
  );
  assert.doesNotMatch(s.errors[0], /values ≤/);
  // The CLI says the same of the same head.
  const dir = mkdtempSync(join(tmpdir(), 'attn-fills-'));
  try {
    writeFileSync(join(dir, 'fills.npy'), bytes);
    const run = spawnSync(CLI, ['analyze', join(dir, 'fills.npy')], { encoding: 'utf8' });
    assert.equal(run.status, 3, run.stderr);
    assert.match(
      run.stderr,
      new RegExp(
        `layer 0, head 0: ${fillCount} entries are a mask fill \\(-1e4, -65504, -1e9 or <= -1e30: masked keys of logits\\), ${negativeScores} negative entries`,
      ),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('real scores with a -FLT_MAX fill are recognised as not probabilities and read as logits', async () => {
  const src = await openSource(core, await fileOf(new URL('scores.npy', NOT_PROB)), { name: 'scores.npy' });
  assert.deepEqual(src.layout, { layers: 1, heads: 8, nQ: 11, nK: 11 });
  const asWeights = await analyzeAll(core, src);
  assert.ok(asWeights.every((r) => r.verdict === 'not_probabilities' && !r.computed));
  const s = summarise(asWeights, {});
  assert.equal(s.offerLogits, true);
  assert.match(s.errors[0], /8 of 8 heads are not probabilities \(L0 H0: 55 entries are a mask fill \(-1e4, -65504, -1e9 or ≤ -1e30/);
  const asLogits = await analyzeAll(core, src, { reading: 'logits' }, () => {}, null);
  for (const r of asLogits) {
    assert.ok(r.computed);
    assert.equal(r.check.fill, 55, 'the 55 cells above the diagonal are the fill');
    assert.equal(r.summary.emptyRows, 0);
  }
  // Row 0 sees only key 0 (the fill masks the rest): its sink mass is 1, so the mean over 11 rows
  // is at least 1/11.
  const [first] = await analyzeAll(core, src, { reading: 'logits', wantRows: true }, () => {}, [0]);
  assert.equal(first.rows.visible[0], 1);
  assert.equal(first.rows.visible[10], 11);
  assert.equal(first.rows.sinkMass[0], 1);
});

test('NaN and Inf are located by layer, head, query and key; the other heads are analysed', async () => {
  const n = 4;
  const a = new Float32Array(2 * 2 * n * n);
  for (let h = 0; h < 4; h++) a.set(uniformCausal(n), h * n * n);
  a[3 * n * n + 2 * n + 1] = NaN; // layer 1, head 1, query 2, key 1
  const results = await analyzeAll(core, await openSource(core, blobOf(npy([2, 2, n, n], a))));
  assert.deepEqual(
    results.map((r) => r.verdict),
    ['probabilities', 'probabilities', 'probabilities', 'invalid'],
  );
  const s = summarise(results, {});
  assert.match(s.errors[0], /^L1 H1: 1 NaN\/Inf value, the first at query 2, key 1$/);
});

test('weight above the diagonal is flagged when the user says the model is causal', async () => {
  const n = 4;
  const a = uniformCausal(n);
  a[1 * n + 1] = 0.25;
  a[1 * n + 0] = 0.25;
  a[1 * n + 3] = 0.5; // row 1 puts 0.5 on key 3
  const results = await analyzeAll(core, await openSource(core, blobOf(npy([n, n], a))), { causal: true });
  assert.equal(results[0].check.rowsAboveDiagonal, 1);
  assert.equal(results[0].check.firstRowAboveDiagonal, 1);
  // The flagged heads come from the core's structure summary, with the head's above-diagonal
  // mass: row 1 puts 0.5 above, the other 3 rows nothing: 0.5 / 4.
  const structure = core.structureSummary(results, true, 'weights');
  const s = summarise(results, { causal: true, structure });
  assert.match(s.warnings[0], /causal, but 1 heads.*L0 H0 \(mass 0\.125, 1 rows from query 1, up to 0\.5\)/);
  const detected = core.structureSummary(results, false, 'weights');
  assert.equal(detected.structure, 'bidirectional');
  assert.equal(summarise(results, { causal: false, structure: detected }).warnings.length, 0);
});

test('JSON: CircuitsVis and BertViz documents, token count errors, playground states', async () => {
  const n = 3;
  const rows = [
    [1, 0, 0],
    [0.5, 0.5, 0],
    [0.25, 0.25, 0.5],
  ];
  const cv = await openSource(core, blobOf(JSON.stringify({ tokens: ['<|endoftext|>', 'a', '</s>'], attention: [rows, rows] })));
  assert.equal(cv.format, 'circuitsvis');
  assert.deepEqual(cv.layout, { layers: 1, heads: 2, nQ: n, nK: n });
  assert.deepEqual(cv.keyTokens, ['<|endoftext|>', 'a', '</s>']);
  const bv = await openSource(
    core,
    blobOf(JSON.stringify({ all: { attn: [[rows], [rows]], left_text: ['a', 'b', 'c'], right_text: ['a', 'b', 'c'] } })),
  );
  assert.equal(bv.format, 'bertviz');
  assert.deepEqual(bv.layout, { layers: 2, heads: 1, nQ: n, nK: n });
  await assert.rejects(
    openSource(core, blobOf(JSON.stringify({ tokens: ['a', 'b'], attention: [rows] }))),
    (e) => e.code === 'shape_mismatch' && /2 tokens for a tensor with 3 keys/.test(e.message),
  );
  await assert.rejects(
    openSource(core, blobOf('{"tokens": ["a"], "attention": [[1, 0], [0.5]]}')),
    (e) => e instanceof AttentionError && /attention\[1\]/.test(e.message),
  );
  const state = await openSource(core, blobOf(JSON.stringify({ version: 1, heads: [] })), { name: 's.json' });
  assert.equal(state.kind, 'state');
  await assert.rejects(openSource(core, blobOf('not json at all')), (e) => e.code === 'bad_file');
  await assert.rejects(openSource(core, blobOf('')), /empty/);
});

test('a token file must match the tensor: 12 tokens for 16 keys is an error naming both', async () => {
  const src = await openSource(core, blobOf(npy([16, 16], uniformCausal(16))));
  const twelve = Array.from({ length: 12 }, (_, i) => `t${i}`);
  await assert.rejects(
    readTokens(core, blobOf(JSON.stringify(twelve)), src),
    (e) => e.code === 'shape_mismatch' && e.message === '12 tokens for a tensor with 16 keys',
  );
  const lines = Array.from({ length: 16 }, (_, i) => (i === 3 ? '"><img src=x onerror=alert(1)>' : `tok ${i}`)).join('\n') + '\n';
  const t = await readTokens(core, blobOf(lines), src);
  assert.equal(t.keyTokens.length, 16);
  assert.equal(t.keyTokens[3], '"><img src=x onerror=alert(1)>');
});

test('files beyond the page limits are refused with the limit in the message', async () => {
  const fake = (bytes, size) => ({
    size,
    slice: (a, b) => new Blob([bytes.subarray(a, b)]),
    text: async () => '',
    arrayBuffer: async () => bytes.buffer,
  });
  const zip = npz({ a: npy([2, 2], [1, 0, 0, 1]) });
  await assert.rejects(
    openSource(core, fake(zip, IMPORT_LIMITS.npzBytes + 1), { name: 'big.npz' }),
    (e) => e.code === 'too_large' && /big\.npz is 512 MiB; the page reads at most 512 MiB/.test(e.message),
  );
  await assert.rejects(
    openSource(core, fake(new TextEncoder().encode('{"a": 1}'), IMPORT_LIMITS.jsonBytes + 1)),
    (e) => e.code === 'too_large' && /at most 64 MiB/.test(e.message),
  );
  // One head larger than the page analyses: refused from the header alone.
  const header = npy([1], [0], { dict: "{'descr': '<f4', 'fortran_order': False, 'shape': (9000, 9000), }" });
  await assert.rejects(
    openSource(core, fake(header, header.length + 9000 * 9000 * 4)),
    (e) => e.code === 'too_large' && /9000 × 9000/.test(e.message),
  );
});
