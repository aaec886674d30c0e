// Links made by the previous version of the page open identically: tests/node/fixtures/links-v1.json
// holds 57 links written by web/core/state-schema.js and the core at commit 191996d (before the schema moved
// into the C++ core), over every preset, mode, mask, lab view and lesson step, with the state each
// decoded to and the numbers the core computed then (fixtures/make-link-corpus.mjs made it).
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { core, decodeLink, encodeLink, statesEqual } from './schema.js';
import { readPageOptions } from '../../web/page/page-options.js';
import { assertClose } from './tolerance.js';

// The state must come back bit for bit; the numbers computed from it to float32 rounding (a
// kernel that sums a row in another order moves the last bit: the row-metrics kernel did).
const FLOAT32 = 1e-6;

const reviver = (_, v) => (v === '__negative_zero__' ? -0 : v);
const corpus = JSON.parse(readFileSync(new URL('./fixtures/links-v1.json', import.meta.url), 'utf8'), reviver);

test('the corpus covers every mode, mask, lab view and lesson step', () => {
  const states = corpus.entries.map((e) => e.state);
  assert.ok(corpus.entries.length >= 50);
  for (const mode of core.schema.modes)
    assert.ok(
      states.some((s) => s.mode === mode),
      mode,
    );
  for (const view of core.schema.labViews)
    assert.ok(
      states.some((s) => s.lab?.view === view),
      view,
    );
  for (let step = 1; step <= core.schema.lesson.steps; step++)
    assert.ok(
      states.some((s) => s.lesson?.step === step),
      `step ${step}`,
    );
  for (const key of ['causal', 'window', 'allow', 'stride', 'sinks'])
    assert.ok(
      states.some((s) => s.mask[key]),
      key,
    );
  assert.ok(
    states.some((s) => s.mask.padding.includes(true)),
    'padding',
  );
  assert.ok(
    states.some((s) => s.heads.some((h) => h.gate)),
    'gate',
  );
});

for (const entry of corpus.entries) {
  test(`an old link opens identically: ${entry.name}`, () => {
    const state = decodeLink(entry.link);
    assert.ok(statesEqual(state, entry.state), 'the same state, bit for bit (-0 included)');
    const results = core.compute(state);
    for (const key of Object.keys(entry.results)) {
      assertClose(results[key], entry.results[key], `results.${key}`, FLOAT32);
    }
    if (entry.lab) assertClose(core.lab(state), entry.lab, 'lab results', FLOAT32);
    // Re-encoding gives a link that opens to the same state again.
    assert.ok(statesEqual(decodeLink(encodeLink(state)), state));
    // Page options after the state still read as they did.
    if (entry.name.startsWith('page options')) {
      const { options } = readPageOptions(entry.link);
      assert.equal(options.lang, 'zh-CN');
      assert.equal(options.readonly, true);
      assert.deepEqual(options.hide.sort(), ['mask', 'tau']);
    }
  });
}
