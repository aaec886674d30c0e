// Small building blocks of the lab views "sink" and "routing": parameter inputs that commit with
// setParams on change (Enter or leaving the box), an SVG element builder (views/dom.js h() makes
// HTML elements only), and head / token labels. Text always goes in as text, never as HTML.
import { h } from '../views/dom.js';
import { showToken } from '../views/format.js';

const SVG_NS = 'http://www.w3.org/2000/svg';

/** An SVG element: svg('line', {x1: 0, ...}, children...). Strings become text nodes. */
export function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) {
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
 * True the first time `text` is committed from `input`. Chromium fires a second "change" when an
 * edited box loses focus after a scripted change event (or when a re-render removes it): without
 * this, a value already sent (and perhaps refused) would be sent again into the next state.
 */
export function once(input, text) {
  if (input.dataset.committed === text) return false;
  input.dataset.committed = text;
  return true;
}

/**
 * A labelled number input for parameter `name`, showing `value` (the value in effect). On change
 * it calls setParams({[name]: number}) (an empty box sends null = the default), once per value.
 */
export function numberParam({ name, label, value, setParams, min, max, step = 'any', title }) {
  const input = h('input', {
    type: 'number', class: 'num-box', id: `lab-param-${name}`, value: value ?? '', step,
    min: min ?? null, max: max ?? null, 'aria-label': label, title: title ?? null,
    onchange: (e) => {
      const text = e.target.value.trim();
      if (!once(e.target, text)) return;
      setParams({ [name]: text === '' ? null : Number(text) });
    },
  });
  return h('label', { class: 'inline lab-param' }, label, input);
}

/** The display name of head `i` of the state. */
export function headName(state, i) {
  const name = state.heads?.[i]?.name;
  return name ? name : `head ${i}`;
}

/** "t: token" for query row t (tokens shown visibly: leading spaces as ␣). */
export function rowLabel(state, t) {
  const tok = state.tokens?.queries?.[t];
  return tok === undefined ? `${t}` : `${t}: ${showToken(tok)}`;
}

/** The token of key j (visible spaces). */
export function keyLabel(state, j) {
  const tok = state.tokens?.keys?.[j];
  return tok === undefined ? `${j}` : showToken(tok);
}
