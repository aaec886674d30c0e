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
// and draws numbers, not only colours. Token strings go in as text (views/dom.js h()).
export const LAB_TITLES = {
  patterns: 'Head patterns',
  normalisers: 'Normalisers',
  sink: 'Sink vs content',
  routing: 'Routing width',
  saturation: 'Saturation',
  spectral: 'Spectral',
  linear: 'Linear attention',
  sweep: 'Angle sweep (lesson)',
  sensitivity: 'Sensitivity (lesson)',
};

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
