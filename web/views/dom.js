// Tiny DOM builder. Text goes in through textContent only: token strings are text, never HTML.

const PROPS = ['value', 'checked', 'selected', 'disabled'];
const listeners = new WeakMap(); // element -> {type: listener} given to h()
const props = new WeakMap(); // element -> the PROPS given to h()

/**
 * h('div', {class: 'x', onclick: fn, 'aria-label': 'y'}, child, 'text', [more])
 * Attributes starting with "on" become listeners; `dataset` takes an object; null/false skip.
 * The properties value, checked, selected and disabled are set after the children (a select's
 * value names one of its options); false sets them off (null skips them).
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  let given = null; // the PROPS, set after the children (a select's value needs its options)
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (PROPS.includes(key)) {
      // false is kept too: patch() then turns a property that was on off again
      if (value !== null && value !== undefined) (given ??= []).push([key, value]);
      continue;
    }
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') {
      el.addEventListener(key.slice(2), value);
      (listeners.get(el) ?? listeners.set(el, {}).get(el))[key.slice(2)] = value;
    } else if (key === 'dataset') {
      Object.assign(el.dataset, value);
    } else if (key === 'style' && typeof value === 'object') {
      for (const [prop, v] of Object.entries(value)) el.style.setProperty(prop, v);
    } else {
      el.setAttribute(key, value === true ? '' : String(value));
    }
  }
  append(el, children);
  if (given) {
    for (const [key, value] of given) el[key] = value;
    props.set(el, new Set(given.map(([key]) => key)));
  }
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else if (child instanceof Node) el.appendChild(child);
    else el.appendChild(document.createTextNode(String(child)));
  }
}

/** Replaces the children of `el`. */
export function mount(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/**
 * Makes the children of `el` exactly `nodes` (elements, in that order), moving only the ones not
 * already in their place: children kept in order stay where they are (not laid out again), new
 * ones are inserted, the others removed. For lists of elements built once and then only moved.
 */
export function arrange(el, nodes) {
  for (let i = 0; i < nodes.length; i++) {
    const at = el.childNodes[i] ?? null;
    if (at !== nodes[i]) el.insertBefore(nodes[i], at);
  }
  while (el.childNodes.length > nodes.length) el.lastChild.remove();
  return el;
}

/**
 * Makes the children of `el` those given (as mount() does) by changing the current ones in place:
 * a node of the same kind (tag and id) at the same position keeps its element and gets the new
 * attributes, properties, listeners (given to h()) and children; only what differs is written,
 * so unchanged parts are not laid out or painted again, and focus and scroll positions stay.
 * Canvases are replaced (their pixels are not in the DOM), as is a node of another kind; a node
 * given that already is the child at its position (a drawn canvas, a view's box) is left as it is.
 */
export function patch(el, ...children) {
  syncChildren(el, flat(children, []));
  return el;
}

/** The children as nodes, like append() makes them; a node already in the page stays there. */
function flat(children, out) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) flat(child, out);
    else out.push(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return out;
}

function sameKind(a, b) {
  if (a.nodeType !== b.nodeType || a.nodeName !== b.nodeName) return false;
  if (a.nodeType !== 1) return true;
  return a.id === b.id && a.nodeName !== 'CANVAS' && a.namespaceURI === b.namespaceURI;
}

function syncChildren(parent, nodes) {
  const old = [...parent.childNodes];
  let i = 0;
  for (; i < nodes.length; i++) {
    const o = old[i];
    const n = nodes[i];
    if (o === n) continue; // the same element, kept where it is (a canvas, a view's own box)
    if (o && sameKind(o, n)) syncNode(o, n);
    else if (o) parent.replaceChild(n, o);
    else parent.appendChild(n);
  }
  for (; i < old.length; i++) if (!nodes.includes(old[i])) old[i].remove();
}

function syncNode(o, n) {
  if (o.nodeType !== 1) {
    if (o.nodeValue !== n.nodeValue) o.nodeValue = n.nodeValue;
    return;
  }
  for (const a of [...o.attributes]) if (!n.hasAttribute(a.name)) o.removeAttribute(a.name);
  for (const a of n.attributes) {
    if (a.name === 'style') syncStyle(o.style, n.style);
    else if (o.getAttribute(a.name) !== a.value) o.setAttribute(a.name, a.value);
  }
  const was = listeners.get(o) ?? {};
  const now = listeners.get(n) ?? {};
  for (const [type, fn] of Object.entries(was)) if (now[type] !== fn) o.removeEventListener(type, fn);
  for (const [type, fn] of Object.entries(now)) if (was[type] !== fn) o.addEventListener(type, fn);
  if (Object.keys(was).length || Object.keys(now).length) listeners.set(o, { ...now });
  syncChildren(o, [...n.childNodes]);
  // Properties after the children: a select's value needs its options.
  for (const key of props.get(n) ?? []) if (o[key] !== n[key]) o[key] = n[key];
  if (props.has(n)) props.set(o, props.get(n));
}

/** Inline styles through the CSSOM, property by property: the page's CSP refuses style attributes. */
function syncStyle(o, n) {
  for (const prop of [...o]) if (!n.getPropertyValue(prop)) o.removeProperty(prop);
  for (const prop of n) {
    const value = n.getPropertyValue(prop);
    if (o.getPropertyValue(prop) !== value) o.setProperty(prop, value, n.getPropertyPriority(prop));
  }
}

const SVG_NS = 'http://www.w3.org/2000/svg';

/** An SVG element, like h() (which makes HTML elements): svg('line', {x1: 0, ...}, children...).
 *  null/false attributes are skipped, `dataset` takes an object; strings become text nodes. */
export function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'dataset') Object.assign(el.dataset, v);
    else el.setAttribute(k, String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.appendChild(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/**
 * Scrolls `el` to the top of the page's own viewport. Inside a frame only the frame's document
 * scrolls (on load scrollIntoView would scroll the course page around the frame too, hiding its
 * heading), unless `acrossFrames` (a step the student chose: the course page follows). Used by the lesson
 * (a link opened on its step) and the import view (a file of one head opened on it).
 */
export function scrollToStart(el, { acrossFrames = false } = {}) {
  if (!el) return;
  if (acrossFrames || window.self === window.top) {
    el.scrollIntoView({ block: 'start' });
    return;
  }
  const top = el.getBoundingClientRect().top + window.scrollY;
  window.scrollTo({ top: Math.max(0, top), behavior: 'instant' });
}
