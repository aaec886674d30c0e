// The analysis lab's views: one module per analysis (web/lab/<id>.js), loaded when first shown.
// Ids are the core's lab views (cpp/include/attn/lab_views.def).
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
import { t } from '../i18n/i18n.js';
import { SCHEMA } from '../generated/schema.js';

// The views are the core's list (cpp/include/attn/lab_views.def, via web/generated/schema.js):
// view "<id>" is the module ./<id>.js and its title the string "lab.title.<id>".

/** The views' titles in the page's language (each read when used). */
export const LAB_TITLES = {};
for (const id of SCHEMA.labViews) {
  Object.defineProperty(LAB_TITLES, id, { enumerable: true, get: () => t(`lab.title.${id}`) });
}

/** True when `id` is a lab view of this build. */
export const hasLabView = (id) => SCHEMA.labViews.includes(id);

/** The view module of `id` (cached by the module loader). */
export function loadLabView(id) {
  if (!hasLabView(id)) return Promise.reject(new Error(`no lab view "${id}"`));
  return import(`./${id}.js`);
}
