// The "Import & overview" view: drop an attention file, watch its heads being analysed, browse a
// layer x head grid of thumbnails with their metrics and pattern labels, sort and filter, inspect
// one head (hover for query, key and weight; click to lock), open it in the playground, export.
//
// Everything numeric comes from the core in the import worker (web/import-worker.js); this module
// only asks for it and draws it. Token strings go in as text (h() uses text nodes only).
import { AttentionError } from './core.js';
import { TECH, summarise } from './importer.js';
import { h, mount } from './views/dom.js';
import { dataSpan, fmtMetric, showToken, tData } from './views/format.js';
import { getLang, hasKey, onLangChange, t } from './i18n.js';
import { paintGrid } from './views/overview.js';
import { renderLegend } from './views/heatmap.js';
import {
  download, headMetricsCsv, headMetricsJson, heatmapSvg, rowMetricsCsv, standaloneHtml, drawHeatmap,
} from './export.js';

const $ = (id) => document.getElementById(id);

/** Sort keys of the overview: label and how to read the value from a head's result. */
// Labels are table keys (web/i18n/import.js), read when drawn: the language can change.
export const SORT_KEYS = {
  order: { labelKey: 'import.sort.order', get: (r) => r.index },
  meanNormalizedEntropy: { labelKey: 'import.sort.meanNormalizedEntropy', get: (r) => r.summary.meanNormalizedEntropy },
  meanEntropy: { labelKey: 'import.sort.meanEntropy', get: (r) => r.summary.meanEntropy },
  meanNEff: { labelKey: 'import.sort.meanNEff', get: (r) => r.summary.meanNEff },
  meanTopKMass: { labelKey: 'import.sort.meanTopKMass', get: (r) => r.summary.meanTopKMass },
  meanSinkMass: { labelKey: 'import.sort.meanSinkMass', get: (r) => r.summary.meanSinkMass },
  confidence: { labelKey: 'import.sort.confidence', get: (r) => r.pattern.confidence },
};

/** The pattern classes of the core's classifier (docs/analysis.md), in the order shown. */
const PATTERN_KINDS = ['sink', 'self', 'previous', 'next', 'offset', 'strided', 'position', 'global'];

/** A class name: long ("previous token") or short ("previous"), in the page's language. */
const kindName = (kind, short = false) => {
  const key = `lab.${short ? 'patternShort' : 'pattern'}.${kind}`;
  return hasKey(key) ? t(key) : kind;
};

/** Label of a pattern result: "previous token", "offset d=19", "fixed position key 7" ...;
 *  short: the class name only ("previous", "offset d=19"), for the thumbnails. */
export function patternLabel(p, { short = false } = {}) {
  const param = p.kind === 'offset' ? ` d=${p.parameter}` : p.kind === 'strided' ? ` p=${p.parameter}`
    : p.kind === 'position' ? t('lab.patternParam.position', { key: p.parameter }) : '';
  return `${kindName(p.kind, short)}${param}`;
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

// Names written as they are in every language (formats, products, paths, keys): filled into the
// table's placeholders and shown as data (translate="no").
const NAMES = {
  ...TECH, dtypes: 'float16/32/64', tools: 'CircuitsVis, BertViz', hf: 'Hugging Face transformers', tl: 'TransformerLens',
  doc: 'docs/import.md', esc: 'Esc',
};
/** t() with the NAMES filled in (as text: for attributes and option labels). */
const tn = (key, vars = {}) => t(key, { ...NAMES, ...vars });
/** t() with the NAMES filled in as data nodes (translate="no"), for element content. */
const tnData = (key, vars = {}, data = []) => tData(key, { ...NAMES, ...vars }, [...data, ...Object.keys(NAMES)]);

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
        const err = e.code ? new AttentionError(e.code, e.field, e.message) : new Error(e.message);
        if (e.i18n) err.i18n = e.i18n; // the importer's own message, as a table key (translated here)
        p.reject(err);
      } else {
        p.resolve(m.results);
      }
    };
    this.worker.onerror = (ev) => {
      for (const p of this.pending.values()) p.reject(Object.assign(new Error(`the import worker failed: ${ev.message}`), { i18n: { key: 'import.err.worker', vars: { detail: ev.message }, data: ['detail'] } }));
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

  // Static text carries its table key (data-i18n, data-i18n-attr): setLang refills it.
  const tx = (key) => h('span', { dataset: { i18n: key } }, t(key));
  // Text with NAMES in it: drawn again by the language listener below (not data-i18n).
  const named = [];
  const txn = (key) => {
    const el = h('span', {}, tnData(key));
    named.push([el, key]);
    return el;
  };
  const opt = (value, key) => h('option', { value, dataset: { i18n: key } }, t(key));
  const tAttr = (pairs) => ({ i18nAttr: pairs.map(([attr, key]) => `${attr}:${key}`).join(';') });
  const fileInput = h('input', { type: 'file', id: 'import-file', accept: '.npy,.npz,.json,application/json', class: 'visually-hidden' });
  const tokensInput = h('input', { type: 'file', id: 'import-tokens', accept: '.json,.txt,text/plain,application/json', class: 'visually-hidden' });
  const keyTokensInput = h('input', { type: 'file', id: 'import-key-tokens', accept: '.json,.txt,text/plain,application/json', class: 'visually-hidden' });
  const drop = h('div', { class: 'dropzone', id: 'import-drop' },
    h('p', { class: 'drop-title' }, tx('import.dropTitle')),
    h('p', { class: 'note' }, txn('import.dropNote')),
    h('div', { class: 'drop-actions' },
      h('label', { class: 'button primary' }, tx('import.chooseFile'), fileInput),
      h('label', { class: 'button' }, tx('import.tokens'), tokensInput),
      h('label', { class: 'button', id: 'import-key-tokens-label', hidden: true }, tx('import.keyTokens'), keyTokensInput),
      h('label', { class: 'check' }, h('input', { type: 'checkbox', id: 'import-causal' }), ' ', tx('import.causal'))),
    h('details', { class: 'how-to' },
      h('summary', {}, txn('import.howTo')),
      h('pre', { translate: 'no' }, HF_SNIPPET), h('pre', { translate: 'no' }, TL_SNIPPET),
      h('p', { class: 'note' }, txn('import.axisNote'))));
  const options = h('div', { class: 'import-options' },
    h('label', { class: 'inline' }, tx('import.readAs'), ' ',
      h('select', { id: 'import-reading', 'aria-label': t('import.readAs'), dataset: tAttr([['aria-label', 'import.readAs']]) },
        opt('auto', 'import.reading.auto'),
        opt('weights', 'import.reading.weights'),
        opt('logits', 'import.reading.logits'))));
  const progress = h('div', { id: 'import-progress', class: 'import-progress', hidden: true },
    h('progress', { id: 'import-progress-bar', max: 1, value: 0 }),
    h('span', { id: 'import-progress-text', role: 'status', 'aria-live': 'polite' }),
    h('button', { type: 'button', id: 'import-cancel' }, tx('import.cancel')));
  const member = h('div', { id: 'import-member-wrap', hidden: true },
    h('label', { class: 'inline' }, txn('import.member'), ' ',
      h('select', { id: 'import-member', translate: 'no', 'aria-label': tn('import.member') })),
    h('button', { type: 'button', id: 'import-member-go', class: 'primary' }, tx('import.memberGo')));
  const numberBox = (id, labelKey, ariaKey) => h('label', { class: 'inline' }, tx(labelKey), ' ',
    h('input', { type: 'number', id, step: 'any', class: 'num-box small', 'aria-label': t(ariaKey), dataset: tAttr([['aria-label', ariaKey]]) }));
  const toolbar = h('div', { class: 'import-toolbar', id: 'import-toolbar', hidden: true },
    h('label', { class: 'inline' }, tx('import.sortBy'), ' ',
      h('select', { id: 'import-sort', 'aria-label': t('import.sortAria'), dataset: tAttr([['aria-label', 'import.sortAria']]) },
        Object.entries(SORT_KEYS).map(([k, v]) => opt(k, v.labelKey)))),
    h('label', { class: 'inline' }, h('input', { type: 'checkbox', id: 'import-desc' }), ' ', tx('import.desc')),
    h('label', { class: 'inline' }, tx('import.pattern'), ' ',
      h('select', { id: 'import-filter', 'aria-label': t('import.filterAria'), dataset: tAttr([['aria-label', 'import.filterAria']]) },
        opt('', 'import.filterAll'),
        PATTERN_KINDS.map((k) => opt(k, `lab.pattern.${k}`)))),
    numberBox('import-min', 'import.min', 'import.minAria'),
    numberBox('import-max', 'import.max', 'import.maxAria'),
    h('span', { id: 'import-count', class: 'note' }),
    h('span', { class: 'spacer' }),
    h('button', { type: 'button', id: 'export-heads-csv' }, tx('import.exportHeadsCsv')),
    h('button', { type: 'button', id: 'export-heads-json' }, tx('import.exportHeadsJson')));

  mount(root,
    h('h2', {}, tx('import.title')),
    drop, options,
    h('p', { id: 'import-info', class: 'import-info' }),
    progress, member,
    h('div', { id: 'import-errors', class: 'error-box', role: 'alert', hidden: true }),
    h('div', { id: 'import-warnings', class: 'warn-box', hidden: true }),
    h('div', { id: 'import-logits-offer', hidden: true },
      h('button', { type: 'button', id: 'import-as-logits', class: 'primary' }, tx('import.asLogits'))),
    toolbar,
    h('div', { class: 'import-main' },
      h('div', { id: 'import-grid', class: 'import-grid', 'aria-label': t('import.gridAria'), dataset: tAttr([['aria-label', 'import.gridAria']]) }),
      h('section', { id: 'import-detail', class: 'import-detail', hidden: true, 'aria-label': t('import.detailAria'), dataset: tAttr([['aria-label', 'import.detailAria']]) })),
    h('details', { id: 'import-layer-table', class: 'import-table', open: true, hidden: true },
      h('summary', {}, tx('import.layerTable')), h('div', { class: 'scroll' })),
    h('details', { id: 'import-head-table', class: 'import-table', hidden: true },
      h('summary', {}, tx('import.headTable')), h('div', { class: 'scroll' })));

  const getWorker = () => (worker ??= new ImportWorker(o.coreOptions));

  // --- messages ---------------------------------------------------------------------------
  // By origin, so that a new analysis does not wipe a token-file error and fixing the tokens
  // clears exactly their message.
  // Each message is a function drawing it in the current language (or a list-valued function),
  // so that a change of language redraws them from the same facts.
  const messages = { file: [], tokens: [], analysis: [], warnings: [] };
  const items = (k) => (typeof messages[k] === 'function' ? messages[k]() : messages[k]);
  const draw = (m) => h('p', {}, typeof m === 'function' ? m() : m);
  function showMessages() {
    const errors = [...items('file'), ...items('tokens'), ...items('analysis')];
    const box = $('import-errors');
    box.hidden = !errors.length;
    mount(box, errors.map(draw));
    const warnings = items('warnings');
    const warn = $('import-warnings');
    warn.hidden = !warnings.length;
    mount(warn, warnings.map(draw));
  }
  function setMessages(kind, list) {
    messages[kind] = list;
    showMessages();
  }
  /** An error's text: the importer's own message translated, else the core's English detail
   *  (translate="no"). */
  function errDetail(e) {
    const i = e?.i18n;
    if (i && hasKey(i.key)) return h('span', {}, tData(i.key, i.vars ?? {}, i.data ?? []));
    return dataSpan(e?.message ?? String(e));
  }
  // The status line (progress) and the file line (info) as functions too.
  let progressText = () => '';
  let infoText = () => '';
  function showProgressText(fn) {
    progressText = fn;
    $('import-progress-text').textContent = fn();
  }
  function showInfo(fn) {
    infoText = fn ?? (() => '');
    mount($('import-info'), infoText());
  }
  function setProgress(done, total) {
    const p = $('import-progress');
    p.hidden = total === 0;
    $('import-progress-bar').max = Math.max(1, total);
    $('import-progress-bar').value = done;
    showProgressText(() => (done < total ? t('import.progress.running', { n: done + 1, total }) : t('import.progress.done', { total })));
  }

  function describeSource(s) {
    const l = s.layout;
    const kind = s.format === 'npy' || s.format === 'npz'
      ? tData(s.member ? 'import.source.npyMember' : 'import.source.npy', { format: s.format, member: s.member ?? '', dtype: s.dtype }, ['member', 'format', 'dtype'])
      : tData('import.source.json', { format: s.format });
    const cross = l.nQ !== l.nK ? t('import.source.cross', { nQ: l.nQ, nK: l.nK }) : ` × ${l.nQ} × ${l.nK}`;
    const tokens = !s.keyTokens.length ? t('import.source.noTokens')
      : s.tokensFrom ? tData('import.source.tokensFrom', { n: s.keyTokens.length, file: s.tokensFrom }, ['file'])
        : t('import.source.tokensInFile', { n: s.keyTokens.length });
    return tData('import.source', {
      name: s.name, kind, shape: `[${s.shape.join(', ')}]`, layers: t('import.source.layers', { n: l.layers }),
      heads: t('import.source.heads', { n: l.heads }), cross, tokens,
    }, ['name', 'kind', 'tokens']);
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
    const size = (file.size / 1048576).toFixed(1);
    showInfo(() => tData('import.readingFile', { file: file.name, size }, ['file']));
    const w = getWorker();
    let source;
    try {
      await w.ready;
      source = await w.request({ type: 'open', file, name: file.name, member: memberName });
    } catch (e) {
      // The previous import (if any) stays on screen: nothing is lost.
      showInfo(ui.source ? () => describeSource(ui.source) : null);
      setMessages('file', [() => tData('import.err.read', { file: file.name, detail: errDetail(e) })]);
      return;
    }
    if (source.kind === 'state') {
      showInfo(ui.source ? () => describeSource(ui.source) : null);
      const err = await o.openState(source.state, 'state');
      if (err) setMessages('file', [() => tData('import.err.state', { file: file.name, detail: err })]);
      return;
    }
    if (source.needsMember) {
      showInfo(() => tData('import.needsMember', { file: file.name, n: source.members.length }, ['file']));
      mount($('import-member'), source.members.map((m) => h('option', { value: m.name, disabled: Boolean(m.error) },
        m.error ? `${m.name} (${t('import.memberUnreadable')}: ${m.error})` : `${m.name} [${m.shape.join(', ')}] ${m.dtype}`)));
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
    showInfo(() => describeSource(ui.source));
    const reading = $('import-reading').value;
    await analyse(reading === 'logits' ? 'logits' : 'weights', reading === 'auto');
  }

  async function readTokenFile(file, which) {
    if (!ui.source) {
      setMessages('tokens', [() => tData('import.tokensPending', { file: file.name })]);
      return;
    }
    try {
      const got = await getWorker().request({ type: 'tokens', file, which });
      ui.source.queryTokens = got.queryTokens;
      ui.source.keyTokens = got.keyTokens;
      ui.source.tokensFrom = file.name;
      setMessages('tokens', []);
      showInfo(() => describeSource(ui.source));
      if (ui.selected !== null) inspect(ui.selected);
    } catch (e) {
      setMessages('tokens', [() => tData('import.err.tokens', { file: file.name, detail: errDetail(e) })]);
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
      if (done.cancelled) showProgressText(() => t('import.progress.cancelled', { done: done.done, total }));
    } catch (e) {
      if (generation !== ui.generation) return;
      setMessages('analysis', [() => tData('import.err.analysis', { detail: errDetail(e) })]);
    } finally {
      if (generation === ui.generation) {
        ui.running = false;
        $('import-cancel').disabled = true;
      }
    }
    ui.causal = $('import-causal').checked;
    // The verdicts are worded again in the language of the moment (summarise() is cheap).
    const heads = ui.heads;
    const causal = ui.causal;
    const verdictsIn = () => summarise(heads, { causal, reading, lang: getLang() });
    const verdicts = verdictsIn();
    const drawItems = (list) => list.map((it) => () => tData(it.key, it.vars, it.data));
    messages.warnings = () => drawItems(verdictsIn().warningItems);
    setMessages('analysis', () => drawItems(verdictsIn().errorItems));
    $('import-logits-offer').hidden = !(verdicts.offerLogits && reading === 'weights');
    if (auto && verdicts.offerLogits) {
      const before = progressText;
      showProgressText(() => `${before()}${t('import.progress.notProbabilities')}`);
    }
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
    const label = r.verdict === 'invalid' ? 'NaN/Inf' : r.computed ? patternLabel(r.pattern) : t('import.card.notProbabilities');
    const shortLabel = r.verdict === 'invalid' ? 'NaN/Inf' : !r.computed ? t('import.card.notProbShort')
      : r.pattern.kind === 'sink' ? t('import.card.sinkShort') : patternLabel(r.pattern, { short: true });
    const text = t('import.card.title', { name: headName(r), layer: r.layer, head: r.head, label }) + (r.computed
      ? t('import.card.titleMetrics', { score: fmtMetric(r.pattern.confidence, 3), hn: fmtMetric(s.meanNormalizedEntropy, 3),
        sink: fmtMetric(s.meanSinkMass, 3), neff: fmtMetric(s.meanNEff, 3) }) : '');
    return h('button', {
      type: 'button', class: `head-card pattern-${r.computed ? r.pattern.kind : 'none'}${ui.selected === r.index ? ' selected' : ''}`,
      id: `head-card-${r.layer}-${r.head}`, dataset: { index: r.index, pattern: r.computed ? r.pattern.kind : '' },
      title: text, 'aria-pressed': ui.selected === r.index ? 'true' : 'false',
      onclick: () => inspect(r.index),
      ondblclick: () => openInPlayground(r.index),
    },
    canvas,
    h('span', { class: 'card-name', translate: 'no' }, headName(r)),
    h('span', { class: 'card-pattern', translate: r.verdict === 'invalid' ? 'no' : null }, r.computed ? `${shortLabel} ${fmtMetric(r.pattern.confidence, 2)}` : shortLabel),
    r.computed ? h('span', { class: 'card-metrics' }, t('import.card.metrics', { hn: fmtMetric(s.meanNormalizedEntropy, 2), sink: fmtMetric(s.meanSinkMass, 2) })) : null,
    flagged ? h('span', { class: 'card-flag', title: t('import.card.flagTitle', { n: r.check.rowsAboveDiagonal, from: r.check.firstRowAboveDiagonal, max: fmtMetric(r.check.maxAboveDiagonal, 3) }) },
      t('import.card.flag', { n: r.check.rowsAboveDiagonal })) : null);
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
    $('import-count').textContent = t('import.count', { n: list.length, total: ui.heads.length });
    if (byLayer) {
      const layers = new Map();
      for (const r of list) {
        if (!layers.has(r.layer)) layers.set(r.layer, []);
        layers.get(r.layer).push(r);
      }
      mount(grid, [...layers.entries()].map(([layer, rs]) => h('div', { class: 'layer-row' },
        h('span', { class: 'layer-label', translate: 'no' }, ui.source?.layerLabels?.[layer] || `L${layer}`), rs.map(cardOf))));
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
    const kinds = PATTERN_KINDS;
    const layerRows = layers.map((l) => {
      const rs = computed.filter((r) => r.layer === l);
      const counts = kinds.map((k) => [k, rs.filter((r) => r.pattern.kind === k).length]).filter(([, c]) => c);
      return [l, t('import.nOfM', { n: rs.length, m: ui.heads.filter((r) => r.layer === l).length }), mean(rs, (r) => r.summary.meanNormalizedEntropy), mean(rs, (r) => r.summary.meanSinkMass),
        mean(rs, (r) => r.summary.meanNEff), mean(rs, (r) => r.summary.meanTopKMass), counts.map(([k, c]) => t('import.patternCount', { n: c, kind: kindName(k, true) })).join(t('import.listSep'))];
    });
    mount($('import-layer-table').querySelector('.scroll'), table('layer-summary',
      ['layer', 'headsAnalysed', 'meanHn', 'meanSinkMass', 'meanNEff', 'meanTopKMass', 'patterns'].map((k) => t(`import.col.${k}`)), layerRows));
    const verdictText = (v) => (hasKey(`import.verdict.${v}`) ? tn(`import.verdict.${v}`) : v);
    const headRows = ui.heads.map((r) => [r.layer, r.head, verdictText(r.verdict), r.computed ? patternLabel(r.pattern) : '—', r.pattern.confidence,
      r.summary.meanEntropy, r.summary.meanNormalizedEntropy, r.summary.meanNEff, r.summary.meanTopKMass, r.summary.meanSinkMass]);
    mount($('import-head-table').querySelector('.scroll'), table('head-summary',
      ['layer', 'head', 'verdict', 'pattern', 'score', 'meanH', 'meanHn', 'meanNEff', 'meanTopK', 'meanSink'].map((k) => t(`import.col.${k}`)), headRows));
    $('import-layer-table').hidden = false;
    $('import-head-table').hidden = false;
  }

  /** A table; the columns in `dataCols` hold data (tokens) and are marked translate="no". */
  function table(id, header, rows, dataCols = []) {
    return h('table', { class: 'metrics-table', id },
      h('thead', {}, h('tr', {}, header.map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, rows.map((r) => h('tr', {}, r.map((c, k) => h('td', { translate: dataCols.includes(k) ? 'no' : null },
        typeof c === 'number' ? (Number.isInteger(c) ? String(c) : fmtMetric(c, 4)) : String(c)))))));
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
    mount(panel, h('h3', {}, t('import.detail.layerHead', { layer: r.layer, head: r.head })), h('p', { class: 'note' }, t('import.detail.loading')));
    let d;
    try {
      d = await getWorker().request({ type: 'rows', index, options: { ...analysisOptions(ui.reading), thumbnail: DETAIL_SIDE } });
    } catch (e) {
      mount(panel, h('h3', {}, t('import.detail.layerHead', { layer: r.layer, head: r.head })), h('p', { class: 'error' }, errDetail(e)));
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
    const [whyKey, whyVars] = d.verdict === 'invalid' ? ['import.why.invalid', { row: d.check.firstNonfiniteRow, col: d.check.firstNonfiniteCol }]
      : Math.max(nQ, nK) > MAX_STATE_TOKENS ? ['import.why.tooLarge', { max: MAX_STATE_TOKENS }]
        : !d.computed ? ['import.why.notProbabilities', {}] : [null, {}];
    const why = whyKey ? tn(whyKey, whyVars) : ''; // as text (the button's title)
    const whyNode = () => h('span', {}, tnData(whyKey, whyVars));
    const verdictText = hasKey(`import.verdict.${d.verdict}`) ? tn(`import.verdict.${d.verdict}`) : d.verdict.replace('_', ' ');
    const head = h('div', { class: 'detail-head' },
      h('h3', {}, tData('import.detail.title', { name, layer: d.layer, head: d.head, label: d.computed ? patternLabel(d.pattern) : verdictText }, ['name'])),
      h('button', { type: 'button', id: 'open-in-playground', class: 'primary', disabled: !stateOk, title: why || null,
        onclick: () => openInPlayground(d.index) }, t('import.detail.open')));
    if (!d.thumbRows) {
      // Nothing was computed (NaN/Inf, or not probabilities under the weights reading).
      mount($('import-detail'), head, h('p', { class: 'note', id: 'detail-why' }, tData('import.detail.notAnalysed', { why: whyNode() })));
      return;
    }
    const pooled = d.thumbRows !== nQ || d.thumbCols !== nK;
    const canvas = h('canvas', {
      width: d.thumbCols, height: d.thumbRows, id: 'detail-canvas', class: 'detail-canvas', tabindex: 0, role: 'img',
      'aria-label': t(pooled ? 'import.detail.canvasAriaPooled' : 'import.detail.canvasAria', { name, nQ, nK }),
    });
    const { hi, saturates } = paintGrid(canvas, d.thumbnail, d.thumbRows, d.thumbCols);
    ui.detailDomain = [0, hi];
    const side = 360;
    const scale = side / Math.max(d.thumbRows, d.thumbCols);
    canvas.style.setProperty('width', `${Math.round(d.thumbCols * scale)}px`);
    canvas.style.setProperty('height', `${Math.round(d.thumbRows * scale)}px`);
    const mark = h('div', { class: 'detail-mark', hidden: true });
    const readout = h('p', { id: 'detail-readout', class: 'readout', 'aria-live': 'polite' }, tnData('import.detail.readoutHelp'));
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
      const value = Number.isNaN(w) ? t('import.detail.notVisible') : fmtMetric(w, 4);
      let text;
      if (!pooled) {
        text = tData('import.detail.readout', { i, qt: showToken(tokenOf(s.queryTokens, i)), j, kt: showToken(tokenOf(s.keyTokens, j)), value }, ['qt', 'kt']);
      } else {
        const [q0, q1] = range(i, d.thumbRows, nQ);
        const [k0, k1] = range(j, d.thumbCols, nK);
        text = t('import.detail.readoutPooled', { q0, q1, k0, k1, value });
      }
      mount(readout, locked ? t('import.detail.locked') : null, text);
      mark.hidden = false;
      mark.style.setProperty('top', `${i * scale}px`);
      mark.style.setProperty('left', `${j * scale}px`);
      mark.style.setProperty('width', `${scale}px`);
      mark.style.setProperty('height', `${scale}px`);
      mark.classList.toggle('locked', Boolean(locked));
    };
    ui.unlockReadout = () => show(cursor, false);
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
    const rowTable = rows ? table('detail-rows', ['query', 'token', 'H', 'Hn', 'N_eff', 'topKMass', 'sinkMass', 'support'].map((k) => t(`import.rowCol.${k}`)),
      Array.from({ length: nQ }, (_, r) => (rows.empty[r]
        ? [r, showToken(tokenOf(s.queryTokens, r)), t('import.detail.emptyRow'), '', '', '', '', '']
        : [r, showToken(tokenOf(s.queryTokens, r)), rows.entropy[r], rows.normalizedEntropy[r], rows.nEff[r], rows.topKMass[r], rows.sinkMass[r], rows.support[r]])), [1]) : null;
    const sum = d.summary;
    const p = d.pattern;
    const meaningKey = `import.meaning.${p.kind}`;
    const meaning = hasKey(meaningKey) ? t(meaningKey, { p: p.parameter }) : null;
    const scoreName = (k) => (hasKey(`lab.patternShort.${k}`) ? t(`lab.patternShort.${k}`) : k);
    mount($('import-detail'),
      head,
      why ? h('p', { class: 'note' }, tData('import.detail.cannotOpen', { why: whyNode() })) : null,
      h('p', { class: 'note' }, pooled
        ? t('import.detail.pooledNote', { q: (nQ / d.thumbRows).toFixed(1), k: (nK / d.thumbCols).toFixed(1) })
        : t('import.detail.pixelNote')),
      renderLegend(0, hi, 3, t('import.detail.legendGrey')),
      saturates ? h('p', { class: 'note' }, t('import.detail.saturates', { hi: hi.toPrecision(3) })) : null,
      h('div', { class: 'detail-frame' }, canvas, mark),
      readout,
      d.computed ? h('p', { class: 'detail-summary' }, t('import.detail.summary', {
        h: fmtMetric(sum.meanEntropy, 4), hn: fmtMetric(sum.meanNormalizedEntropy, 4), neff: fmtMetric(sum.meanNEff, 4),
        topk: fmtMetric(sum.meanTopKMass, 4), sink: fmtMetric(sum.meanSinkMass, 4), empty: sum.emptyRows,
      })) : null,
      d.computed && meaning ? h('p', { class: 'note', id: 'detail-meaning' }, meaning) : null,
      d.computed ? h('p', { class: 'note', id: 'detail-scores' }, t('import.detail.scores') + Object.entries(p.scores)
        .filter(([k]) => !['offsetD', 'period', 'positionKey'].includes(k))
        .map(([k, v]) => `${scoreName(k)} ${fmtMetric(v, 3)}${k === 'offset' ? ` (d=${p.scores.offsetD})` : k === 'strided' ? ` (p=${p.scores.period})`
          : k === 'position' ? ` (${t('lab.patternParam.position', { key: p.scores.positionKey }).trim()})` : ''}`).join(' · ')) : null,
      h('div', { class: 'export-row' },
        h('button', { type: 'button', id: 'export-detail-png', onclick: exportDetailPng }, 'PNG'),
        h('button', { type: 'button', id: 'export-detail-svg', onclick: exportDetailSvg }, 'SVG'),
        h('button', { type: 'button', id: 'export-rows-csv', disabled: !rows, onclick: () => download(fileStem('rows.csv'), rowMetricsCsv(rows, s.queryTokens), 'text/csv') }, t('import.export.rowsCsv')),
        h('button', { type: 'button', id: 'export-rows-json', disabled: !rows, onclick: exportRowsJson }, t('import.export.rowsJson')),
        h('button', { type: 'button', id: 'export-detail-html', onclick: exportDetailHtml }, t('import.export.html'))),
      rowTable ? h('details', { class: 'import-table', open: nQ <= 64 }, h('summary', {}, t('import.detail.rowsSummary', { n: nQ })), h('div', { class: 'scroll rows', tabindex: '0' }, rowTable)) : null);
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
      title: t('lab.export.importSvgTitle', { file: s.name, name: headName(d), layer: d.layer, head: d.head, label: d.computed ? patternLabel(d.pattern) : d.verdict }),
      note: pooled ? t('lab.export.pooledNote', { rows: d.thumbRows, cols: d.thumbCols, nQ: s.layout.nQ, nK: s.layout.nK })
        : t('lab.export.weightsNote', { nQ: s.layout.nQ, nK: s.layout.nK }),
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
    const tables = rows ? [{ caption: t('lab.export.rowsCaption'), header: ['query', 'token', 'H', 'Hn', 'N_eff', 'topKMass', 'sinkMass'].map((k) => t(`import.rowCol.${k}`)),
      rows: Array.from({ length: s.layout.nQ }, (_, r) => [r, tokenOf(s.queryTokens, r), rows.entropy[r], rows.normalizedEntropy[r], rows.nEff[r], rows.topKMass[r], rows.sinkMass[r]]) }] : [];
    download(fileStem('view.html'), standaloneHtml({
      title: t('lab.export.importHtmlTitle', { file: s.name, layer: d.layer, head: d.head }),
      subtitle: d.computed ? t('lab.export.importHtmlSubtitle', { label: patternLabel(d.pattern), score: fmtMetric(d.pattern.confidence, 3),
        h: fmtMetric(d.summary.meanEntropy, 4), sink: fmtMetric(d.summary.meanSinkMass, 4) }) : d.verdict,
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
      setMessages('analysis', [() => tData('import.err.values', { layer: r.layer, head: r.head, detail: errDetail(e) }, ['detail'])]);
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
    if (err) setMessages('analysis', [() => tData('import.err.open', { layer: r.layer, head: r.head, detail: err }, ['detail'])]);
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
      ui.unlockReadout?.();
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

  // A new language: the same import drawn again from what is held (no file is read again and
  // nothing is analysed again). Static text follows by itself (data-i18n, setLang).
  onLangChange(() => {
    for (const [el, key] of named) mount(el, tnData(key));
    $('import-member').setAttribute('aria-label', tn('import.member'));
    showMessages();
    if (!$('import-progress').hidden) $('import-progress-text').textContent = progressText();
    mount($('import-info'), infoText());
    if (!ui.heads.length) return;
    cards.clear();
    renderGrid();
    renderTables();
    if (ui.detail && ui.selected === ui.detail.index) {
      ui.locked = null; // the readout starts again with its help text
      renderDetail();
    }
  });

  return { importFile, importFiles, getImport: () => ({ source: ui.source, heads: ui.heads, reading: ui.reading, running: ui.running }) };
}
