// Writers of .npy / .npz test files, independent of the code under test: the .npy format as
// NumPy documents it (magic, version, little-endian header length, a Python-literal dict padded
// with spaces to a multiple of 64 bytes, then the data), float16 by IEEE 754 rounding written
// out here, zip by fflate straight from node_modules.
import { zipSync } from 'fflate';

/** IEEE 754 binary16 bits of a number, round to nearest even (the way NumPy's astype does). */
export function float16Bits(x) {
  const f32 = new Float32Array([x]);
  const u = new Uint32Array(f32.buffer)[0];
  const sign = (u >>> 16) & 0x8000;
  const exp = (u >>> 23) & 0xff;
  let mant = u & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0); // Inf, NaN
  let e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00; // overflow -> Inf
  if (e <= 0) {
    // subnormal or zero
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    let half = mant >>> shift;
    const rest = mant & ((1 << shift) - 1);
    const mid = 1 << (shift - 1);
    if (rest > mid || (rest === mid && half & 1)) half += 1;
    return sign | half;
  }
  let half = (e << 10) | (mant >>> 13);
  const rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && half & 1)) half += 1; // may carry into the exponent: fine
  return sign | half;
}

/**
 * The header of a .npy file (magic, version, little-endian header length, a Python-literal dict
 * padded with spaces to a multiple of 64 bytes and ending in a newline).
 * @param {number[]} shape
 * @param {object} [o]
 * @param {string} [o.descr]  dtype descr (any string, to write bad files)
 * @param {boolean} [o.fortran]
 * @param {1|2|3} [o.version]
 * @param {string} [o.dict]  the header dict verbatim (overrides descr/fortran/shape)
 * @returns {Uint8Array}
 */
export function npyHeader(shape, { descr = '<f4', fortran = false, version = 1, dict = null } = {}) {
  const shapeText = shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
  const text = dict ?? `{'descr': '${descr}', 'fortran_order': ${fortran ? 'True' : 'False'}, 'shape': ${shapeText}, }`;
  const pre = 6 + 2 + (version === 1 ? 2 : 4);
  const total = Math.ceil((pre + text.length + 1) / 64) * 64;
  const header = text + ' '.repeat(total - pre - text.length - 1) + '\n';
  const out = new Uint8Array(total);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, version, 0], 0);
  const dv = new DataView(out.buffer);
  if (version === 1) dv.setUint16(8, header.length, true);
  else dv.setUint32(8, header.length, true);
  for (let i = 0; i < header.length; i++) out[pre + i] = header.charCodeAt(i);
  return out;
}

const ITEM_SIZE = { '<f2': 2, '<f4': 4, '<f8': 8, '>f4': 4, '<i8': 8 };

/**
 * A .npy file: npyHeader() then the values, row-major, written as the descr says ('<f2' by
 * IEEE rounding above, '<f4', '<f8', '>f4' big-endian, '<i8' rounded integers; anything else as
 * '<f4' bytes).
 * @param {number[]} shape
 * @param {ArrayLike<number>} values
 * @param {object} [o]  as npyHeader()
 * @returns {Uint8Array}
 */
export function npy(shape, values, o = {}) {
  const header = npyHeader(shape, o);
  const descr = o.descr ?? '<f4';
  const size = ITEM_SIZE[descr] ?? 4;
  const out = new Uint8Array(header.length + values.length * size);
  out.set(header, 0);
  const dv = new DataView(out.buffer);
  for (let i = 0; i < values.length; i++) {
    const at = header.length + i * size;
    if (descr === '<f2') dv.setUint16(at, float16Bits(values[i]), true);
    else if (descr === '<f8') dv.setFloat64(at, values[i], true);
    else if (descr === '>f4') dv.setFloat32(at, values[i], false);
    else if (descr === '<i8') dv.setBigInt64(at, BigInt(Math.round(values[i])), true);
    else dv.setFloat32(at, values[i], true);
  }
  return out;
}

/** A .npz archive of named .npy members. */
export function npz(members, { compress = true } = {}) {
  const files = {};
  for (const [name, bytes] of Object.entries(members)) files[`${name}.npy`] = [bytes, { level: compress ? 6 : 0 }];
  return zipSync(files);
}

/** Causal attention of n tokens whose row t is uniform over keys 0..t (rows sum to 1 exactly
 *  in float64; for testing only). */
export function uniformCausal(n) {
  const a = new Float64Array(n * n);
  for (let t = 0; t < n; t++) for (let j = 0; j <= t; j++) a[t * n + j] = 1 / (t + 1);
  return a;
}
