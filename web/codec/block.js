// The link's binary data block `d` (docs/state.md "The link"): the matrices, tokens, padding,
// allow-matrix, head names and source of a state, bit-exactly, deflated and checksummed.
//
//
// d = base64url (no padding) of:
//   bytes 0..2   "AP" 0x01            magic and block format 1
//   bytes 3..6   u32 LE               length of the uncompressed block (<= LIMITS.maxBlockBytes)
//   bytes 7..10  u32 LE               CRC-32 (ISO-HDLC, as in zlib/PNG) of the uncompressed block
//   bytes 11..   raw DEFLATE (RFC 1951, fflate) of the block
// block:
//   u32 LE H, then H bytes of UTF-8 JSON header:
//     {"tokens":{"queries":[..],"keys":[..]},"source":"..","allow":true|false,
//      "heads":[{"name":"..","Q":[rows,cols,bytes],..}]}
//     a head lists only its non-null matrices, with bytes 4 (float32) or 8 (float64)
//   then, little-endian and row-major: for each head, its matrices in the order Q, K, V, logits,
//   weights, WQ, WK, WV, gate (a null logits cell is a NaN; the gate is one row of n_q numbers);
//   then, in mode "x", X and WO; then n_k padding bytes (0/1); then, if "allow", n_q*n_k
//   allow bytes (0/1). Nothing may follow.
// Mode "x" and the gate extend format 1 without changing it: a head may also list "WQ", "WK",
//   "WV" and "gate" ([1, n_q, bytes]) shapes, and the header may carry
//   "x": {"X": [rows, cols, bytes], "WO": [rows, cols, bytes] (absent when null), "residual": bool}.
//   A link without them (every link written before) has exactly the old layout and reads as before.
// A matrix is written as float32 when every value survives Math.fround (including -0), so common
// small states and float32 model exports take half the space while doubles stay bit-exact.
// Raw deflate has no checksum; the CRC makes a mistyped or truncated d fail loudly instead of

import { deflateSync, inflateSync, strToU8, strFromU8 } from '../vendor/vendor.js';
import { LIMITS, StateError } from '../core/state-schema.js';
import { describe, isRecord, own } from './values.js';

// The block carries these fields of a head, of the tokens and of mode "x".
const MATRIX_NAMES = ['Q', 'K', 'V', 'logits', 'weights'];
const PROJECTION_NAMES = ['WQ', 'WK', 'WV'];
const HEAD_KEYS = ['name', ...MATRIX_NAMES, ...PROJECTION_NAMES, 'gate'];
const TOKENS_KEYS = ['queries', 'keys'];
const X_KEYS = ['X', 'WO', 'residual'];
const MAGIC = [0x41, 0x50]; // "AP"
const BLOCK_FORMAT = 1;
const PREFIX_BYTES = 11;
const HEADER_KEYS = ['tokens', 'source', 'allow', 'heads', 'x'];
// The matrices of a head in the block, in this order; the gate is stored as a 1 x n_q matrix.
const BLOCK_HEAD_MATRICES = [...MATRIX_NAMES, ...PROJECTION_NAMES, 'gate'];
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const BASE64URL_VALUE = new Int16Array(128).fill(-1);
for (let i = 0; i < 64; i++) BASE64URL_VALUE[BASE64URL.charCodeAt(i)] = i;

const CRC_TABLE = new Uint32Array(256);
for (let n = 0; n < 256; n++) {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  CRC_TABLE[n] = c >>> 0;
}

function crc32(bytes) {
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function isFloat32Exact(matrix) {
  for (const row of matrix) {
    for (const x of row) if (x !== null && Math.fround(x) !== x) return false;
  }
  return true;
}

function toBase64Url(bytes) {
  const n = bytes.length;
  const codes = new Uint8Array(Math.ceil((n * 4) / 3));
  const alphabet = Uint8Array.from(BASE64URL, (c) => c.charCodeAt(0));
  let o = 0;
  let i = 0;
  for (; i + 2 < n; i += 3) {
    const x = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    codes[o++] = alphabet[x >>> 18];
    codes[o++] = alphabet[(x >>> 12) & 63];
    codes[o++] = alphabet[(x >>> 6) & 63];
    codes[o++] = alphabet[x & 63];
  }
  if (i < n) {
    const x = (bytes[i] << 16) | (i + 1 < n ? bytes[i + 1] << 8 : 0);
    codes[o++] = alphabet[x >>> 18];
    codes[o++] = alphabet[(x >>> 12) & 63];
    if (i + 1 < n) codes[o++] = alphabet[(x >>> 6) & 63];
  }
  // Chunked so that String.fromCharCode never gets more arguments than the engine allows.
  const parts = [];
  for (let start = 0; start < o; start += 0x8000) {
    parts.push(String.fromCharCode.apply(null, codes.subarray(start, Math.min(o, start + 0x8000))));
  }
  return parts.join('');
}

function fromBase64Url(text) {
  const body = text.replace(/={1,2}$/, ''); // tolerate padding added by other tools
  if (body.length % 4 === 1) {
    throw new StateError('d', `d is not valid base64url: its length ${body.length} cannot come from whole bytes (was it cut short?)`);
  }
  const bytes = new Uint8Array(Math.floor((body.length * 3) / 4));
  let acc = 0;
  let bits = 0;
  let o = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body.charCodeAt(i);
    const v = c < 128 ? BASE64URL_VALUE[c] : -1;
    if (v < 0) {
      throw new StateError('d', `d is not valid base64url: character ${describe(body[i])} at position ${i} is not one of A-Z a-z 0-9 - _`);
    }
    acc = ((acc << 6) | v) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes[o++] = (acc >>> bits) & 0xff;
    }
  }
  return bytes;
}

/** Builds the uncompressed block of a valid state. */
function buildBlock(state) {
  const nQ = state.tokens.queries.length;
  const nK = state.tokens.keys.length;
  const matrices = [];
  const shapeOf = (m) => {
    const bytes = isFloat32Exact(m) ? 4 : 8;
    matrices.push({ m, bytes });
    return [m.length, m[0].length, bytes];
  };
  const headerHeads = state.heads.map((head) => {
    const entry = { name: head.name };
    for (const key of BLOCK_HEAD_MATRICES) {
      const m = key === 'gate' ? (head.gate ? [head.gate] : null) : (head[key] ?? null);
      if (m === null) continue;
      entry[key] = shapeOf(m);
    }
    return entry;
  });
  const headerObject = {
    tokens: state.tokens,
    source: state.source,
    allow: state.mask.allow !== null,
    heads: headerHeads,
  };
  if (state.x) {
    // After every head's matrices: X, then WO when there is one.
    headerObject.x = { X: shapeOf(state.x.X), ...(state.x.WO ? { WO: shapeOf(state.x.WO) } : {}), residual: state.x.residual };
  }
  const header = strToU8(JSON.stringify(headerObject));

  let size = 4 + header.length + nK + (state.mask.allow ? nQ * nK : 0);
  for (const { m, bytes } of matrices) size += m.length * m[0].length * bytes;
  if (size > LIMITS.maxBlockBytes) {
    throw new StateError('link', `the state is too large for a link (${size} bytes of data, at most ${LIMITS.maxBlockBytes})`);
  }

  const block = new Uint8Array(size);
  const view = new DataView(block.buffer);
  view.setUint32(0, header.length, true);
  block.set(header, 4);
  let p = 4 + header.length;
  for (const { m, bytes } of matrices) {
    for (const row of m) {
      for (const x of row) {
        const value = x === null ? NaN : x;
        if (bytes === 4) view.setFloat32(p, value, true);
        else view.setFloat64(p, value, true);
        p += bytes;
      }
    }
  }
  for (const flag of state.mask.padding) block[p++] = flag ? 1 : 0;
  if (state.mask.allow) for (const row of state.mask.allow) for (const flag of row) block[p++] = flag ? 1 : 0;
  return block;
}

/**
 * The data block `d` of a valid state: prefix (magic, format, length, CRC-32) and the deflated
 * block, in base64url.
 */
export function encodeBlock(state) {
  const block = buildBlock(state);
  const compressed = deflateSync(block, { level: 9 });
  const bytes = new Uint8Array(PREFIX_BYTES + compressed.length);
  bytes.set(MAGIC, 0);
  bytes[2] = BLOCK_FORMAT;
  const prefix = new DataView(bytes.buffer);
  prefix.setUint32(3, block.length, true);
  prefix.setUint32(7, crc32(block), true);
  bytes.set(compressed, PREFIX_BYTES);
  return toBase64Url(bytes);
}

function requireNonNegativeInt(value, what) {
  if (!Number.isInteger(value) || value < 0 || value > LIMITS.maxTokens) {
    throw new StateError('d', `d is corrupt: ${what} must be an integer from 0 to ${LIMITS.maxTokens} (got ${describe(value)})`);
  }
  return value;
}

/** Reads the block back into the parts of a state; the schema checks the shapes (core.validateState). */
export function readBlock(text) {
  const bytes = fromBase64Url(text);
  if (bytes.length < PREFIX_BYTES || bytes[0] !== MAGIC[0] || bytes[1] !== MAGIC[1]) {
    throw new StateError('d', 'd is not an Attention Playground data block (wrong start bytes; was it copied completely?)');
  }
  if (bytes[2] !== BLOCK_FORMAT) {
    throw new StateError('d', `d uses data block format ${bytes[2]}; this page reads format ${BLOCK_FORMAT}`);
  }
  const prefix = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const declared = prefix.getUint32(3, true);
  if (declared > LIMITS.maxBlockBytes) {
    throw new StateError('d', `d declares ${declared} bytes of data, more than the limit of ${LIMITS.maxBlockBytes}`);
  }
  // A fixed output buffer (one byte longer than declared, to notice overruns) keeps a
  // decompression bomb from allocating more than the declared size.
  let block;
  try {
    block = inflateSync(bytes.subarray(PREFIX_BYTES), { out: new Uint8Array(declared + 1) });
  } catch (error) {
    throw new StateError('d', `d is corrupt: its compressed data cannot be inflated (${error && error.message}; was the link cut short?)`);
  }
  if (block.length !== declared) {
    throw new StateError(
      'd',
      `d is corrupt or truncated: it inflates to ${block.length > declared ? 'more than ' : ''}${block.length} bytes, but declares ${declared}`,
    );
  }
  if (crc32(block) !== prefix.getUint32(7, true)) {
    throw new StateError('d', 'd is corrupt: its checksum does not match (was it edited or cut short?)');
  }
  if (block.length < 4) throw new StateError('d', 'd is corrupt: the data block has no header');
  const data = new DataView(block.buffer, block.byteOffset, block.byteLength);
  const headerLength = data.getUint32(0, true);
  if (headerLength > block.length - 4) {
    throw new StateError('d', `d is corrupt: its header claims ${headerLength} bytes but only ${block.length - 4} are there`);
  }
  let header;
  try {
    header = JSON.parse(strFromU8(block.subarray(4, 4 + headerLength)));
  } catch (error) {
    throw new StateError('d', `d is corrupt: its header is not JSON (${error && error.message})`);
  }
  if (!isRecord(header)) throw new StateError('d', `d is corrupt: its header must be an object (got ${describe(header)})`);
  for (const key of Object.keys(header)) {
    if (!HEADER_KEYS.includes(key)) throw new StateError('d', `d is corrupt: its header has an unknown field ${describe(key)}`);
  }
  const tokens = own(header, 'tokens');
  if (!isRecord(tokens) || !Array.isArray(own(tokens, 'queries')) || !Array.isArray(own(tokens, 'keys'))) {
    throw new StateError('d', 'd is corrupt: its header has no tokens.queries and tokens.keys arrays');
  }
  for (const key of Object.keys(tokens)) {
    if (!TOKENS_KEYS.includes(key)) throw new StateError('d', `d is corrupt: its header tokens have an unknown field ${describe(key)}`);
  }
  const nQ = requireNonNegativeInt(tokens.queries.length, 'the number of query tokens');
  const nK = requireNonNegativeInt(tokens.keys.length, 'the number of key tokens');
  const hasAllow = own(header, 'allow');
  if (typeof hasAllow !== 'boolean') throw new StateError('d', 'd is corrupt: its header field "allow" must be true or false');
  const headsIn = own(header, 'heads');
  if (!Array.isArray(headsIn) || headsIn.length < 1 || headsIn.length > LIMITS.maxHeads) {
    throw new StateError('d', `d is corrupt: its header must list 1 to ${LIMITS.maxHeads} heads`);
  }

  // Check every declared shape and the total size before allocating anything from them.
  const readShape = (shape, what) => {
    if (!Array.isArray(shape) || shape.length !== 3 || (shape[2] !== 4 && shape[2] !== 8)) {
      throw new StateError('d', `d is corrupt: the shape of ${what} must be [rows, columns, 4 or 8]`);
    }
    requireNonNegativeInt(shape[0], `the row count of ${what}`);
    requireNonNegativeInt(shape[1], `the column count of ${what}`);
    return shape;
  };
  const plan = headsIn.map((h, i) => {
    if (!isRecord(h)) throw new StateError('d', `d is corrupt: header head ${i} must be an object`);
    for (const key of Object.keys(h)) {
      if (!HEAD_KEYS.includes(key)) throw new StateError('d', `d is corrupt: header head ${i} has an unknown field ${describe(key)}`);
    }
    const shapes = {};
    for (const key of BLOCK_HEAD_MATRICES) {
      const shape = own(h, key);
      if (shape === undefined) continue;
      shapes[key] = readShape(shape, `heads[${i}].${key}`);
      if (key === 'gate' && shape[0] !== 1) throw new StateError('d', `d is corrupt: heads[${i}].gate must be stored as one row`);
    }
    return shapes;
  });
  // Mode "x" (format 1, extended): header.x = {X: shape, WO?: shape, residual}; absent in older links.
  const xIn = own(header, 'x');
  let xPlan = null;
  if (xIn !== undefined) {
    if (!isRecord(xIn)) throw new StateError('d', 'd is corrupt: its header field "x" must be an object');
    for (const key of Object.keys(xIn)) {
      if (!X_KEYS.includes(key)) throw new StateError('d', `d is corrupt: its header x has an unknown field ${describe(key)}`);
    }
    xPlan = {
      X: readShape(own(xIn, 'X'), 'x.X'),
      WO: own(xIn, 'WO') === undefined ? null : readShape(own(xIn, 'WO'), 'x.WO'),
      residual: own(xIn, 'residual'),
    };
    if (typeof xPlan.residual !== 'boolean') throw new StateError('d', 'd is corrupt: its header field x.residual must be true or false');
  }
  let needed = nK + (hasAllow ? nQ * nK : 0);
  for (const shapes of plan) for (const [rows, cols, bytes] of Object.values(shapes)) needed += rows * cols * bytes;
  if (xPlan) for (const shape of [xPlan.X, xPlan.WO]) if (shape) needed += shape[0] * shape[1] * shape[2];
  const available = block.length - 4 - headerLength;
  if (needed > available) {
    throw new StateError('d', `d is corrupt or truncated: it needs ${needed} bytes of numbers and flags but holds ${available}`);
  }
  if (needed < available) {
    throw new StateError('d', `d is corrupt: ${available - needed} unexpected bytes follow the data`);
  }

  let p = 4 + headerLength;
  const readMatrixData = ([rows, cols, bytes]) => {
    const m = new Array(rows);
    for (let r = 0; r < rows; r++) {
      const row = new Array(cols);
      for (let c = 0; c < cols; c++) {
        const x = bytes === 4 ? data.getFloat32(p, true) : data.getFloat64(p, true);
        row[c] = Number.isNaN(x) ? null : x; // NaN marks a masked logit; elsewhere validation refuses it
        p += bytes;
      }
      m[r] = row;
    }
    return m;
  };
  const heads = plan.map((shapes, i) => {
    const head = { name: own(headsIn[i], 'name') };
    for (const key of BLOCK_HEAD_MATRICES) {
      const shape = shapes[key];
      if (!shape) {
        if (MATRIX_NAMES.includes(key)) head[key] = null; // the mode-"x" keys stay absent
        continue;
      }
      const m = readMatrixData(shape);
      head[key] = key === 'gate' ? m[0] : m;
    }
    return head;
  });
  const x = xPlan && { X: readMatrixData(xPlan.X), WO: xPlan.WO ? readMatrixData(xPlan.WO) : null, residual: xPlan.residual };
  const readFlag = (what) => {
    const b = block[p++];
    if (b > 1) throw new StateError('d', `d is corrupt: a ${what} flag is ${b}, not 0 or 1`);
    return b === 1;
  };
  const padding = Array.from({ length: nK }, () => readFlag('padding'));
  const allow = hasAllow ? Array.from({ length: nQ }, () => Array.from({ length: nK }, () => readFlag('allow'))) : null;
  return { heads, tokens: { queries: tokens.queries, keys: tokens.keys }, source: own(header, 'source'), padding, allow, x };
}
