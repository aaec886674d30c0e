// The heads of an opened source (web/import/readers.js openSource): read from the file a few at a
// time (READ_BYTES a read, the next read under way while one is analysed), copied into the
// WebAssembly heap and analysed, compared or converted to float32 by the core, then dropped.
// No DOM: it runs in the import worker and in the node tests.
import { SCHEMA } from '../generated/schema.js';
import { MiB } from './messages.js';

/** Bytes [start, end) of a Blob, read with one slice. */
export async function readBytes(blob, start, end) {
  return new Uint8Array(await blob.slice(start, end).arrayBuffer());
}

/** Raw bytes of head `index` (layer-major: index = layer * heads + head). */
async function rawHead(source, index) {
  if (source.data) return heldHead(source, index);
  const start = source.dataOffset + index * source.headBytes;
  return readBytes(source.blob, start, start + source.headBytes);
}

/** Head `index` of a source held whole in memory (a JSON document's float32 values). */
function heldHead(source, index) {
  const n = source.layout.nQ * source.layout.nK;
  return new Uint8Array(source.data.buffer, source.data.byteOffset + index * n * 4, n * 4);
}

/**
 * Bytes of one read of the analysis: consecutive heads are read from the file together, up to
 * this many bytes (one head when a head is larger), and while one read is analysed the next one is
 * already being read. A worker therefore holds at most two reads (2 x 4 MiB) besides the head in
 * its heap; a head larger than this is read alone and not ahead (one head at a time, as before).
 */
export const READ_BYTES = 4 * MiB;

/** How many consecutive heads one read takes (at least one). */
export const headsPerRead = (headBytes) => Math.max(1, Math.floor(READ_BYTES / Math.max(1, headBytes)));

/**
 * The raw bytes of the heads `list` (indices, in that order), as an async iterator of
 * {index, bytes}: runs of consecutive indices are read in blocks of headsPerRead() heads with one
 * File read (Blob.slice), the next block being read while the caller analyses the current one.
 */
export async function* readHeads(source, list) {
  if (source.data) {
    for (const index of list) yield { index, bytes: heldHead(source, index) };
    return;
  }
  const per = headsPerRead(source.headBytes);
  const ahead = source.headBytes <= READ_BYTES; // a head beyond the read size: one at a time
  // Blocks: [position in list, count] of consecutive indices.
  const blocks = [];
  for (let i = 0; i < list.length;) {
    let k = 1;
    while (k < per && i + k < list.length && list[i + k] === list[i] + k) k++;
    blocks.push([i, k]);
    i += k;
  }
  const read = ([i, k]) => {
    const start = source.dataOffset + list[i] * source.headBytes;
    return readBytes(source.blob, start, start + k * source.headBytes);
  };
  let next = blocks.length ? read(blocks[0]) : null;
  for (let b = 0; b < blocks.length; b++) {
    const bytes = await next;
    next = ahead && b + 1 < blocks.length ? read(blocks[b + 1]) : null;
    // A read that is not awaited (the caller stopped) must not report an unhandled rejection.
    next?.catch(() => {});
    const [i, k] = blocks[b];
    for (let j = 0; j < k; j++) {
      yield { index: list[i + j], bytes: bytes.subarray(j * source.headBytes, (j + 1) * source.headBytes) };
    }
    if (!ahead && b + 1 < blocks.length) next = read(blocks[b + 1]);
  }
}

/** Default analysis options (analysis.hpp AnalyzeOptions). */
export const ANALYZE_DEFAULTS = Object.freeze({ reading: 'weights', causal: false, ...SCHEMA.rowDefaults, thumbnail: 32 });

/**
 * Analyses one head: copies its bytes into the heap, runs the core's check and analysis (a float32
 * head is analysed where it lies in the heap, other dtypes converted there by the core).
 * @param {object} core
 * @param {object} source  from openSource()
 * @param {number} index   layer * heads + head
 * @param {object} [options]  ANALYZE_DEFAULTS overrides; wantRows (default false)
 * @param {Uint8Array} [bytes]  the head's raw bytes when already read (readHeads)
 * @returns {Promise<object>} analyzeHead()'s result with {index, layer, head}
 */
export async function analyzeSourceHead(core, source, index, options = {}, bytes = null) {
  return analyzeHeadBytes(core, source, index, options, bytes ?? (await rawHead(source, index)));
}

/** analyzeSourceHead() of bytes already read (synchronous). */
export function analyzeHeadBytes(core, source, index, options, bytes) {
  const o = { ...ANALYZE_DEFAULTS, wantRows: false, ...options };
  const ptr = core.alloc(bytes.length);
  try {
    core.writeU8(ptr, bytes);
    // The key tokens give the TransformerLens duplicate-token and induction scores.
    const { nQ, nK } = source.layout;
    const tokens = nQ === nK && source.keyTokens?.length === nK ? source.keyTokens : undefined;
    const r = core.analyzeHead({ ...o, ptr, dtype: source.dtype, nQ, nK, tokens });
    const layer = Math.floor(index / source.layout.heads);
    return { ...r, index, layer, head: index - layer * source.layout.heads };
  } finally {
    core.free(ptr);
  }
}

/**
 * Compares head `index` of two sources of the same layout (the core's compareHeads).
 * @returns {Promise<object>} compareHeads()'s result with {index, layer, head}
 */
export async function compareSourceHead(core, a, b, index, options = {}) {
  const o = { ...ANALYZE_DEFAULTS, ...options, thumbnail: 0, wantRows: false };
  const [ba, bb] = await Promise.all([rawHead(a, index), rawHead(b, index)]);
  const pa = core.alloc(ba.length);
  const pb = core.alloc(bb.length);
  try {
    core.writeU8(pa, ba);
    core.writeU8(pb, bb);
    const r = core.compareHeads({ ...o, ptrA: pa, dtypeA: a.dtype, ptrB: pb, dtypeB: b.dtype, nQ: a.layout.nQ, nK: a.layout.nK });
    const layer = Math.floor(index / a.layout.heads);
    return { ...r, index, layer, head: index - layer * a.layout.heads };
  } finally {
    core.free(pa);
    core.free(pb);
  }
}

/**
 * The float32 values of one head (n_q * n_k, row-major), for opening it in the playground.
 */
export async function headValues(core, source, index) {
  const bytes = await rawHead(source, index);
  const n = source.layout.nQ * source.layout.nK;
  if (source.dtype === 'float32') {
    return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
  }
  const src = core.alloc(bytes.length);
  const dst = core.alloc(n * 4);
  try {
    core.writeU8(src, bytes);
    core.toFloat32(src, source.dtype, n, dst);
    return core.viewF32(dst, n).slice();
  } finally {
    core.free(src);
    core.free(dst);
  }
}

/**
 * Analyses every head (or `indices`), calling onHead(result, done, total) after each.
 * @returns {Promise<object[]>} the results in order
 */
export async function analyzeAll(core, source, options = {}, onHead = () => {}, indices = null) {
  const list = indices ?? Array.from({ length: source.layout.layers * source.layout.heads }, (_, i) => i);
  const out = [];
  for await (const { index, bytes } of readHeads(source, list)) {
    const r = analyzeHeadBytes(core, source, index, options, bytes);
    out.push(r);
    onHead(r, out.length, list.length);
  }
  return out;
}
