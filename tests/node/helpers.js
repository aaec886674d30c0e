// Shared test helpers: a seeded PRNG, a generator of random valid states, and a builder of `d`
// blocks written independently of web/core/state-schema.js (node's Buffer for base64url, node's zlib for the
// CRC-32, fflate straight from node_modules) so that the link format of docs/state.md is checked, not just re-run.

import { crc32 } from 'node:zlib';
import { deflateSync } from 'fflate';

export { mulberry32 } from '../../web/presets/random.js';

export const int = (rng, lo, hi) => lo + Math.floor(rng() * (hi - lo + 1));
export const pick = (rng, list) => list[Math.floor(rng() * list.length)];

// Doubles that break naive codecs: not float32-exact, subnormal, signed zero, extremes.
const AWKWARD = [
  0.1,
  -0.1,
  1e-300,
  -1e-300,
  5e-324,
  -5e-324,
  -0,
  0,
  1 / 3,
  -2 / 3,
  1e300,
  -1e300,
  1.7976931348623157e308,
  2.2250738585072014e-308,
  Number.EPSILON,
  1 + Number.EPSILON,
  123456789.12345679,
  0.30000000000000004,
  Math.PI,
];
// Float32-exact values, including float32 subnormals and the largest float32.
const FLOAT32 = [0, -0, 1, -1, 0.5, 2 ** -149, 2 ** -126, 3.4028234663852886e38, Math.fround(0.1), Math.fround(1 / 3), 65504];

function randomDouble(rng) {
  const r = rng();
  if (r < 0.25) return pick(rng, AWKWARD);
  if (r < 0.35) return int(rng, -9, 9);
  return (rng() * 2 - 1) * 10 ** int(rng, -8, 8);
}

function randomFloat32(rng) {
  return rng() < 0.3 ? pick(rng, FLOAT32) : Math.fround((rng() * 2 - 1) * 10 ** int(rng, -6, 6));
}

/** A rows x cols matrix; about half are all-float32 so both storage widths are exercised. */
function randomMatrix(rng, rows, cols, { nonNegative = false, nulls = false } = {}) {
  const float32 = rng() < 0.5;
  return Array.from({ length: rows }, () =>
    Array.from({ length: cols }, () => {
      if (nulls && rng() < 0.2) return null;
      let x = float32 ? randomFloat32(rng) : randomDouble(rng);
      if (nonNegative) x = Object.is(x, -0) ? -0 : Math.abs(x); // -0 >= 0 holds, so it is a valid weight
      return x;
    }),
  );
}

const TOKEN_POOL = [
  '',
  'q',
  'the',
  ' cat',
  '<|endoftext|>',
  '"><img src=x onerror=alert(1)>',
  '&amp;',
  'a&b=c#d%20+e',
  '日本語',
  'naïve',
  'e\u0301',
  '🙂',
  '👩‍👩‍👧',
  '\u0000',
  '\ud800',
  'x\udc00y',
  'tab\there',
  'line\nbreak',
  '\\',
  '"',
  "'",
  '</script>',
  '💩'.repeat(200),
];

function randomString(rng, maxCodePoints) {
  if (rng() < 0.7) {
    const s = pick(rng, TOKEN_POOL);
    if ([...s].length <= maxCodePoints) return s.toWellFormed(); // canonical: see below
  }
  const n = int(rng, 0, rng() < 0.1 ? maxCodePoints : 12);
  let s = '';
  for (let i = 0; i < n; i++) {
    const r = rng();
    // ASCII, BMP (including lone surrogates), or astral code points.
    const cp = r < 0.5 ? int(rng, 0, 127) : r < 0.9 ? int(rng, 128, 0xffff) : int(rng, 0x10000, 0x10ffff);
    s += String.fromCodePoint(cp);
  }
  // Canonical: a lone surrogate drawn above is half a character, which the schema reads as U+FFFD
  // (docs/state.md "Text"; tests/node/schema_agreement.test.js checks that rule itself).
  return s.toWellFormed();
}

/** A random valid state of docs/state.md, in canonical form (what validateState returns). */
export function randomState(rng) {
  const mode = pick(rng, ['qkv', 'logits', 'weights']);
  const nQ = int(rng, 1, 12);
  const nK = int(rng, 1, 12);
  const nHeads = rng() < 0.7 ? 1 : int(rng, 2, 4);
  const heads = Array.from({ length: nHeads }, () => {
    const dK = int(rng, 1, 12);
    const dV = int(rng, 0, 12);
    const maybe = (needed, make) => (needed || rng() < 0.3 ? make() : null);
    return {
      name: randomString(rng, 200),
      Q: maybe(mode === 'qkv', () => randomMatrix(rng, nQ, dK)),
      K: maybe(mode === 'qkv', () => randomMatrix(rng, nK, dK)),
      V: maybe(false, () => randomMatrix(rng, nK, dV)),
      logits: maybe(mode === 'logits', () => randomMatrix(rng, nQ, nK, { nulls: true })),
      weights: maybe(mode === 'weights', () => randomMatrix(rng, nQ, nK, { nonNegative: true })),
    };
  });
  return {
    version: 1,
    mode,
    heads,
    head: int(rng, 0, nHeads - 1),
    tokens: {
      queries: Array.from({ length: nQ }, () => randomString(rng, 200)),
      keys: Array.from({ length: nK }, () => randomString(rng, 200)),
    },
    mask: {
      causal: rng() < 0.5,
      window: rng() < 0.5 ? 0 : int(rng, 0, 4096),
      padding: Array.from({ length: nK }, () => rng() < 0.2),
      allow: rng() < 0.3 ? Array.from({ length: nQ }, () => Array.from({ length: nK }, () => rng() < 0.7)) : null,
    },
    tau: pick(rng, [1, 2, 1000, 0.1, 1 / 3, 5e-324, 1e-300, Math.fround(0.7), rng() * 1000 || 1]),
    scale: rng() < 0.3 ? 'auto' : pick(rng, [1, 0.5, 1 / Math.sqrt(3), 1e300, 5e-324, 1e21, 1.5e-7, rng() * 10 || 1]),
    topK: int(rng, 1, 4096),
    row: int(rng, 0, nQ - 1),
    view: {
      panel: pick(rng, ['weights', 'scores']),
      preset: pick(rng, ['example1', 'custom', 'gpt2-small_L0_nlp-sentence']),
      numbers: pick(rng, ['auto', 'on', 'off']),
    },
    source: randomString(rng, 500),
  };
}

/**
 * Builds a `d` value by hand from a header object and the bytes that follow it, per the block
 * layout documented in web/core/state-schema.js. `declared` overrides the declared uncompressed length and
 * `format` the format byte and `crc` the checksum, to build corrupt blocks.
 */
export function makeD(header, payload = new Uint8Array(0), { declared, format = 1, headerText, crc } = {}) {
  const json = Buffer.from(headerText ?? JSON.stringify(header), 'utf8');
  const block = Buffer.alloc(4 + json.length + payload.length);
  block.writeUInt32LE(json.length, 0);
  json.copy(block, 4);
  Buffer.from(payload).copy(block, 4 + json.length);
  const compressed = deflateSync(block);
  const prefix = Buffer.alloc(11);
  prefix[0] = 0x41;
  prefix[1] = 0x50;
  prefix[2] = format;
  prefix.writeUInt32LE(declared ?? block.length, 3);
  prefix.writeUInt32LE(crc ?? crc32(block), 7);
  return Buffer.concat([prefix, Buffer.from(compressed)]).toString('base64url');
}

/** Little-endian float64 bytes of a flat list of numbers (null -> NaN). */
export function float64Bytes(values) {
  const b = Buffer.alloc(values.length * 8);
  values.forEach((x, i) => b.writeDoubleLE(x === null ? NaN : x, i * 8));
  return b;
}

/** The scalar part of a link for the default example, followed by `d=`. */
export const DEFAULT_SCALARS = 'v=1&mode=qkv&tau=1&scale=1&k=2&row=0&causal=0&window=0&head=0&panel=weights&preset=example1&numbers=auto';
