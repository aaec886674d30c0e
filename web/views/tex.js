// TeX rendered by KaTeX, loaded on first use (web/vendor/katex.js is 260 KB and its fonts 80 KB:
// not on the path to the first view). renderTex fills an element at once when KaTeX is already
// here; otherwise the element stays empty (class "tex-pending") and, as soon as one pending element
// is rendered at all (an IntersectionObserver with a margin far beyond any page: hidden formulas,
// a closed <details>, a hidden lesson do not count), KaTeX loads and fills every pending element.
// The page is drawn and usable meanwhile. Not tied to scrolling on purpose: formulas filled while
// the reader scrolls to them would push the page.
// Used by the formulas (views/formulas.js) and the lesson's inline formulas (lesson/panel.js).
//
//   renderTex(el, tex, {displayMode})  renders `tex` into `el` (now or once KaTeX is loaded)
//   texReady(): Promise<void>          resolves when KaTeX is loaded and every pending element drawn
let katexRender = null;
let loading = null;
const pending = new Map(); // element -> [tex, options]

const OPTIONS = { throwOnError: false, output: 'htmlAndMathml', trust: false, strict: 'ignore' };

function draw(el, tex, displayMode) {
  el.classList.remove('tex-pending');
  katexRender(tex, el, { ...OPTIONS, displayMode });
}

/** Loads KaTeX once and draws every element that waited for it. */
export function texReady() {
  loading ??= import('../vendor/katex.js').then((mod) => {
    katexRender = mod.katexRender;
    for (const [el, [tex, displayMode]] of pending) draw(el, tex, displayMode);
    pending.clear();
  });
  return loading;
}

/**
 * Renders TeX into an element (its children are replaced).
 * @param {Element} el
 * @param {string} tex  TeX source (never built from token strings)
 * @param {{displayMode?: boolean}} [options]
 */
export function renderTex(el, tex, { displayMode = false } = {}) {
  if (katexRender) {
    pending.delete(el);
    draw(el, tex, displayMode);
    return;
  }
  el.classList.add('tex-pending');
  pending.set(el, [tex, displayMode]);
  if (typeof IntersectionObserver === 'undefined') {
    load();
    return;
  }
  observer ??= new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && load(), { rootMargin: '100000px' });
  observer.observe(el);
}

let observer = null;
function load() {
  observer?.disconnect();
  texReady().catch((e) => console.error(`KaTeX failed to load: ${e.message}`));
}
