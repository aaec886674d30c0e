// The analysis lab's views: one module per analysis (web/lab/<id>.js), loaded when first shown.
// Ids are LAB_VIEWS of web/state.js and the C++ core's lab table (cpp/src/lab.cpp).
//
// A view module exports
//   render(container, {state, lab, results, setParams})
//     state      the current (valid) state; state.lab.params holds the view's parameters
//     lab        what the core computed for it (core.lab(state); docs/lab.md)
//     results    the playground's results (weights, rows, ...)
//     setParams  (patch) => Promise<string|null>: merges `patch` into state.lab.params and
//                recomputes; resolves to null or the error message (shown by the lab)
// and draws numbers, not only colours. Token strings go in as text (views/dom.js h()), in
// elements marked translate="no"; every other word comes from web/i18n/lab.js ("lab.*"), read
// at render time (web/page/render.js renders the lab again when the language changes).
import { t } from '../i18n.js';

const TITLE_KEYS = {
  patterns: 'lab.title.patterns',
  normalisers: 'lab.title.normalisers',
  sink: 'lab.title.sink',
  routing: 'lab.title.routing',
  saturation: 'lab.title.saturation',
  spectral: 'lab.title.spectral',
  linear: 'lab.title.linear',
  sweep: 'lab.title.sweep',
  sensitivity: 'lab.title.sensitivity',
};

/** The views' titles in the page's language (each read when used). */
export const LAB_TITLES = {};
for (const [id, key] of Object.entries(TITLE_KEYS)) {
  Object.defineProperty(LAB_TITLES, id, { enumerable: true, get: () => t(key) });
}

const modules = {
  patterns: () => import('./patterns.js'),
  sweep: () => import('./sweep.js'),
  sensitivity: () => import('./sensitivity.js'),
  sink: () => import('./sink.js'),
  routing: () => import('./routing.js'),
  normalisers: () => import('./normalisers.js'),
  saturation: () => import('./saturation.js'),
  spectral: () => import('./spectral.js'),
  linear: () => import('./linear.js'),
};

/** True when this build of the page has a view for `id`. */
export const hasLabView = (id) => id in modules;

/** The view module of `id` (cached by the module loader). */
export function loadLabView(id) {
  return modules[id]();
}
