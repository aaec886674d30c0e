// The page's start-up: loads the core, wires the controls, the import view and the lesson, shows
// the link's state (or the first lesson preset), and exposes window.attentionPlayground. The
// page's modules are in web/page/, along its one direction of data flow:
//   control / link / API call -> next state (page/edits.js) -> store (page/store.js: the core's
//   validateAndCompute, or validateState and the large-head worker) -> results -> views
//   (page/render.js) -> link (page/link.js).
import { loadCore } from './core.js';
import { openEmbedded } from './embedded.js';
import { LESSON_PRESETS } from './presets.js';
import { mount } from './views/dom.js';
import { tData } from './views/format.js';
import { applyPresentation, readPageOptions } from './page-options.js';
import { acceptStateMessages, reportHeight } from './frame-messages.js';
import { getLang } from './i18n.js';
import { initLesson } from './lesson/panel.js';
import {
  commit,
  core,
  flushBoxes,
  importView,
  results,
  setCore,
  setImportView,
  setLessonPanel,
  state,
  subscribe,
  update,
} from './page/store.js';
import { coreOptions, loadFromHash, shareUrl } from './page/link.js';
import { rejected, rewordErrors } from './page/errors.js';
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

async function start() {
  // Embed mode and the hide flags from the first frame on (the language waits for the link's
  // state); inside an iframe, the page tells its parent how tall it is (docs/embedding.md).
  applyPresentation(document, readPageOptions(location.hash).options);
  reportHeight(window, () => readPageOptions(location.hash).options.frame);
  // A parent named by the link's origin= options may send a state (docs/embedding.md "Messages").
  acceptStateMessages(window, {
    origins: () => readPageOptions(location.hash).options.origin,
    apply: (s) => window.attentionPlayground.setState(s),
  });
  setCore(await loadCore(coreOptions()));
  subscribe(render);
  showCoreVariant();
  fillPresetSelect();
  wireControls(relabel);
  setImportView(wireImportExport());
  setLessonPanel(
    initLesson({
      container: $('lesson-panel'),
      toggle: $('lesson-toggle'),
      getState: () => state,
      getResults: () => results,
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
    }),
  );
  $('loading').hidden = true;
  showView('playground');
  // A link's state first, else the state or file the one-file page carries (web/embedded.js).
  if (!(await loadFromHash({ initial: true })) && !(await openEmbedded({ commit: (s) => commit(s, { structural: true }) }))) {
    const err = commit(LESSON_PRESETS.example1.make(), { structural: true });
    if (err) throw new Error(`default state rejected: ${err}`);
  }
}

const ready = start().catch((e) => {
  mount($('loading'), rejected(e.message, 'app.startFailed'));
  $('loading').classList.add('error');
  throw e;
});

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
