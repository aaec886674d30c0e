// The import worker: its own WebAssembly core, so reading and analysing a large file never freezes
// the page. Holds the opened source (the File itself: heads are sliced from it on demand).
//
// Messages in:  {type: 'init', options}                       -> {type: 'ready'}
//               {type: 'open', id, file, name, member?}       -> result: source description
//               {type: 'tokens', id, file, which}             -> result: {queryTokens, keyTokens}
//               {type: 'setTokens', id, queryTokens, keyTokens} -> result: null (a pool's helper
//                   is given the token lists its first worker read, checked there)
//               {type: 'analyze', id, options, indices?, layers?}
//                   -> {type: 'progress', id, total, heads: [{done, head, layer}]}, the heads
//                   of one read together (web/import/worker-client.js hands them to the
//                   request's onProgress one by one, as {type: 'progress', id, done, total, head,
//                   layer}; options.palette
//                   and options.paletteTable, its id and paletteRgbTable: head.thumbImage =
//                   {bitmap: ImageBitmap of gridPixels() of its thumbnail in it, palette}; layer: the
//                   core's layerSummaries() of the head's layer over this run's heads so far;
//                   omitted when layers === false: the pool merges several workers' heads and
//                   asks for the summaries itself), then result: {done, cancelled}
//               {type: 'layers', id, heads: [{layer, computed, summary}]}
//                   -> result: core.layerSummaries(heads) (one per layer, in layer order)
//               {type: 'cancel'}                              stops the running analysis
//               {type: 'values', id, index}                   -> result: Float32Array (transferred)
//               {type: 'rows', id, index, options}            -> result: one head with its rows
//               {type: 'compare', id, file, name, options}    -> {type: 'progress', done, total,
//                   head: compareHeads() of the open file's head and the file's}, then result
//                   {done, cancelled, name}
//               {type: 'layerWeights', id, layer, options}    -> result: {heads: [{index, head,
//                   computed, weights: Float32Array n_q * n_k | null}], mean: Float32Array | null}
//                   every head's full-resolution weights (NaN = not visible) and the core's mean
//                   over the computed ones (meanHeads), for the token views (n_q, n_k <= 1024)
// Errors: {type: 'error', id, error: {name, code, field, message}}.
import { loadCore } from '../core/core.js';
import { openComparison, openSource, readTokens } from './readers.js';
import { analyzeHeadBytes, analyzeSourceHead, compareSourceHead, headsPerRead, headValues, readHeads } from './source-heads.js';
import { gridPixels } from '../views/grid-pixels.js';

let core = null;
let source = null;
let cancelled = false;
let current = 0; // the running analysis; a newer one stops the older between two heads

const yieldChannel = new MessageChannel();
const yielded = [];
yieldChannel.port1.onmessage = () => yielded.shift()?.();
/** Resolves after the messages already queued for this worker have been handled. */
function yieldToMessages() {
  return new Promise((resolve) => {
    yielded.push(resolve);
    yieldChannel.port2.postMessage(0);
  });
}

/**
 * Runs the analysis a few times on a small made-up head, so that the engine compiles the hot
 * WebAssembly and JavaScript of an analysis with its optimising tiers (V8 tiers a function up once
 * it has run enough) now, while the user picks a file, rather than beside the first heads of the
 * first import (a trace of the 151 MB import: ~80 ms of WebAssembly and ~60 ms of JavaScript
 * compilation on the renderer's background threads, per import, on a 2-core machine).
 * ~20 ms per worker; the results are dropped.
 */
function warmUp() {
  const n = 128;
  const a = new Float32Array(n * n);
  for (let t = 0; t < n; t++) for (let j = 0; j <= t; j++) a[t * n + j] = 1 / (t + 1);
  const bytes = new Uint8Array(a.buffer);
  const made = { layout: { layers: 1, heads: 1, nQ: n, nK: n }, dtype: 'float32', keyTokens: [] };
  for (let k = 0; k < 12; k++) analyzeHeadBytes(core, made, 0, {}, bytes);
}

/** The source without its bytes: what the page needs to know. */
function describe(s) {
  if (s.kind === 'state' || s.needsMember) return s;
  const rest = { ...s };
  delete rest.blob;
  delete rest.data;
  return rest;
}

async function handle(msg) {
  switch (msg.type) {
    case 'init':
      core = await loadCore(msg.options ?? {});
      warmUp();
      return { variant: core.variant };
    case 'open': {
      current += 1; // a new file stops the analysis of the old one
      const s = await openSource(core, msg.file, { name: msg.name, member: msg.member });
      if (s.kind !== 'state' && !s.needsMember) source = s;
      return describe(s);
    }
    case 'tokens': {
      if (!source) throw new Error('open a file before its tokens');
      const t = await readTokens(core, msg.file, source, { which: msg.which });
      source.queryTokens = t.queryTokens;
      source.keyTokens = t.keyTokens;
      return t;
    }
    case 'setTokens':
      if (!source) throw new Error('open a file before its tokens');
      source.queryTokens = msg.queryTokens;
      source.keyTokens = msg.keyTokens;
      return null;
    case 'analyze': {
      cancelled = false;
      const mine = ++current;
      const n = source.layout.layers * source.layout.heads;
      const list = msg.indices ?? Array.from({ length: n }, (_, i) => i);
      const analysed = []; // this run's heads, for the per-layer summary
      // The analysis options without the drawing's (the palette of the thumbnails' pixels: its
      // id and its colour table, paletteRgbTable).
      const { palette, paletteTable, ...options } = msg.options ?? {};
      let i = 0;
      // Progress goes out in order, in batches: the heads of one File read (readHeads: up to
      // READ_BYTES, four 512 x 512 float32 heads) in one message ('progress' with `heads`), so
      // the page handles a quarter of the messages (each is a task on its main thread, with its
      // own deserialisation and wake-up). A batch is posted once its heads' thumbnail bitmaps
      // are made (that runs beside the next head's analysis, not in its way).
      let posted = Promise.resolve();
      let batch = []; // [{done, head, layer, bitmap}] not yet posted
      const per = headsPerRead(source.headBytes);
      let lastPost = performance.now();
      const post = () => {
        if (!batch.length) return;
        lastPost = performance.now();
        const items = batch;
        batch = [];
        posted = Promise.all([posted, Promise.all(items.map((x) => x.bitmap))]).then(([, bitmaps]) => {
          const transfer = [];
          const heads = items.map((x, k) => {
            transfer.push(x.head.thumbnail.buffer);
            if (bitmaps[k]) {
              x.head.thumbImage = { bitmap: bitmaps[k], palette };
              transfer.push(bitmaps[k]);
            }
            return { done: x.done, head: x.head, layer: x.layer };
          });
          self.postMessage({ type: 'progress', id: msg.id, total: list.length, heads }, transfer);
        });
      };
      // Heads read a few at a time, the next read under way while these are analysed (readHeads).
      try {
        for await (const { index, bytes } of readHeads(source, list)) {
          if (cancelled || mine !== current) {
            post();
            await posted;
            return { done: i, cancelled: true };
          }
          const head = analyzeHeadBytes(core, source, index, options, bytes);
          // The card's thumbnail coloured here (gridPixels) and made an ImageBitmap, handed over
          // (transferred) for the page to put on the card's canvas as it is.
          const bitmap =
            head.thumbRows && palette && paletteTable
              ? (() => {
                  const g = gridPixels(head.thumbnail, head.thumbRows, head.thumbCols, paletteTable);
                  return createImageBitmap(new ImageData(g.pixels, g.cols, g.rows));
                })()
              : null;
          let layer;
          if (msg.layers !== false) {
            analysed.push({ layer: head.layer, computed: head.computed, summary: head.summary });
            [layer] = core.layerSummaries(analysed.filter((r) => r.layer === head.layer));
          }
          i += 1;
          batch.push({ done: i, head, layer, bitmap });
          // A batch also goes once 100 ms old (small heads: a read holds hundreds of them).
          if (batch.length >= per || i === list.length || performance.now() - lastPost > 100) post();
          // Let a 'cancel' message in between heads. A message, not setTimeout: nested timers are
          // clamped to 4 ms, which cost 0.6 s over 144 heads.
          await yieldToMessages();
        }
      } catch (e) {
        // A read or an analysis failed: the heads analysed before it are reported first, as
        // they were one by one.
        post();
        await posted.catch(() => {});
        throw e;
      }
      post();
      await posted;
      return { done: list.length, cancelled: false };
    }
    case 'compare': {
      // The second run, held here beside the first; every head compared (the core's compareHeads).
      cancelled = false;
      const mine = ++current;
      const other = await openComparison(core, msg.file, source, { name: msg.name, member: msg.member });
      const n = source.layout.layers * source.layout.heads;
      for (let i = 0; i < n; i++) {
        if (cancelled || mine !== current) return { done: i, cancelled: true, name: other.name };
        const head = await compareSourceHead(core, source, other, i, msg.options);
        self.postMessage({ type: 'progress', id: msg.id, done: i + 1, total: n, head });
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
      return { done: n, cancelled: false, name: other.name };
    }
    case 'layers':
      return core.layerSummaries(msg.heads);
    case 'values':
      return headValues(core, source, msg.index);
    case 'rows':
      return analyzeSourceHead(core, source, msg.index, { ...msg.options, wantRows: true });
    case 'layerWeights': {
      const { heads: perLayer, nQ, nK } = source.layout;
      const side = Math.max(nQ, nK);
      const heads = [];
      const options = { ...msg.options };
      delete options.palette;
      delete options.paletteTable;
      const indices = Array.from({ length: perLayer }, (_, hd) => msg.layer * perLayer + hd);
      for await (const { index, bytes } of readHeads(source, indices)) {
        const r = analyzeHeadBytes(core, source, index, { ...options, thumbnail: side, wantRows: false }, bytes);
        const full = r.computed && r.thumbRows === nQ && r.thumbCols === nK;
        heads.push({ index, head: index - msg.layer * perLayer, computed: full, weights: full ? r.thumbnail : null });
      }
      const live = heads.filter((x) => x.weights).map((x) => x.weights);
      return { heads, mean: live.length ? core.meanHeads(live, nQ, nK) : null };
    }
    default:
      throw new Error(`unknown message ${msg.type}`);
  }
}

self.onmessage = async (ev) => {
  const msg = ev.data;
  if (msg.type === 'cancel') {
    cancelled = true;
    return;
  }
  try {
    const results = await handle(msg);
    const transfer =
      results instanceof Float32Array
        ? [results.buffer]
        : msg.type === 'layerWeights'
          ? [...results.heads.filter((x) => x.weights).map((x) => x.weights.buffer), ...(results.mean ? [results.mean.buffer] : [])]
          : [];
    self.postMessage({ type: msg.type === 'init' ? 'ready' : 'result', id: msg.id, results }, transfer);
  } catch (e) {
    self.postMessage({
      type: 'error',
      id: msg.id,
      // i18n: the importer's message as a table key (the page words it in its language).
      error: { name: e.name, code: e.code, field: e.field, message: e.message, i18n: e.i18n },
    });
  }
};
