// The import view's side of the import worker (web/import-worker.js): requests by id, each a
// promise; progress messages go to the request's onProgress, errors come back as AttentionError
// (or Error) with the importer's own message key (i18n) when it has one.
import { AttentionError } from '../core.js';

/** Talks to the import worker; progress messages go to the request's onProgress. */
export class ImportWorker {
  constructor(coreOptions) {
    this.worker = new Worker(new URL('../import-worker.js', import.meta.url), { type: 'module' });
    this.nextId = 1;
    this.pending = new Map();
    this.ready = this.request({ type: 'init', options: coreOptions });
    this.worker.onmessage = (ev) => {
      const m = ev.data;
      const p = this.pending.get(m.id);
      if (!p) return;
      if (m.type === 'progress') {
        p.onProgress?.(m);
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
  }

  request(msg, onProgress) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onProgress });
      this.worker.postMessage({ ...msg, id });
    });
  }

  cancel() {
    this.worker.postMessage({ type: 'cancel' });
  }
}
