// The import view's side of the import workers (web/import/import-worker.js): requests by id, each a
// promise; progress messages go to the request's onProgress, errors come back as AttentionError
// (or Error) with the importer's own message key (i18n) when it has one.
//
// Both cores (docs/import.md, "Workers"): an analysis is split over up to IMPORT_WORKERS_MAX
// workers (navigator.hardwareConcurrency by default), each with its own WebAssembly core reading
// its own heads from the same File (a Blob is shared by reference, not copied; no shared memory,
// so it works without cross-origin isolation and under the page's CSP). Heads are dealt out in
// turn in blocks of the heads one File read takes (block b to worker b mod N), their progress
// messages merged back into file order, and the per-layer summaries asked of a core (the page's,
// else the first worker's) over the merged heads, so the page sees exactly what one worker would
// send. Cancel stops every worker. Everything else (open, tokens,
// values, rows) goes to the first worker; the tokens it read are handed to each helper (message
// 'setTokens') before the helper analyses, so every head gets its token-dependent scores.
import { AttentionError } from '../core/core.js';
import { headsPerRead } from './source-heads.js';

/** Most import workers the page starts (each holds a core: ~one head of memory plus its code). */
export const IMPORT_WORKERS_MAX = 4;

/**
 * How many workers an analysis uses: the `importWorkers` query parameter of the page's address
 * when given (1..IMPORT_WORKERS_MAX; the benchmark's workers column), else the logical CPUs.
 */
export function importWorkerCount() {
  const asked = Number(new URLSearchParams(globalThis.location?.search ?? '').get('importWorkers'));
  const n = Number.isInteger(asked) && asked > 0 ? asked : (globalThis.navigator?.hardwareConcurrency ?? 1);
  return Math.max(1, Math.min(IMPORT_WORKERS_MAX, n));
}

/** One import worker and its requests. */
class Channel {
  constructor(coreOptions) {
    this.worker = new Worker(new URL('./import-worker.js', import.meta.url), { type: 'module' });
    this.nextId = 1;
    this.pending = new Map();
    this.opened = null; // the 'open' message this worker last read
    this.tokens = null; // the token lists this worker was last given ('setTokens')
    this.worker.onmessage = (ev) => {
      const m = ev.data;
      const p = this.pending.get(m.id);
      if (!p) return;
      if (m.type === 'progress') {
        // An analysis sends the heads of one read in one message: handed on one by one.
        if (m.heads) for (const h of m.heads) p.onProgress?.({ type: 'progress', id: m.id, total: m.total, ...h });
        else p.onProgress?.(m);
        return;
      }
      this.pending.delete(m.id);
      if (m.type === 'error') {
        const e = m.error;
        const err = e.code ? new AttentionError(e.code, e.field, e.message) : new Error(e.message);
        if (e.i18n) err.i18n = e.i18n; // the importer's own message, as a table key (translated here)
        p.reject(err);
      } else {
        p.resolve(m.results);
      }
    };
    this.worker.onerror = (ev) => {
      for (const p of this.pending.values())
        p.reject(
          Object.assign(new Error(`the import worker failed: ${ev.message}`), {
            i18n: { key: 'import.err.worker', vars: { detail: ev.message }, data: ['detail'] },
          }),
        );
      this.pending.clear();
    };
    this.ready = this.request({ type: 'init', options: coreOptions });
  }

  request(msg, onProgress) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onProgress });
      this.worker.postMessage({ ...msg, id });
    });
  }
}

/** Talks to the import workers; progress messages go to the request's onProgress. */
export class ImportWorker {
  /**
   * @param {object} coreOptions serialisable loadCore options
   * @param {{workers?: number, layerSummaries?: (heads: object[]) => object[]}} [o] layerSummaries:
   *   the core's layerSummaries() on the page's thread (a pool's merged heads are summarised
   *   there rather than queued behind the first worker's analysis); default: the first worker's
   */
  constructor(coreOptions, { workers = importWorkerCount(), layerSummaries = null } = {}) {
    this.size = workers;
    this.layerSummaries = layerSummaries;
    // All started at once (the page starts them when the Import tab opens): the cores load while
    // the user picks a file.
    this.channels = Array.from({ length: workers }, () => new Channel(coreOptions));
    this.ready = this.channels[0].ready;
    /** True once every worker has loaded its core (window.attentionPlayground.imported()). */
    this.allReady = false;
    Promise.all(this.channels.map((c) => c.ready)).then(
      () => (this.allReady = true),
      () => {},
    );
    this.lastOpen = null; // the last 'open' message whose file opened (helpers read the same one)
    this.lastTokens = null; // the token lists the first worker read for it ({queryTokens, keyTokens})
    this.run = 0;
  }

  /** Same contract as one worker's messages (web/import/import-worker.js). */
  async request(msg, onProgress) {
    if (msg.type === 'analyze') return this.analyze(msg, onProgress);
    const result = await this.channels[0].request(msg, onProgress);
    if (msg.type === 'open' && result.kind !== 'state' && !result.needsMember) {
      this.lastOpen = { type: 'open', file: msg.file, name: msg.name, member: msg.member };
      this.lastLayout = result.layout;
      this.lastKind = result.kind;
      this.lastHeadBytes = result.headBytes;
      this.lastTokens = null;
      this.channels[0].opened = this.lastOpen;
    }
    if (msg.type === 'tokens') this.lastTokens = { queryTokens: result.queryTokens, keyTokens: result.keyTokens };
    return result;
  }

  /** The other workers of the pool, each holding the current file and its tokens. */
  async helpers(count) {
    const list = this.channels.slice(1, count);
    await Promise.all(
      list.map(async (c) => {
        await c.ready;
        if (c.opened !== this.lastOpen) {
          await c.request(this.lastOpen);
          c.opened = this.lastOpen;
          c.tokens = null; // the file's own tokens (if any), as the first worker read them
        }
        if (this.lastTokens && c.tokens !== this.lastTokens) {
          await c.request({ type: 'setTokens', ...this.lastTokens });
          c.tokens = this.lastTokens;
        }
      }),
    );
    return list;
  }

  /**
   * 'analyze' over the workers: heads dealt out in turn, progress merged in file order with the
   * layer summary of the merged heads so far (as one worker computes it). Resolves to
   * {done, cancelled}: done counts the heads reported in order.
   */
  async analyze(msg, onProgress) {
    const run = ++this.run;
    const all = msg.indices ?? null;
    const first = this.channels[0];
    if (!this.lastOpen) return first.request(msg, onProgress);
    const count = all ? all.length : this.lastLayout.layers * this.lastLayout.heads;
    // Only a .npy is read a head at a time from the File; a .npz or JSON source is held whole by
    // the worker that opens it, so it stays with one worker (memory: one copy, docs/import.md).
    const n = this.lastKind === 'npy' ? Math.max(1, Math.min(this.size, count)) : 1;
    if (n === 1) return first.request(msg, onProgress);
    const channels = [first, ...(await this.helpers(n))];
    // Cancelled while the helpers opened the file (before any worker got the 'analyze'): a
    // worker clears its cancel flag when an analysis starts, so the run must stop here.
    if (run !== this.run || this.cancelledRun === run) return { done: 0, cancelled: true };
    const list = all ?? Array.from({ length: count }, (_, i) => i);
    // Dealt out in blocks of the heads one File read takes (readHeads, web/import/source-heads.js): block b
    // of list goes to worker b mod n, so each worker reads consecutive heads together; at least
    // four blocks per worker, so that a small file is shared too and the workers end together.
    const per = Math.min(headsPerRead(this.lastHeadBytes ?? 0), Math.ceil(list.length / (4 * n)));
    const positions = channels.map((_, w) => list.map((_, i) => i).filter((i) => Math.floor(i / per) % n === w));
    const arrived = new Map(); // position in list -> head
    const merged = []; // heads reported, in order
    let reported = 0;
    let chain = Promise.resolve();
    const flush = () => {
      while (arrived.has(reported)) {
        const head = arrived.get(reported);
        arrived.delete(reported);
        merged.push({ layer: head.layer, computed: head.computed, summary: head.summary });
        reported += 1;
        const done = reported;
        const sameLayer = merged.filter((r) => r.layer === head.layer);
        // The summaries come from the page's core when given, else from the first worker's core,
        // in order (its queue is FIFO).
        const summary = this.layerSummaries
          ? Promise.resolve().then(() => this.layerSummaries(sameLayer))
          : first.request({ type: 'layers', heads: sameLayer });
        chain = chain.then(async () => {
          const [layer] = await summary;
          if (run === this.run) onProgress?.({ type: 'progress', done, total: list.length, head, layer });
        });
      }
    };
    const results = await Promise.all(
      channels.map((c, w) =>
        c.request({ ...msg, indices: positions[w].map((i) => list[i]), layers: false }, (m) => {
          arrived.set(positions[w][m.done - 1], m.head);
          flush();
        }),
      ),
    );
    await chain;
    const cancelled = results.some((r) => r.cancelled);
    return { done: reported, cancelled };
  }

  /** Stops the running analysis in every worker (each stops between two heads). */
  cancel() {
    this.cancelledRun = this.run;
    for (const c of this.channels) c.worker.postMessage({ type: 'cancel' });
  }
}
