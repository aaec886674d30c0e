// Links made by earlier versions of the page open identically. Each corpus in fixtures/ holds links
// as one version's link codec wrote them, with the state each decoded to and the numbers its core
// computed, made by fixtures/make-link-corpus.mjs at that version:
//
//   links-v1.json        57 links written by web/state.js and the core at commit 191996d (before
//                        the schema moved into the C++ core), page options after the state
//   links-c7d211a.json   82 links written by web/codec/link.js and the core at commit c7d211a (the
//                        main branch when it was made), page options first (withPageOptions, as
//                        the share link and the address bar write them)
//
// Both cover every preset, mode, mask, lab view and lesson step; the newer one also the lab views
// with their parameters set, every lesson prediction, the myths and exercises, and every page
// option. make-link-corpus.mjs writes a new corpus beside these for a later version; a corpus, once
// made, is kept as it is.
//
// A link must decode to its saved state bit for bit. Its results and lab results must hold every
// field the corpus recorded, to float32 rounding; fields the core has added since are allowed (a
// saved result records the fields of its day, not the shape of today's).
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { core, decodeLink, encodeLink, statesEqual } from './schema.js';
import { defaultOptions, HIDEABLE, PALETTES, readPageOptions } from '../../web/page/page-options.js';
import { assertRecorded } from './tolerance.js';

// The state must come back bit for bit; the numbers computed from it to float32 rounding (a
// kernel that sums a row in another order moves the last bit).
const FLOAT32 = 1e-6;

const reviver = (_, v) => (v === '__negative_zero__' ? -0 : v);
const load = (file) => JSON.parse(readFileSync(new URL(`./fixtures/${file}`, import.meta.url), 'utf8'), reviver);

const CORPORA = [
  {
    file: 'links-v1.json',
    made: 'web/state.js and the core at 191996d',
    // links-v1.json saved no options: its one entry with options was made with these.
    options: (entry) =>
      entry.name.startsWith('page options')
        ? { ...defaultOptions(), lang: 'zh-CN', embed: true, readonly: true, hide: ['tau', 'mask'] }
        : null,
  },
  { file: 'links-c7d211a.json', made: 'web/ and the core at c7d211a', options: (entry) => entry.options ?? null, extended: true },
];

for (const { file, made, options, extended } of CORPORA) {
  const corpus = load(file);
  const states = corpus.entries.map((e) => e.state);

  test(`${file}: made by ${made}, covering every mode, mask, lab view and lesson step`, () => {
    assert.equal(corpus.made, made);
    assert.ok(corpus.entries.length >= 50);
    assert.equal(new Set(corpus.entries.map((e) => e.name)).size, corpus.entries.length, 'names unique');
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
    assert.ok(
      corpus.entries.some((e) => options(e)),
      'page options',
    );
  });

  if (extended)
    test(`${file}: also every lesson prediction, the exercises, lab parameters and every page option`, () => {
      const { choices, lists } = core.schema.lesson;
      for (const key of [...Object.keys(choices), ...Object.keys(lists)])
        assert.ok(
          states.some((s) => s.lesson?.predictions[key] !== undefined),
          `prediction ${key}`,
        );
      for (let n = 1; n <= core.schema.lesson.exercises; n++)
        assert.ok(
          states.some((s) => s.lesson?.done?.includes(n)),
          `exercise ${n} done`,
        );
      const withParams = new Set(states.filter((s) => Object.keys(s.lab?.params ?? {}).length).map((s) => s.lab.view));
      assert.ok(withParams.size >= 7, `lab views with parameters: ${[...withParams]}`);
      const all = corpus.entries.map(options).filter(Boolean);
      const defaults = defaultOptions();
      for (const key of Object.keys(defaults))
        assert.ok(
          all.some((o) => JSON.stringify(o[key]) !== JSON.stringify(defaults[key])),
          `page option ${key}`,
        );
      for (const name of HIDEABLE)
        assert.ok(
          all.some((o) => o.hide.includes(name)),
          `${name}_hide`,
        );
      for (const palette of PALETTES)
        assert.ok(
          all.some((o) => o.palette === palette),
          `palette ${palette}`,
        );
      // Written as the page writes them: the options first, then the state's keys.
      for (const e of corpus.entries.filter(options)) assert.doesNotMatch(e.link, /^v=/, e.name);
    });

  for (const entry of corpus.entries) {
    test(`${file}: an old link opens identically: ${entry.name}`, () => {
      const state = decodeLink(entry.link);
      assert.ok(statesEqual(state, entry.state), 'the same state, bit for bit (-0 included)');
      // Every entry recorded results; each recorded field is compared (none may be skipped).
      assert.ok(Object.keys(entry.results).length > 0, 'the entry recorded results');
      const compared = assertRecorded(core.compute(state), entry.results, 'results', FLOAT32);
      assert.ok(compared > 0, 'results compared');
      assert.equal(entry.lab !== undefined, Boolean(state.lab && state.lab.view !== 'none'), 'lab results recorded for a lab view');
      if (entry.lab) assert.ok(assertRecorded(core.lab(state), entry.lab, 'lab', FLOAT32) > 0, 'lab results compared');
      // Re-encoding gives a link that opens to the same state again.
      assert.ok(statesEqual(decodeLink(encodeLink(state)), state));
      // The page options read as they were written (the defaults for a link without them), and
      // none is refused.
      const read = readPageOptions(entry.link);
      assert.deepEqual(read.errors, []);
      assert.deepEqual(read.options, options(entry) ?? defaultOptions());
    });
  }
}
