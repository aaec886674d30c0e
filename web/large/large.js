// Large heads (more than LARGE_KEYS keys or LARGE_CELLS cells): computed in a Web Worker by the
// streaming core, a block of rows at a time, so the page never holds or draws the n x n matrices.
// The head's tensors are sent to the worker once per change of the matrices (a hash of them is
// the key); a temperature, mask or row change sends only numbers.
import { AttentionError } from '../core/core.js';
import { SCHEMA } from '../generated/schema.js';
import { rowsFromColumns } from '../views/metrics.js';

// Above these sizes a table of cells is too slow to repaint on every slider step (a 64 x 64 table
// took ~250 ms per step in Chromium); the canvas overview is full resolution up to 128 x 128.
export const LARGE_KEYS = 48;
export const LARGE_CELLS = 48 * 48;
export const OVERVIEW_CELLS = 128; // side of the pooled overview grid
export const TILE = 32; // side of a zoomed full-resolution tile
export const BLOCK_ROWS = 64; // rows per block of the streaming path (and of the cost line, web/core/cost.js)

/** Shape of the selected head of a valid state. */
export function headShape(s) {
  const hd = s.heads[s.head];
  const given = s.mode === 'logits' ? hd.logits : hd.weights;
  const nQ = s.mode === 'qkv' ? hd.Q.length : given.length;
  const nK = s.mode === 'qkv' ? hd.K.length : given[0].length;
  return { nQ, nK, dK: s.mode === 'qkv' ? hd.Q[0].length : 0, dV: hd.V ? (hd.V[0]?.length ?? 0) : 0 };
}

/** True when the state goes through the worker's streaming path. */
export function isLarge(s) {
  const { nQ, nK } = headShape(s);
  return nK > LARGE_KEYS || nQ * nK > LARGE_CELLS;
}

// FNV-1a over the float64 bits of every number: cheap enough per commit (262k numbers ~ 3 ms),
// and it tells whether the worker already holds these tensors. A matrix's hash is kept per matrix
// object (committed matrices are never changed in place: the page edits deep copies), so a change
// of row or lab view, whose state shares the matrices (store.js LOOK_KINDS), hashes no numbers
// (a 2,048-token head's 4M took 0.3 to 0.6 s).
const matrixHashes = new WeakMap();

function fnv(h, x, f64, u32) {
  f64[0] = x === null ? NaN : x;
  h = Math.imul(h ^ u32[0], 16777619) >>> 0;
  return Math.imul(h ^ u32[1], 16777619) >>> 0;
}

function hashState(s) {
  const hd = s.heads[s.head];
  let h = 0x811c9dc5;
  const f64 = new Float64Array(1);
  const u32 = new Uint32Array(f64.buffer);
  const mix = (x) => {
    h = fnv(h, x, f64, u32);
  };
  const matrix = (m) => {
    if (!m) {
      mix(-1.5);
      return;
    }
    let mh = matrixHashes.get(m);
    if (mh === undefined) {
      mh = 0x811c9dc5;
      mh = fnv(mh, m.length, f64, u32);
      mh = fnv(mh, m[0]?.length ?? 0, f64, u32);
      for (const row of m) for (const x of row) mh = fnv(mh, typeof x === 'boolean' ? Number(x) : x, f64, u32);
      matrixHashes.set(m, mh);
    }
    mix(mh);
  };
  mix(['qkv', 'logits', 'weights'].indexOf(s.mode));
  matrix(hd.Q);
  matrix(hd.K);
  matrix(hd.V);
  matrix(hd.logits);
  matrix(hd.weights);
  for (const p of s.mask.padding) mix(p ? 1 : 0);
  if (s.mask.allow) matrix(s.mask.allow);
  return `${s.head}:${h.toString(16)}`;
}

const FLOAT32_MAX = 3.4028234663852886e38;

/** Row-major float32 copy; a value beyond float32 is refused as the core refuses it in JSON. */
function flatten(m, field, nullAs = NaN) {
  const rows = m.length;
  const cols = m[0]?.length ?? 0;
  const out = new Float32Array(rows * cols);
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < cols; j++) {
      const x = m[i][j];
      if (x !== null && Math.abs(x) > FLOAT32_MAX) {
        throw new AttentionError(
          'invalid_value',
          field,
          `${field}[${i}][${j}] = ${x} is outside the float32 range (magnitude <= 3.4e38) the core computes in`,
        );
      }
      out[i * cols + j] = x ?? nullAs;
    }
  }
  return out;
}

function tensorsOf(s) {
  const hd = s.heads[s.head];
  const f = `heads[${s.head}]`;
  const t = {};
  if (s.mode === 'qkv') {
    t.q = flatten(hd.Q, `${f}.Q`);
    t.k = flatten(hd.K, `${f}.K`);
  }
  if (s.mode === 'logits') t.given = flatten(hd.logits, `${f}.logits`, -Infinity); // null = masked
  if (s.mode === 'weights') t.given = flatten(hd.weights, `${f}.weights`);
  if (hd.V && hd.V[0]?.length) t.v = flatten(hd.V, `${f}.V`);
  if (s.mask.padding.some(Boolean)) t.padding = Uint8Array.from(s.mask.padding, Number);
  if (s.mask.allow) t.allow = Uint8Array.from(s.mask.allow.flat(), Number);
  return t;
}

function specOf(s) {
  const { nQ, nK, dK, dV } = headShape(s);
  return {
    mode: s.mode,
    nQ,
    nK,
    dK,
    dV,
    causal: s.mask.causal,
    window: s.mask.window,
    stride: s.mask.stride ?? 0,
    maskSinks: s.mask.sinks ?? 0,
    tau: s.tau,
    scale: s.scale === 'auto' ? 0 : s.scale,
    topK: s.topK,
    sinkKeys: SCHEMA.rowDefaults.sinkKeys,
    delta: SCHEMA.rowDefaults.delta,
    blockRows: BLOCK_ROWS,
    overview: OVERVIEW_CELLS,
    pool: 'max',
    wantOutput: true,
  };
}

const num = (x) => (Number.isFinite(x) ? x : null);

/** The worker's answer as the results JSON of docs/state.md, with `large: true`. */
function toResults(s, answer) {
  const { head, tile, rowWeights } = answer;
  const r = head.rows;
  const rows = rowsFromColumns(r, head.nQ);
  const output = Array.from({ length: head.nQ }, (_, t) => Array.from(head.output.subarray(t * head.dV, (t + 1) * head.dV)));
  const summary = Object.fromEntries(Object.entries(head.summary).map(([k, v]) => [k, num(v)]));
  return {
    version: 1,
    mode: s.mode,
    head: s.head,
    nQ: head.nQ,
    nK: head.nK,
    dV: head.dV,
    scale: head.scale,
    large: true,
    scores: null,
    weights: null,
    visible: null,
    output,
    rows,
    summary,
    overview: { rows: head.overviewRows, cols: head.overviewCols, pool: 'max', data: head.overview },
    tile: tile ? { ...tile, at: answer.tileAt } : null,
    rowWeights: rowWeights ? Array.from(rowWeights, (x) => (Number.isNaN(x) ? null : x)) : null,
    selectedRow: s.row,
    memoryBytes: answer.memoryBytes,
  };
}

/** Talks to the worker; one request in flight per kind is enough since newer ones supersede. */
export class LargeHeads {
  /** @param {object} coreOptions  serialisable loadCore options ({variant, failSelfTest}) */
  constructor(coreOptions) {
    this.worker = new Worker(new URL('./large-worker.js', import.meta.url), { type: 'module' });
    this.nextId = 1;
    this.pending = new Map();
    this.loadedKey = null;
    this.seq = 0;
    this.ready = new Promise((resolve, reject) => this.pending.set(0, { resolve, reject }));
    this.worker.onmessage = (ev) => {
      const m = ev.data;
      const id = m.type === 'ready' ? 0 : m.id;
      const p = this.pending.get(id);
      if (!p) return;
      this.pending.delete(id);
      if (m.type === 'error') {
        const e = m.error;
        p.reject(e.code ? new AttentionError(e.code, e.field, e.message) : new Error(e.message));
      } else {
        p.resolve(m.type === 'ready' ? m : m.results);
      }
    };
    this.worker.onerror = (ev) => {
      for (const p of this.pending.values()) p.reject(new Error(`the worker failed: ${ev.message}`));
      this.pending.clear();
    };
    this.worker.postMessage({ type: 'init', options: coreOptions });
  }

  request(msg, transfer = []) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...msg, id }, transfer);
    });
  }

  /**
   * Computes the selected head of a large valid state. Resolves to {results} or to
   * {superseded: true} when a newer compute was asked for meanwhile; rejects with
   * AttentionError when the core refuses the state.
   * @param {object} s        valid state
   * @param {[number, number, number, number] | null} tile  [r0, r1, c0, c1] to zoom into
   */
  async compute(s, tile) {
    await this.ready;
    const seq = ++this.seq;
    const key = hashState(s);
    const msg = { type: 'head', key, spec: specOf(s), row: s.row, tile };
    let transfer = [];
    if (key !== this.loadedKey) {
      msg.tensors = tensorsOf(s);
      transfer = Object.values(msg.tensors).map((a) => a.buffer);
    }
    this.loadedKey = key;
    let answer;
    try {
      answer = await this.request(msg, transfer);
    } catch (e) {
      this.loadedKey = null; // the worker may not hold the tensors: send them again next time
      throw e;
    }
    if (seq !== this.seq) return { superseded: true };
    answer.tileAt = tile;
    return { results: toResults(s, answer) };
  }
}
