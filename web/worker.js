// A Web Worker with its own instance of the WebAssembly core, so heavy recomputes never freeze
// the page. Tensors of a large head are written into this worker's heap once (message "head" with
// a new `key`) and reused by every later recompute (a temperature or mask change sends no data).
//
// Messages in:  {type: 'init', options}                           -> {type: 'ready', variant, ...}
//               {type: 'compute', id, state}                      -> {type: 'result', id, results}
//               {type: 'head', id, key, tensors?, spec, tile?, row?}
//                   -> {type: 'result', id, results: {head, tile, rowWeights}}
// Errors come back as {type: 'error', id, error: {name, code, field, message}}.
import { loadCore } from './core.js';

let core = null;
let loaded = null; // {key, ptrs: {q, k, v, given, padding, allow}}

function release() {
  if (!loaded) return;
  for (const ptr of Object.values(loaded.ptrs)) core.free(ptr);
  loaded = null;
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
  const spec = { ...msg.spec, ...loaded.ptrs };
  const head = core.computeHead(spec);
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
    } else if (msg.type === 'head') {
      const results = computeHead(msg);
      const transfer = [results.head.output.buffer, results.head.overview.buffer,
        ...Object.values(results.head.rows).map((a) => a.buffer)];
      if (results.rowWeights) transfer.push(results.rowWeights.buffer);
      self.postMessage({ type: 'result', id: msg.id, results }, transfer);
    }
  } catch (e) {
    self.postMessage({
      type: 'error', id: msg.id,
      error: { name: e.name, code: e.code, field: e.field, message: e.message },
    });
  }
};
