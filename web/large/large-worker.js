// A Web Worker with its own instance of the WebAssembly core, so heavy recomputes never freeze
// the page. Tensors of a large head are written into this worker's heap once (message "head" with
// a new `key`) and reused by every later recompute (a temperature or mask change sends no data).
//
// Messages in:  {type: 'init', options}                           -> {type: 'ready', variant, ...}
//               {type: 'compute', id, state}                      -> {type: 'result', id, results}
//               {type: 'head', id, key, tensors?, spec, tile?, row?}
//                   -> {type: 'result', id, results: {head, tile, rowWeights}}
//               {type: 'rows', id, key, tensors?, spec, r0, r1}
//                   -> {type: 'result', id, results: {head}}: query rows [r0, r1) of the head
//                   only (core.computeHeadRows), so several workers can share a long head's rows
// Errors come back as {type: 'error', id, error: {name, code, field, message}}.
import { loadCore } from '../core/core.js';

let core = null;
let loaded = null; // {key, ptrs: {q, k, v, given, padding, allow}}
let cached = null; // {key, scale, ptr, result}: S = Q K^T * scale of the loaded qkv head
const MAX_CACHED_SCORES = 16 * 1024 * 1024; // cells (64 MiB of float32)

function release() {
  if (cached) core.free(cached.ptr);
  cached = null;
  if (!loaded) return;
  for (const ptr of Object.values(loaded.ptrs)) core.free(ptr);
  loaded = null;
}

/**
 * The spec the core runs. A qkv head's scores are computed once per (tensors, scale) and kept in
 * the heap; later recomputes (temperature, masks, top-k, row) run them as logits and skip Q K^T.
 */
function runnable(spec) {
  const full = { ...spec, ...loaded.ptrs };
  if (spec.mode !== 'qkv' || spec.nQ * spec.nK > MAX_CACHED_SCORES) return full;
  if (!cached || cached.key !== loaded.key || cached.scale !== spec.scale) {
    if (cached) core.free(cached.ptr);
    cached = null;
    const ptr = core.alloc(spec.nQ * spec.nK * 4);
    try {
      cached = { key: loaded.key, scale: spec.scale, ptr, used: core.scoresInto(full, ptr) };
    } catch (e) {
      core.free(ptr);
      throw e;
    }
  }
  return { ...full, mode: 'logits', given: cached.ptr, q: 0, k: 0 };
}

/** Writes the tensors of a head into the heap (once per key). */
function upload(key, tensors) {
  release();
  const ptrs = {};
  for (const [name, data] of Object.entries(tensors)) {
    if (!data) continue;
    const ptr = core.alloc(data.byteLength);
    if (data instanceof Float32Array) core.writeF32(ptr, data);
    else core.writeU8(ptr, data);
    ptrs[name] = ptr;
  }
  loaded = { key, ptrs };
}

/** The full row `t` of the weights, in tiles of at most 512 keys (NaN = not visible). */
function rowWeights(spec, t) {
  const out = new Float32Array(spec.nK);
  for (let c0 = 0; c0 < spec.nK; c0 += 512) {
    const c1 = Math.min(spec.nK, c0 + 512);
    out.set(core.computeTile(spec, t, t + 1, c0, c1).weights, c0);
  }
  return out;
}

function computeHead(msg) {
  if (msg.tensors) upload(msg.key, msg.tensors);
  if (!loaded || loaded.key !== msg.key) throw new Error(`no tensors loaded for ${msg.key}`);
  const spec = runnable(msg.spec);
  const head = core.computeHead(spec);
  if (msg.spec.mode === 'qkv') head.scale = cached?.used ?? head.scale;
  const tile = msg.tile ? core.computeTile(spec, ...msg.tile) : null;
  const row = Number.isInteger(msg.row) ? rowWeights(spec, msg.row) : null;
  return { head, tile, rowWeights: row, memoryBytes: core.memoryBytes() };
}

self.onmessage = async (ev) => {
  const msg = ev.data;
  try {
    if (msg.type === 'init') {
      core = await loadCore(msg.options ?? {});
      self.postMessage({ type: 'ready', variant: core.variant, kernels: core.kernels, fallbackReason: core.fallbackReason });
    } else if (msg.type === 'compute') {
      self.postMessage({ type: 'result', id: msg.id, results: core.compute(msg.state) });
    } else if (msg.type === 'rows') {
      if (msg.tensors) upload(msg.key, msg.tensors);
      if (!loaded || loaded.key !== msg.key) throw new Error(`no tensors loaded for ${msg.key}`);
      // The spec as given: a long head's scores are not cached (runnable() would compute all rows).
      const head = core.computeHeadRows({ ...msg.spec, ...loaded.ptrs }, msg.r0, msg.r1);
      const transfer = [head.output.buffer, head.overview.buffer, ...Object.values(head.rows).map((a) => a.buffer)];
      self.postMessage({ type: 'result', id: msg.id, results: { head } }, transfer);
    } else if (msg.type === 'head') {
      const results = computeHead(msg);
      const transfer = [results.head.output.buffer, results.head.overview.buffer, ...Object.values(results.head.rows).map((a) => a.buffer)];
      if (results.rowWeights) transfer.push(results.rowWeights.buffer);
      self.postMessage({ type: 'result', id: msg.id, results }, transfer);
    }
  } catch (e) {
    self.postMessage({
      type: 'error',
      id: msg.id,
      error: { name: e.name, code: e.code, field: e.field, message: e.message },
    });
  }
};
