// The one table of row metrics (cpp/include/attn/metrics.def) reaches every consumer alike: the
// results JSON, the typed arrays of computeHead, attn analyze's JSON and CSV, attn compare, the
// string tables and docs/metrics.md. A metric added to the table and missing anywhere fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { HEAD_METRICS, HEAD_SCORES, PATTERN_KINDS, ROW_METRICS } from './metrics.js';
import { loadCore } from '../../web/core/core.js';
import { defaultState } from '../../web/core/state-schema.js';
import { TABLES } from '../../web/i18n/index.js';
import { metricsDoc } from '../../scripts/metrics-doc.js';

const core = await loadCore();
const CLI = fileURLToPath(new URL('../../build/native/attn', import.meta.url));
const NPY = fileURLToPath(new URL('../../web/data/real/gpt2-small_L0_nlp-sentence/attention.npy', import.meta.url));
const KEYS = ROW_METRICS.map((m) => m.key);

/** A state of one 3 x 3 logits head (V = key position) with the given mask. */
const logitsState = (logits, mask) => ({
  ...defaultState(),
  mode: 'logits',
  heads: [{ name: 'h', Q: null, K: null, V: [[1], [2], [3]], logits, weights: null }],
  tokens: { queries: ['a', 'b', 'c'], keys: ['a', 'b', 'c'] },
  mask,
  row: 0,
});

test('the table is not empty, its keys and columns are unique, head means are named from the key', () => {
  assert.ok(ROW_METRICS.length >= 8);
  assert.equal(new Set(KEYS).size, KEYS.length);
  assert.equal(new Set(ROW_METRICS.map((m) => m.csv)).size, KEYS.length);
  for (const m of HEAD_METRICS) {
    assert.equal(m.head.key, `mean${m.key[0].toUpperCase()}${m.key.slice(1)}`);
    assert.equal(m.head.csv, `mean_${m.csv}`);
  }
  for (const m of ROW_METRICS) assert.ok(['nats', 'keys', 'none'].includes(m.unit), `${m.key}: unit ${m.unit}`);
});

test('every metric has its name, help and short label in both languages', () => {
  const app = TABLES[0];
  for (const lang of ['en', 'zh-CN'])
    for (const m of ROW_METRICS)
      for (const suffix of ['', 'Help', 'Short'])
        assert.ok(app[lang][`app.metric.${m.key}${suffix}`], `${lang}: app.metric.${m.key}${suffix}`);
});

test('docs/metrics.md is the table as scripts/metrics-doc.js writes it', () => {
  const doc = readFileSync(new URL('../../docs/metrics.md', import.meta.url), 'utf8');
  assert.equal(doc, metricsDoc(), 'docs/metrics.md is stale: run npm run docs:metrics');
  for (const m of ROW_METRICS) assert.ok(doc.includes(`| \`${m.key}\` |`), m.key);
});

test('the results JSON, computeHead and mergeHeadRows carry every metric, empty rows as the table says', () => {
  // Row 1 sees no key (allow matrix): an empty row.
  const state = logitsState(
    [
      [1, 2, 0],
      [0, 0, 0],
      [3, 1, 2],
    ],
    {
      causal: false,
      window: 0,
      padding: [false, false, false],
      allow: [
        [true, true, true],
        [false, false, false],
        [true, true, true],
      ],
    },
  );
  const r = core.compute(state);
  for (const row of r.rows) assert.deepEqual(Object.keys(row).sort(), ['empty', ...KEYS].sort());
  const empty = r.rows[1];
  assert.equal(empty.empty, true);
  for (const m of ROW_METRICS) assert.equal(empty[m.key], m.emptyUndefined ? null : 0, m.key);
  for (const m of HEAD_METRICS) assert.ok(Number.isFinite(r.summary[m.head.key]), m.head.key);

  const n = 4;
  const ptr = core.alloc(n * n * 4);
  try {
    core.writeF32(ptr, new Float32Array(Array.from({ length: n * n }, (_, i) => Math.sin(i) * 2)));
    const spec = { mode: 'logits', nQ: n, nK: n, given: ptr, tau: 1, topK: 2, causal: true, overview: 4 };
    const whole = core.computeHead(spec);
    for (const m of ROW_METRICS) assert.equal(whole.rows[m.key].length, n, m.key);
    const parts = [core.mod.computeHeadRows(spec, 0, 2), core.mod.computeHeadRows(spec, 2, 4)];
    const merged = core.mod.mergeHeadRows(spec, parts);
    for (const key of [...KEYS, 'empty']) assert.deepEqual(Array.from(merged.rows[key]), Array.from(whole.rows[key]), key);
    // A part without one metric is refused, not filled with zeros.
    const rest = { ...parts[1].rows };
    delete rest[KEYS[0]];
    assert.equal(core.mod.mergeHeadRows(spec, [parts[0], { ...parts[1], rows: rest }]).error.code, 'invalid_value');
  } finally {
    core.free(ptr);
  }
});

test('attn analyze --rows (JSON and CSV) and attn compare (JSON and CSV) carry every metric', () => {
  const json = spawnSync(CLI, ['analyze', NPY, '--rows', '--heads', '0'], { encoding: 'utf8', maxBuffer: 1 << 26 });
  assert.equal(json.status, 0, json.stderr);
  const head = JSON.parse(json.stdout).heads[0];
  assert.deepEqual(Object.keys(head.rows).sort(), ['empty', ...KEYS].sort());
  assert.deepEqual(Object.keys(head.summary).sort(), ['emptyRows', 'rows', ...HEAD_METRICS.map((m) => m.head.key)].sort());
  assert.deepEqual(
    Object.keys(head.fieldScores),
    HEAD_SCORES.map((x) => x.key),
  );
  assert.ok(PATTERN_KINDS.includes(head.pattern.kind));
  assert.deepEqual(
    Object.keys(head.pattern.scores).filter((k) => PATTERN_KINDS.includes(k)),
    PATTERN_KINDS,
  );
  const csv = spawnSync(CLI, ['analyze', NPY, '--rows', '--heads', '0', '--format', 'csv'], { encoding: 'utf8' });
  assert.equal(csv.stdout.split('\n')[0], ['layer', 'head', 'row', 'query_token', 'empty', ...ROW_METRICS.map((m) => m.csv)].join(','));

  const cmp = spawnSync(CLI, ['compare', NPY, NPY], { encoding: 'utf8', maxBuffer: 1 << 26 });
  assert.equal(cmp.status, 0, cmp.stderr);
  const c = JSON.parse(cmp.stdout).heads[0];
  for (const m of HEAD_METRICS) {
    assert.equal(c.delta[m.head.key], 0, `delta ${m.head.key}`);
    assert.equal(c.a[m.head.key], head.summary[m.head.key], `a ${m.head.key}`);
  }
  const cmpCsv = spawnSync(CLI, ['compare', NPY, NPY, '--format', 'csv'], { encoding: 'utf8' });
  const header = cmpCsv.stdout.split('\n')[0].split(',');
  for (const m of HEAD_METRICS) for (const s of [`${m.csv}_a`, `${m.csv}_b`, `delta_${m.csv}`]) assert.ok(header.includes(s), s);
});

test('max weight: the largest weight of each row, and its mean over the non-empty rows', () => {
  // Independent of the core's metric: the largest of the weights it returns, and MATH.md's
  // worked example 1 (logits [1, 0]: e / (e + 1)).
  const state = logitsState(
    [
      [1, 0, 0],
      [0.5, 2, -1],
      [3, 1, 2],
    ],
    { causal: true, window: 0, padding: [false, false, false], allow: null },
  );
  const r = core.compute(state);
  r.rows.forEach((row, t) => assert.equal(row.maxWeight, Math.max(...r.weights[t]), `row ${t}`));
  assert.equal(r.rows[0].maxWeight, 1); // row 0 of a causal head sees one key
  assert.ok(Math.abs(r.rows[1].maxWeight - 1 / (1 + Math.exp(-1.5))) < 1e-7);
  const mean = r.rows.reduce((s, row) => s + row.maxWeight, 0) / 3;
  assert.ok(Math.abs(r.summary.meanMaxWeight - mean) < 1e-15);
  state.mask.causal = false;
  state.heads[0].logits = [[1, 0]];
  state.heads[0].V = [[1], [2]];
  state.tokens = { queries: ['a'], keys: ['a', 'b'] };
  state.mask.padding = [false, false];
  assert.ok(Math.abs(core.compute(state).rows[0].maxWeight - Math.E / (Math.E + 1)) < 1e-7);
});
