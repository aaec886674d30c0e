// The page: wires controls to the state, the state to the core, the results to the views.
// One direction of data flow:
//   control / link / API call -> next state -> validateState (state.js) -> core.compute (WASM)
//   -> results -> views.
// A state that fails validation or computation never replaces the current one: the error is shown
// next to what caused it and the last valid state stays on screen. This is the only module that
// touches the URL.
import { loadCore, AttentionError } from './core.js';
import { LAB_VIEWS, decodeLink, encodeLink, StateError, statesEqual, validateState } from './state.js';
import { LESSON_PRESETS, REAL_DATASETS, loadRealPreset, realPresetId } from './presets.js';
import { h, mount } from './views/dom.js';
import { renderEditor } from './views/editor.js';
import { renderHeatmap } from './views/heatmap.js';
import { renderOutput, renderRowPanel } from './views/rowpanel.js';
import { clipTyped, dataSpan, showToken, tData } from './views/format.js';
import { DATASET_KEYS, sourceNodes } from './views/source.js';
import { renderOverview } from './views/overview.js';
import { LARGE_KEYS, LargeHeads, TILE, denseCost, headShape, isLarge } from './large.js';
import { initImportView } from './import-ui.js';
import { renderFormulas } from './views/formulas.js';
import { LAB_TITLES, hasLabView, loadLabView } from './lab/registry.js';
import { download, drawHeatmap, heatmapSvg, resultsRowsCsv, standaloneHtml, toJson } from './export.js';
import { concatOffset, fillRandom, makeLayerState, resizeHeads, resizeKeyDim, resizeModel, resizeOutput, resizeTokens, resizeValueDim, setProjection } from './multihead.js';
import { renderGate, renderLayer } from './views/layer.js';
import { parseCell, showCell } from './views/editor.js';
import { acceptStateMessages, applyPresentation, defaultOptions, formatPageOptions, isPageOptionKey, readPageOptions, reportHeight } from './page-options.js';
import { initShareDialog } from './share-dialog.js';
import { getLang, hasKey, normaliseLang, onLangChange, setLang, t } from './i18n.js';
import { PALETTE_IDS, onPaletteChange, setPalette } from './views/palette.js';
import { initTabs } from './views/tabs.js';
import { initLesson } from './lesson/panel.js';

const $ = (id) => document.getElementById(id);
const TAU_MIN = 0.05;
const TAU_MAX = 20;
const NUMBERS_AUTO_MAX = 16; // numbers drawn in heatmap cells by default up to this many queries and keys
const SIDE_BY_SIDE_MAX = 16; // above this many keys one heatmap is shown at a time (view.panel)
const UNDO_DEPTH = 100;

let core = null;
let state = null;
let results = null;
let large = null;  // LargeHeads (the worker), started on the first large state
let zoom = null;   // [r0, r1, c0, c1]: the full-resolution tile shown under a large overview
let busyTimer = 0;
let undoing = 0; // > 0 while an undo is being committed
const pendingBoxes = new Map(); // number boxes typed in but not yet committed: id -> commit
let scaleCustom = false; // the user chose "custom" scale: keep the box open even for scale = 1
const undoStack = [];
let lastUndoKind = '';
let lastUndoTime = 0;

// ---------------------------------------------------------------------------------------------
// Errors: each goes to the slot next to the control that caused it.

const ERROR_SLOTS = ['mode-error', 'tau-error', 'scale-error', 'mask-error', 'row-error'];

function slotFor(field = '') {
  if (field === 'tau') return 'tau-error';
  if (field === 'scale') return 'scale-error';
  if (field.startsWith('mask')) return 'mask-error';
  if (field === 'row' || field === 'topK' || field === 'head') return 'row-error';
  if (field === 'mode') return 'mode-error';
  if (field === 'scores') return state?.mode === 'x' ? 'edit-X-error' : 'edit-Q-error'; // Q K^T overflows
  if (field === 'x.X') return 'edit-X-error';
  if (field === 'x' || field.startsWith('x.') || field === 'heads') return 'x-error';
  if (/^heads\[\d+\]\.gate/.test(field)) return 'gate-error';
  const w = /^heads\[(\d+)\]\.(WQ|WK|WV)/.exec(field);
  if (w) return `edit-h${w[1]}-${w[2]}-error`;
  if (state?.mode === 'x' && /^(Q|K|V)$/.test(field)) return 'x-error'; // a derived matrix
  const m = /^heads\[\d+\]\.(Q|K|V|logits|weights)/.exec(field) ?? /^(Q|K|V|logits|weights)$/.exec(field);
  if (m) return `edit-${m[1]}-error`;
  return null;
}

// The errors on screen, as functions that word them, so that a language change re-words them.
const shownErrors = new Map(); // slot id -> () => message

/**
 * @param {string} field
 * @param {string|Array|(() => (string|Array))} message  a string, nodes (a sentence with
 *   technical detail in translate="no"), or a function giving either in the current language
 */
function showError(field, message) {
  const id = slotFor(field);
  const el = id && $(id);
  const word = typeof message === 'function' ? message : () => message;
  if (el) {
    el.hidden = false;
    mount(el, word());
    shownErrors.set(id, word);
  } else {
    showBanner(word());
  }
}

function clearErrors() {
  shownErrors.clear();
  for (const id of ERROR_SLOTS) {
    const el = $(id);
    if (el) { el.hidden = true; el.textContent = ''; }
  }
  document.querySelectorAll('#editors .error').forEach((el) => { el.hidden = true; el.textContent = ''; });
  // The control boxes show the state again (syncControls), so none stays marked as refused.
  document.querySelectorAll('#editors input.invalid, .controls input.invalid').forEach((el) => el.classList.remove('invalid'));
}

function showBanner(message, kind = 'error') {
  const b = $('banner');
  b.className = `banner ${kind}`;
  mount(b, h('span', {}, message), h('button', { type: 'button', class: 'small', onclick: () => { b.hidden = true; } }, t('app.dismiss')));
  b.hidden = false;
}

// ---------------------------------------------------------------------------------------------
// State transitions.

/**
 * Tries to make `next` the current state. Returns null on success or the error message; on
 * failure nothing changes (unless `report` is false, the message is also shown by its control).
 * @param {object} next
 * @param {{structural?: boolean, kind?: string, fromHash?: boolean, report?: boolean}} opts
 *   structural: rebuild editors and selects; kind: undo coalescing key (typing in one place
 *   makes one undo step).
 */
function commit(next, opts = {}) {
  const { report = true } = opts;
  if (state && pageOptions.readonly && !READ_ONLY_KINDS.has(opts.kind ?? 'edit')) {
    // Read-only (a link option): the controls are disabled; this refuses what slips past them
    // (a keyboard shortcut, a view's own control) and puts the controls back to the state.
    $('copy-status').textContent = t('embed.readOnlyRefused');
    render(true);
    return t('embed.readOnlyRefused');
  }
  let valid;
  let res;
  try {
    valid = validateState(next);
    const refused = pageLimit(valid);
    if (refused) throw Object.assign(new StateError(refused.field, refused.message), { worded: true });
    if (valid.mode !== 'x' && isLarge(valid)) return commitLarge(valid, opts);
    res = core.compute(valid, { validated: true });
  } catch (e) {
    if (!(e instanceof StateError) && !(e instanceof AttentionError)) throw e;
    if (report) showError(e.field, e.worded ? e.message : rejected(e.message));
    return e.message;
  }
  apply(valid, res, opts);
  return null;
}

/**
 * An English message of the validator or the core (naming schema paths) as technical detail
 * (translate="no") after a sentence in the page's language.
 */
function rejected(detail, key = 'app.err.rejected') {
  return [t(key), dataSpan(detail)];
}

/**
 * What the page does not show although the schema allows it (the API of the core and the CLI
 * compute it): mode "x" beyond the dense views' size, and a gate on a head the worker computes
 * (the streaming path has no gate). Returns {field, message} or null.
 */
function pageLimit(s) {
  if (s.mode === 'x') {
    const n = s.x.X.length;
    if (n > LARGE_KEYS) {
      return { field: 'x.X', message: t('app.err.xTooLarge', { n, max: LARGE_KEYS }) };
    }
    return null;
  }
  if (isLarge(s)) {
    const gated = s.heads.findIndex((hd) => hd.gate);
    if (gated >= 0) {
      return { field: `heads[${gated}].gate`, message: t('app.err.largeGate', { i: gated }) };
    }
  }
  return null;
}

/**
 * A large head goes to the worker; the page stays responsive and says it is computing when the
 * answer takes longer than 100 ms. Resolves like commit() returns: null or the error message.
 */
async function commitLarge(valid, opts) {
  const { report = true } = opts;
  large ??= new LargeHeads(coreOptions());
  if (!state || structuralKey(state) !== structuralKey(valid)) zoom = null;
  clearTimeout(busyTimer);
  busyTimer = setTimeout(() => { $('busy').hidden = false; }, 100);
  try {
    const answer = await large.compute(valid, zoomWithin(valid));
    if (answer.superseded) return null;
    apply(valid, answer.results, opts);
    return null;
  } catch (e) {
    if (!(e instanceof AttentionError)) {
      showBanner(rejected(e.message, 'app.err.computeFailed'));
      return e.message;
    }
    if (report) showError(e.field, rejected(e.message));
    return e.message;
  } finally {
    clearTimeout(busyTimer);
    $('busy').hidden = true;
  }
}

/** The zoom tile, clamped to the head's shape (null when there is none). */
function zoomWithin(s) {
  if (!zoom) return null;
  const { nQ, nK } = headShape(s);
  const [r0, , c0] = zoom;
  if (r0 >= nQ || c0 >= nK) return null;
  return [r0, Math.min(nQ, r0 + TILE), c0, Math.min(nK, c0 + TILE)];
}

/** Makes a computed state current and shows it. */
function apply(valid, res, { structural = false, kind = 'edit', fromHash = false } = {}) {
  if (state && !undoing && !statesEqual(state, valid)) pushUndo(state, kind);
  const shapeChanged = !state || structuralKey(state) !== structuralKey(valid);
  state = valid;
  results = res;
  clearErrors();
  render(structural || shapeChanged);
  if (!fromHash) writeHash();
}

/** Edits a copy of the current state with `fn` and commits it. */
function update(fn, opts) {
  flushBoxes(); // a number still being typed counts as entered before this change
  const next = structuredClone(state);
  fn(next);
  return commit(next, opts);
}

function pushUndo(prev, kind) {
  const now = Date.now();
  // Typing in one cell or dragging one slider is one step, not one per keystroke.
  if (kind !== lastUndoKind || now - lastUndoTime > 1500 || kind === 'edit') {
    undoStack.push(prev);
    if (undoStack.length > UNDO_DEPTH) undoStack.shift();
  }
  lastUndoKind = kind;
  lastUndoTime = now;
  $('undo').disabled = undoStack.length === 0;
}

async function undo() {
  flushBoxes();
  const prev = undoStack.pop();
  $('undo').disabled = undoStack.length === 0;
  if (!prev) return;
  lastUndoKind = '';
  // The undo itself makes no undo entry; a large head's commit resolves later, so the flag
  // lives until it does.
  undoing += 1;
  try {
    const err = await commit(prev, { structural: true, kind: 'undo' });
    if (err) { undoStack.push(prev); $('undo').disabled = false; }
  } finally {
    undoing -= 1;
  }
}

/** Shapes, mode, head and preset: what requires rebuilding editors and selects. */
function structuralKey(s) {
  const hd = s.heads[s.head];
  const dim = (m) => (m ? `${m.length}x${m[0]?.length ?? 0}` : '-');
  const dims = ['Q', 'K', 'V', 'logits', 'weights'].map((k) => dim(hd[k]));
  const gates = s.heads.map((x) => (x.gate ? 'g' : '-')).join('');
  const layer = s.mode === 'x'
    ? [dim(s.x.X), dim(s.x.WO), ...s.heads.map((x) => `${dim(x.WQ)}/${dim(x.WV)}`)]
    : [];
  return [s.mode, s.head, s.heads.length, ...dims, gates, ...layer].join('|');
}

function currentHead() {
  return state.heads[state.head];
}

function nQ(s = state) {
  const hd = s.heads[s.head];
  if (s.mode === 'x') return s.x.X.length;
  return s.mode === 'qkv' ? hd.Q.length : (s.mode === 'logits' ? hd.logits : hd.weights).length;
}

function nK(s = state) {
  const hd = s.heads[s.head];
  if (s.mode === 'x') return s.x.X.length;
  return s.mode === 'qkv' ? hd.K.length : ((s.mode === 'logits' ? hd.logits : hd.weights)[0]?.length ?? 0);
}

// ---------------------------------------------------------------------------------------------
// URL.

/** Encodes the current state, or returns null (with a note) when it is too large for a link. */
function currentLink() {
  try {
    return encodeLink(state);
  } catch (e) {
    if (!(e instanceof StateError)) throw e;
    mount($('copy-status'), rejected(e.message, 'app.noLink'));
    return null;
  }
}

// Writing the address bar is slow in Chromium for long links (~100 ms for a few KB), so a burst of
// changes (a slider drag) writes it once, 200 ms after the last one. shareUrl() never waits.
let hashTimer = 0;
function writeHash() {
  clearTimeout(hashTimer);
  hashTimer = setTimeout(flushHash, 200);
}

// Above this many matrix numbers the address bar stops following every change: encoding
// (deflate + base64) a multi-megabyte link took about a second per change. Copy link still builds
// the link on demand.
const ADDRESS_BAR_MAX_NUMBERS = 250_000;

function matrixNumbers(s) {
  let n = 0;
  for (const hd of s.heads) {
    for (const key of ['Q', 'K', 'V', 'logits', 'weights', 'WQ', 'WK', 'WV']) {
      const m = hd[key];
      if (m) n += m.length * (m[0]?.length ?? 0);
    }
    if (hd.gate) n += hd.gate.length;
  }
  for (const m of [s.x?.X, s.x?.WO]) if (m) n += m.length * (m[0]?.length ?? 0);
  return n;
}

function flushHash() {
  clearTimeout(hashTimer);
  if (!state) return;
  if (matrixNumbers(state) > ADDRESS_BAR_MAX_NUMBERS) {
    // No stale link of an earlier state in the address bar: a reload must not silently show
    // something else.
    if (location.hash) history.replaceState(null, '', location.pathname + location.search);
    $('copy-status').textContent = t('app.tooManyForBar', { n: matrixNumbers(state).toLocaleString('en') });
    return;
  }
  const link = currentLink();
  const full = link === null ? null : link + formatPageOptions(pageOptions);
  if (full !== null && location.hash.slice(1) !== full) history.replaceState(null, '', `#${full}`);
  if (link === null && location.hash) history.replaceState(null, '', location.pathname + location.search);
  if (pageOptions.embed && link !== null) updateFullPageLink(link);
}

/** The link to the current state; throws StateError when the state is too large for a link. */
function shareUrl(options = pageOptions) {
  return `${location.href.split('#')[0]}#${encodeLink(state)}${formatPageOptions(options)}`;
}

// ---------------------------------------------------------------------------------------------
// Page options (web/page-options.js): language, embed mode, read-only, palette, hide flags. They
// travel in the link after the state's keys; the state (getState) never holds them.

let pageOptions = defaultOptions();

/** The language to start in: the link's, else the one chosen before, else the browser's. */
function startLang(options) {
  if (options.lang) return options.lang;
  try {
    const saved = normaliseLang(localStorage.getItem('attention-playground.lang'));
    if (saved) return saved;
  } catch { /* storage may be blocked (sandboxed iframe) */ }
  return normaliseLang(navigator.language) ?? 'en';
}

/** Takes the page options of a link fragment; refused options are reported in the banner. */
function applyPageOptions(fragment, { initial = false } = {}) {
  const { options, errors } = readPageOptions(fragment);
  const lang = initial ? startLang(options) : (options.lang ?? getLang());
  // The palette is a reader's preference: a link without one keeps the one chosen before.
  let palette = options.palette;
  if (!/(^|[#&])palette=/.test(fragment)) {
    try {
      palette = initial ? (PALETTE_IDS.find((id) => id === localStorage.getItem('attention-playground.palette')) ?? palette) : pageOptions.palette;
    } catch { /* blocked storage */ }
  }
  pageOptions = { ...options, lang, palette };
  setLang(lang); // also fills the static markup on the first call
  $('lang').value = getLang();
  presentPageOptions();
  if (errors.length) {
    showBanner(t('app.optionRefused', { list: errors.map((e) => `${e.key}=${e.value}`).join(', ') }), 'warning');
  }
  return errors.length > 0;
}

// Changes a read-only page still makes: choosing what to look at (the query row, the head, the
// heatmap shown, numbers on cells, the analysis), a new link and the API (docs/embedding.md).
const READ_ONLY_KINDS = new Set(['row', 'head', 'view', 'lab', 'api', 'link']);

/** Embed mode, read-only and hide flags on the page (classes on <html>, web/page-options.js). */
function presentPageOptions() {
  applyPresentation(document, pageOptions);
  $('palette').value = pageOptions.palette;
  setPalette(pageOptions.palette);
  $('readonly-badge').hidden = !pageOptions.readonly;
  if (!pageOptions.readonly && $('copy-status').textContent === t('embed.readOnlyRefused')) $('copy-status').textContent = '';
  const importGone = pageOptions.embed || pageOptions.hide.includes('import');
  if (importGone && document.body.dataset.view === 'import') showView('playground');
  updateFullPageLink();
}

/**
 * Embed mode's "Open in full page": the same state and options, without embed mode.
 * @param {string|null} link encodeLink(state) when the caller has it (flushHash), else encoded here
 */
function updateFullPageLink(link = null) {
  const a = $('open-full');
  if (!state) return;
  const base = location.href.split('#')[0];
  try {
    a.href = `${base}#${link ?? encodeLink(state)}${formatPageOptions({ ...pageOptions, embed: false, frame: null, origin: [] })}`;
  } catch {
    a.href = base; // too large for a link: the page itself
  }
}

/** True when a fragment holds page options only ("#lang=zh-CN&embed=1"): no state to read. */
function onlyPageOptions(fragment) {
  return fragment.split('&').every((part) => part === '' || isPageOptionKey(decodeURIComponentSafe(part.split('=')[0])));
}

function decodeURIComponentSafe(text) {
  try { return decodeURIComponent(text); } catch { return text; }
}

/** Switches the interface language (the language control), remembered in the link and locally. */
function chooseLang(lang) {
  pageOptions = { ...pageOptions, lang };
  try { localStorage.setItem('attention-playground.lang', lang); } catch { /* blocked storage */ }
  setLang(lang);
  flushHash();
}

/**
 * After a language change (setLang): every string this module builds is built again — selects,
 * notes, editors, views, the lab — from the same state and results. The state, the results and
 * the undo stack do not change.
 */
function relabel() {
  $('lang').value = getLang();
  if (!core) return;
  for (const [id, word] of shownErrors) {
    const el = $(id);
    if (el && !el.hidden) mount(el, word());
  }
  showCoreVariant();
  fillPresetSelect();
  if (state && results) render(true);
}

/** Switches the heatmaps' palette (the Palette select), remembered in the link and locally. */
function choosePalette(id) {
  pageOptions = { ...pageOptions, palette: id };
  try { localStorage.setItem('attention-playground.palette', id); } catch { /* blocked storage */ }
  setPalette(id);
  flushHash();
}

/** Takes the state of the link in the address bar; resolves to true when it was taken. */
async function loadFromHash({ initial = false } = {}) {
  const fragment = location.hash.slice(1);
  const optionsRefused = applyPageOptions(fragment, { initial });
  if (!fragment || onlyPageOptions(fragment)) return false;
  let decoded;
  try {
    decoded = decodeLink(fragment);
  } catch (e) {
    if (!(e instanceof StateError)) throw e;
    showBanner([...rejected(e.message, 'app.linkUnreadable'), t(initial ? 'app.linkShowingDefault' : 'app.linkKeepingCurrent')]);
    if (state) flushHash(); // the address bar shows the state on screen, not the rejected link
    return false;
  }
  if (state && statesEqual(state, decoded)) return true;
  const err = await commit(decoded, { structural: true, fromHash: true, report: false, kind: 'link' });
  if (err) {
    showBanner([...rejected(err, 'app.linkRejected'), t(initial ? 'app.linkShowingDefault' : 'app.linkKeepingCurrent')]);
    if (state) flushHash();
    return false;
  }
  // An earlier complaint about a link no longer applies (but this link's refused options do).
  if (!optionsRefused) $('banner').hidden = true;
  return true;
}

// ---------------------------------------------------------------------------------------------
// Presets.

function fillPresetSelect() {
  const sel = $('preset');
  mount(sel,
    h('optgroup', { label: t('app.presetGroupLesson') },
      Object.entries(LESSON_PRESETS).map(([id, p]) => h('option', { value: id }, presetLabel(`app.preset.${id}`, p)))),
    h('optgroup', { label: t('app.presetGroupReal') },
      Object.entries(REAL_DATASETS).map(([id, d]) => h('option', { value: realPresetId(id, 0) }, presetLabel(`app.dataset.${DATASET_KEYS[id]}`, d)))),
    h('option', { value: 'custom', disabled: true }, t('app.presetCustom')));
  if (state) syncControls();
}

/** A preset's name in the page's language: its table key, else its own labelKey, else its label. */
function presetLabel(key, p) {
  if (hasKey(key)) return t(key);
  return p.labelKey && hasKey(p.labelKey) ? t(p.labelKey) : p.label;
}

async function applyPreset(id) {
  const status = $('copy-status');
  try {
    let next;
    if (LESSON_PRESETS[id]) {
      next = LESSON_PRESETS[id].make();
    } else {
      const [dataset, index] = id.split('.');
      status.textContent = t('app.loadingReal');
      next = await loadRealPreset(dataset, Number(index));
      status.textContent = '';
      // Another head of the same file: keep what the user set, so heads compare like for like.
      if (state?.view.preset.split('.')[0] === dataset && nQ(state) === nQ(next)) {
        next.tau = state.tau;
        next.topK = state.topK;
        next.row = state.row;
        next.mask = { ...structuredClone(state.mask) };
        next.view = { ...state.view, preset: next.view.preset };
      }
    }
    scaleCustom = false;
    flushBoxes();
    if (state?.lab && !next.lab) next.lab = structuredClone(state.lab); // the lab view stays open across presets
    if (state?.lesson && !next.lesson) next.lesson = structuredClone(state.lesson); // and so does the lesson
    const err = await commit(next, { structural: true, kind: 'preset' });
    if (!err) $('banner').hidden = true;
  } catch (e) {
    status.textContent = '';
    showBanner(rejected(e.message, 'app.presetFailed'));
    syncControls();
  }
}

// ---------------------------------------------------------------------------------------------
// Rendering.

function render(structural) {
  if (structural) {
    renderEditors();
    fillRowSelect();
    fillHeadSelects();
    renderPadding();
  }
  syncControls();
  renderViews();
  lessonPanel?.render();
}

function syncControls() {
  document.querySelectorAll('input[name="mode"]').forEach((r) => { r.checked = r.value === state.mode; });
  $('mode-note').textContent = t(`app.modeNote.${state.mode}`);
  // A box shows the state unless the user is typing in it (a value not yet committed).
  const tauBox = $('tau');
  if (!pendingBoxes.has('tau')) tauBox.value = String(state.tau);
  $('tau-slider').value = String(Math.log10(Math.min(TAU_MAX, Math.max(TAU_MIN, state.tau))));
  const kind = state.scale === 'auto' ? 'auto' : (state.scale === 1 && !scaleCustom) ? 'one' : 'custom';
  $('scale-kind').value = kind;
  const scaleBox = $('scale');
  scaleBox.hidden = kind !== 'custom';
  if (!pendingBoxes.has('scale') && kind === 'custom') scaleBox.value = String(state.scale);
  const usesScale = state.mode === 'qkv' || state.mode === 'x';
  $('scale-kind').disabled = !usesScale;
  scaleBox.disabled = !usesScale;
  $('scale-note').textContent = usesScale
    ? t('app.scaleUsed', {
      scale: results.scale.toPrecision(6), dk: (state.mode === 'x' ? currentHead().WQ : currentHead().Q)[0]?.length ?? 0,
      perHead: state.mode === 'x' && state.heads.length > 1,
    })
    : t('app.scaleUnused');
  $('causal').checked = state.mask.causal;
  if (!pendingBoxes.has('window')) $('window').value = String(state.mask.window);
  if (!pendingBoxes.has('stride')) $('stride').value = String(state.mask.stride ?? 0);
  if (!pendingBoxes.has('sinks')) $('sinks').value = String(state.mask.sinks ?? 0);
  $('clear-allow').hidden = !state.mask.allow;
  if (!pendingBoxes.has('topk')) $('topk').value = String(state.topK);
  $('row').value = String(state.row);
  $('head').value = String(state.head);
  $('allow-note').hidden = !state.mask.allow;
  state.mask.padding.forEach((p, j) => {
    const box = $(`pad-${j}`);
    if (box) box.checked = p;
  });
  const preset = state.view?.preset ?? 'custom';
  const sel = $('preset');
  const [dataset, index] = preset.split('.');
  const realInfo = REAL_DATASETS[dataset];
  sel.value = realInfo ? realPresetId(dataset, 0) : (LESSON_PRESETS[preset] ? preset : 'custom');
  $('real-head-wrap').hidden = !realInfo || realInfo.heads.length < 2;
  if (realInfo) {
    const rh = $('real-head');
    if (rh.dataset.dataset !== dataset) {
      mount(rh, realInfo.heads.map((name, i) => h('option', { value: String(i), translate: 'no' }, name)));
      rh.dataset.dataset = dataset;
    }
    rh.value = index;
  }
  $('numbers').checked = showNumbers();
  mount($('source'), state.source ? [t('app.source'), sourceNodes(state.source)] : []);
  syncLayerControls();
}

function showNumbers() {
  return state.view.numbers === 'auto' ? nQ() <= NUMBERS_AUTO_MAX && nK() <= NUMBERS_AUTO_MAX : state.view.numbers === 'on';
}

function fillRowSelect() {
  mount($('row'), state.tokens.queries.map((token, i) => h('option', { value: String(i), translate: 'no' }, `${i}: ${showToken(token)}`)));
}

function fillHeadSelects() {
  $('head-wrap').hidden = state.heads.length < 2;
  mount($('head'), state.heads.map((hd, i) => h('option', { value: String(i), translate: hd.name ? 'no' : null }, hd.name || t('app.headN', { i }))));
}

function renderPadding() {
  const n = nK();
  const box = $('padding');
  if (n > 64) {
    mount(box, h('p', { class: 'note' }, t('app.paddingMany', { padded: state.mask.padding.filter(Boolean).length, n })));
    return;
  }
  mount(box, h('span', { class: 'label' }, t('app.paddingLabel')),
    h('div', { class: 'pad-flags' }, state.tokens.keys.map((token, j) => h('label', { class: 'pad', title: t('app.paddingTitle', { j }) },
      h('input', {
        type: 'checkbox', id: `pad-${j}`, checked: state.mask.padding[j],
        onchange: (ev) => update((s) => { s.mask.padding[j] = ev.target.checked; }, { kind: 'mask' }),
      }),
      ` ${j}: `, h('span', { translate: 'no' }, showToken(token))))));
}

/** The n² cost of the current state, in bytes and multiply-adds. */
function renderCost() {
  if (state.mode === 'x') {
    const n = state.x.X.length;
    const d = state.x.X[0].length;
    const proj = state.heads.reduce((a, hd) => a + n * d * (2 * hd.WQ[0].length + hd.WV[0].length), 0);
    const attn = state.heads.reduce((a, hd) => a + n * n * (hd.WQ[0].length + hd.WV[0].length), 0);
    const out = state.x.WO ? n * state.x.WO.length * state.x.WO[0].length : 0;
    $('cost').textContent = t('app.cost.layer', {
      heads: state.heads.length, n, d, proj: proj.toLocaleString('en'), attn: attn.toLocaleString('en'), out: out ? out.toLocaleString('en') : '',
    });
    return;
  }
  const c = denseCost(state);
  const mib = (b) => (b >= 1 << 20 ? `${(b / (1 << 20)).toFixed(1)} MiB` : b >= 1024 ? `${(b / 1024).toFixed(1)} KiB` : t('app.bytes', { n: b }));
  const big = (x) => (x >= 1e6 ? `${(x / 1e6).toFixed(1)} M` : x.toLocaleString('en'));
  const parts = [t('app.cost.cells', { cells: c.cells.toLocaleString('en') }),
    t('app.cost.matrix', { size: mib(c.matrixBytes) })];
  if (c.scoreMacs) parts.push(t('app.cost.scores', { macs: big(c.scoreMacs) }));
  if (c.outputMacs) parts.push(t('app.cost.output', { macs: big(c.outputMacs) }));
  parts.push(results.large ? t('app.cost.worker', { size: mib(c.streamBytes) }) : t('app.cost.page'));
  $('cost').textContent = t('app.cost', { parts: parts.join(t('app.costSep')) });
}

function renderViews() {
  renderCost();
  renderLab();
  try {
    renderFormulas($('formulas'), { state, results });
  } catch (e) { // a display-only panel must never stop the views
    mount($('formulas'), h('p', { class: 'note' }, rejected(e.message, 'app.formulasFailed')));
  }
  if (results.large) {
    renderLargeViews();
    return;
  }
  const r = results;
  const keyTokens = state.tokens.keys;
  const queryTokens = state.tokens.queries;
  const emptyRows = r.rows.map((m) => m.empty);
  const numbers = showNumbers();
  let lo = Infinity;
  let hi = -Infinity;
  for (const row of r.scores) {
    for (const x of row) {
      if (x === null) continue;
      if (x < lo) lo = x;
      if (x > hi) hi = x;
    }
  }
  if (lo > hi) { lo = 0; hi = 1; }
  const selectRow = (i) => update((s) => { s.row = i; }, { kind: 'row' });
  renderHeatmap($('scores-view'), {
    id: 'scores', title: state.mode === 'weights' ? t('app.scoresTitleWeights') : t('app.scoresTitle'),
    note: state.mode === 'qkv' ? t('app.scoresNoteQkv', { scale: r.scale.toPrecision(4) }) : t('app.scoresNote'),
    matrix: r.scores, visible: r.visible, rowLabels: queryTokens, colLabels: keyTokens,
    domain: [lo, hi], selectedRow: state.row, emptyRows, showNumbers: numbers, onSelectRow: selectRow,
  });
  renderHeatmap($('weights-view'), {
    id: 'weights', title: t('app.weightsTitle'),
    note: t('app.weightsNote', { tau: state.tau }),
    matrix: r.weights, visible: r.visible, rowLabels: queryTokens, colLabels: keyTokens,
    domain: [0, 1], selectedRow: state.row, emptyRows, showNumbers: numbers, onSelectRow: selectRow,
    onCellClick: $('edit-allow').checked ? toggleAllow : null,
    rowMetrics: r.rows, announce: true,
  });
  // Large matrices: one heatmap at a time, chosen by view.panel; small ones side by side.
  const tabs = nK() > SIDE_BY_SIDE_MAX;
  $('panel-tabs').hidden = !tabs;
  document.querySelectorAll('#panel-tabs button').forEach((b) => b.setAttribute('aria-selected', String(b.dataset.panel === state.view.panel)));
  $('scores-view').hidden = tabs && state.view.panel !== 'scores';
  $('weights-view').hidden = tabs && state.view.panel !== 'weights';
  renderRowPanel($('row-view'), {
    results: r, row: state.row, queryTokens, keyTokens, topK: state.topK, tau: state.tau,
    weights: r.weights[state.row].map((w, j) => (r.visible[state.row][j] ? w : null)),
  });
  renderOutput($('output-view'), {
    results: r, row: state.row, queryTokens,
    note: r.gate ? t('app.gatedNote') : null,
  });
  renderLayerViews();
}

/** Mode "x": the heads side by side and the layer output; any mode: the gate table. */
function renderLayerViews() {
  const layerBox = $('layer-view');
  layerBox.hidden = !results.layer;
  if (results.layer) {
    renderLayer(layerBox, { state, results, onSelectHead: (i) => update((s) => { s.head = i; }, { structural: true, kind: 'head' }) });
  } else {
    layerBox.replaceChildren();
  }
  const gateBox = $('gate-view');
  gateBox.hidden = !results.gate;
  if (results.gate) renderGate(gateBox, { state, results });
  else gateBox.replaceChildren();
}

// ---------------------------------------------------------------------------------------------
// Analysis lab (web/lab/): one analysis of the current head at a time, chosen by state.lab.view.

let labSeq = 0;

/** Shows state.lab.view: the core computes it (core.lab), its module draws it. */
async function renderLab() {
  const seq = ++labSeq;
  const current = state.lab?.view ?? 'none';
  const choices = [['none', t('app.labOff')], ...LAB_VIEWS.filter(hasLabView).map((id) => [id, LAB_TITLES[id]])];
  mount($('lab-tabs'), choices.map(([id, title]) => h('button', {
    type: 'button', role: 'tab', id: `lab-tab-${id}`, 'aria-selected': String(id === current), 'aria-controls': 'lab-view', dataset: { lab: id },
    onclick: () => update((s) => { s.lab = { view: id, params: s.lab?.params ?? {} }; }, { kind: 'lab' }),
  }, title)));
  const container = $('lab-view');
  $('lab-error').hidden = true;
  container.classList.remove('stale');
  results.lab = null;
  if (current === 'none') {
    mount(container, h('p', { class: 'note' }, t('app.labIntro')));
    return;
  }
  if (results.large) {
    mount(container, h('p', { class: 'note' }, t('app.labLarge', { max: LARGE_KEYS, n: nK() })));
    return;
  }
  let lab;
  try {
    lab = core.lab(state);
  } catch (e) {
    if (!(e instanceof AttentionError)) throw e;
    // Keep the view (its controls fix the value) but mark its numbers as those of the last
    // accepted parameters.
    container.classList.add('stale');
    mount($('lab-error'), rejected(e.message), t('app.labStale'));
    $('lab-error').hidden = false;
    return;
  }
  results.lab = lab;
  const view = await loadLabView(current);
  if (seq !== labSeq) return; // a newer state is being shown
  view.render(container, { state, lab, results, setParams: setLabParams });
}

/** Merges `patch` into state.lab.params and recomputes; resolves to null or the error message. */
async function setLabParams(patch) {
  const err = await update((s) => { s.lab = { view: s.lab?.view ?? 'none', params: { ...(s.lab?.params ?? {}), ...patch } }; },
    { kind: 'lab-params', report: false });
  if (err) {
    mount($('lab-error'), rejected(err));
    $('lab-error').hidden = false;
  }
  return err;
}

/** Edit-the-mask mode: a click on cell (t, j) flips it in the allow-matrix (created all-true). */
function toggleAllow(t, j) {
  update((s) => {
    const n = nK(s);
    const allow = s.mask.allow ?? Array.from({ length: nQ(s) }, () => new Array(n).fill(true));
    allow[t][j] = !allow[t][j];
    s.mask.allow = allow.every((row) => row.every(Boolean)) ? null : allow;
  }, { kind: 'edit' });
}

/** Large heads: pooled overview, a zoomed full-resolution tile, the selected row's metrics. */
function renderLargeViews() {
  $('layer-view').hidden = true;
  $('gate-view').hidden = true;
  const r = results;
  const { nQ, nK } = r;
  $('panel-tabs').hidden = true;
  $('weights-view').hidden = false;
  $('scores-view').hidden = false;
  mount($('scores-view'), h('div', { class: 'view-head' }, h('h3', {}, t('app.scoresTitle')),
    h('p', { class: 'note', id: 'scores-not-drawn' }, t('app.scoresNotDrawn', { nQ, nK }))));
  const overviewBox = h('div', { id: 'overview-view' });
  const tileBox = h('div', { id: 'tile-view', class: 'tile-view' });
  mount($('weights-view'), overviewBox, tileBox);
  const pick = (query, key) => {
    zoom = [Math.max(0, Math.min(nQ - TILE, query - TILE / 2)), 0, Math.max(0, Math.min(nK - TILE, key - TILE / 2)), 0];
    update((s) => { s.row = query; }, { kind: 'row' });
  };
  renderOverview(overviewBox, {
    grid: r.overview.data, rows: r.overview.rows, cols: r.overview.cols, nQ, nK, pool: r.overview.pool,
    selectedRow: state.row, tile: r.tile?.at ?? null, onPick: pick,
  });
  if (r.tile) {
    const [r0, r1, c0, c1] = r.tile.at;
    const rows = Array.from({ length: r1 - r0 }, (_, i) => Array.from(r.tile.weights.subarray(i * (c1 - c0), (i + 1) * (c1 - c0)), (x) => (Number.isNaN(x) ? null : x)));
    let tileMax = 0;
    for (const row of rows) for (const x of row) if (x !== null && x > tileMax) tileMax = x;
    renderHeatmap(tileBox, {
      id: 'tile', title: t('app.tileTitle', { r0, r1: r1 - 1, c0, c1: c1 - 1 }),
      note: t('app.tileNote'),
      matrix: rows, visible: rows.map((row) => row.map((x) => x !== null)),
      rowLabels: state.tokens.queries.slice(r0, r1), colLabels: state.tokens.keys.slice(c0, c1),
      rowIndex: r0, colIndex: c0,
      domain: [0, tileMax > 0 ? tileMax : 1], selectedRow: state.row - r0, emptyRows: r.rows.slice(r0, r1).map((m) => m.empty),
      showNumbers: state.view.numbers !== 'off', rowMetrics: r.rows.slice(r0, r1), announce: true,
      onSelectRow: (i) => update((s) => { s.row = r0 + i; }, { kind: 'row' }),
    });
  } else {
    mount(tileBox, h('p', { class: 'note' }, t('app.tileHint')));
  }
  renderRowPanel($('row-view'), {
    results: r, row: state.row, queryTokens: state.tokens.queries, keyTokens: state.tokens.keys,
    topK: state.topK, tau: state.tau, weights: r.rowWeights, maxBars: 24,
  });
  renderOutput($('output-view'), { results: r, row: state.row, queryTokens: state.tokens.queries });
}

// Editors -------------------------------------------------------------------------------------

/** Applies one cell edit; returns an error message (shown under the editor) or null. */
/** After the user changes the numbers, the state is no longer the preset it came from. */
function markEdited(s) {
  if (s.view.preset === 'custom') return;
  s.view.preset = 'custom';
  s.source = `Edited from: ${s.source}`.slice(0, 500);
}

function editCell(name, i, j, value) {
  return update((s) => { s.heads[s.head][name][i][j] = value; markEdited(s); }, { kind: `cell-${name}-${i}-${j}`, report: false });
}

function editToken(which, i, text) {
  update((s) => {
    // Self-attention: queries and keys are the same tokens, so a label edit updates both.
    const tied = s.tokens.queries.length === s.tokens.keys.length &&
      s.tokens.queries.every((t, k) => t === s.tokens.keys[k]);
    s.tokens[which][i] = text;
    if (tied) s.tokens[which === 'queries' ? 'keys' : 'queries'][i] = text;
  }, { kind: `token-${which}-${i}` });
  // Every editor showing these labels follows (K and V both label the keys).
  document.querySelectorAll('#editors input.token').forEach((input) => {
    const [w, k] = input.dataset.token.split(':');
    if (input !== document.activeElement) input.value = state.tokens[w][Number(k)] ?? '';
  });
  fillRowSelect();
  $('row').value = String(state.row);
  renderPadding();
}

const zeros = (n) => new Array(n).fill(0);

/** A label not yet used: prefix + the smallest free number ("k3" after k1, k2). */
function freshLabel(prefix, used) {
  for (let i = used.length + 1; ; i++) if (!used.includes(`${prefix}${i}`)) return `${prefix}${i}`;
}

/** Adds or removes a query (row of Q / logits / weights). */
function resizeQueries(delta) {
  update((s) => {
    const hd = s.heads[s.head];
    const name = s.mode === 'qkv' ? 'Q' : s.mode;
    const m = hd[name];
    if (delta > 0) {
      const width = m[0]?.length ?? 1;
      m.push(s.mode === 'weights' ? new Array(width).fill(1 / width) : zeros(width));
      s.tokens.queries.push(freshLabel('q', s.tokens.queries));
    } else if (m.length > 1) {
      m.pop();
      s.tokens.queries.pop();
    }
    // Gates have one logit per query: a new query starts at g = 0 (sigmoid(0) = 1/2, the gate's default).
    for (const x of s.heads) {
      if (!x.gate) continue;
      while (x.gate.length < m.length) x.gate.push(0);
      x.gate.length = m.length;
    }
    s.row = Math.min(s.row, m.length - 1);
    s.mask.allow = null;
    markEdited(s);
  }, { structural: true, kind: 'resize' });
}

/** Adds or removes a key (row of K and V, column of logits / weights, a padding flag). */
function resizeKeys(delta) {
  update((s) => {
    const hd = s.heads[s.head];
    const n = nK(s);
    if (delta < 0 && n <= 1) return;
    if (s.mode === 'qkv') {
      if (delta > 0) hd.K.push(zeros(hd.K[0].length)); else hd.K.pop();
    } else {
      const m = hd[s.mode];
      for (const row of m) { if (delta > 0) row.push(0); else row.pop(); }
    }
    if (hd.V) {
      if (delta > 0) hd.V.push(zeros(hd.V[0]?.length ?? 1)); else hd.V.pop();
    }
    if (delta > 0) { s.tokens.keys.push(freshLabel('k', s.tokens.keys)); s.mask.padding.push(false); } else { s.tokens.keys.pop(); s.mask.padding.pop(); }
    markEdited(s);
    s.mask.allow = null;
  }, { structural: true, kind: 'resize' });
}

/** Adds or removes a column of Q and K together (d_k) or of V (d_v). */
function resizeColumns(which, delta) {
  update((s) => {
    const hd = s.heads[s.head];
    const mats = which === 'dk' ? [hd.Q, hd.K] : [hd.V];
    if (delta < 0 && (mats[0][0]?.length ?? 0) <= 1) return;
    for (const m of mats) for (const row of m) { if (delta > 0) row.push(0); else row.pop(); }
    markEdited(s);
  }, { structural: true, kind: 'resize' });
}

function renderEditors() {
  const root = $('editors');
  if (state.mode === 'x') {
    renderLayerEditors(root);
    return;
  }
  if (isLarge(state)) {
    const { nQ, nK, dK, dV } = headShape(state);
    mount(root, h('p', { class: 'note', id: 'editors-large' }, t('app.editorsLarge', { nQ, nK, dK, dV })));
    return;
  }
  const hd = currentHead();
  const blocks = [];
  const block = (name, o) => {
    const el = h('div', { class: 'editor-block', id: `editor-${name}` });
    blocks.push(() => renderEditor(el, {
      id: `edit-${name}`, title: name, label: hasKey(`app.matrix.${name}`) ? t(`app.matrix.${name}`) : name,
      matrix: hd[name], onCell: (i, j, v) => editCell(name, i, j, v), ...o,
    }));
    return el;
  };
  const children = [];
  const keys = { addRow: () => resizeKeys(1), removeRow: () => resizeKeys(-1) };
  const queries = { addRow: () => resizeQueries(1), removeRow: () => resizeQueries(-1) };
  const labelEditor = (which) => ({ labelsEditable: true, tokenKind: which, onLabel: (i, t) => editToken(which, i, t) });
  if (state.mode === 'qkv') {
    children.push(block('Q', {
      rowLabels: state.tokens.queries, rowNoun: 'query', colPrefix: 'd', hint: t('app.hint.Q'),
      resize: { ...queries, addCol: () => resizeColumns('dk', 1), removeCol: () => resizeColumns('dk', -1) }, ...labelEditor('queries'),
    }));
    children.push(block('K', {
      rowLabels: state.tokens.keys, rowNoun: 'key', colPrefix: 'd', hint: t('app.hint.K'),
      resize: { ...keys, addCol: () => resizeColumns('dk', 1), removeCol: () => resizeColumns('dk', -1) }, ...labelEditor('keys'),
    }));
  } else {
    const name = state.mode;
    const big = nK() > 16;
    const el = block(name, {
      rowLabels: state.tokens.queries, rowNoun: 'query', colLabels: state.tokens.keys, allowNull: name === 'logits',
      hint: t(`app.hint.${name}`),
      resize: {
        ...queries,
        addCol: () => resizeKeys(1), removeCol: () => resizeKeys(-1),
      },
      ...labelEditor('queries'),
    });
    children.push(big ? h('details', { class: 'big-editor' }, h('summary', {}, t('app.editBig', { name: t(`app.matrix.${name}`), nQ: nQ(), nK: nK() })), el) : el);
  }
  if (hd.V) {
    children.push(block('V', {
      rowLabels: state.tokens.keys, rowNoun: 'key', colPrefix: 'd',
      hint: t('app.hint.V'),
      resize: { ...keys, addCol: () => resizeColumns('dv', 1), removeCol: () => resizeColumns('dv', -1) },
      ...labelEditor('keys'),
    }));
  } else {
    children.push(h('p', { class: 'note' }, t('app.noV'),
      h('button', { type: 'button', class: 'small', onclick: () => update((s) => { s.heads[s.head].V = Array.from({ length: nK(s) }, (_, j) => [j]); }, { structural: true }) }, t('app.addV'))));
  }
  children.push(gateEditor());
  mount(root, children);
  for (const draw of blocks) draw();
}

// Mode "x" editors ------------------------------------------------------------------------------

let randomSeed = 1; // the seed box of "Random (seed)"; not part of the state (the source names it)

/** A change of the layer's numbers or shapes: the state is no longer its preset. */
function editLayer(fn, kind, structural = false) {
  return update((s) => { fn(s); markEdited(s); }, { structural, kind, report: !kind.startsWith('cell-') });
}

function renderLayerEditors(root) {
  const blocks = [];
  const editorBlock = (id, o) => {
    const el = h('div', { class: 'editor-block', id: `editor-${id}` });
    blocks.push(() => renderEditor(el, { id: `edit-${id}`, ...o }));
    return el;
  };
  const labels = { labelsEditable: true, tokenKind: 'queries', onLabel: (i, t) => editToken('queries', i, t) };
  const fresh = () => freshLabel('x', state.tokens.queries);
  const xBlock = editorBlock('X', {
    title: 'X', matrix: state.x.X, rowLabels: state.tokens.queries, rowNoun: 'token', colPrefix: 'd',
    hint: t('app.hint.X'),
    onCell: (i, j, v) => editLayer((s) => { s.x.X[i][j] = v; }, `cell-X-${i}-${j}`),
    resize: {
      addRow: () => editLayer((s) => resizeTokens(s, 1, fresh()), 'resize', true),
      removeRow: () => editLayer((s) => resizeTokens(s, -1), 'resize', true),
      addCol: () => editLayer((s) => resizeModel(s, 1), 'resize', true),
      removeCol: () => editLayer((s) => resizeModel(s, -1), 'resize', true),
    },
    ...labels,
  });
  const dModelLabels = Array.from({ length: state.x.X[0].length }, (_, j) => `d${j + 1}`);
  const headCards = state.heads.map((hd, i) => {
    const w = (key, what, resize) => editorBlock(`h${i}-${key}`, {
      title: key, matrix: hd[key], rowLabels: dModelLabels, rowNoun: 'd_model', colPrefix: what === 'd_v' ? 'v' : 'k',
      onCell: (r, c, v) => editLayer((s) => { s.heads[i][key][r][c] = v; }, `cell-h${i}-${key}-${r}-${c}`),
      resize,
    });
    const dk = { addCol: () => editLayer((s) => resizeKeyDim(s, i, 1), 'resize', true), removeCol: () => editLayer((s) => resizeKeyDim(s, i, -1), 'resize', true) };
    const dv = { addCol: () => editLayer((s) => resizeValueDim(s, i, 1), 'resize', true), removeCol: () => editLayer((s) => resizeValueDim(s, i, -1), 'resize', true) };
    return h('div', { class: `x-head${i === state.head ? ' selected' : ''}`, id: `x-head-${i}` },
      h('h3', {}, hd.name ? h('span', { translate: 'no' }, hd.name) : t('app.headN', { i }),
        h('span', { class: 'shape' }, t('app.shapeDims', { dk: hd.WQ[0].length, dv: hd.WV[0].length }))),
      w('WQ', 'd_k', dk), w('WK', 'd_k', dk), w('WV', 'd_v', dv));
  });
  const concatLabels = state.heads.flatMap((hd, i) => Array.from({ length: hd.WV[0].length }, (_, c) => `h${i}·${c + 1}`));
  const woBlock = state.x.WO ? editorBlock('WO', {
    title: 'W_O', matrix: state.x.WO, rowLabels: concatLabels, rowNoun: 'concat', colPrefix: 'o',
    hint: t('app.hint.WO'),
    onCell: (r, c, v) => editLayer((s) => { s.x.WO[r][c] = v; }, `cell-WO-${r}-${c}`),
    resize: {
      addCol: () => editLayer((s) => resizeOutput(s, 1), 'resize', true),
      removeCol: () => editLayer((s) => resizeOutput(s, -1), 'resize', true),
    },
  }) : h('p', { class: 'note', id: 'no-wo' }, t('app.noWO'));
  const seedBox = h('input', {
    type: 'number', id: 'x-seed', class: 'num-box small', step: '1', min: '0', value: String(randomSeed),
    'aria-label': t('app.seedAria'), onchange: (ev) => { randomSeed = Math.trunc(Number(ev.target.value)) || 0; },
  });
  const controls = h('div', { class: 'x-controls' },
    h('button', {
      type: 'button', id: 'x-random', title: t('app.randomTitle'),
      onclick: () => {
        randomSeed = Math.trunc(Number($('x-seed').value)) || 0;
        update((s) => { fillRandom(s, randomSeed); s.view.preset = 'custom'; s.source = `Random layer (mulberry32 seed ${randomSeed}): X in [-2, 2], W in [-1, 1], quarter steps.`; }, { structural: true, kind: 'random' });
      },
    }, t('app.random')),
    h('label', { class: 'inline' }, t('app.seed'), seedBox),
    h('button', { type: 'button', class: 'small', id: 'x-add-head', onclick: () => editLayer((s) => resizeHeads(s, 1, freshLabel('head ', s.heads.map((x) => x.name))), 'resize', true) }, t('app.addHead')),
    h('button', { type: 'button', class: 'small', id: 'x-remove-head', onclick: () => editLayer((s) => resizeHeads(s, -1), 'resize', true) }, t('app.removeHead')),
    h('label', { class: 'check' }, h('input', {
      type: 'checkbox', id: 'x-project', checked: !!state.x.WO,
      onchange: (ev) => editLayer((s) => setProjection(s, ev.target.checked), 'resize', true),
    }), t('app.project')),
    h('label', { class: 'check' }, h('input', {
      type: 'checkbox', id: 'x-residual', checked: state.x.residual,
      onchange: (ev) => { if (update((s) => { s.x.residual = ev.target.checked; }, { kind: 'residual' })) syncLayerControls(); },
    }), t('app.residual')),
    h('p', { class: 'error', id: 'x-error', role: 'alert', hidden: true }));
  mount(root, controls, xBlock, h('div', { class: 'x-heads' }, headCards), woBlock, gateEditor());
  for (const draw of blocks) draw();
}

/** Controls that follow the state without a rebuild (undo, links): the layer's checkboxes. */
function syncLayerControls() {
  const residual = $('x-residual');
  if (residual && state.mode === 'x') residual.checked = state.x.residual;
  const gate = currentHead().gate;
  const all = $('gate-all');
  if (gate) {
    gate.forEach((g, t) => {
      const box = $(`gate-${t}`);
      if (box && document.activeElement !== box && !box.classList.contains('invalid')) box.value = showCell(g);
    });
    if (all && document.activeElement !== all) {
      const same = gate.every((g) => g === gate[0]);
      all.value = String(same ? Math.max(-10, Math.min(10, gate[0])) : 0);
      $('gate-all-value').textContent = same ? t('app.gateAllValue', { g: showCell(gate[0]) }) : t('app.gateRowsDiffer');
    }
  }
}

// Gate (any mode) -----------------------------------------------------------------------------

const GATE_BOXES_MAX = 48; // number boxes per row up to this many queries; above, the slider only

function editGate(fn, kind) {
  return update((s) => { fn(s.heads[s.head]); markEdited(s); }, { kind, report: true });
}

/** The selected head's gate: on/off, one slider for all rows, one box per row. */
function gateEditor() {
  const hd = currentHead();
  const n = nQ();
  const toggle = h('label', { class: 'check' }, h('input', {
    type: 'checkbox', id: 'gate-on', checked: !!hd.gate,
    onchange: (ev) => editGate((x) => { if (ev.target.checked) x.gate = new Array(n).fill(0); else delete x.gate; }, 'gate'),
  }), t('app.gateToggle'));
  const parts = [h('h3', {}, t('app.gate')), toggle];
  if (hd.gate) {
    parts.push(h('div', { class: 'gate-all' },
      h('input', {
        type: 'range', id: 'gate-all', min: '-10', max: '10', step: '0.5', value: '0', 'aria-label': t('app.gateAllAria'),
        oninput: (ev) => editGate((x) => { x.gate = new Array(n).fill(Number(ev.target.value)); }, 'gate-all'),
      }),
      h('span', { id: 'gate-all-value', class: 'note' }, '')));
    if (n <= GATE_BOXES_MAX) {
      parts.push(h('div', { class: 'gate-boxes' }, hd.gate.map((g, row) => h('label', { class: 'gate-box', title: t('app.gateBoxTitle', { t: row }) },
        h('span', { class: 'idx' }, `${row}: `, h('span', { translate: 'no' }, showToken(state.tokens.queries[row]))),
        h('input', {
          type: 'text', inputmode: 'decimal', class: 'num', id: `gate-${row}`, value: showCell(g), 'aria-label': t('app.gateBoxAria', { t: row }),
          oninput: (ev) => {
            const parsed = parseCell(ev.target.value, false);
            ev.target.classList.toggle('invalid', !!parsed.error);
            if (parsed.error) {
              const typed = ev.target.value;
              showError(`heads[${state.head}].gate`, () => t('app.err.gateRow', { t: row, error: parseCell(typed, false).error }));
              return;
            }
            editGate((x) => { x.gate[row] = parsed.value; }, `gate-${row}`);
          },
        })))));
    } else {
      parts.push(h('p', { class: 'note' }, t('app.gateMany', { n })));
    }
  } else {
    parts.push(h('p', { class: 'note' }, t('app.gateOff')));
  }
  parts.push(h('p', { class: 'error', id: 'gate-error', role: 'alert', hidden: true }));
  return h('div', { class: 'editor-block gate-editor', id: 'editor-gate' }, parts);
}

// Mode switching keeps the numbers meaningful: qkv -> logits copies the current scores,
// anything -> weights copies the current weights, weights/logits -> qkv starts from identity-ish Q, K.
function switchMode(mode) {
  if (mode === state.mode) return;
  if (mode === 'x' || state.mode === 'x') {
    switchLayerMode(mode);
    return;
  }
  if (results.large && mode !== state.mode) {
    const [q, k] = [nQ(), nK()];
    showError('mode', () => t('app.err.largeMode', { nQ: q, nK: k, cells: (q * k).toLocaleString('en') }));
    syncControls();
    return;
  }
  update((s) => {
    const hd = s.heads[s.head];
    const n = nK(s);
    if (mode === 'logits') hd.logits = results.scores.map((row) => row.map((x) => (x === null ? null : x)));
    if (mode === 'weights') {
      // The copied weights already include the temperature: tau = 1 shows them unchanged.
      hd.weights = results.weights.map((row) => [...row]);
      if (s.tau !== 1) {
        $('copy-status').textContent = t('app.tauReset', { tau: s.tau });
        s.tau = 1;
      }
    }
    if (mode === 'qkv' && (!hd.Q || !hd.K || hd.Q.length !== nQ(s) || hd.K.length !== n)) {
      hd.Q = Array.from({ length: nQ(s) }, (_, i) => [1, i / Math.max(1, nQ(s) - 1)]);
      hd.K = Array.from({ length: n }, (_, j) => [1, j / Math.max(1, n - 1)]);
    }
    s.mode = mode;
  }, { structural: true, kind: 'mode' });
}

/**
 * Into mode "x": a seeded layer on the key tokens (the link's other settings kept). Out of it:
 * every head's derived Q, K, V (and its scores or weights for those modes) as the core computes
 * them, so the numbers on screen stay.
 */
function switchLayerMode(mode) {
  if (mode === 'x') {
    if (results.large) {
      const n = nK();
      showError('mode', () => t('app.err.largeX', { max: LARGE_KEYS, n }));
      syncControls();
      return;
    }
    const keys = state.tokens.keys;
    const next = makeLayerState({
      tokens: keys, dModel: 4, seed: randomSeed,
      heads: state.heads.slice(0, 8).map((hd, i) => ({ name: hd.name || `head ${i}`, dK: 2, dV: 2 })),
      projected: true, residual: true,
      source: `Random layer (mulberry32 seed ${randomSeed}) on the tokens of: ${state.source}`.slice(0, 500),
    });
    next.heads.forEach((hd, i) => { if (state.heads[i].gate && state.heads[i].gate.length === keys.length) hd.gate = [...state.heads[i].gate]; });
    next.head = Math.min(state.head, next.heads.length - 1);
    next.mask = { ...structuredClone(state.mask), allow: nQ() === keys.length ? structuredClone(state.mask.allow) : null };
    Object.assign(next, { tau: state.tau, scale: state.scale, topK: state.topK, row: Math.min(state.row, keys.length - 1) });
    next.tokens.queries = nQ() === keys.length ? [...state.tokens.queries] : [...keys];
    if (state.lab) next.lab = structuredClone(state.lab);
    commit(next, { structural: true, kind: 'mode' });
    return;
  }
  // Leaving "x": the core's derived matrices of every head.
  let perHead;
  try {
    perHead = state.heads.map((_, i) => (i === state.head ? results : core.compute({ ...state, head: i }, { validated: true })));
  } catch (e) {
    if (!(e instanceof AttentionError)) throw e;
    showError('mode', rejected(e.message));
    return;
  }
  update((s) => {
    s.heads.forEach((hd, i) => {
      const r = perHead[i];
      hd.Q = r.derived.Q; hd.K = r.derived.K; hd.V = r.derived.V;
      delete hd.WQ; delete hd.WK; delete hd.WV;
      if (mode === 'logits') hd.logits = r.scores.map((row) => [...row]);
      if (mode === 'weights') hd.weights = r.weights.map((row) => [...row]);
    });
    delete s.x;
    if (mode === 'weights' && s.tau !== 1) {
      $('copy-status').textContent = t('app.tauReset', { tau: s.tau });
      s.tau = 1;
    }
    s.mode = mode;
    markEdited(s);
  }, { structural: true, kind: 'mode' });
}

// ---------------------------------------------------------------------------------------------
// Controls.

/**
 * A number box that commits 350 ms after typing stops, or at once on Enter or leaving it, so a
 * half-typed value (the "500" of "5000") is never committed. A refused value is explained next to
 * the box, with what is kept.
 * @param {string} id
 * @param {{field: string, kept: () => string, parse: (x: number) => (string|null),
 *   apply: (s: object, x: number) => void}} o  parse returns the string-table key of the
 *   error (web/i18n/app.js), or null
 */

function flushBoxes() {
  for (const commitBox of [...pendingBoxes.values()]) commitBox();
}

function numberBox(id, o) {
  const el = $(id);
  let timer = 0;
  // word() gives the reason in the current language (again after a language change).
  const refuse = (word) => {
    el.classList.add('invalid');
    showError(o.field, () => [word(), t('app.err.keeping', { kept: o.kept() })]);
  };
  // A refusal of the validator (English, naming schema paths) is technical detail.
  const refuseDetail = (e) => refuse(() => rejected(e.endsWith('.') ? e : `${e}.`));
  const commitBox = () => {
    clearTimeout(timer);
    if (!pendingBoxes.has(id) && document.activeElement !== el) return; // nothing typed since
    pendingBoxes.delete(id);
    const text = el.value.trim();
    const x = text === '' ? NaN : Number(text);
    const typed = el.value;
    if (!Number.isFinite(x)) { refuse(() => t('app.err.notNumber', { text: clipTyped(typed) })); return; }
    const problem = o.parse(x);
    if (problem) { refuse(() => t(problem)); return; }
    el.classList.remove('invalid');
    const err = update((s) => o.apply(s, x), { kind: o.field, report: false });
    if (typeof err === 'string') refuseDetail(err);
    else if (err && typeof err.then === 'function') {
      err.then((e) => { if (e) refuseDetail(e); });
    }
  };
  el.addEventListener('input', () => {
    clearTimeout(timer);
    pendingBoxes.set(id, commitBox);
    timer = setTimeout(commitBox, 350);
  });
  el.addEventListener('change', commitBox);
}

function wireControls() {
  document.querySelectorAll('input[name="mode"]').forEach((r) => r.addEventListener('change', () => switchMode(r.value)));
  $('tau-slider').addEventListener('input', (ev) => {
    const tau = Number((10 ** Number(ev.target.value)).toPrecision(3));
    update((s) => { s.tau = tau; }, { kind: 'tau' });
  });
  numberBox('tau', {
    field: 'tau', kept: () => `τ = ${state.tau}`,
    parse: (x) => (x > 0 ? null : 'app.err.tau'),
    apply: (s, x) => { s.tau = x; },
  });
  $('scale-kind').addEventListener('change', (ev) => {
    const kind = ev.target.value;
    scaleCustom = kind === 'custom';
    update((s) => {
      s.scale = kind === 'auto' ? 'auto' : kind === 'one' ? 1 : (typeof s.scale === 'number' ? s.scale : 0.5);
    }, { kind: 'scale' });
  });
  numberBox('scale', {
    field: 'scale', kept: () => `scale = ${state.scale}`,
    parse: (x) => (x > 0 ? null : 'app.err.scale'),
    apply: (s, x) => { s.scale = x; },
  });
  $('causal').addEventListener('change', (ev) => update((s) => { s.mask.causal = ev.target.checked; }, { kind: 'mask' }));
  numberBox('window', {
    field: 'mask.window', kept: () => `w = ${state.mask.window}`,
    parse: (x) => (Number.isInteger(x) && x >= 0 ? null : 'app.err.window'),
    apply: (s, x) => { s.mask.window = x; },
  });
  numberBox('stride', {
    field: 'mask.stride', kept: () => `s = ${state.mask.stride ?? 0}`,
    parse: (x) => (Number.isInteger(x) && x >= 0 ? null : 'app.err.stride'),
    apply: (s, x) => { if (x > 1) s.mask.stride = x; else delete s.mask.stride; },
  });
  numberBox('sinks', {
    field: 'mask.sinks', kept: () => t('app.kept.sinks', { n: state.mask.sinks ?? 0 }),
    parse: (x) => (Number.isInteger(x) && x >= 0 ? null : 'app.err.sinks'),
    apply: (s, x) => { if (x > 0) s.mask.sinks = x; else delete s.mask.sinks; },
  });
  $('edit-allow').addEventListener('change', () => renderViews());
  $('clear-allow').addEventListener('click', () => update((s) => { s.mask.allow = null; }, { kind: 'mask' }));
  numberBox('topk', {
    field: 'topK', kept: () => `k = ${state.topK}`,
    parse: (x) => (Number.isInteger(x) && x >= 1 ? null : 'app.err.topk'),
    apply: (s, x) => { s.topK = x; },
  });
  $('row').addEventListener('change', (ev) => update((s) => { s.row = Number(ev.target.value); }, { kind: 'row' }));
  // Heads share the tokens, so the selected row stays: heads compare like for like.
  $('head').addEventListener('change', (ev) => update((s) => { s.head = Number(ev.target.value); }, { structural: true, kind: 'head' }));
  $('numbers').addEventListener('change', (ev) => update((s) => { s.view.numbers = ev.target.checked ? 'on' : 'off'; }, { kind: 'view' }));
  $('palette').addEventListener('change', (ev) => choosePalette(ev.target.value));
  $('lang').addEventListener('change', (ev) => chooseLang(ev.target.value));
  onLangChange(relabel);
  onPaletteChange(() => { if (state && results) renderViews(); });
  for (const list of ['view-nav', 'panel-tabs', 'lab-tabs']) initTabs($(list));
  document.querySelectorAll('#panel-tabs button').forEach((b) => b.addEventListener('click', () => update((s) => { s.view.panel = b.dataset.panel; }, { kind: 'view' })));
  $('preset').addEventListener('change', (ev) => applyPreset(ev.target.value));
  $('real-head').addEventListener('change', (ev) => applyPreset(realPresetId(ev.target.dataset.dataset, ev.target.value)));
  $('undo').addEventListener('click', undo);
  document.addEventListener('keydown', (ev) => {
    if ((ev.ctrlKey || ev.metaKey) && ev.key === 'z' && !ev.target.closest?.('input, textarea')) {
      ev.preventDefault();
      undo();
    }
  });
  $('copy-link').addEventListener('click', async () => {
    const status = $('copy-status');
    let url;
    try {
      url = shareUrl();
    } catch (e) {
      mount(status, rejected(e.message, 'app.noLink'), t('app.noLinkSave'));
      return;
    }
    try {
      await navigator.clipboard.writeText(url);
      status.textContent = t('app.linkCopied', { n: url.length });
    } catch {
      // Clipboard refused (permissions, insecure context): show the link to copy by hand.
      const box = h('input', { type: 'text', value: url, readonly: true, class: 'link-box', 'aria-label': t('app.linkBoxAria') });
      mount(status, t('app.copyThisLink'), box);
      box.select();
    }
  });
  window.addEventListener('hashchange', () => { loadFromHash(); });
  window.addEventListener('pagehide', flushHash);
  initShareDialog({
    opener: $('share-class'),
    link: (options) => { flushBoxes(); return shareUrl(options); },
    options: () => pageOptions,
  });
  // The link is rebuilt as it is used, so it always carries the state on screen.
  for (const type of ['pointerdown', 'focus', 'contextmenu']) $('open-full').addEventListener(type, () => updateFullPageLink());
}

// ---------------------------------------------------------------------------------------------
// Import view and exports.

let importView = null;
let lessonPanel = null; // the guided lesson (web/lesson/panel.js), shown while state.lesson exists

/** Shows the playground or the import view (the tabs under the header). */
function showView(which) {
  $('app').hidden = which !== 'playground';
  $('import-view').hidden = which !== 'import';
  $('tab-playground').setAttribute('aria-selected', String(which === 'playground'));
  $('tab-import').setAttribute('aria-selected', String(which === 'import'));
  document.body.dataset.view = which;
}

/** A state from the import view (an opened head, a saved state file): committed like a preset. */
async function openState(next, kind) {
  flushBoxes();
  scaleCustom = false;
  next = structuredClone(next);
  if (kind === 'import' && state?.lab) next.lab = structuredClone(state.lab);
  const err = await commit(next, { structural: true, report: false, kind });
  if (!err) {
    $('banner').hidden = true;
    showView('playground');
    window.scrollTo(0, 0);
  }
  return err;
}

/** File name stem of the current state: its preset or head name. */
function exportStem() {
  const name = `${state.view.preset === 'import' || state.view.preset === 'custom' ? currentHead().name : state.view.preset}`;
  return name.replace(/[^\w.-]+/g, '_') || 'attention';
}

/** The weights on screen as a flat grid: the full matrix, or a large head's pooled overview. */
function weightsGrid() {
  if (results.large) {
    const o = results.overview;
    const pooled = o.rows !== results.nQ || o.cols !== results.nK;
    return { values: o.data, rows: o.rows, cols: o.cols, pooled,
      note: pooled ? t('lab.export.maxPooledNote', { rows: o.rows, cols: o.cols, nQ: results.nQ, nK: results.nK }) : '' };
  }
  const values = new Float64Array(results.nQ * results.nK);
  results.weights.forEach((row, i) => row.forEach((w, j) => { values[i * results.nK + j] = results.visible[i][j] ? w : NaN; }));
  return { values, rows: results.nQ, cols: results.nK, pooled: false, note: '' };
}

function weightsSvg() {
  const g = weightsGrid();
  return heatmapSvg({
    values: g.values, rows: g.rows, cols: g.cols, domain: g.pooled ? undefined : [0, 1],
    rowLabels: g.pooled ? [] : state.tokens.queries, colLabels: g.pooled ? [] : state.tokens.keys,
    title: t('lab.export.weightsTitle', { tau: state.tau, name: currentHead().name }),
    note: g.note || t('lab.export.weightsGridNote', { nQ: results.nQ, nK: results.nK }),
  });
}

function wireImportExport() {
  importView = initImportView($('import-view'), { coreOptions: coreOptions(), openState });
  $('tab-playground').addEventListener('click', () => showView('playground'));
  $('tab-import').addEventListener('click', () => showView('import'));
  // A file dropped anywhere on the page is an import.
  document.addEventListener('dragover', (ev) => { if (ev.dataTransfer?.types?.includes('Files')) ev.preventDefault(); });
  document.addEventListener('drop', (ev) => {
    if (!ev.dataTransfer?.files?.length || ev.defaultPrevented) return;
    ev.preventDefault();
    // Embed mode, a hidden Import tab and read-only have no import view to drop into.
    if (pageOptions.embed || pageOptions.readonly || pageOptions.hide.includes('import')) return;
    showView('import');
    importView.importFiles([...ev.dataTransfer.files]);
  });
  $('save-state').addEventListener('click', () => {
    flushBoxes();
    download(`${exportStem()}.state.json`, `${JSON.stringify(state, null, 1)}\n`, 'application/json');
  });
  $('export-svg').addEventListener('click', () => download(`${exportStem()}_weights.svg`, weightsSvg(), 'image/svg+xml'));
  $('export-png').addEventListener('click', () => {
    const g = weightsGrid();
    const canvas = drawHeatmap(document.createElement('canvas'), { values: g.values, rows: g.rows, cols: g.cols, domain: g.pooled ? undefined : [0, 1] });
    canvas.toBlob((blob) => download(`${exportStem()}_weights.png`, blob), 'image/png');
  });
  $('export-csv').addEventListener('click', () => download(`${exportStem()}_rows.csv`, resultsRowsCsv(results, state.tokens.queries), 'text/csv'));
  $('export-json').addEventListener('click', () => download(`${exportStem()}_results.json`, toJson(plainResults()), 'application/json'));
  $('export-html').addEventListener('click', () => {
    const rows = results.rows.map((m, t) => [t, state.tokens.queries[t], m.empty ? 'empty' : m.entropy, m.normalizedEntropy, m.nEff, m.topKMass, m.sinkMass, m.support]);
    download(`${exportStem()}_view.html`, standaloneHtml({
      // The page a person reads follows the language (lab.export.*); its numbers do not change.
      title: t('lab.export.pageTitle', { name: currentHead().name }),
      subtitle: `${state.source ? `${state.source}. ` : ''}${t('lab.export.pageSubtitle', {
        mode: hasKey(`app.mode.${state.mode}`) ? t(`app.mode.${state.mode}`) : state.mode, tau: state.tau,
        causal: t(state.mask.causal ? 'lab.export.on' : 'lab.export.off'),
        window: state.mask.window ? t('lab.export.window', { w: state.mask.window }) : '', row: state.row,
      })}`,
      svg: weightsSvg(),
      tables: [{ caption: t('lab.export.rowsCaptionNats'),
        header: [t('import.rowCol.query'), t('import.rowCol.token'), 'H', 'H_norm', 'N_eff', t('lab.export.topKMass', { k: state.topK }),
          t('import.rowCol.sinkMass'), t('import.rowCol.support')], rows }],
    }), 'text/html');
  });
}

// ---------------------------------------------------------------------------------------------
// Start-up and the programmatic API.

/** Which build runs, and why not SIMD when it does not (shown under the controls). */
function showCoreVariant() {
  const el = $('core-variant');
  const why = core.fallback;
  mount(el, core.variant === 'wasm-simd128'
    ? tData('app.core.simd', { kernels: core.kernels })
    : tData('app.core.scalar', { reason: why ? tData(`app.core.${why.code}`, { detail: why.detail }) : core.fallbackReason }));
  el.dataset.variant = core.variant;
}

/** Loader options from the page's query string: ?core=scalar|simd, ?selftest=fail (testing). */
function coreOptions() {
  const q = new URLSearchParams(location.search);
  const options = {};
  if (['scalar', 'simd', 'auto'].includes(q.get('core'))) options.variant = q.get('core');
  if (q.get('selftest') === 'fail') options.failSelfTest = true;
  return options;
}

async function start() {
  // Embed mode and the hide flags from the first frame on (the language waits for the link's
  // state); inside an iframe, the page tells its parent how tall it is (docs/embedding.md).
  applyPresentation(document, readPageOptions(location.hash).options);
  reportHeight(window, () => readPageOptions(location.hash).options.frame);
  // A parent named by the link's origin= options may send a state (docs/embedding.md "Messages").
  acceptStateMessages(window, { origins: () => readPageOptions(location.hash).options.origin, apply: (s) => window.attentionPlayground.setState(s) });
  core = await loadCore(coreOptions());
  showCoreVariant();
  fillPresetSelect();
  wireControls();
  wireImportExport();
  lessonPanel = initLesson({
    container: $('lesson-panel'),
    toggle: $('lesson-toggle'),
    getState: () => state,
    getResults: () => results,
    // Each lesson action is its own undo step (kind "edit"); a dragged key passes its own kind.
    update: (fn, opts) => update(fn, { kind: 'edit', ...opts }),
    commit: (next, opts) => { flushBoxes(); return commit(next, { structural: true, kind: 'edit', ...opts }); },
    compute: (s) => core.compute(s),
    lab: (s) => core.lab(s),
    shareUrl: () => shareUrl(),
  });
  $('loading').hidden = true;
  showView('playground');
  if (!(await loadFromHash({ initial: true }))) {
    const err = commit(LESSON_PRESETS.example1.make(), { structural: true });
    if (err) throw new Error(`default state rejected: ${err}`);
  }
}

const ready = start().catch((e) => {
  mount($('loading'), rejected(e.message, 'app.startFailed'));
  $('loading').classList.add('error');
  throw e;
});

/** results() as plain JSON: a large head's typed arrays become arrays. */
function plainResults() {
  if (!results?.large) return structuredClone(results);
  const { data, ...overview } = results.overview;
  const grid = Array.from({ length: overview.rows }, (_, i) => Array.from(data.subarray(i * overview.cols, (i + 1) * overview.cols), (x) => (Number.isNaN(x) ? null : x)));
  const tile = results.tile && { rows: results.tile.rows, cols: results.tile.cols, at: results.tile.at,
    weights: Array.from({ length: results.tile.rows }, (_, i) => Array.from(results.tile.weights.subarray(i * results.tile.cols, (i + 1) * results.tile.cols), (x) => (Number.isNaN(x) ? null : x))) };
  return structuredClone({ ...results, overview: { ...overview, data: grid }, tile });
}

/**
 * window.attentionPlayground — the page's programmatic API (documented in README.md).
 *   ready: Promise<void>            resolves when the core is loaded and a state is shown
 *   getState(): object              the current state (docs/state.md), a copy
 *   setState(state): Promise<void>  validates and shows a state; rejects with an Error whose
 *                                   message says what is wrong (the current state is kept)
 *   results(): object               the current results JSON (scores, weights, output, rows, ...)
 *   shareUrl(): string              a link that reproduces the current state exactly
 *   imported(): object              the import view's file and per-head analysis
 *                                   ({source, heads, reading, running}; docs/import.md)
 */
window.attentionPlayground = {
  ready,
  getState: () => structuredClone(state),
  async setState(next) {
    await ready;
    flushBoxes();
    const err = await commit(structuredClone(next), { structural: true, report: false, kind: 'api' });
    if (err) throw new Error(err);
  },
  results: () => plainResults(),
  shareUrl: () => shareUrl(),
  imported: () => structuredClone(importView?.getImport() ?? { source: null, heads: [], reading: 'weights', running: false }),
};
