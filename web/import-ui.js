// The "Import & overview" view: drop an attention file, watch its heads being analysed, browse a
// layer x head grid of thumbnails with their metrics and pattern labels, sort and filter, inspect
// one head (hover for query, key and weight; click to lock), open it in the playground, export.
//
// Everything numeric comes from the core in the import worker (web/import-worker.js); this module
// only asks for it and draws it. Token strings go in as text (h() uses text nodes only).
import { AttentionError } from './core.js';
import { summarise } from './importer.js';
import { h, mount } from './views/dom.js';
import { fmtMetric, showToken } from './views/format.js';
import { paintGrid } from './views/overview.js';
import { renderLegend } from './views/heatmap.js';
import {
  download, headMetricsCsv, headMetricsJson, heatmapSvg, rowMetricsCsv, standaloneHtml, drawHeatmap,
} from './export.js';

const $ = (id) => document.getElementById(id);

/** Sort keys of the overview: label and how to read the value from a head's result. */
export const SORT_KEYS = {
  order: { label: 'layer, head', get: (r) => r.index },
  meanNormalizedEntropy: { label: 'mean normalised entropy', get: (r) => r.summary.meanNormalizedEntropy },
  meanEntropy: { label: 'mean entropy (nats)', get: (r) => r.summary.meanEntropy },
  meanNEff: { label: 'mean N_eff', get: (r) => r.summary.meanNEff },
  meanTopKMass: { label: 'mean top-k mass', get: (r) => r.summary.meanTopKMass },
  meanSinkMass: { label: 'mean sink mass', get: (r) => r.summary.meanSinkMass },
  confidence: { label: 'pattern score', get: (r) => r.pattern.confidence },
};

const PATTERN_TEXT = {
  sink: 'sink (first token)',
  self: 'self (same position)',
  previous: 'previous token',
  next: 'next token',
  offset: 'offset',
  strided: 'strided',
  position: 'fixed position',
  global: 'global (broad)',
};

/** Label of a pattern result: "previous token", "offset d=19", "fixed position key 7" ...;
 *  short: the class name only ("previous", "offset d=19"), for the thumbnails. */
export function patternLabel(p, { short = false } = {}) {
  const param = p.kind === 'offset' ? ` d=${p.parameter}` : p.kind === 'strided' ? ` p=${p.parameter}`
    : p.kind === 'position' ? ` key ${p.parameter}` : '';
  return `${short ? p.kind : (PATTERN_TEXT[p.kind] ?? p.kind)}${param}`;
}

const HF_SNIPPET = `# Hugging Face transformers
out = model(**inputs, output_attentions=True)        # attn_implementation="eager"
att = torch.stack(out.attentions)[:, 0]              # [layers, heads, n, n]
np.save("attention.npy", att.float().numpy())
json.dump(tok.convert_ids_to_tokens(inputs["input_ids"][0]), open("tokens.json", "w"))`;
const TL_SNIPPET = `# TransformerLens
logits, cache = model.run_with_cache(text)
att = torch.stack([cache["pattern", l][0] for l in range(model.cfg.n_layers)])
np.save("attention.npy", att.cpu().float().numpy())
json.dump(model.to_str_tokens(text), open("tokens.json", "w"))`;

const MAX_STATE_TOKENS = 4096;     // the playground's LIMITS.maxTokens
const MAX_TOKEN_CHARS = 200;       // LIMITS.maxTokenLength (code points)
const DETAIL_SIDE = 256;           // the inspected head is drawn at full resolution up to this

function clipToken(t) {
  const cps = [...t];
  return cps.length > MAX_TOKEN_CHARS ? `${cps.slice(0, MAX_TOKEN_CHARS - 1).join('')}…` : t;
}

/** Talks to the import worker; progress messages go to the request's onProgress. */
class ImportWorker {
  constructor(coreOptions) {
    this.worker = new Worker(new URL('./import-worker.js', import.meta.url), { type: 'module' });
    this.nextId = 1;
    this.pending = new Map();
    this.ready = this.request({ type: 'init', options: coreOptions });
    this.worker.onmessage = (ev) => {
      const m = ev.data;
      const p = this.pending.get(m.id);
      if (!p) return;
      if (m.type === 'progress') { p.onProgress?.(m); return; }
      this.pending.delete(m.id);
      if (m.type === 'error') {
        const e = m.error;
        p.reject(e.code ? new AttentionError(e.code, e.field, e.message) : new Error(e.message));
      } else {
        p.resolve(m.results);
      }
    };
    this.worker.onerror = (ev) => {
      for (const p of this.pending.values()) p.reject(new Error(`the import worker failed: ${ev.message}`));
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

/**
 * Builds the import view into `root` and wires it.
 * @param {HTMLElement} root
 * @param {object} o
 * @param {object} o.coreOptions            loadCore options for the worker
 * @param {(state: object, what: string) => Promise<string|null>} o.openState
 *   shows a state in the playground; resolves to null or an error message
 * @returns {{importFile: (file: File) => Promise<void>, importFiles: (files: File[]) => Promise<void>,
 *   getImport: () => object}}
 */
export function initImportView(root, o) {
  let worker = null;
  const ui = {
    source: null,       // the worker's description of the open file
    file: null,
    heads: [],          // analysis results in file order
    reading: 'weights', // what the analysis used
    selected: null,     // index of the inspected head
    detail: null,       // the inspected head's full analysis (rows, thumbnail at DETAIL_SIDE)
    locked: null,       // [i, j] locked cell of the detail heatmap
    running: false,
    causal: false,      // the user said the model is causal (for this analysis)
    generation: 0,      // counts analyses; a superseded one's messages are dropped
  };

  const fileInput = h('input', { type: 'file', id: 'import-file', accept: '.npy,.npz,.json,application/json', class: 'visually-hidden' });
  const tokensInput = h('input', { type: 'file', id: 'import-tokens', accept: '.json,.txt,text/plain,application/json', class: 'visually-hidden' });
  const keyTokensInput = h('input', { type: 'file', id: 'import-key-tokens', accept: '.json,.txt,text/plain,application/json', class: 'visually-hidden' });
  const drop = h('div', { class: 'dropzone', id: 'import-drop' },
    h('p', { class: 'drop-title' }, 'Drop an attention file here (with its tokens file, if you have one)'),
    h('p', { class: 'note' }, '.npy (float16/32/64; [n, n], [heads, n, n], [layers, heads, n, n], batch of 1), .npz, or JSON ' +
      '(ours, CircuitsVis, BertViz). The file never leaves this computer: it is read and analysed in this page.'),
    h('div', { class: 'drop-actions' },
      h('label', { class: 'button primary' }, 'Choose a file…', fileInput),
      h('label', { class: 'button' }, 'Tokens…', tokensInput),
      h('label', { class: 'button', id: 'import-key-tokens-label', hidden: true }, 'Key tokens…', keyTokensInput),
      h('label', { class: 'check' }, h('input', { type: 'checkbox', id: 'import-causal' }),
        ' the model is causal (decoder): flag weight above the diagonal')),
    h('details', { class: 'how-to' },
      h('summary', {}, 'How to export attention from Hugging Face transformers or TransformerLens'),
      h('pre', {}, HF_SNIPPET), h('pre', {}, TL_SNIPPET),
      h('p', { class: 'note' }, 'Axis −2 is the query (row), axis −1 the key. More formats and the command-line tool: docs/import.md.')));
  const options = h('div', { class: 'import-options' },
    h('label', { class: 'inline' }, 'read values as ',
      h('select', { id: 'import-reading', 'aria-label': 'read values as' },
        h('option', { value: 'auto' }, 'auto (probabilities, else ask)'),
        h('option', { value: 'weights' }, 'attention weights (probabilities)'),
        h('option', { value: 'logits' }, 'scores / logits (softmax applied)'))));
  const progress = h('div', { id: 'import-progress', class: 'import-progress', hidden: true },
    h('progress', { id: 'import-progress-bar', max: 1, value: 0 }),
    h('span', { id: 'import-progress-text', role: 'status', 'aria-live': 'polite' }),
    h('button', { type: 'button', id: 'import-cancel' }, 'Cancel'));
  const member = h('div', { id: 'import-member-wrap', hidden: true },
    h('label', { class: 'inline' }, 'array in the .npz ', h('select', { id: 'import-member', 'aria-label': 'array in the .npz' })),
    h('button', { type: 'button', id: 'import-member-go', class: 'primary' }, 'Read this array'));
  const toolbar = h('div', { class: 'import-toolbar', id: 'import-toolbar', hidden: true },
    h('label', { class: 'inline' }, 'sort by ', h('select', { id: 'import-sort', 'aria-label': 'sort heads by' },
      Object.entries(SORT_KEYS).map(([k, v]) => h('option', { value: k }, v.label)))),
    h('label', { class: 'inline' }, h('input', { type: 'checkbox', id: 'import-desc' }), ' descending'),
    h('label', { class: 'inline' }, 'pattern ', h('select', { id: 'import-filter', 'aria-label': 'show heads with pattern' },
      h('option', { value: '' }, 'all'),
      Object.entries(PATTERN_TEXT).map(([k, v]) => h('option', { value: k }, v)))),
    h('label', { class: 'inline' }, 'min ', h('input', { type: 'number', id: 'import-min', step: 'any', class: 'num-box small', 'aria-label': 'minimum of the sort metric' })),
    h('label', { class: 'inline' }, 'max ', h('input', { type: 'number', id: 'import-max', step: 'any', class: 'num-box small', 'aria-label': 'maximum of the sort metric' })),
    h('span', { id: 'import-count', class: 'note' }),
    h('span', { class: 'spacer' }),
    h('button', { type: 'button', id: 'export-heads-csv' }, 'Metrics CSV'),
    h('button', { type: 'button', id: 'export-heads-json' }, 'Metrics JSON'));

  mount(root,
    h('h2', {}, 'Import attention from a model'),
    drop, options,
    h('p', { id: 'import-info', class: 'import-info' }),
    progress, member,
    h('div', { id: 'import-errors', class: 'error-box', role: 'alert', hidden: true }),
    h('div', { id: 'import-warnings', class: 'warn-box', hidden: true }),
    h('div', { id: 'import-logits-offer', hidden: true },
      h('button', { type: 'button', id: 'import-as-logits', class: 'primary' }, 'Read as logits (apply softmax)')),
    toolbar,
    h('div', { class: 'import-main' },
      h('div', { id: 'import-grid', class: 'import-grid', 'aria-label': 'heads' }),
      h('section', { id: 'import-detail', class: 'import-detail', hidden: true, 'aria-label': 'inspected head' })),
    h('details', { id: 'import-layer-table', class: 'import-table', open: true, hidden: true },
      h('summary', {}, 'Per-layer summary'), h('div', { class: 'scroll' })),
    h('details', { id: 'import-head-table', class: 'import-table', hidden: true },
      h('summary', {}, 'Per-head table'), h('div', { class: 'scroll' })));

  const getWorker = () => (worker ??= new ImportWorker(o.coreOptions));

  // --- messages ---------------------------------------------------------------------------
  // By origin, so that a new analysis does not wipe a token-file error and fixing the tokens
  // clears exactly their message.
  const messages = { file: [], tokens: [], analysis: [], warnings: [] };
  function showMessages() {
    const errors = [...messages.file, ...messages.tokens, ...messages.analysis];
    const box = $('import-errors');
    box.hidden = !errors.length;
    mount(box, errors.map((m) => h('p', {}, m)));
    const warn = $('import-warnings');
    warn.hidden = !messages.warnings.length;
    mount(warn, messages.warnings.map((m) => h('p', {}, m)));
  }
  function setMessages(kind, list) {
    messages[kind] = list;
    showMessages();
  }
  function setProgress(done, total) {
    const p = $('import-progress');
    p.hidden = total === 0;
    $('import-progress-bar').max = Math.max(1, total);
    $('import-progress-bar').value = done;
    $('import-progress-text').textContent = done < total ? `Analysing head ${done + 1} of ${total}…` : `Analysed ${total} heads.`;
  }

  const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
  function describeSource(s) {
    const l = s.layout;
    const kind = s.format === 'npy' || s.format === 'npz' ? `${s.format}${s.member ? ` array "${s.member}"` : ''}, ${s.dtype}` : `${s.format} JSON`;
    const cross = l.nQ !== l.nK ? ` (cross-attention: ${l.nQ} queries × ${l.nK} keys)` : ` × ${l.nQ} × ${l.nK}`;
    const tokens = s.keyTokens.length ? `${s.keyTokens.length} tokens${s.tokensFrom ? ` from ${s.tokensFrom}` : ' from the file'}`
      : 'no tokens (positions are shown; add a token file)';
    return `${s.name}: ${kind}, shape [${s.shape.join(', ')}] → ${plural(l.layers, 'layer')} × ${plural(l.heads, 'head')}${cross}; ${tokens}.`;
  }

  /** "L5 H5" or the file's own label of the head ("L9H9"). */
  function headName(r) {
    const label = ui.source?.headLabels?.[r.head];
    const layer = ui.source?.layerLabels?.[r.layer];
    if (label) return layer && ui.source.layout.layers > 1 ? `${layer} ${label}` : label;
    return `L${r.layer} H${r.head}`;
  }

  // --- importing --------------------------------------------------------------------------
  async function importFile(file, { memberName = null, tokens = null } = {}) {
    messages.file = [];
    messages.analysis = [];
    messages.warnings = [];
    showMessages();
    $('import-logits-offer').hidden = true;
    if (!memberName) $('import-member-wrap').hidden = true;
    $('import-info').textContent = `Reading ${file.name} (${(file.size / 1048576).toFixed(1)} MiB)…`;
    const w = getWorker();
    let source;
    try {
      await w.ready;
      source = await w.request({ type: 'open', file, name: file.name, member: memberName });
    } catch (e) {
      // The previous import (if any) stays on screen: nothing is lost.
      $('import-info').textContent = ui.source ? describeSource(ui.source) : '';
      setMessages('file', [`Could not read ${file.name}: ${e.message}`]);
      return;
    }
    if (source.kind === 'state') {
      $('import-info').textContent = ui.source ? describeSource(ui.source) : '';
      const err = await o.openState(source.state, 'state');
      if (err) setMessages('file', [`${file.name} is a playground state, but it is not valid: ${err}`]);
      return;
    }
    if (source.needsMember) {
      $('import-info').textContent = `${file.name} holds ${source.members.length} arrays: pick the one with the attention weights.`;
      mount($('import-member'), source.members.map((m) => h('option', { value: m.name, disabled: Boolean(m.error) },
        m.error ? `${m.name} (unreadable: ${m.error})` : `${m.name} [${m.shape.join(', ')}] ${m.dtype}`)));
      $('import-member-wrap').hidden = false;
      $('import-member-go').onclick = () => importFile(file, { memberName: $('import-member').value, tokens });
      return;
    }
    ui.source = source;
    ui.file = file;
    ui.heads = [];
    ui.selected = null;
    ui.detail = null;
    cards.clear();
    $('import-detail').hidden = true;
    $('import-key-tokens-label').hidden = source.layout.nQ === source.layout.nK;
    // Tokens: dropped with the file, else the token file chosen before (its name is shown).
    messages.tokens = [];
    const tokenFile = tokens ?? tokensInput.files[0];
    if (tokenFile && !source.keyTokens.length) await readTokenFile(tokenFile, source.layout.nQ === source.layout.nK ? 'both' : 'queries');
    if (keyTokensInput.files[0] && source.layout.nQ !== source.layout.nK) await readTokenFile(keyTokensInput.files[0], 'keys');
    $('import-info').textContent = describeSource(ui.source);
    const reading = $('import-reading').value;
    await analyse(reading === 'logits' ? 'logits' : 'weights', reading === 'auto');
  }

  async function readTokenFile(file, which) {
    if (!ui.source) {
      setMessages('tokens', [`${file.name} will be read as the tokens of the next attention file you open.`]);
      return;
    }
    try {
      const t = await getWorker().request({ type: 'tokens', file, which });
      ui.source.queryTokens = t.queryTokens;
      ui.source.keyTokens = t.keyTokens;
      ui.source.tokensFrom = file.name;
      setMessages('tokens', []);
      $('import-info').textContent = describeSource(ui.source);
      if (ui.selected !== null) inspect(ui.selected);
    } catch (e) {
      setMessages('tokens', [`Tokens from ${file.name} not used: ${e.message}`]);
    }
  }

  function analysisOptions(reading) {
    return { reading, causal: $('import-causal').checked, topK: 2, sinkKeys: 1, delta: 0.1, thumbnail: 32 };
  }

  async function analyse(reading, auto) {
    const total = ui.source.layout.layers * ui.source.layout.heads;
    // A newer analysis (another file, another reading) supersedes this one: its late progress
    // messages must not land in the new list.
    const generation = ++ui.generation;
    if (ui.running) getWorker().cancel();
    ui.reading = reading;
    ui.causal = $('import-causal').checked;
    ui.heads = [];
    cards.clear();
    ui.running = true;
    $('import-cancel').disabled = false;
    setProgress(0, total);
    $('import-toolbar').hidden = false;
    let lastPaint = 0;
    try {
      const done = await getWorker().request({ type: 'analyze', options: analysisOptions(reading) }, (m) => {
        if (generation !== ui.generation) return;
        ui.heads.push(m.head);
        setProgress(m.done, m.total);
        const now = performance.now();
        if (now - lastPaint > 250 || m.done === m.total) { lastPaint = now; renderGrid(); }
      });
      if (generation !== ui.generation) return;
      if (done.cancelled) $('import-progress-text').textContent = `Cancelled after ${done.done} of ${total} heads.`;
    } catch (e) {
      if (generation !== ui.generation) return;
      setMessages('analysis', [`The analysis stopped: ${e.message}`]);
    } finally {
      if (generation === ui.generation) {
        ui.running = false;
        $('import-cancel').disabled = true;
      }
    }
    ui.causal = $('import-causal').checked;
    const verdicts = summarise(ui.heads, { causal: ui.causal, reading });
    messages.warnings = verdicts.warnings;
    setMessages('analysis', verdicts.errors);
    $('import-logits-offer').hidden = !(verdicts.offerLogits && reading === 'weights');
    if (auto && verdicts.offerLogits) $('import-progress-text').textContent += ' The values are not probabilities: see above.';
    renderGrid();
    renderTables();
    // The inspected head was analysed again (another reading, the causal box): show it anew.
    if (ui.selected !== null && ui.heads.some((r) => r.index === ui.selected)) inspect(ui.selected);
  }

  // --- overview grid ----------------------------------------------------------------------
  function visibleHeads() {
    const key = SORT_KEYS[$('import-sort').value] ?? SORT_KEYS.order;
    const filter = $('import-filter').value;
    const min = $('import-min').value === '' ? -Infinity : Number($('import-min').value);
    const max = $('import-max').value === '' ? Infinity : Number($('import-max').value);
    const list = ui.heads.filter((r) => {
      if (filter && r.pattern.kind !== filter) return false;
      const v = key.get(r);
      if (key !== SORT_KEYS.order && (min > -Infinity || max < Infinity)) return Number.isFinite(v) && v >= min && v <= max;
      return true;
    });
    const dir = $('import-desc').checked ? -1 : 1;
    list.sort((a, b) => {
      const x = key.get(a);
      const y = key.get(b);
      if (!Number.isFinite(x)) return Number.isFinite(y) ? 1 : a.index - b.index;
      if (!Number.isFinite(y)) return -1;
      return (x - y) * dir || a.index - b.index;
    });
    return list;
  }

  function card(r) {
    const canvas = h('canvas', { width: r.thumbCols, height: r.thumbRows, class: 'thumb', 'aria-hidden': 'true' });
    if (r.thumbRows) paintGrid(canvas, r.thumbnail, r.thumbRows, r.thumbCols);
    const s = r.summary;
    const flagged = ui.causal && r.check.rowsAboveDiagonal > 0;
    const label = r.verdict === 'invalid' ? 'NaN/Inf' : r.computed ? patternLabel(r.pattern) : 'not probabilities';
    const shortLabel = r.verdict === 'invalid' ? 'NaN/Inf' : r.computed ? patternLabel(r.pattern, { short: true }) : 'not prob.';
    const text = `${headName(r)} (layer ${r.layer}, head ${r.head}): ${label}` + (r.computed
      ? `, pattern score ${fmtMetric(r.pattern.confidence, 3)}, mean normalised entropy ${fmtMetric(s.meanNormalizedEntropy, 3)}, mean sink mass ${fmtMetric(s.meanSinkMass, 3)}, mean N_eff ${fmtMetric(s.meanNEff, 3)}` : '');
    return h('button', {
      type: 'button', class: `head-card pattern-${r.computed ? r.pattern.kind : 'none'}${ui.selected === r.index ? ' selected' : ''}`,
      id: `head-card-${r.layer}-${r.head}`, dataset: { index: r.index, pattern: r.computed ? r.pattern.kind : '' },
      title: text, 'aria-label': text, 'aria-pressed': ui.selected === r.index ? 'true' : 'false',
      onclick: () => inspect(r.index),
      ondblclick: () => openInPlayground(r.index),
    },
    canvas,
    h('span', { class: 'card-name' }, headName(r)),
    h('span', { class: 'card-pattern' }, r.computed ? `${shortLabel} ${fmtMetric(r.pattern.confidence, 2)}` : shortLabel),
    r.computed ? h('span', { class: 'card-metrics' }, `Hₙ ${fmtMetric(s.meanNormalizedEntropy, 2)} · sink ${fmtMetric(s.meanSinkMass, 2)}`) : null,
    flagged ? h('span', { class: 'card-flag', title: `${r.check.rowsAboveDiagonal} rows put weight above the diagonal (from query ${r.check.firstRowAboveDiagonal}, up to ${fmtMetric(r.check.maxAboveDiagonal, 3)})` },
      `⚠ ${r.check.rowsAboveDiagonal} rows above diag.`) : null);
  }

  // Cards are built once per analysed head (a thumbnail and its colour scale) and then only
  // moved: rebuilding 144 of them on every progress message blocked the page for seconds.
  const cards = new Map();
  function cardOf(r) {
    let el = cards.get(r.index);
    if (!el) {
      el = card(r);
      cards.set(r.index, el);
    }
    el.classList.toggle('selected', ui.selected === r.index);
    el.setAttribute('aria-pressed', String(ui.selected === r.index));
    return el;
  }

  function renderGrid() {
    const grid = $('import-grid');
    const list = visibleHeads();
    const byLayer = $('import-sort').value === 'order' && !$('import-desc').checked;
    $('import-count').textContent = `${list.length} of ${ui.heads.length} heads`;
    if (byLayer) {
      const layers = new Map();
      for (const r of list) {
        if (!layers.has(r.layer)) layers.set(r.layer, []);
        layers.get(r.layer).push(r);
      }
      mount(grid, [...layers.entries()].map(([layer, rs]) => h('div', { class: 'layer-row' },
        h('span', { class: 'layer-label' }, ui.source?.layerLabels?.[layer] || `L${layer}`), rs.map(cardOf))));
    } else {
      mount(grid, h('div', { class: 'layer-row flat' }, list.map(cardOf)));
    }
  }

  // --- tables -----------------------------------------------------------------------------
  function renderTables() {
    if (!ui.heads.length) return;
    const computed = ui.heads.filter((r) => r.computed);
    const mean = (rs, f) => {
      const xs = rs.map(f).filter(Number.isFinite);
      return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN;
    };
    const layers = [...new Set(ui.heads.map((r) => r.layer))];
    const kinds = Object.keys(PATTERN_TEXT);
    const layerRows = layers.map((l) => {
      const rs = computed.filter((r) => r.layer === l);
      const counts = kinds.map((k) => [k, rs.filter((r) => r.pattern.kind === k).length]).filter(([, c]) => c);
      return [l, `${rs.length} of ${ui.heads.filter((r) => r.layer === l).length}`, mean(rs, (r) => r.summary.meanNormalizedEntropy), mean(rs, (r) => r.summary.meanSinkMass),
        mean(rs, (r) => r.summary.meanNEff), mean(rs, (r) => r.summary.meanTopKMass), counts.map(([k, c]) => `${c} ${k}`).join(', ')];
    });
    mount($('import-layer-table').querySelector('.scroll'), table('layer-summary',
      ['layer', 'heads analysed', 'mean Hₙ', 'mean sink mass', 'mean N_eff', 'mean top-k mass', 'patterns'], layerRows));
    const headRows = ui.heads.map((r) => [r.layer, r.head, r.verdict, r.computed ? patternLabel(r.pattern) : '—', r.pattern.confidence,
      r.summary.meanEntropy, r.summary.meanNormalizedEntropy, r.summary.meanNEff, r.summary.meanTopKMass, r.summary.meanSinkMass]);
    mount($('import-head-table').querySelector('.scroll'), table('head-summary',
      ['layer', 'head', 'verdict', 'pattern', 'score', 'mean H (nats)', 'mean Hₙ', 'mean N_eff', 'mean top-k', 'mean sink'], headRows));
    $('import-layer-table').hidden = false;
    $('import-head-table').hidden = false;
  }

  function table(id, header, rows) {
    return h('table', { class: 'metrics-table', id },
      h('thead', {}, h('tr', {}, header.map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, rows.map((r) => h('tr', {}, r.map((c) => h('td', {}, typeof c === 'number' ? (Number.isInteger(c) ? String(c) : fmtMetric(c, 4)) : String(c)))))));
  }

  // --- one head ---------------------------------------------------------------------------
  const tokenOf = (list, i) => (list[i] === undefined ? `#${i}` : list[i]);

  async function inspect(index) {
    ui.selected = index;
    ui.locked = null;
    renderGrid();
    const r = ui.heads.find((x) => x.index === index);
    const panel = $('import-detail');
    panel.hidden = false;
    mount(panel, h('h3', {}, `Layer ${r.layer}, head ${r.head}`), h('p', { class: 'note' }, 'Loading…'));
    let d;
    try {
      d = await getWorker().request({ type: 'rows', index, options: { ...analysisOptions(ui.reading), thumbnail: DETAIL_SIDE } });
    } catch (e) {
      mount(panel, h('h3', {}, `Layer ${r.layer}, head ${r.head}`), h('p', { class: 'error' }, e.message));
      return;
    }
    if (ui.selected !== index) return;
    ui.detail = d;
    renderDetail();
  }

  function renderDetail() {
    const d = ui.detail;
    const s = ui.source;
    const { nQ, nK } = s.layout;
    const name = headName(d);
    const stateOk = d.verdict !== 'invalid' && (d.computed || ui.reading === 'logits') && Math.max(nQ, nK) <= MAX_STATE_TOKENS;
    const why = d.verdict === 'invalid' ? `this head holds NaN/Inf (the first at query ${d.check.firstNonfiniteRow}, key ${d.check.firstNonfiniteCol})`
      : Math.max(nQ, nK) > MAX_STATE_TOKENS ? `the playground opens heads of up to ${MAX_STATE_TOKENS} tokens`
        : !d.computed ? 'its values are not probabilities: read the file as logits first' : '';
    const head = h('div', { class: 'detail-head' },
      h('h3', {}, `${name} (layer ${d.layer}, head ${d.head}): ${d.computed ? patternLabel(d.pattern) : d.verdict.replace('_', ' ')}`),
      h('button', { type: 'button', id: 'open-in-playground', class: 'primary', disabled: !stateOk, title: why || null,
        onclick: () => openInPlayground(d.index) }, 'Open in playground'));
    if (!d.thumbRows) {
      // Nothing was computed (NaN/Inf, or not probabilities under the weights reading).
      mount($('import-detail'), head, h('p', { class: 'note', id: 'detail-why' }, `Not analysed: ${why}.`));
      return;
    }
    const pooled = d.thumbRows !== nQ || d.thumbCols !== nK;
    const canvas = h('canvas', {
      width: d.thumbCols, height: d.thumbRows, id: 'detail-canvas', class: 'detail-canvas', tabindex: 0, role: 'img',
      'aria-label': `weights of ${name}, ${nQ} queries by ${nK} keys${pooled ? ', mean-pooled' : ''}. Arrow keys move a cursor, Enter locks it.`,
    });
    const { hi, saturates } = paintGrid(canvas, d.thumbnail, d.thumbRows, d.thumbCols);
    ui.detailDomain = [0, hi];
    const side = 360;
    const scale = side / Math.max(d.thumbRows, d.thumbCols);
    canvas.style.setProperty('width', `${Math.round(d.thumbCols * scale)}px`);
    canvas.style.setProperty('height', `${Math.round(d.thumbRows * scale)}px`);
    const mark = h('div', { class: 'detail-mark', hidden: true });
    const readout = h('p', { id: 'detail-readout', class: 'readout', 'aria-live': 'polite' },
      'Hover a cell (or focus the map and use the arrow keys): query, key and weight. Click or Enter locks it; click again or Escape unlocks.');
    const cellAt = (ev) => {
      const rect = canvas.getBoundingClientRect();
      const i = Math.min(d.thumbRows - 1, Math.max(0, Math.floor(((ev.clientY - rect.top) / rect.height) * d.thumbRows)));
      const j = Math.min(d.thumbCols - 1, Math.max(0, Math.floor(((ev.clientX - rect.left) / rect.width) * d.thumbCols)));
      return [i, j];
    };
    const range = (c, cells, n) => {
      const a = Math.floor((c * n) / cells);
      const b = Math.floor(((c + 1) * n) / cells) - 1;
      return [a, Math.max(a, b)];
    };
    let cursor = [0, 0];
    const show = ([i, j], locked) => {
      cursor = [i, j];
      const w = d.thumbnail[i * d.thumbCols + j];
      const value = Number.isNaN(w) ? 'not visible' : fmtMetric(w, 4);
      let text;
      if (!pooled) {
        text = `query ${i} “${showToken(tokenOf(s.queryTokens, i))}” → key ${j} “${showToken(tokenOf(s.keyTokens, j))}”: weight ${value}`;
      } else {
        const [q0, q1] = range(i, d.thumbRows, nQ);
        const [k0, k1] = range(j, d.thumbCols, nK);
        text = `queries ${q0}–${q1} → keys ${k0}–${k1}: mean weight ${value}`;
      }
      readout.textContent = (locked ? 'locked: ' : '') + text;
      mark.hidden = false;
      mark.style.setProperty('top', `${i * scale}px`);
      mark.style.setProperty('left', `${j * scale}px`);
      mark.style.setProperty('width', `${scale}px`);
      mark.style.setProperty('height', `${scale}px`);
      mark.classList.toggle('locked', Boolean(locked));
    };
    const toggleLock = (c) => {
      if (ui.locked) { ui.locked = null; show(c, false); } else { ui.locked = c; show(c, true); }
    };
    canvas.addEventListener('mousemove', (ev) => { if (!ui.locked) show(cellAt(ev), false); });
    canvas.addEventListener('mouseleave', () => { if (!ui.locked) { mark.hidden = true; } });
    canvas.addEventListener('click', (ev) => toggleLock(cellAt(ev)));
    canvas.addEventListener('keydown', (ev) => {
      const step = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] }[ev.key];
      if (step && !ui.locked) {
        ev.preventDefault();
        show([Math.min(d.thumbRows - 1, Math.max(0, cursor[0] + step[0])), Math.min(d.thumbCols - 1, Math.max(0, cursor[1] + step[1]))], false);
      } else if (ev.key === 'Enter' || ev.key === ' ') {
        ev.preventDefault();
        toggleLock(cursor);
      }
    });
    canvas.addEventListener('focus', () => { if (!ui.locked) show(cursor, false); });
    const rows = d.rows;
    const rowTable = rows ? table('detail-rows', ['query', 'token', 'H (nats)', 'Hₙ', 'N_eff', 'top-k mass', 'sink mass', '|S_t| (90%)'],
      Array.from({ length: nQ }, (_, t) => (rows.empty[t]
        ? [t, showToken(tokenOf(s.queryTokens, t)), 'empty row', '', '', '', '', '']
        : [t, showToken(tokenOf(s.queryTokens, t)), rows.entropy[t], rows.normalizedEntropy[t], rows.nEff[t], rows.topKMass[t], rows.sinkMass[t], rows.support[t]]))) : null;
    const sum = d.summary;
    const p = d.pattern;
    const meaning = {
      offset: `offset d = ${p.parameter}: most mass on key t − ${p.parameter}, ${p.parameter} positions before the query (on repeated text, the token after the previous occurrence: an induction stripe).`,
      previous: 'previous token: most mass on key t − 1.', self: 'self: most mass on the query\'s own position.', next: 'next token: most mass on key t + 1.',
      sink: 'sink: most mass on the first key (BOS).', strided: `strided: mass on every ${p.parameter}-th key back from the query.`,
      position: `fixed position: every query attends to key ${p.parameter}.`, global: 'global: broad, many keys share the mass.',
    }[p.kind];
    mount($('import-detail'),
      head,
      why ? h('p', { class: 'note' }, `Cannot open: ${why}.`) : null,
      h('p', { class: 'note' }, pooled
        ? `Each pixel is the mean weight of a block of about ${(nQ / d.thumbRows).toFixed(1)} queries × ${(nK / d.thumbCols).toFixed(1)} keys (rows renormalised).`
        : 'One pixel per (query, key); rows renormalised over their visible keys. Grey: no visible key.'),
      renderLegend(0, hi, 3, 'grey: no visible key'),
      saturates ? h('p', { class: 'note' }, `Colours saturate at ${hi.toPrecision(3)} (the 99th percentile of the cells), as in the exports.`) : null,
      h('div', { class: 'detail-frame' }, canvas, mark),
      readout,
      d.computed ? h('p', { class: 'detail-summary' },
        `mean H ${fmtMetric(sum.meanEntropy, 4)} nats · mean Hₙ ${fmtMetric(sum.meanNormalizedEntropy, 4)} · mean N_eff ${fmtMetric(sum.meanNEff, 4)} · ` +
        `mean top-2 mass ${fmtMetric(sum.meanTopKMass, 4)} · mean sink mass ${fmtMetric(sum.meanSinkMass, 4)} · empty rows ${sum.emptyRows}`) : null,
      d.computed && meaning ? h('p', { class: 'note', id: 'detail-meaning' }, meaning) : null,
      d.computed ? h('p', { class: 'note', id: 'detail-scores' }, 'Pattern scores: ' + Object.entries(p.scores)
        .filter(([k]) => !['offsetD', 'period', 'positionKey'].includes(k))
        .map(([k, v]) => `${k} ${fmtMetric(v, 3)}${k === 'offset' ? ` (d=${p.scores.offsetD})` : k === 'strided' ? ` (p=${p.scores.period})` : k === 'position' ? ` (key ${p.scores.positionKey})` : ''}`).join(' · ')) : null,
      h('div', { class: 'export-row' },
        h('button', { type: 'button', id: 'export-detail-png', onclick: exportDetailPng }, 'PNG'),
        h('button', { type: 'button', id: 'export-detail-svg', onclick: exportDetailSvg }, 'SVG'),
        h('button', { type: 'button', id: 'export-rows-csv', disabled: !rows, onclick: () => download(fileStem('rows.csv'), rowMetricsCsv(rows, s.queryTokens), 'text/csv') }, 'Rows CSV'),
        h('button', { type: 'button', id: 'export-rows-json', disabled: !rows, onclick: exportRowsJson }, 'Rows JSON'),
        h('button', { type: 'button', id: 'export-detail-html', onclick: exportDetailHtml }, 'HTML page')),
      rowTable ? h('details', { class: 'import-table', open: nQ <= 64 }, h('summary', {}, `Per-row metrics (${nQ} queries)`), h('div', { class: 'scroll rows' }, rowTable)) : null);
  }

  function fileStem(suffix) {
    const base = (ui.source?.name ?? 'attention').replace(/\.[^.]+$/, '').replace(/[^\w.-]+/g, '_');
    return ui.detail ? `${base}_L${ui.detail.layer}H${ui.detail.head}_${suffix}` : `${base}_${suffix}`;
  }

  function detailSvg() {
    const d = ui.detail;
    const s = ui.source;
    const pooled = d.thumbRows !== s.layout.nQ || d.thumbCols !== s.layout.nK;
    return heatmapSvg({
      values: d.thumbnail, rows: d.thumbRows, cols: d.thumbCols,
      rowLabels: pooled ? [] : s.queryTokens, colLabels: pooled ? [] : s.keyTokens,
      domain: ui.detailDomain,
      title: `${s.name}: ${headName(d)} (layer ${d.layer}, head ${d.head}) — ${d.computed ? patternLabel(d.pattern) : d.verdict}`,
      note: pooled ? `mean-pooled to ${d.thumbRows} × ${d.thumbCols} from ${s.layout.nQ} × ${s.layout.nK}` : `weights, ${s.layout.nQ} queries (rows) × ${s.layout.nK} keys (columns)`,
    });
  }
  function exportDetailSvg() { download(fileStem('heatmap.svg'), detailSvg(), 'image/svg+xml'); }
  function exportDetailPng() {
    const d = ui.detail;
    const c = drawHeatmap(document.createElement('canvas'), { values: d.thumbnail, rows: d.thumbRows, cols: d.thumbCols, domain: ui.detailDomain });
    c.toBlob((blob) => download(fileStem('heatmap.png'), blob), 'image/png');
  }
  function exportRowsJson() {
    const d = ui.detail;
    download(fileStem('rows.json'), JSON.stringify({ file: ui.source.name, layer: d.layer, head: d.head, reading: ui.reading,
      queryTokens: ui.source.queryTokens, summary: d.summary, pattern: d.pattern,
      rows: Object.fromEntries(Object.entries(d.rows).map(([k, v]) => [k, Array.from(v, (x) => (Number.isFinite(x) ? x : null))])) }, null, 2), 'application/json');
  }
  function exportDetailHtml() {
    const d = ui.detail;
    const s = ui.source;
    const rows = d.rows;
    const tables = rows ? [{ caption: 'Per-row metrics', header: ['query', 'token', 'H (nats)', 'H_norm', 'N_eff', 'top-k mass', 'sink mass'],
      rows: Array.from({ length: s.layout.nQ }, (_, t) => [t, tokenOf(s.queryTokens, t), rows.entropy[t], rows.normalizedEntropy[t], rows.nEff[t], rows.topKMass[t], rows.sinkMass[t]]) }] : [];
    download(fileStem('view.html'), standaloneHtml({
      title: `${s.name}: layer ${d.layer}, head ${d.head}`,
      subtitle: d.computed ? `${patternLabel(d.pattern)} (score ${fmtMetric(d.pattern.confidence, 3)}); mean H ${fmtMetric(d.summary.meanEntropy, 4)} nats; mean sink mass ${fmtMetric(d.summary.meanSinkMass, 4)}` : d.verdict,
      svg: detailSvg(), tables,
    }), 'text/html');
  }

  async function openInPlayground(index) {
    const r = ui.heads.find((x) => x.index === index);
    const s = ui.source;
    const { nQ, nK } = s.layout;
    if (r.verdict === 'invalid' || Math.max(nQ, nK) > MAX_STATE_TOKENS || (!r.computed && ui.reading !== 'logits')) {
      await inspect(index);
      return;
    }
    let values;
    try {
      values = await getWorker().request({ type: 'values', index });
    } catch (e) {
      setMessages('analysis', [`Could not read layer ${r.layer} head ${r.head}: ${e.message}`]);
      return;
    }
    const logits = ui.reading === 'logits';
    const matrix = Array.from({ length: nQ }, (_, i) => Array.from(values.subarray(i * nK, (i + 1) * nK),
      (x) => (logits ? (x <= -1e30 ? null : x) : x)));
    const queries = Array.from({ length: nQ }, (_, i) => clipToken(s.queryTokens[i] ?? String(i)));
    const keys = Array.from({ length: nK }, (_, j) => clipToken(s.keyTokens[j] ?? String(j)));
    const next = {
      version: 1, mode: logits ? 'logits' : 'weights',
      heads: [{ name: `L${r.layer} H${r.head}`, Q: null, K: null, V: null, logits: logits ? matrix : null, weights: logits ? null : matrix }],
      head: 0, tokens: { queries, keys },
      mask: { causal: logits && $('import-causal').checked && nQ === nK, window: 0, padding: new Array(nK).fill(false), allow: null },
      tau: 1, scale: 'auto', topK: 2, row: Math.min(nQ - 1, Math.max(0, nQ - 1)),
      view: { panel: 'weights', preset: 'import', numbers: 'auto' },
      source: clipSource(`${s.name}: layer ${r.layer}, head ${r.head} (${s.format}${s.dtype ? `, ${s.dtype}` : ''}; ${logits ? 'read as logits' : 'weights'})`),
    };
    const err = await o.openState(next, 'import');
    if (err) setMessages('analysis', [`Could not open layer ${r.layer} head ${r.head}: ${err}`]);
  }

  const clipSource = (t) => ([...t].length > 500 ? `${[...t].slice(0, 499).join('')}…` : t);

  /**
   * Files dropped together: a token list (a .txt, or a name with "token" in it) goes with the
   * attention file; a token list alone applies to the open file.
   */
  function importFiles(files) {
    const isTokens = (f) => /\.txt$/i.test(f.name) || /token/i.test(f.name);
    const tokens = files.find(isTokens) ?? null;
    const attention = files.find((f) => !isTokens(f)) ?? null;
    if (attention) return importFile(attention, { tokens });
    if (tokens && ui.source) return readTokenFile(tokens, ui.source.layout.nQ === ui.source.layout.nK ? 'both' : 'queries');
    if (tokens) return importFile(tokens); // no open file: let the format detection say what it is
    return Promise.resolve();
  }

  // --- wiring -----------------------------------------------------------------------------
  fileInput.addEventListener('change', () => { if (fileInput.files[0]) importFile(fileInput.files[0]); fileInput.value = ''; });
  tokensInput.addEventListener('change', () => {
    if (tokensInput.files[0] && ui.source) readTokenFile(tokensInput.files[0], ui.source.layout.nQ === ui.source.layout.nK ? 'both' : 'queries');
  });
  keyTokensInput.addEventListener('change', () => { if (keyTokensInput.files[0] && ui.source) readTokenFile(keyTokensInput.files[0], 'keys'); });
  for (const id of ['import-sort', 'import-desc', 'import-filter', 'import-min', 'import-max']) {
    $(id).addEventListener(id.endsWith('min') || id.endsWith('max') ? 'input' : 'change', renderGrid);
  }
  $('import-cancel').addEventListener('click', () => getWorker().cancel());
  $('import-as-logits').addEventListener('click', () => { $('import-reading').value = 'logits'; analyse('logits', false); });
  $('import-causal').addEventListener('change', () => { if (ui.source && !ui.running) analyse(ui.reading, false); });
  $('export-heads-csv').addEventListener('click', () => download(fileStem('heads.csv').replace(/_L\d+H\d+/, ''), headMetricsCsv(ui.heads), 'text/csv'));
  $('export-heads-json').addEventListener('click', () => download(fileStem('heads.json').replace(/_L\d+H\d+/, ''),
    headMetricsJson({ file: ui.source.name, format: ui.source.format, dtype: ui.source.dtype, shape: ui.source.shape,
      layers: ui.source.layout.layers, headsPerLayer: ui.source.layout.heads, nQ: ui.source.layout.nQ, nK: ui.source.layout.nK,
      reading: ui.reading, causal: ui.causal, tokens: { queries: ui.source.queryTokens, keys: ui.source.keyTokens } },
    ui.heads.map((r) => ({ ...r, label: ui.source.headLabels?.[r.head] || undefined }))), 'application/json'));
  document.addEventListener('keydown', (ev) => {
    if (ev.key === 'Escape' && ui.locked) {
      ui.locked = null;
      root.querySelector('.detail-mark')?.classList.remove('locked');
      const ro = $('detail-readout');
      if (ro) ro.textContent = ro.textContent.replace(/^locked: /, '');
    }
  });
  const over = (ev) => { ev.preventDefault(); drop.classList.add('over'); };
  root.addEventListener('dragover', over);
  root.addEventListener('dragleave', () => drop.classList.remove('over'));
  root.addEventListener('drop', (ev) => {
    ev.preventDefault();
    drop.classList.remove('over');
    importFiles([...(ev.dataTransfer?.files ?? [])]);
  });

  return { importFile, importFiles, getImport: () => ({ source: ui.source, heads: ui.heads, reading: ui.reading, running: ui.running }) };
}
