// The page's store: the only module with mutable page state. It holds the current state (a valid
// one, docs/state.md), its results, the undo stack, the page options, the large-head worker and
// its zoom tile, and the number boxes typed in but not yet committed. Other modules read these
// through live bindings (`import { state } from './store.js'`) and change them only through the
// functions below.
//
// Every change takes one path: update (edit a copy) -> commit (the schema's one validator in the
// core, once: core.validateAndCompute, or core.validateState and the worker for a large head; the
// page's limits) -> apply (state and results replaced, undo entry, views notified)
// -> writeHash (the link). A state that fails validation or computation never replaces the
// current one: the error is shown next to what caused it and the last valid state stays.
//
// The store imports none of the modules that show its state (errors, the link, the views): they
// subscribe (subscribe) or are handed in by web/main.js (connectStore), so the page's modules
// depend on the store and never the other way round.
import { AttentionError } from '../core/core.js';
import { StateError, statesEqual } from '../core/state-schema.js';
import { LARGE_KEYS, LargeHeads, TILE, headShape, isLarge } from '../large/large.js';
import { defaultOptions } from './page-options.js';
import { t } from '../i18n/i18n.js';

const $ = (id) => document.getElementById(id);
const UNDO_DEPTH = 100;

export let core = null;
export let state = null;
export let results = null;
// Page options (web/page/page-options.js): language, embed mode, read-only, palette, hide flags. They
// travel in the link after the state's keys; the state (getState) never holds them.
export let pageOptions = defaultOptions();
export let zoom = null; // [r0, r1, c0, c1]: the full-resolution tile shown under a large overview
export let scaleCustom = false; // the user chose "custom" scale: keep the box open even for scale = 1
export let randomSeed = 1; // the seed box of "Random (seed)"; not part of the state (the source names it)
export let importView = null;
export let lessonPanel = null; // the guided lesson (web/lesson/panel.js), shown while state.lesson exists
export let labSeq = 0; // the lab view being drawn; an older one stops when a newer one starts
// The state before the guided lesson began (any way in: its button, a preset, the API), without a
// lesson; null while no lesson is open or when the page opened on one. Closing the lesson returns
// to it. Committed states are never changed in place, so the reference is kept as it is.
export let beforeLesson = null;
export const pendingBoxes = new Map(); // number boxes typed in but not yet committed: id -> commit
// The errors on screen, as functions that word them, so that a language change re-words them.
export const shownErrors = new Map(); // slot id -> () => message

let large = null; // LargeHeads (the worker), started on the first large state
let busyTimer = 0;
let hashTimer = 0;
let hashFlush = null; // the link write scheduled, or null
let heldHash = null; // the link write put off while large heads are computed (holdHash)
let largeInFlight = 0;
let undoing = 0; // > 0 while an undo is being committed
const undoStack = [];
let lastUndoKind = '';
let lastUndoTime = 0;
const views = []; // subscribers: view(structural) after each apply
// Loader options of the core (web/page/address.js coreOptions): the large-head worker and the import
// view's workers load the same build as the page.
export let coreOptions = {};
// What the store reports to, handed in by web/main.js (connectStore): the error slots
// (web/page/errors.js) and the link (web/page/address.js writeHash).
const out = {
  showError: () => {},
  showBanner: () => {},
  clearErrors: () => {},
  rejected: (message) => message,
  writeHash: () => {},
};

// Changes a read-only page still makes: choosing what to look at (the query row, the head, the
// heatmap shown, numbers on cells, the analysis), a new link and the API (docs/embedding.md).
export const READ_ONLY_KINDS = new Set(['row', 'head', 'view', 'lab', 'api', 'link']);

/**
 * Connects the store to what shows its errors and writes its link (web/main.js, once at start).
 * @param {{showError: (field: string, message: string|Node) => void, showBanner: (message: () => string|Node) => void,
 *   clearErrors: () => void, rejected: (message: string, key?: string) => string|Node, writeHash: () => void}} o
 */
export function connectStore(o) {
  Object.assign(out, o);
}

export function setCore(c, options = {}) {
  core = c;
  coreOptions = options;
}
export function setPageOptions(o) {
  pageOptions = o;
}
export function setZoom(z) {
  zoom = z;
}
export function setScaleCustom(on) {
  scaleCustom = on;
}
export function setRandomSeed(seed) {
  randomSeed = seed;
}
export function setImportView(view) {
  importView = view;
}
export function setLessonPanel(panel) {
  lessonPanel = panel;
}
export function nextLabSeq() {
  return ++labSeq;
}

/** Runs `flush` 200 ms after the last call (a burst of changes writes the link once). */
export function scheduleHash(flush, ms = 200) {
  clearTimeout(hashTimer);
  hashFlush = flush;
  if (flush) hashTimer = setTimeout(flush, ms);
}

/**
 * Puts off a pending link write while a large head is computed: the write of the previous state
 * (deflate, base64 and replaceState, 30-140 ms for a 512-token head) must not run in the middle
 * of the next change, between its input and its paint. Returns a function that schedules the
 * write again (the apply of the new state schedules its own, so it is needed only when none comes).
 */
function holdHash() {
  heldHash ??= hashFlush;
  scheduleHash(null);
  largeInFlight += 1;
  return () => {
    largeInFlight -= 1;
    if (largeInFlight > 0) return; // a newer large commit holds it still
    if (heldHash && !hashFlush) scheduleHash(heldHash);
    heldHash = null;
  };
}

/** `view(structural)` runs after every apply (structural: rebuild editors and selects). */
export function subscribe(view) {
  views.push(view);
}

/**
 * Tries to make `next` the current state. Returns null on success or the error message; on
 * failure nothing changes (unless `report` is false, the message is also shown by its control).
 * @param {object} next
 * @param {{structural?: boolean|'auto', kind?: string, fromHash?: boolean, report?: boolean, lesson?: boolean, refused?: (e: Error) => void}} opts
 *   structural: rebuild editors and selects ('auto': only when the matrices, tokens or shapes
 *   differ from the current state's, as for a state from the API, the link or the undo stack,
 *   which may change anything; a tau or mask change then updates the page as the tau box does);
 *   kind: undo coalescing key (typing in one place makes one undo step);
 *   refused: called with the StateError or AttentionError a refused state is refused with.
 */
export function commit(next, opts = {}) {
  const { report = true } = opts;
  // The guided lesson's own moves (opts.lesson: its steps, predictions, reveals and the edits a
  // step asks for) stay allowed in a read-only link: they are the student's work, not the lesson's
  // state being changed for others (docs/embedding.md "Read-only").
  if (state && pageOptions.readonly && !READ_ONLY_KINDS.has(opts.kind ?? 'edit') && !opts.lesson) {
    // Read-only (a link option): the controls are disabled; this refuses what slips past them
    // (a keyboard shortcut, a view's own control) and puts the controls back to the state.
    $('copy-status').textContent = t('embed.readOnlyRefused');
    for (const view of views) view(true);
    return t('embed.readOnlyRefused');
  }
  let valid;
  let res;
  try {
    if (looksLarge(next)) {
      // The worker computes a large head (or the page refuses it): validate only, here.
      // `next` is the page's own copy: the valid state may keep its matrices (no 4M-number copy).
      valid = core.validateState(next, { shareMatrices: true });
      refuseBeyondPageLimits(valid);
      if (valid.mode !== 'x' && isLarge(valid)) return commitLarge(valid, opts);
      res = core.compute(valid);
    } else {
      // One call into the core: the state validated once and its head computed.
      ({ state: valid, results: res } = core.validateAndCompute(next));
      refuseBeyondPageLimits(valid);
    }
  } catch (e) {
    if (!(e instanceof StateError) && !(e instanceof AttentionError)) throw e;
    if (report) out.showError(e.field, e.worded ? e.message : out.rejected(e.message));
    opts.refused?.(e);
    return e.message;
  }
  apply(valid, res, opts);
  return null;
}

/**
 * True when `s` (not yet validated) has the shape of a head the page does not compute on the main
 * thread: a large head (the worker) or mode "x" beyond the dense views. A malformed state is not
 * large: the validator then says what is wrong with it.
 */
function looksLarge(s) {
  try {
    return s.mode === 'x' ? s.x.X.length > LARGE_KEYS : isLarge(s);
  } catch {
    return false;
  }
}

function refuseBeyondPageLimits(valid) {
  const refused = pageLimit(valid);
  if (refused) throw Object.assign(new StateError(refused.field, refused.message), { worded: true });
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
  large ??= new LargeHeads(coreOptions);
  const resumeHash = holdHash();
  if (!state || structuralKey(state) !== structuralKey(valid)) zoom = null;
  clearTimeout(busyTimer);
  busyTimer = setTimeout(() => {
    $('busy').hidden = false;
  }, 100);
  try {
    const answer = await large.compute(valid, zoomWithin(valid));
    if (answer.superseded) return null;
    apply(valid, answer.results, opts);
    return null;
  } catch (e) {
    if (!(e instanceof AttentionError)) {
      out.showBanner(() => out.rejected(e.message, 'app.err.computeFailed'));
      return e.message;
    }
    if (report) out.showError(e.field, out.rejected(e.message));
    return e.message;
  } finally {
    clearTimeout(busyTimer);
    $('busy').hidden = true;
    resumeHash();
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
  if (!valid.lesson) beforeLesson = null;
  else if (state && !state.lesson) beforeLesson = state;
  const rebuild =
    !state || (structural === 'auto' ? !sameContent(state, valid) : structural || structuralKey(state) !== structuralKey(valid));
  state = valid;
  results = res;
  out.clearErrors();
  for (const view of views) view(rebuild);
  if (!fromHash) out.writeHash();
}

// Changes that only choose what to look at (the query row, the lab view and its parameters) and
// the scalar controls (tau, the scale, top-k: the slider and the number boxes): their edit
// functions set top-level fields and never touch a matrix, so the copy they edit shares the
// current state's matrices (committed matrices are never changed in place; every other edit works
// on a deep copy). Cloning a 2,048-token head's 4M numbers took 0.3 to 1 s on the main thread, and
// a 512-token head's about 20 ms of each tau step at 4x CPU.
const LOOK_KINDS = new Set(['row', 'lab', 'lab-params', 'tau', 'scale', 'topK']);

/** A copy of `s` sharing its heads' matrices and mask.allow (for LOOK_KINDS edits only). */
function copySharingMatrices(s) {
  const next = structuredClone({ ...s, heads: [], mask: { ...s.mask, allow: null } });
  next.heads = s.heads.map((hd) => ({ ...hd }));
  next.mask.allow = s.mask.allow;
  return next;
}

/** Edits a copy of the current state with `fn` and commits it. */
export function update(fn, opts) {
  flushBoxes(); // a number still being typed counts as entered before this change
  const next = LOOK_KINDS.has(opts?.kind) ? copySharingMatrices(state) : structuredClone(state);
  fn(next);
  return commit(next, opts);
}

/** Commits `edit(state)`: `edit` is a pure function state -> next state (edits.js). */
export function updateWith(edit, opts) {
  flushBoxes();
  return commit(edit(state), opts);
}

/** Commits every number box still being typed in. */
export function flushBoxes() {
  for (const commitBox of [...pendingBoxes.values()]) commitBox();
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

export async function undo() {
  flushBoxes();
  const prev = undoStack.pop();
  $('undo').disabled = undoStack.length === 0;
  if (!prev) return;
  lastUndoKind = '';
  // The undo itself makes no undo entry; a large head's commit resolves later, so the flag
  // lives until it does.
  undoing += 1;
  try {
    const err = await commit(prev, { structural: 'auto', kind: 'undo' });
    if (err) {
      undoStack.push(prev);
      $('undo').disabled = false;
    }
  } finally {
    undoing -= 1;
  }
}

/**
 * True when `b` shows the same editors and selects as `a`: the same shapes (structuralKey) and the
 * same matrices, tokens, padding and allow-list. What else differs (tau, scale, top-k, the mask's
 * flags, the row, the view, the lesson, the source) the controls and views put back by themselves.
 */
function sameContent(a, b) {
  return (
    structuralKey(a) === structuralKey(b) &&
    statesEqual(a.heads, b.heads) &&
    statesEqual(a.tokens, b.tokens) &&
    statesEqual(a.x ?? null, b.x ?? null) &&
    statesEqual(a.mask.padding, b.mask.padding) &&
    statesEqual(a.mask.allow ?? null, b.mask.allow ?? null)
  );
}

/** Shapes, mode, head and preset: what requires rebuilding editors and selects. */
function structuralKey(s) {
  const hd = s.heads[s.head];
  const dim = (m) => (m ? `${m.length}x${m[0]?.length ?? 0}` : '-');
  const dims = ['Q', 'K', 'V', 'logits', 'weights'].map((k) => dim(hd[k]));
  const gates = s.heads.map((x) => (x.gate ? 'g' : '-')).join('');
  const layer = s.mode === 'x' ? [dim(s.x.X), dim(s.x.WO), ...s.heads.map((x) => `${dim(x.WQ)}/${dim(x.WV)}`)] : [];
  return [s.mode, s.head, s.heads.length, ...dims, gates, ...layer].join('|');
}
