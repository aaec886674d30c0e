// "Limits" and the "Bad-input table" (docs/security.md): every cap of the schema, the link
// and the importer is enforced at the boundary with a message (and quickly, not by a freeze), a
// typical lesson link stays under 2,000 characters, and each bad input of the table that enters
// through node (the state validator, the link codec, the importer, the CLI) is refused with the
// message the table quotes. The rows that enter through the page are in
// tests/browser/bad_inputs.test.js.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { LIMITS, StateError, defaultState, decodeLink, encodeLink, statesEqual, validateState } from './schema.js';
import { loadCore, AttentionError } from '../../web/core/core.js';
import { IMPORT_LIMITS, openSource, readTokens } from '../../web/import/readers.js';
import { readPageOptions } from '../../web/page/page-options.js';
import { LESSON_PRESETS } from '../../web/presets/presets.js';
import { setupState } from '../../web/lesson/steps.js';
import { makeD, float64Bytes, DEFAULT_SCALARS } from './helpers.js';
import { npy, npyHeader, uniformCausal } from './npy.js';

const CLI = process.env.ATTN_CLI ?? fileURLToPath(new URL('../../build/native/attn', import.meta.url));
const MiB = 1024 * 1024;
let core;
before(async () => {
  core = await loadCore();
});

/** Runs fn, which must throw a StateError whose field and message match; returns the ms it took. */
function refused(fn, field, message) {
  const t0 = performance.now();
  let caught = null;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  const ms = performance.now() - t0;
  assert.ok(
    caught instanceof StateError,
    `expected a StateError for ${field}, got ${caught ? `${caught.name}: ${caught.message}` : 'nothing'}`,
  );
  if (field !== undefined) assert.equal(caught.field, field, caught.message);
  if (typeof message === 'string') assert.ok(caught.message.includes(message), `"${caught.message}" should contain "${message}"`);
  else if (message) assert.match(caught.message, message);
  return ms;
}
const modified = (mutate) => {
  const s = defaultState();
  mutate(s);
  return s;
};
const blobOf = (bytes) => new Blob([bytes]);
/** A Blob-like file that claims `size` bytes without holding them (the importer checks sizes first). */
const fakeFile = (bytes, size) => ({
  size,
  slice: (a, b) => new Blob([bytes.subarray(a, b)]),
  text: async () => {
    throw new Error('read a file beyond the limit');
  },
  arrayBuffer: async () => {
    throw new Error('read a file beyond the limit');
  },
});
const npyWithShape = (shape, descr = '<f4') =>
  npyHeader([1], { dict: `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }` });

// -------------------------------------------------------------------------------------------
// Limits
// -------------------------------------------------------------------------------------------

test('limits: a typical lesson link stays under 2,000 characters', () => {
  // The default state at step 3 of the lesson with every prediction of steps 1-3 made (and those
  // of 4-5 too, the largest a lesson part gets with short lists).
  const lesson = {
    step: 3,
    predictions: {
      rise: [0],
      entropy: 'up',
      sums: 'yes',
      zeros: [1, 2, 3, 6, 7, 11],
      renorm: 'renormalised',
      scores: 'same',
      largest: 'yes',
      reproduce: 'yes',
    },
    revealed: [1, 2, 3],
  };
  const lengths = {
    'default + lesson step 3': encodeLink({ ...defaultState(), lesson }).length,
    'lesson step 3 setup + lesson': encodeLink({ ...setupState(3), lesson }).length,
    'worked example 2': encodeLink(LESSON_PRESETS.example2.make()).length,
    'worked example 2 + lesson step 3': encodeLink({ ...LESSON_PRESETS.example2.make(), lesson }).length,
  };
  for (const [id, p] of Object.entries(LESSON_PRESETS)) {
    if (id !== 'long512') lengths[`preset ${id} + lesson`] = encodeLink({ ...p.make(), lesson }).length;
  }
  for (const [what, n] of Object.entries(lengths)) assert.ok(n < 2000, `${what}: ${n} characters`);
  // The numbers docs/security.md quotes (a change of the link format shows up here).
  assert.ok(lengths['default + lesson step 3'] <= 720, `default + lesson: ${lengths['default + lesson step 3']}`);
  assert.ok(lengths['worked example 2 + lesson step 3'] <= 800, `example 2 + lesson: ${lengths['worked example 2 + lesson step 3']}`);
});

test('limits: each cap of the schema accepts its value and refuses one past it, with the cap in the message', () => {
  const qRows = (n) => (s) => {
    s.heads[0].Q = Array.from({ length: n }, () => [1, 0]);
    s.tokens.queries = Array.from({ length: n }, () => 'q');
  };
  const cases = [
    // [at the cap, one past, field, message]
    [qRows(LIMITS.maxTokens), qRows(LIMITS.maxTokens + 1), 'heads[0].Q', 'must have 1 to 4096 rows (got 4097)'],
    [
      (s) => {
        s.heads[0].Q = [new Array(1024).fill(0)];
        s.heads[0].K = [new Array(1024).fill(0), new Array(1024).fill(0)];
      },
      (s) => {
        s.heads[0].Q = [new Array(1025).fill(0)];
      },
      'heads[0].Q',
      'must have 1 to 1024 columns (got 1025)',
    ],
    [
      (s) => {
        s.heads[0].V = [new Array(1024).fill(0), new Array(1024).fill(0)];
      },
      (s) => {
        s.heads[0].V = [new Array(1025).fill(0), new Array(1025).fill(0)];
      },
      'heads[0].V',
      'must have 0 to 1024 columns (got 1025)',
    ],
    [
      (s) => {
        s.heads = new Array(64).fill(s.heads[0]);
      },
      (s) => {
        s.heads = new Array(65).fill(s.heads[0]);
      },
      'heads',
      'heads must be an array of 1 to 64 heads',
    ],
    [
      (s) => {
        s.tau = 1000;
      },
      (s) => {
        s.tau = 1000.001;
      },
      'tau',
      'tau must be a number > 0 and <= 1000 (got 1000.001)',
    ],
    [
      (s) => {
        s.topK = 4096;
      },
      (s) => {
        s.topK = 4097;
      },
      'topK',
      'topK must be an integer from 1 to 4096 (got 4097)',
    ],
    [
      (s) => {
        s.mask.window = 4096;
      },
      (s) => {
        s.mask.window = 4097;
      },
      'mask.window',
      'mask.window must be an integer from 0 to 4096 (got 4097)',
    ],
    [
      (s) => {
        s.tokens.keys[0] = 'x'.repeat(200);
      },
      (s) => {
        s.tokens.keys[0] = 'x'.repeat(201);
      },
      'tokens.keys[0]',
      'tokens.keys[0] must be at most 200 characters (got 201)',
    ],
    [
      (s) => {
        s.heads[0].name = 'x'.repeat(200);
      },
      (s) => {
        s.heads[0].name = 'x'.repeat(201);
      },
      'heads[0].name',
      'at most 200 characters (got 201)',
    ],
    [
      (s) => {
        s.source = 'x'.repeat(500);
      },
      (s) => {
        s.source = 'x'.repeat(501);
      },
      'source',
      'source must be at most 500 characters (got 501)',
    ],
    [
      (s) => {
        s.view.preset = 'p'.repeat(100);
      },
      (s) => {
        s.view.preset = 'p'.repeat(101);
      },
      'view.preset',
      'view.preset must be at most 100 characters (got 101)',
    ],
    [
      (s) => {
        s.lab = { view: 'none', params: Object.fromEntries(Array.from({ length: 32 }, (_, i) => [`p${i}`, 1])) };
      },
      (s) => {
        s.lab = { view: 'none', params: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`p${i}`, 1])) };
      },
      'lab.params',
      'lab.params has 33 entries, at most 32',
    ],
  ];
  for (const [atCap, pastCap, field, message] of cases) {
    validateState(modified(atCap)); // accepted
    const ms = refused(() => validateState(modified(pastCap)), field, message);
    assert.ok(ms < 1000, `${field}: refused in ${ms.toFixed(0)} ms`);
  }
});

test('limits: links beyond 4,000,000 characters, a 200 MB link and a 64 MiB block are refused before any work', () => {
  const link = encodeLink(defaultState());
  const justOver = `${link}&x=${'A'.repeat(LIMITS.maxLinkLength - link.length)}`;
  assert.equal(justOver.length, LIMITS.maxLinkLength + 3);
  const ms = refused(() => decodeLink(justOver), 'link', `the link is too long (${LIMITS.maxLinkLength + 3} characters, at most 4000000)`);
  assert.ok(ms < 1000, `refused in ${ms.toFixed(0)} ms`);
  // 200 MB: the same check, before the string is split (a bound against a freeze, not a speed
  // test: with other test files running alongside, flattening the string alone takes ~0.4 s).
  const huge = `v=1&d=${'A'.repeat(200_000_000)}`;
  const msHuge = refused(() => decodeLink(huge), 'link', 'the link is too long (200000006 characters, at most 4000000)');
  assert.ok(msHuge < 2000, `a 200 MB link refused in ${msHuge.toFixed(0)} ms`);
  // A d that declares more than 64 MiB: refused from its 11-byte prefix, nothing inflated.
  const bomb = Buffer.from([0x41, 0x50, 1, 0x01, 0x00, 0x00, 0x04, 0, 0, 0, 0]); // 64 MiB + 1
  refused(
    () => decodeLink(`${DEFAULT_SCALARS}&d=${bomb.toString('base64url')}`),
    'd',
    `d declares ${64 * MiB + 1} bytes of data, more than the limit of ${64 * MiB}`,
  );
  // encodeLink refuses a state whose block would be larger (state.test.js builds one); the
  // message the page shows then is the "too large for a link" one.
});

test('limits: the importer refuses files beyond its caps from their size alone (200 MB JSON, 600 MB .npz, 17 MiB tokens, a 10^6 x 10^6 head)', async () => {
  const json = new TextEncoder().encode('{"attention": [[1]]}');
  await assert.rejects(
    openSource(core, fakeFile(json, 200 * MiB), { name: 'big.json' }),
    (e) =>
      e.code === 'too_large' &&
      e.message ===
        'big.json is 200 MiB; the page reads at most 64 MiB of this kind of file. Use the command-line tool (attn analyze) for bigger files, or export fewer layers.',
  );
  const zip = new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0, 0, 0, 0]);
  await assert.rejects(
    openSource(core, fakeFile(zip, 600 * MiB), { name: 'big.npz' }),
    (e) => e.code === 'too_large' && /^big\.npz is 600 MiB; the page reads at most 512 MiB/.test(e.message),
  );
  const npyBytes = npy([2, 2], [1, 0, 0.5, 0.5]);
  await assert.rejects(
    openSource(core, fakeFile(npyBytes, IMPORT_LIMITS.npyBytes + 1), { name: 'huge.npy' }),
    (e) => e.code === 'too_large' && /^huge\.npy is 8192 MiB; the page reads at most 8192 MiB/.test(e.message),
  );
  const src = await openSource(core, blobOf(npy([2, 2], [1, 0, 0.5, 0.5])));
  await assert.rejects(
    readTokens(core, fakeFile(new Uint8Array(0), 17 * MiB), src),
    (e) => e.code === 'too_large' && /^the token file is 17 MiB; the page reads at most 16 MiB/.test(e.message),
  );
  // A 10^6 x 10^6 shape in a .npy header (a 40-byte-per-row lie): refused from the header.
  const million = npyWithShape('(1000000, 1000000)');
  await assert.rejects(
    openSource(core, blobOf(million), { name: 'million.npy' }),
    (e) => e.code === 'too_large' && e.message === 'shape [1000000, 1000000] has 1000000 tokens on one axis; the limit is 131072',
  );
  // Within the axis limit but one head above 256 MiB.
  const wide = npyWithShape('(9000, 9000)');
  await assert.rejects(
    openSource(core, fakeFile(wide, wide.length + 9000 * 9000 * 4), { name: 'wide.npy' }),
    (e) =>
      e.code === 'too_large' &&
      /^one head of shape 9000 × 9000 is 309 MiB of float32; the page analyses heads of at most 256 MiB/.test(e.message),
  );
});

// -------------------------------------------------------------------------------------------
// Bad inputs through the API (validateState, as setState and the node module run it)
// -------------------------------------------------------------------------------------------

test('bad inputs (API): NaN and Inf in Q, K, V, logits, weights, gate and x.X name the cell', () => {
  for (const bad of [NaN, Infinity, -Infinity]) {
    const shown = String(bad);
    refused(
      () =>
        validateState(
          modified((s) => {
            s.heads[0].Q[0][0] = bad;
          }),
        ),
      'heads[0].Q[0][0]',
      `heads[0].Q[0][0] must be a finite number (got ${shown})`,
    );
    refused(
      () =>
        validateState(
          modified((s) => {
            s.heads[0].K[1][1] = bad;
          }),
        ),
      'heads[0].K[1][1]',
      `heads[0].K[1][1] must be a finite number (got ${shown})`,
    );
    refused(
      () =>
        validateState(
          modified((s) => {
            s.heads[0].V[0][1] = bad;
          }),
        ),
      'heads[0].V[0][1]',
      `heads[0].V[0][1] must be a finite number (got ${shown})`,
    );
    refused(
      () =>
        validateState(
          modified((s) => {
            s.mode = 'logits';
            s.heads[0].logits = [[bad, 0]];
          }),
        ),
      'heads[0].logits[0][0]',
      `heads[0].logits[0][0] must be a finite number or null (masked) (got ${shown})`,
    );
    refused(
      () =>
        validateState(
          modified((s) => {
            s.mode = 'weights';
            s.heads[0].weights = [[0.5, bad]];
          }),
        ),
      'heads[0].weights[0][1]',
      `heads[0].weights[0][1] must be a finite number >= 0 (got ${shown})`,
    );
    refused(
      () =>
        validateState(
          modified((s) => {
            s.heads[0].gate = [bad];
          }),
        ),
      'heads[0].gate[0]',
      `heads[0].gate[0] must be a finite number (got ${shown})`,
    );
    refused(
      () =>
        validateState(
          modified((s) => {
            s.tau = bad;
          }),
        ),
      'tau',
      `tau must be a number > 0 and <= 1000 (got ${shown})`,
    );
    refused(
      () =>
        validateState(
          modified((s) => {
            s.scale = bad;
          }),
        ),
      'scale',
      `scale must be "auto" or a finite number > 0 (got ${shown})`,
    );
  }
  const x = LESSON_PRESETS.multihead.make();
  x.x.X[0][0] = NaN;
  refused(() => validateState(x), 'x.X[0][0]', 'x.X[0][0] must be a finite number (got NaN)');
});

test('bad inputs (API): tau <= 0, negative sizes, non-objects and prototype keys', (t) => {
  for (const tau of [0, -0, -1, -1e-300])
    refused(
      () =>
        validateState(
          modified((s) => {
            s.tau = tau;
          }),
        ),
      'tau',
      'tau must be a number > 0 and <= 1000',
    );
  refused(
    () =>
      validateState(
        modified((s) => {
          s.row = -1;
        }),
      ),
    'row',
    'row must be an integer from 0 to 0 (got -1)',
  );
  refused(
    () =>
      validateState(
        modified((s) => {
          s.mask.window = -1;
        }),
      ),
    'mask.window',
    'mask.window must be an integer from 0 to 4096 (got -1)',
  );
  refused(
    () =>
      validateState(
        modified((s) => {
          s.topK = -2;
        }),
      ),
    'topK',
    'topK must be an integer from 1 to 4096 (got -2)',
  );
  refused(
    () =>
      validateState(
        modified((s) => {
          s.heads[0].Q = [];
        }),
      ),
    'heads[0].Q',
    'heads[0].Q must have 1 to 4096 rows (got 0)',
  );
  for (const [value, shown] of [
    [null, 'null'],
    [42, '42'],
    ['v=1', '"v=1"'],
    [[], 'an array of length 0'],
    [undefined, 'nothing'],
  ]) {
    refused(() => validateState(value), 'state', `the state must be an object (got ${shown})`);
  }
  // JSON.parse makes "__proto__" and "constructor" own keys: refused as unknown fields.
  const text = JSON.stringify(defaultState());
  refused(
    () => validateState(JSON.parse(text.replace('{"version"', '{"__proto__":{"polluted":1},"version"'))),
    '__proto__',
    'the state has an unknown field "__proto__"',
  );
  refused(
    () => validateState(JSON.parse(text.replace('{"version"', '{"constructor":{"prototype":{"polluted":1}},"version"'))),
    'constructor',
    'the state has an unknown field "constructor"',
  );
  refused(
    () => validateState(JSON.parse(text.replace('"causal"', '"__proto__":{"causal":true},"causal"'))),
    'mask.__proto__',
    'mask has an unknown field "__proto__"',
  );
  refused(
    () => validateState({ ...defaultState(), lesson: JSON.parse('{"step":1,"__proto__":{"step":2}}') }),
    'lesson.__proto__',
    'lesson has an unknown field "__proto__"',
  );
  assert.equal({}.polluted, undefined);
  // A 200 MB token string: refused by its length; the string never crosses into the core (that
  // costs more than ten passes over it: JSON, the copy into the heap, the parse). Counting its code
  // points for the message is one pass, so the refusal is bounded by the time of one plain pass
  // over the same string, measured in the same run, not by a wall-clock time (which a loaded
  // machine exceeds): each the fastest of three, interleaved, so both see the same load.
  const huge = 'x'.repeat(200_000_000);
  const onePass = () => {
    let n = 0;
    for (let i = 0; i < huge.length; i++) n += huge.charCodeAt(i) & 1;
    return n;
  };
  assert.equal(onePass(), 0); // also flattens the string (V8 builds a repeat as a rope), outside the timings
  let passMs = Infinity;
  let refusalMs = Infinity;
  for (let round = 0; round < 3; round++) {
    const t0 = performance.now();
    onePass();
    passMs = Math.min(passMs, performance.now() - t0);
    const ms = refused(
      () =>
        validateState(
          modified((s) => {
            s.tokens.keys[0] = huge;
          }),
        ),
      'tokens.keys[0]',
      'tokens.keys[0] must be at most 200 characters (got 200000000)',
    );
    refusalMs = Math.min(refusalMs, ms);
  }
  t.diagnostic(`200 MB token: refused in ${refusalMs.toFixed(0)} ms, one pass over it ${passMs.toFixed(0)} ms`);
  assert.ok(
    refusalMs < 3 * passMs + 100,
    `a 200 MB token refused without a freeze: ${refusalMs.toFixed(0)} ms, one pass over it ${passMs.toFixed(0)} ms`,
  );
});

// -------------------------------------------------------------------------------------------
// Bad inputs through a link
// -------------------------------------------------------------------------------------------

/** A link of the default example whose d holds `values` (float64) for Q (1x2), K (2x2), V (2x2). */
function linkWith({ q = [1, 0], k = [1, 0, 0, 1], v = [2, 0, 0, 4], heads, scalars = DEFAULT_SCALARS } = {}) {
  const header = {
    tokens: { queries: ['q'], keys: ['k1', 'k2'] },
    source: 's',
    allow: false,
    heads: heads ?? [{ name: 'h', Q: [1, 2, 8], K: [2, 2, 8], V: [2, 2, 8] }],
  };
  return `${scalars}&d=${makeD(header, Buffer.concat([float64Bytes([...q, ...k, ...v]), Uint8Array.of(0, 0)]))}`;
}

test('bad inputs (link): NaN and Inf in the matrices of d, in every mode', () => {
  assert.ok(statesEqual(decodeLink(linkWith()).heads[0].Q, [[1, 0]]), 'the hand-made link decodes');
  refused(() => decodeLink(linkWith({ q: [Infinity, 0] })), 'heads[0].Q[0][0]', 'heads[0].Q[0][0] must be a finite number (got Infinity)');
  refused(
    () => decodeLink(linkWith({ k: [1, 0, -Infinity, 1] })),
    'heads[0].K[1][0]',
    'heads[0].K[1][0] must be a finite number (got -Infinity)',
  );
  // NaN in the block marks a masked logit, so elsewhere it reads as null and is refused as such.
  refused(() => decodeLink(linkWith({ v: [2, NaN, 0, 4] })), 'heads[0].V[0][1]', 'heads[0].V[0][1] must be a finite number (got null)');
  const logits = (cells) =>
    `${DEFAULT_SCALARS.replace('mode=qkv', 'mode=logits')}&d=${makeD(
      { tokens: { queries: ['q'], keys: ['k1', 'k2'] }, source: 's', allow: false, heads: [{ name: 'h', logits: [1, 2, 8] }] },
      Buffer.concat([float64Bytes(cells), Uint8Array.of(0, 0)]),
    )}`;
  assert.deepEqual(decodeLink(logits([NaN, 1])).heads[0].logits, [[null, 1]], 'a NaN logit is a masked cell');
  refused(
    () => decodeLink(logits([Infinity, 1])),
    'heads[0].logits[0][0]',
    'heads[0].logits[0][0] must be a finite number or null (masked) (got Infinity)',
  );
  const weights = (cells) =>
    `${DEFAULT_SCALARS.replace('mode=qkv', 'mode=weights')}&d=${makeD(
      { tokens: { queries: ['q'], keys: ['k1', 'k2'] }, source: 's', allow: false, heads: [{ name: 'h', weights: [1, 2, 8] }] },
      Buffer.concat([float64Bytes(cells), Uint8Array.of(0, 0)]),
    )}`;
  refused(
    () => decodeLink(weights([0.5, NaN])),
    'heads[0].weights[0][1]',
    'heads[0].weights[0][1] must be a finite number >= 0 (got null)',
  );
  refused(
    () => decodeLink(weights([Infinity, 0.5])),
    'heads[0].weights[0][0]',
    'heads[0].weights[0][0] must be a finite number >= 0 (got Infinity)',
  );
  // Scalars: NaN and Infinity are not decimals; 1e999 overflows to Infinity and is refused by range.
  const link = encodeLink(defaultState());
  const tau = (v) => link.replace('tau=1&', `tau=${v}&`);
  refused(() => decodeLink(tau('NaN')), 'tau', 'tau in the link must be a number (got "NaN")');
  refused(() => decodeLink(tau('Infinity')), 'tau', 'tau in the link must be a number (got "Infinity")');
  refused(() => decodeLink(tau('1e999')), 'tau', 'tau must be a number > 0 and <= 1000 (got Infinity)');
  refused(() => decodeLink(tau('-1')), 'tau', 'tau must be a number > 0 and <= 1000 (got -1)');
  refused(() => decodeLink(tau('0')), 'tau', 'tau must be a number > 0 and <= 1000 (got 0)');
});

test('bad inputs (link): a link cut short names its bad value, not only a key it lacks', () => {
  // A hand-shortened link with a typo: the reader is told what is wrong with tau (it said
  // "the link is missing mode=" and never mentioned the bad value).
  refused(() => decodeLink('v=1&tau=abc'), 'tau', 'tau in the link must be a number (got "abc")');
  refused(() => decodeLink('#v=1&preset=example1&tau=NaN'), 'tau', 'tau in the link must be a number (got "NaN")');
  refused(() => decodeLink('v=1&mode=qkv&causal=yes'), 'mask.causal', 'causal in the link must be 0 or 1 (got "yes")');
  refused(() => decodeLink('v=1&scale=auto&window=-'), 'mask.window', 'window in the link must be a number (got "-")');
  refused(() => decodeLink('v=1&stride=x'), 'mask.stride', 'stride in the link must be a number (got "x")');
  // A mode that does not exist is named as such (it said "the link is missing tau=").
  refused(() => decodeLink('v=1&mode=zzz'), 'mode', 'mode in the link must be one of qkv, logits, weights, x (got "zzz")');
  refused(() => decodeLink(encodeLink(defaultState()).replace('mode=qkv', 'mode=QKV')), 'mode', /must be one of .*\(got "QKV"\)/);
  // Every value given is good: then the missing key is the problem, and is named.
  refused(() => decodeLink('v=1&tau=2&scale=auto'), 'mode', 'the link is missing mode= (mode)');
  const full = encodeLink(defaultState());
  refused(() => decodeLink(full.replace(/&d=.*$/, '')), 'd', 'the link is missing d= (d)');
  refused(
    () => decodeLink(full.replace(/&d=.*$/, '').replace('tau=1', 'tau=1..2')),
    'tau',
    'tau in the link must be a number (got "1..2")',
  );
});

test('bad inputs (link): 10^6 x 10^6 and negative shapes in the header of d, refused before allocating', () => {
  const shape = (Q) => linkWith({ heads: [{ name: 'h', Q, K: [2, 2, 8], V: [2, 2, 8] }] });
  const t0 = performance.now();
  refused(
    () => decodeLink(shape([1_000_000, 1_000_000, 8])),
    'd',
    'd is corrupt: the row count of heads[0].Q must be an integer from 0 to 4096 (got 1000000)',
  );
  assert.ok(performance.now() - t0 < 1000);
  refused(
    () => decodeLink(shape([1, -2, 8])),
    'd',
    'd is corrupt: the column count of heads[0].Q must be an integer from 0 to 4096 (got -2)',
  );
  refused(() => decodeLink(shape([-1, 2, 8])), 'd', 'the row count of heads[0].Q must be an integer from 0 to 4096 (got -1)');
  // Within 4096 each, but more numbers than the block holds: a truncation, not an allocation.
  refused(() => decodeLink(shape([4096, 4096, 8])), 'd', 'd is corrupt or truncated: it needs');
});

test('bad inputs (link): unknown version, duplicate keys, malformed parts, prototype keys, JSON parts', () => {
  const link = encodeLink(defaultState());
  refused(() => decodeLink(link.replace('v=1&', 'v=2&')), 'version', 'unknown link version "2": this page reads version 1 links');
  refused(() => decodeLink(`${link}&tau=2`), 'link', 'the link gives "tau" twice');
  refused(() => decodeLink(`${link}&oops`), 'link', 'the link part "oops" is not of the form key=value');
  refused(() => decodeLink(link.replace('tau=1', 'tau=%E0%A4%A')), 'link', 'the link has a broken %-escape in "%E0%A4%A"');
  refused(() => decodeLink(`${link}&__proto__=1`), 'link', 'the link has an unknown key "__proto__"');
  refused(
    () => decodeLink(`${link}&lesson=${encodeURIComponent('{"__proto__":{"step":2},"step":1}')}`),
    'lesson.__proto__',
    'lesson has an unknown field "__proto__"',
  );
  refused(
    () => decodeLink(`${link}&lab=${encodeURIComponent('{"view":"none","params":{"__proto__":{"polluted":1}}}')}`),
    'lab.params',
    'lab.params has a parameter named "__proto__"; names are letters and digits',
  );
  refused(() => decodeLink(`${link}&lesson=%7B`), 'lesson', 'lesson in the link is not JSON (got "{")');
  const d = link.slice(link.indexOf('&d=') + 3);
  refused(() => decodeLink(link.replace(d, d.slice(0, d.length - 8))), 'd', /^d is (corrupt|not valid base64url)/);
  const headerProto = `${DEFAULT_SCALARS}&d=${makeD(null, Buffer.concat([float64Bytes([1, 0, 1, 0, 0, 1]), Uint8Array.of(0, 0)]), {
    headerText:
      '{"__proto__":{"polluted":1},"tokens":{"queries":["q"],"keys":["k1","k2"]},"source":"s","allow":false,"heads":[{"name":"h","Q":[1,2,8],"K":[2,2,8]}]}',
  })}`;
  refused(() => decodeLink(headerProto), 'd', 'd is corrupt: its header has an unknown field "__proto__"');
  assert.equal({}.polluted, undefined);
});

test('bad inputs (link): tokens with HTML and invalid UTF-16 decode as plain strings', () => {
  const html = '"><img src=x onerror=alert(1)>';
  const s = modified((x) => {
    x.tokens.keys = [html, '\ud800'];
  });
  const back = decodeLink(encodeLink(s));
  // Half a character is the replacement character U+FFFD everywhere (docs/state.md "Text").
  assert.deepEqual(back.tokens.keys, [html, '\ufffd']);
});

test('bad inputs (page options): a bad value is reported and keeps its default; the state still reads', () => {
  const link = `${encodeLink(defaultState())}&lang=xx&embed=2&palette=jet`;
  const { options, errors } = readPageOptions(link);
  assert.deepEqual(errors, [
    { key: 'lang', value: 'xx' },
    { key: 'embed', value: '2' },
    { key: 'palette', value: 'jet' },
  ]);
  assert.equal(options.lang, null);
  assert.ok(statesEqual(decodeLink(link), defaultState()));
});

test('bad inputs (page options): a link cut inside its last option keeps its state and the options before the cut', () => {
  const state = encodeLink(defaultState());
  for (const cut of ['preset_hi', 'readon', 'l', 'tau_hide', 'embed']) {
    const link = `${state}&lang=zh-CN&readonly=1&${cut}`;
    assert.ok(statesEqual(decodeLink(link), defaultState()), cut);
    const { options, errors } = readPageOptions(link);
    assert.deepEqual(errors, [{ key: cut, value: null, cut: true }], cut);
    assert.equal(options.lang, 'zh-CN');
    assert.equal(options.readonly, true);
  }
  // Not the start of an option, or not the last part: refused with the link, as before.
  for (const bad of [`${state}&oops`, `${state}&readon&lang=zh-CN`, `${state}&Readonly`, `${state}&readonly_x`]) {
    refused(() => decodeLink(bad), 'link', 'is not of the form key=value');
    assert.deepEqual(readPageOptions(bad).errors, [], bad);
  }
});

// -------------------------------------------------------------------------------------------
// Bad files (the importer the page runs in its worker)
// -------------------------------------------------------------------------------------------

test('bad inputs (file): .npy headers: truncated, negative, 10^6, 1-D, 7-D, Fortran, big-endian, object; [2, 3] is cross-attention', async () => {
  const ok = npy([2, 2], [1, 0, 0.5, 0.5]);
  const wrongLength = ok.slice();
  wrongLength[8] = 0xff;
  wrongLength[9] = 0xff;
  const cases = [
    [ok.subarray(0, 9), 'truncated .npy header: the file has 9 bytes, a header needs at least 12'],
    [ok.subarray(0, 30), 'the .npy header needs 128 bytes but the file has 30: it is truncated'],
    [wrongLength, `the .npy header needs 65545 bytes but the file has ${ok.length}: it is truncated`],
    [npyWithShape('(-1, 4)'), 'the .npy shape has a negative extent (-1)'],
    [npyWithShape('(99999999999999999999, 2)'), 'malformed .npy header: a shape extent is too large for 64 bits'],
    [npy([5], [1, 0, 0, 0, 0]), /^shape \[5\] has 1 axis: an attention tensor is \[n_q, n_k\]/],
    [npyWithShape('(1, 1, 1, 1, 1, 2, 2)'), /^shape \[1, 1, 1, 1, 1, 2, 2\] has 7 axes/],
    [npy([2, 2], [1, 0, 0.5, 0.5], { fortran: true }), /Fortran-order arrays are not supported: save with np\.ascontiguousarray/],
    [npy([2, 2], [1, 0, 0.5, 0.5], { descr: '>f4' }), "big-endian float32 ('>f4'): convert with arr.astype('<f4')"],
    [
      npy([2, 2], [1, 0, 0.5, 0.5], { descr: '|O' }),
      "object arrays ('|O') cannot be read: only little-endian float16, float32 and float64 arrays can (convert with arr.astype('<f4'))",
    ],
  ];
  for (const [bytes, message] of cases) {
    await assert.rejects(openSource(core, blobOf(bytes), { name: 'bad.npy' }), (e) => {
      assert.ok(e instanceof AttentionError, String(e));
      if (typeof message === 'string') assert.equal(e.message, message);
      else assert.match(e.message, message);
      return true;
    });
  }
  const cross = await openSource(core, blobOf(npy([2, 3], [1, 0, 0, 0.5, 0.5, 0])), { name: 'cross.npy' });
  assert.deepEqual(cross.layout, { layers: 1, heads: 1, nQ: 2, nK: 3 });
});

test('bad inputs (file): empty, random bytes, prototype keys and duplicate keys in JSON, broken and HTML tokens', async () => {
  await assert.rejects(openSource(core, blobOf(new Uint8Array(0)), { name: 'e.npy' }), (e) => e.message === 'e.npy is empty');
  const random = Uint8Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 251);
  await assert.rejects(
    openSource(core, blobOf(random), { name: 'r.bin' }),
    (e) => e.message === 'r.bin is not an attention file: expected .npy, .npz or JSON (it starts with neither \\x93NUMPY, PK nor { or [)',
  );
  await assert.rejects(openSource(core, blobOf(random), { name: 'r.npy' }), (e) =>
    /^r\.npy is not a \.npy file: it does not start with the magic bytes \\x93NUMPY/.test(e.message),
  );
  // An attention JSON with __proto__ and constructor keys: the keys are ignored, nothing is polluted.
  const proto =
    '{"__proto__": {"polluted": 1, "attention": [[0]]}, "constructor": {"prototype": {"polluted": 2}}, "tokens": ["a", "b"], "attention": [[1, 0], [0.5, 0.5]]}';
  const src = await openSource(core, blobOf(new TextEncoder().encode(proto)), { name: 'p.json' });
  assert.equal(src.format, 'circuitsvis');
  assert.deepEqual(src.layout, { layers: 1, heads: 1, nQ: 2, nK: 2 });
  assert.equal({}.polluted, undefined);
  // A saved state with __proto__: handed to the page as a state, which the validator refuses.
  const state = JSON.stringify(defaultState()).replace('{"version"', '{"__proto__":{"tau":5},"version"');
  const st = await openSource(core, blobOf(new TextEncoder().encode(state)), { name: 's.json' });
  assert.equal(st.kind, 'state');
  refused(() => validateState(st.state), '__proto__', 'the state has an unknown field "__proto__"');
  // Duplicate keys in an attention JSON: the last one wins (as JSON.parse, Python and the CLI do).
  const dup = await openSource(core, blobOf(new TextEncoder().encode('{"attention": [[1, 0], [0.5, 0.5]], "attention": [[1]]}')), {
    name: 'd.json',
  });
  assert.deepEqual(dup.layout, { layers: 1, heads: 1, nQ: 1, nK: 1 });
  // NaN literals are not JSON.
  await assert.rejects(
    openSource(core, blobOf(new TextEncoder().encode('{"attention": [[NaN, 0], [0.5, 0.5]]}')), { name: 'n.json' }),
    (e) => e.message === 'not an attention file: the text is not valid JSON (at byte 17)',
  );
  // Tokens: invalid UTF-8 becomes U+FFFD, HTML stays as it is.
  const six = await openSource(core, blobOf(npy([3, 3], uniformCausal(3))));
  const bytes = Buffer.concat([
    Buffer.from('<img src=x onerror=alert(1)>\n'),
    Buffer.from([0xf0, 0x9f]),
    Buffer.from('\n'),
    Buffer.from([0xff, 0xfe, 0x41]),
    Buffer.from('\n'),
  ]);
  const t = await readTokens(core, blobOf(bytes), six);
  assert.deepEqual(t.keyTokens, ['<img src=x onerror=alert(1)>', '\ufffd', '\ufffd\ufffdA']);
});

// -------------------------------------------------------------------------------------------
// The CLI: exit status 2 and the message on stderr
// -------------------------------------------------------------------------------------------

test('bad inputs (CLI): attn compute and attn analyze refuse with status 2 and say why', () => {
  const dir = mkdtempSync(join(tmpdir(), 'attn-bad-'));
  try {
    const compute = (input) => spawnSync(CLI, ['compute'], { input, encoding: 'utf8' });
    const text = JSON.stringify(defaultState());
    const cases = [
      [text.replace('"tau":1', '"tau":0'), 'tau'],
      [text.replace('"tau":1', '"tau":-1'), 'tau'],
      // A number beyond float64 is named by its key, not reported as "not valid JSON".
      [text.replace('"Q":[[1,0]]', '"Q":[[1e999,0]]'), 'Q = 1e999 is out of range'],
      [text.replace('{"version"', '{"__proto__":{},"version"'), 'the state has an unknown field "__proto__"'],
      ['42', 'the state must be an object (got 42)'],
      ['', 'the state is not valid JSON'],
    ];
    for (const [input, message] of cases) {
      const run = compute(input);
      assert.equal(run.status, 2, `${input.slice(0, 60)}: ${run.stderr}`);
      assert.match(run.stderr, /^attn: /);
      assert.ok(run.stderr.includes(message), `stderr "${run.stderr.trim()}" should contain "${message}"`);
      assert.ok(JSON.parse(run.stdout).error.message.includes(message));
    }
    const analyze = (name, bytes) => {
      const path = join(dir, name);
      writeFileSync(path, bytes);
      return spawnSync(CLI, ['analyze', path], { encoding: 'utf8' });
    };
    const files = [
      [
        'million.npy',
        npyWithShape('(1000000, 1000000)'),
        /^attn: shape \[1000000, 1000000\] has 1000000 tokens on one axis; the limit is 131072$/m,
      ],
      ['negative.npy', npyWithShape('(-1, 4)'), /negative extent \(-1\)/],
      ['object.npy', npy([2, 2], [0, 0, 0, 0], { descr: '|O' }), /object arrays \('\|O'\) cannot be read/],
      ['header.npy', npy([2, 2], [1, 0, 0.5, 0.5]).subarray(0, 30), /truncated/],
      ['random.bin', Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 251)), /not an attention file|not valid JSON/],
    ];
    for (const [name, bytes, message] of files) {
      const run = analyze(name, bytes);
      assert.equal(run.status, 2, `${name}: ${run.stderr}`);
      assert.equal(run.stdout, '', name);
      assert.match(run.stderr, /^attn: /, name);
      assert.match(run.stderr, message, `${name}: ${run.stderr}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
