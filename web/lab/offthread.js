// Lab views of large heads, off the main thread: the state goes to web/lab/lab-worker.js (its own
// WebAssembly core), the page shows a progress line with the time so far and a Cancel button, and
// the view draws the core's answer when it comes. Cancel (or a newer request) terminates the
// worker; the next request starts a fresh one. No side effects at import time.
import { AttentionError } from '../core/core.js';
import { h, mount } from '../views/dom.js';
import { t } from '../i18n/i18n.js';

let worker = null;
let ready = null;
let pending = null; // {id, resolve, reject}
let nextId = 1;

function start(coreOptions) {
  worker = new Worker(new URL('./lab-worker.js', import.meta.url), { type: 'module' });
  ready = new Promise((resolve, reject) => {
    worker.onmessage = (ev) => {
      const m = ev.data;
      if (m.type === 'ready') {
        resolve();
        return;
      }
      if (!pending || m.id !== pending.id) return;
      const p = pending;
      pending = null;
      if (m.type === 'error') {
        const e = m.error;
        p.reject(e.code ? new AttentionError(e.code, e.field, e.message) : new Error(e.message));
      } else p.resolve(m.lab);
    };
    worker.onerror = (ev) => {
      const err = new Error(`the lab worker failed: ${ev.message}`);
      reject(err);
      pending?.reject(err);
      pending = null;
    };
  });
  worker.postMessage({ type: 'init', options: coreOptions });
}

// The flat copy of each matrix already packed, per matrix object (a committed state's matrices are
// never changed in place, web/page/store.js): the next view of the same head posts it again (a
// memcpy) instead of walking its 4M numbers (0.1 to 0.5 s of the main thread at 2,048 tokens).
const packedCopies = new WeakMap();

/**
 * The state with its matrices as flat Float64Arrays (NaN = null), so that posting it to the worker
 * copies a few buffers instead of cloning millions of numbers one by one (~0.8 s at 2,048 tokens
 * on the main thread). The worker rebuilds the nested arrays (unpackState in lab-worker.js).
 * @returns {{state: object, transfer: ArrayBuffer[]}} transfer is empty: the buffers are kept for
 *   the next request (packedCopies) and posted as copies
 */
export function packState(state) {
  return packWith(state, (m) => packedCopies.get(m) ?? packMatrix(m));
}

/** A number matrix (rectangular rows of numbers and nulls) as {packed, rows, cols, data}; else m. */
function packMatrix(m, rowsPerStep = Infinity, out = null) {
  if (!isNumberMatrix(m)) return m;
  const rows = m.length;
  const cols = m[0].length;
  const p = out ?? { packed: true, rows, cols, data: new Float64Array(rows * cols), done: 0 };
  const end = Math.min(rows, p.done + rowsPerStep);
  for (let i = p.done; i < end; i++) {
    const row = m[i];
    if (row.length !== cols) return m; // ragged: the core says what is wrong with it
    for (let j = 0; j < cols; j++) p.data[i * cols + j] = row[j] === null ? NaN : row[j];
  }
  p.done = end;
  if (p.done === rows) {
    delete p.done;
    packedCopies.set(m, p);
  }
  return p;
}

const isNumberMatrix = (m) =>
  Array.isArray(m) && Array.isArray(m[0]) && typeof (m[0].find((x) => x !== null) ?? 0) === 'number' && m.every((r) => Array.isArray(r));

function packWith(state, pack) {
  const heads = state.heads.map((hd) => Object.fromEntries(Object.entries(hd).map(([k, v]) => [k, pack(v)])));
  return { state: { ...state, heads }, transfer: [] };
}

// Packing a 2,048-token matrix the first time walks 4M numbers: done ROWS_PER_STEP rows per task
// (a few ms each) so the page keeps painting; a newer request or Cancel stops it (generation).
const ROWS_PER_STEP = 128;
let generation = 0;

async function packInSteps(state, gen) {
  for (const hd of state.heads) {
    for (const m of Object.values(hd)) {
      if (!isNumberMatrix(m) || packedCopies.has(m)) continue;
      let p = null;
      do {
        p = packMatrix(m, ROWS_PER_STEP, p);
        if (p === m) break; // ragged: left to the core
        await new Promise((resolve) => setTimeout(resolve, 0));
        if (gen !== generation) throw Object.assign(new Error('cancelled'), { cancelled: true });
      } while (!packedCopies.has(m));
    }
  }
}

/** Stops the running computation (the worker is terminated; the next request starts another). */
export function cancelLab() {
  generation++;
  if (!worker) return;
  worker.terminate();
  worker = null;
  ready = null;
  const p = pending;
  pending = null;
  p?.reject(Object.assign(new Error('cancelled'), { cancelled: true }));
}

/**
 * core.lab(state) in the lab worker, with a progress line and Cancel in `progressBox`.
 * @param {object} state           a valid state with state.lab.view set
 * @param {object} o
 * @param {HTMLElement} o.progressBox where the progress line goes (emptied at the end)
 * @param {object} [o.coreOptions] loadCore options
 * @returns {Promise<object>} the lab's JSON (docs/lab.md); rejects with AttentionError, or an Error
 *   with `cancelled: true`
 */
export async function labOffThread(state, { progressBox, coreOptions = {} }) {
  if (pending) cancelLab(); // a newer state replaces the running one
  if (!worker) start(coreOptions);
  const t0 = performance.now();
  const bar = h('progress', { id: 'lab-progress-bar' });
  const text = h('span', { id: 'lab-progress-text', role: 'status' }, t('views.lab.running', { s: '0.0' }));
  const cancel = h('button', { type: 'button', id: 'lab-cancel', onclick: () => cancelLab() }, t('views.lab.cancel'));
  mount(progressBox, h('div', { class: 'lab-progress' }, bar, ' ', text, ' ', cancel));
  const timer = setInterval(() => {
    text.textContent = t('views.lab.running', { s: ((performance.now() - t0) / 1000).toFixed(1) });
  }, 250);
  try {
    const gen = ++generation;
    await packInSteps(state, gen);
    await ready;
    if (gen !== generation) throw Object.assign(new Error('cancelled'), { cancelled: true });
    const id = nextId++;
    return await new Promise((resolve, reject) => {
      pending = { id, resolve, reject };
      const packed = packState(state);
      worker.postMessage({ type: 'lab', id, state: packed.state }, packed.transfer);
    });
  } finally {
    clearInterval(timer);
    if (progressBox.contains(bar)) progressBox.replaceChildren(); // not a newer request's progress line
  }
}
