// Small building blocks of the lab views "sink" and "routing": parameter inputs that commit with
// setParams on change (Enter or leaving the box), the SVG element builder (re-exported from
// views/dom.js), and head / token labels. Text always goes in as text, never as HTML.
import { h, svg } from '../views/dom.js';

export { svg }; // the lab views' SVG builder lives in views/dom.js
import { showToken } from '../views/format.js';



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
