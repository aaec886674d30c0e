// TeX rendered by KaTeX, loaded on first use (web/vendor/katex.js is 260 KB and its fonts 80 KB:
// not on the path to the first view). renderTex fills an element at once when the formula was
// typeset at build time (web/generated/tex.js: the lesson's fixed formulas, scripts/prerender-tex.js)
// or KaTeX is already here; otherwise the element stays empty (class "tex-pending") and, as soon as
// one pending element is on screen or within 100 px below it (an IntersectionObserver: hidden
// formulas, a closed <details>, a hidden lesson do not count), KaTeX loads and fills every pending
// element. So a page whose first screen shows no live formula does not download KaTeX's script
// (docs/performance.md "Loading"); the page is drawn and usable meanwhile, and scroll anchoring
// keeps the view still when a formula above it changes height.
// Before printing, every pending formula is drawn (Ctrl+P) or shows its TeX source (see below).
// Used by the formulas (views/formulas.js) and the lesson's inline formulas (lesson/step-view.js).
//
//   renderTex(el, tex, {displayMode})  renders `tex` into `el` (now or once KaTeX is loaded)
//   texReady(): Promise<void>          resolves when KaTeX is loaded and every pending element drawn
//   ensureKatexCss(doc)                adds KaTeX's stylesheet (web/vendor/katex/katex.min.css) once
import { PRERENDERED } from '../generated/tex.js';
import { TEX_OPTIONS } from './tex-options.js';

let katexRender = null;
let loading = null;
const pending = new Map(); // element -> [tex, options]

function draw(el, tex, displayMode) {
  el.classList.remove('tex-pending');
  katexRender(tex, el, { ...TEX_OPTIONS, displayMode });
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
  ensureKatexCss(el.ownerDocument);
  const built = PRERENDERED[`${displayMode ? 'D' : 'I'}:${tex}`];
  if (built) {
    pending.delete(el);
    el.classList.remove('tex-pending');
    el.replaceChildren(fromData(built, el.ownerDocument));
    return;
  }
  if (katexRender) {
    pending.delete(el);
    draw(el, tex, displayMode);
    return;
  }
  el.classList.add('tex-pending');
  pending.set(el, [tex, displayMode]);
  pruneSoon ??= setTimeout(forgetDetached, 0);
  if (typeof IntersectionObserver === 'undefined') {
    load();
    return;
  }
  observer ??= new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && load(), { rootMargin: '0px 0px 100px 0px' });
  observer.observe(el);
}

let observer = null;
let pruneSoon = null;

/** Lets go of pending elements a view has since replaced (no longer in a document): a formula
 *  that changes while KaTeX is not loaded yet (every tau step below the fold) would otherwise keep
 *  each replaced element alive in `pending` and in the observer. Run in a later task, when the
 *  view that built an element (before inserting it) has inserted it. */
function forgetDetached() {
  pruneSoon = null;
  for (const el of pending.keys())
    if (!el.isConnected) {
      pending.delete(el);
      observer?.unobserve(el);
    }
}

function load() {
  observer?.disconnect();
  texReady().catch((e) => console.error(`KaTeX failed to load: ${e.message}`));
}

// Printing. A formula not yet scrolled into view is still empty, and a printed page would show
// blank formulas. Ctrl+P / Cmd+P (the usual way to print) waits for KaTeX, draws every formula,
// then prints. A print from the browser's menu gives no time to wait (the page is laid out for
// print as soon as 'beforeprint' returns): the formulas still empty get their TeX source as text
// (class tex-source) and KaTeX starts loading, so they are typeset as soon as it is here.
function printSoon(event) {
  if (!pending.size || katexRender || event.repeat || event.altKey || event.shiftKey) return;
  if (!(event.ctrlKey || event.metaKey) || (event.key !== 'p' && event.key !== 'P')) return;
  // In a frame, window.print() may be refused (a sandbox without allow-modals): the browser's own.
  if (window.top !== window) return;
  event.preventDefault();
  texReady().then(
    () => requestAnimationFrame(() => window.print()),
    () => window.print(),
  );
}

function beforePrint() {
  if (!pending.size) return;
  for (const [el, [tex]] of pending) {
    if (el.firstChild) continue;
    const code = el.ownerDocument.createElement('code');
    code.className = 'tex-source';
    code.textContent = tex;
    el.append(code);
  }
  load();
}

if (typeof window !== 'undefined' && typeof window.addEventListener === 'function') {
  window.addEventListener('keydown', printSoon);
  window.addEventListener('beforeprint', beforePrint);
}

const NS = { math: 'http://www.w3.org/1998/Math/MathML', svg: 'http://www.w3.org/2000/svg' };

/** KaTeX's DOM from its data form (scripts/prerender-tex.js): elements, attributes, CSSOM styles. */
function fromData(d, doc) {
  if (typeof d === 'string') return doc.createTextNode(d);
  if (d.f) {
    const frag = doc.createDocumentFragment();
    for (const c of d.f) frag.append(fromData(c, doc));
    return frag;
  }
  const el = d.ns ? doc.createElementNS(NS[d.ns], d.n) : doc.createElement(d.n);
  for (const [k, v] of Object.entries(d.a ?? {})) el.setAttribute(k, v);
  for (const [k, v] of Object.entries(d.s ?? {})) el.style[k] = v;
  for (const c of d.c ?? []) el.append(fromData(c, doc));
  return el;
}

/** Adds KaTeX's stylesheet (web/vendor/katex/katex.min.css) to the document once. */
export function ensureKatexCss(doc = document) {
  if (doc.getElementById('katex-css')) return;
  const link = doc.createElement('link');
  link.id = 'katex-css';
  link.rel = 'stylesheet';
  link.href = new URL('../vendor/katex/katex.min.css', import.meta.url).href;
  doc.head.append(link);
}
