// How a state crosses into the WebAssembly core (web/core/core.js): as JSON text the schema's validator
// reads (cpp/src/io/state_schema.cpp), with what JSON cannot spell marked so the core can name it,
// and large matrices in binary beside the text (PackedMatrices in cpp/include/attn/state_schema.hpp).
import { StateError } from './error-types.js';
import { SCHEMA } from '../generated/schema.js';

// What JSON cannot spell, as marker strings the core's schema recognises and names in its
// messages ("got NaN"; kMarkers in cpp/src/io/json_check.cpp). -0 goes over as the number -0.0.
const MARK = '\u0001js:';
const NEGATIVE_ZERO = JSON.stringify(`${MARK}-0`); // as it appears in JSON.stringify's text
const PACKED = `${MARK}matrix`;
/** Matrices of at least this many cells cross into the core in binary (PackedMatrices). */
const PACK_MIN_CELLS = 256;
/** A string of more UTF-16 units than this exceeds every limit of the schema: it crosses by its
 * length and start alone (json_check.cpp long_string), so a 200 MB paste costs no copy. */
const LONG_STRING_UNITS = 2 * SCHEMA.limits.maxStringLength;

function codePoints(text) {
  let n = 0;
  for (let i = 0; i < text.length; i++, n++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
  }
  return n;
}

/** A rectangular array of rows of finite numbers, at least PACK_MIN_CELLS of them. */
function packable(v) {
  if (!Array.isArray(v) || v.length === 0 || !Array.isArray(v[0])) return false;
  const cols = v[0].length;
  if (v.length * cols < PACK_MIN_CELLS) return false;
  for (let i = 0; i < v.length; i++) {
    const row = v[i];
    if (!Array.isArray(row) || row.length !== cols) return false;
    for (let j = 0; j < cols; j++) if (typeof row[j] !== 'number' || !Number.isFinite(row[j])) return false;
  }
  return true;
}

/**
 * A state (any JavaScript value) as the JSON text the core reads: JSON.stringify, except that
 * NaN, +-Infinity, array holes, functions, symbols and bigints become markers the core describes
 * ("got NaN", "got nothing"), -0 stays -0, and a getter that throws surfaces as a StateError.
 * Strings go through JSON.stringify, so a lone surrogate arrives as a \udXXX escape (which the
 * core replaces with U+FFFD). With `packs` (an array), large number matrices are pushed onto it
 * as {offset, matrix} and stand in the text as {"\u0001js:matrix": offset, rows, cols}: the core
 * reads them from the heap (cpp/include/attn/state_schema.hpp PackedMatrices).
 */
export function toCoreJson(value, packs = null) {
  let text;
  let cells = 0;
  try {
    text = JSON.stringify(value, function replace(key, v) {
      if (typeof v === 'number') {
        if (Object.is(v, -0)) return `${MARK}-0`;
        return Number.isFinite(v) ? v : `${MARK}${v}`;
      }
      if (v === undefined) return Array.isArray(this) || key === '' ? `${MARK}undefined` : undefined;
      if (typeof v === 'function' || typeof v === 'symbol' || typeof v === 'bigint') return `${MARK}${typeof v}`;
      if (typeof v === 'string' && v.length > LONG_STRING_UNITS) return `${MARK}long:${codePoints(v)}:${v.slice(0, 40)}`;
      if (packs && packable(v)) {
        packs.push({ offset: cells, matrix: v });
        const ref = { [PACKED]: cells, rows: v.length, cols: v[0].length };
        cells += v.length * v[0].length;
        return ref;
      }
      return v;
    });
  } catch (error) {
    // A getter or proxy in the input could throw anything; callers are promised StateError only.
    throw new StateError('state', `the state could not be read (${error && error.message})`);
  }
  return text.includes(NEGATIVE_ZERO) ? text.split(NEGATIVE_ZERO).join('-0.0') : text;
}

/** The value with each packed-matrix reference replaced by a fresh copy of its matrix (share: the
 * matrix itself). */
export function unpack(value, byOffset, { share = false } = {}) {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = unpack(value[i], byOffset, { share });
    return value;
  }
  if (value === null || typeof value !== 'object') return value;
  if (Object.prototype.hasOwnProperty.call(value, PACKED)) {
    const m = byOffset.get(value[PACKED]);
    return share ? m : m.map((row) => row.slice());
  }
  for (const k of Object.keys(value)) value[k] = unpack(value[k], byOffset, { share });
  return value;
}
