// The analysis lab's worker: its own WebAssembly core, so a lab view of a large head (up to the
// import's 1,024 tokens and beyond, to the schema's maxTokens) is computed without freezing the
// page. One request at a time; the page cancels by terminating the worker (web/lab/offthread.js).
//
// Messages in:  {type: 'init', options}           -> {type: 'ready'}
//               {type: 'lab', id, state}          -> {type: 'result', id, lab} (core.lab(state); its
//                   matrices may come packed as {packed, rows, cols, data: Float64Array})
// Errors: {type: 'error', id, error: {name, code, field, message}}.
import { loadCore } from '../core/core.js';

let core = null;

/** The nested arrays of a state packed by offthread.js packState (NaN back to null). */
function unpackState(state) {
  const unpack = (m) =>
    m && m.packed
      ? Array.from({ length: m.rows }, (_, i) =>
          Array.from(m.data.subarray(i * m.cols, (i + 1) * m.cols), (x) => (Number.isNaN(x) ? null : x)),
        )
      : m;
  return { ...state, heads: state.heads.map((hd) => Object.fromEntries(Object.entries(hd).map(([k, v]) => [k, unpack(v)]))) };
}

self.onmessage = async (ev) => {
  const msg = ev.data;
  try {
    if (msg.type === 'init') {
      core = await loadCore({ ...(msg.options ?? {}), lab: true }); // every lab view: the lab module too
      self.postMessage({ type: 'ready' });
    } else if (msg.type === 'lab') {
      self.postMessage({ type: 'result', id: msg.id, lab: core.lab(unpackState(msg.state)) });
    }
  } catch (e) {
    self.postMessage({ type: 'error', id: msg.id, error: { name: e.name, code: e.code, field: e.field, message: e.message } });
  }
};
