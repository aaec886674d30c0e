// The page's start-up: loads the core, wires the controls, the import view and the lesson, shows
// the link's state (or the first lesson preset), and exposes window.attentionPlayground. The
// page's modules are in web/page/, along its one direction of data flow:
//   control / link / API call -> next state (page/edits.js) -> store (page/store.js: the core's
//   validateAndCompute, or validateState and the large-head worker) -> results -> views
//   (page/render.js) -> link (page/address.js).
import { loadCore } from './core/core.js';
import { embeddedOptions, openEmbedded } from './embed/embedded.js';
import { LESSON_PRESETS } from './presets/presets.js';
import { mount } from './views/dom.js';
import { tData } from './views/format.js';
import { applyPresentation, readPageOptions } from './page/page-options.js';
import { acceptStateMessages, reportHeight } from './embed/frame-messages.js';
import { getLang, loadLang, setLang } from './i18n/i18n.js';
import { registerServiceWorker } from './page/offline.js';
import {
  beforeLesson,
  commit,
  core,
  flushBoxes,
  importView,
  results,
  connectStore,
  setCore,
  setLessonPanel,
  state,
  subscribe,
  update,
} from './page/store.js';
import { coreOptions, loadFromHash, shareUrl, startLang, writeHash } from './page/address.js';
import { clearErrors, rejected, rewordErrors, showBanner, showError } from './page/errors.js';
import { wireControls } from './page/controls.js';
import { fillPresetSelect } from './page/presets-ui.js';
import { render } from './page/render.js';
import { plainResults, showView, wireImportExport } from './page/exports.js';

const $ = (id) => document.getElementById(id);

/** Which build runs, and why not SIMD when it does not (shown under the controls). */
function showCoreVariant() {
  const el = $('core-variant');
  const why = core.fallback;
  mount(
    el,
    core.variant === 'wasm-simd128'
      ? tData('app.core.simd', { kernels: core.kernels })
      : tData('app.core.scalar', { reason: why ? tData(`app.core.${why.code}`, { detail: why.detail }) : core.fallbackReason }),
  );
  el.dataset.variant = core.variant;
}

/**
 * After a language change (setLang): every string the page builds is built again — selects,
 * notes, editors, views, the lab — from the same state and results. The state, the results and
 * the undo stack do not change.
 */
function relabel() {
  $('lang').value = getLang();
  if (!core) return;
  rewordErrors();
  showCoreVariant();
  fillPresetSelect();
  if (state && results) render(true);
}

let lessonLoading = null;
let lessonReady = false;
let lessonCtx = null;
/** The guided lesson's panel, loaded on first use (a state with a lesson, or the lesson button). */
function loadLesson() {
  lessonLoading ??= import('./lesson/panel.js').then(({ initLesson }) => {
    const panel = initLesson(lessonCtx);
    lessonReady = true;
    setLessonPanel(panel);
    panel.render();
    return panel;
  });
  return lessonLoading;
}

async function start() {
  // Embed mode and the hide flags from the first frame on (the link's, else those the one-file
  // page carries); inside an iframe, the page tells its parent how tall it is (docs/embedding.md).
  const early = readPageOptions(location.hash || embeddedOptions()).options;
  applyPresentation(document, early);
  reportHeight(window, () => readPageOptions(location.hash).options.frame);
  // A parent named by the link's origin= options may send a state (docs/embedding.md "Messages").
  acceptStateMessages(window, {
    origins: () => readPageOptions(location.hash).options.origin,
    apply: (s) => window.attentionPlayground.setState(s),
  });
  // The core downloads while the link's language is loaded: the page shows no other language
  // than the link's (web/early.js keeps it hidden until here when it is not English).
  const options = coreOptions();
  const corePromise = loadCore(options);
  // A link with a lesson needs the lesson's modules: fetched now, beside the core.
  const linkHasLesson = /(^#|&)lesson=/.test(location.hash);
  if (linkHasLesson) import('./lesson/panel.js').catch(() => {});
  const lang = startLang(early);
  await loadLang(lang);
  setLang(lang);
  document.documentElement.classList.remove('ap-booting');
  setCore(await corePromise, options);
  // The store reports to the error slots and writes the link through these; the views subscribe.
  connectStore({ showError, showBanner, clearErrors, rejected, writeHash });
  subscribe(render);
  showCoreVariant();
  fillPresetSelect();
  wireControls(relabel);
  wireImportExport();
  lessonCtx = {
    container: $('lesson-panel'),
    toggle: $('lesson-toggle'),
    getState: () => state,
    getResults: () => results,
    beforeLesson: () => beforeLesson,
    // Each lesson action is its own undo step (kind "edit"); a dragged key passes its own kind.
    update: (fn, opts) => update(fn, { kind: 'edit', ...opts }),
    commit: (next, opts) => {
      flushBoxes();
      return commit(next, { structural: true, kind: 'edit', ...opts });
    },
    core,
    compute: (s) => core.compute(s),
    lab: (s) => core.lab(s),
    shareUrl: () => shareUrl(),
  };
  // Until the lesson's modules are here, a stand-in loads them when a state has a lesson, and the
  // lesson button's first click loads them and then clicks again (the panel's own handler).
  setLessonPanel({ render: () => state?.lesson && loadLesson() });
  $('lesson-toggle').addEventListener(
    'click',
    () => {
      if (!lessonReady) loadLesson().then(() => $('lesson-toggle').click());
    },
    { once: true },
  );
  // The lesson's panel is in place before the first state is shown, so that the views and the
  // panel are built in one task and the page is laid out once (docs/performance.md "Loading").
  if (linkHasLesson) await loadLesson().catch(() => {});
  $('loading').hidden = true;
  showView('playground');
  // A link's state first, else the state or file the one-file page carries (web/embed/embedded.js).
  if (!(await loadFromHash({ initial: true })) && !(await openEmbedded({ commit: (s) => commit(s, { structural: true }) }))) {
    const err = commit(LESSON_PRESETS.example1.make(), { structural: true });
    if (err) throw new Error(`default state rejected: ${err}`);
  }
  if (state?.lesson) await loadLesson();
  // The lesson button is on the first screen: its modules download once the page is up, so the
  // first click (or a preset with a lesson) finds them here.
  else import('./lesson/panel.js').catch(() => {});
}

const ready = start().catch((e) => {
  document.documentElement.classList.remove('ap-booting');
  mount($('loading'), rejected(e.message, 'app.startFailed'));
  $('loading').classList.add('error');
  throw e;
});
// Offline after the first visit (dist/ only), once the page is up so it does not slow the start.
ready.then(() => registerServiceWorker(document, core.variant === 'wasm-simd128' ? 'simd' : 'scalar')).catch(() => {});

/**
 * window.attentionPlayground — the page's programmatic API (documented in README.md).
 *   ready: Promise<void>            resolves when the core is loaded and a state is shown
 *   getState(): object              the current state (docs/state.md), a copy
 *   setState(state): Promise<void>  validates and shows a state; rejects with an Error whose
 *                                   message says what is wrong (the current state is kept)
 *   results(): object               the current results JSON (scores, weights, output, rows, ...)
 *   shareUrl(): string              a link that reproduces the current state exactly
 *   imported(): object              the import view's file and per-head analysis
 *                                   ({source, heads, reading, running, workersReady}; workersReady:
 *                                   every import worker has loaded its core; docs/import.md)
 */
window.attentionPlayground = {
  ready,
  getState: () => structuredClone(state),
  async setState(next) {
    await ready;
    flushBoxes();
    const err = await commit(structuredClone(next), { structural: 'auto', report: false, kind: 'api' });
    if (err) throw new Error(err);
  },
  results: () => plainResults(),
  shareUrl: () => shareUrl(),
  imported: () =>
    structuredClone(importView?.getImport() ?? { source: null, heads: [], reading: 'weights', running: false, workersReady: false }),
};
