// Small building blocks of the lab views: number boxes that commit with setParams on change
// (Enter, leaving the box or an arrow-key step) and refuse bad text in words, the SVG element builder (re-exported from views/dom.js), head and
// token labels. Text always goes in as text, never as HTML; tokens and head names are data and
// go in elements marked translate="no" (the language check of the tests skips them).
import { h, svg } from '../views/dom.js';
import { clipTyped, showToken, tData } from '../views/format.js';
import { arrowSteps, rangeText, readBox } from '../views/number-box.js';
import { t } from '../i18n/i18n.js';

/**
 * Names the lab's sentences write as they are in every language: citations, people,
 * functions and formula pieces (the string tables hold them as placeholders). tn() fills them in
 * as text (attributes); tnData() as data nodes (translate="no") for element content.
 */
export const NAMES = Object.freeze({
  martins: 'Martins & Astudillo 2016',
  peters: 'Peters',
  katharopoulos: 'Katharopoulos',
  roy: 'Roy & Vetterli 2007',
  citeSink: 'Papamichalis & Ruane 2026, arXiv:2608.14712',
  performer: 'Performer',
  aitchison: 'Aitchison',
  shapley: 'Shapley',
  frobenius: 'Frobenius',
  relu: 'ReLU',
  elu1: 'elu + 1',
  bmax: 'B = max‖v_i‖',
  massB: '(1 − mass)·B',
  dmax: 'δ·max‖v_i‖',
  hna: 'H_norm(a)',
  hnb: 'H_norm(β)',
  dz: 'dz',
  api: 'results().lab (deletionShift)',
  phiRelu: 'φ(x) = relu(W x)/√m',
  phiElu: 'φ(x) = elu(x) + 1',
  alin: 'a_lin',
  olin: 'O_lin',
  olinV: 'O_lin = a_lin V',
  expForm: 'exp(q·k·scale/τ)',
  olinForm: 'O_lin[t] = φ(q_t)ᵀ(Σ_j φ(k_j) v_jᵀ) / φ(q_t)ᵀΣ_j φ(k_j)',
  alinForm: 'a_lin[t, j] = φ(q_t)·φ(k_j) / Σ',
  cForm: 'c = √(scale/τ)',
  sweepForm: 'a_j(θ) = softmax(scale · q(θ)·k_j / τ)',
});
const NAME_KEYS = Object.keys(NAMES);
export const tn = (key, vars = {}) => t(key, { ...NAMES, ...vars });
/** tData() with NAMES: `data` names the other placeholders that hold data (or nodes). */
export const tnData = (key, vars = {}, data = []) => tData(key, { ...NAMES, ...vars }, [...data, ...NAME_KEYS]);

export { svg }; // the lab views' SVG builder lives in views/dom.js

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
 * A number box of a lab view: a text box (inputmode decimal or numeric) read by the page's one
 * rule (views/number-box.js readBox, as the main controls' boxes). A good value within the box's
 * limits calls onValue(x) (on change: Enter, leaving the box or an arrow-key step); anything else
 * is refused in words in the lab's error area (#lab-error, web/page/render.js) and nothing is
 * sent: the value in effect stays (the refusal says which), and so do the lab's numbers.
 * min/max/minOpen/maxOpen/whole are the limits of the view's parameter spec (the core checks them
 * again: its refusal, for a limit no spec gives, is shown in the same place).
 * @param {{id: string, label: string, what?: () => string, value: number, onValue: (x: number) => void,
 *   min?: number, max?: number, minOpen?: boolean, maxOpen?: boolean, whole?: boolean,
 *   class?: string, title?: string|null, disabled?: boolean}} o  label: the box's aria-label;
 *   what: its name in a refusal (default the label)
 * @returns {HTMLInputElement}
 */
export function numberInput(o) {
  const spec = () => ({ min: o.min, max: o.max, minOpen: o.minOpen, maxOpen: o.maxOpen, whole: o.whole });
  const what = o.what ?? (() => o.label);
  const input = h('input', {
    type: 'text',
    inputmode: o.whole ? 'numeric' : 'decimal',
    autocomplete: 'off',
    spellcheck: 'false',
    class: o.class ?? 'num-box',
    id: o.id,
    value: o.value ?? '',
    'aria-label': o.label,
    title: o.title ?? null,
    disabled: o.disabled ?? false,
    onchange: () => commit(),
  });
  input.dataset.good = String(o.value ?? '');
  const commit = () => {
    const typed = input.value;
    if (!once(input, typed.trim())) return;
    const read = readBox(typed, spec());
    if ('x' in read) {
      input.removeAttribute('aria-invalid');
      refuseBox(input, null);
      if (String(read.x) !== input.dataset.good) o.onValue(read.x); // the value in effect: nothing to send
      return;
    }
    input.setAttribute('aria-invalid', 'true');
    const good = input.dataset.good;
    refuseBox(input, () => [boxReason(read, what(), spec()), tData('app.err.keeping', { kept: `${what()} = ${good}` })]);
  };
  arrowSteps(input, spec, commit);
  return input;
}

/** Why a box's text is refused, in the page's language (the typed text and the range as data). */
function boxReason(read, what, spec) {
  const text = clipTyped(read.text);
  if (read.problem === 'empty') return t('app.err.emptyBox');
  if (read.problem === 'notNumber') return tData('app.err.notNumber', { text });
  if (read.problem === 'tooLarge') return tData('app.err.boxTooLarge', { text });
  if (read.problem === 'whole') return tData('lab.err.whole', { what, text }, ['text']);
  return tData('lab.err.range', { what, text, range: rangeText(spec) }, ['text', 'range']);
}

/**
 * Shows `word` (a function wording the refusal) in the lab's error area, or clears a box's refusal
 * (word null): a "lab-refuse" event that web/page/render.js keeps with the state it was refused
 * against (so the refusal stays, re-worded, after a language change).
 */
function refuseBox(input, word) {
  input.dispatchEvent(new CustomEvent('lab-refuse', { bubbles: true, detail: { word } }));
}

/** A box of numberInput() shows `value` as the one in effect (a view that keeps its box across renders). */
export function showGood(input, value) {
  input.value = String(value);
  input.dataset.good = String(value);
  delete input.dataset.committed;
  input.removeAttribute('aria-invalid');
}

/**
 * A labelled number box for parameter `name` of the view, showing `value` (the value in effect):
 * numberInput() sending setParams({[name]: x}).
 */
export function numberParam({ name, label, value, setParams, id, labelClass = 'inline lab-param', ...rest }) {
  const input = numberInput({ id: id ?? `lab-param-${name}`, label, value, onValue: (x) => setParams({ [name]: x }), ...rest });
  return h('label', { class: labelClass }, label, input);
}

/** The display name of head `i` of the state (its name, else "head i" in the page's language). */
export function headName(state, i) {
  const name = state.heads?.[i]?.name;
  return name ? name : t('lab.headN', { i });
}

/** The head's name as a node: a name from the state is data (translate="no"). */
export function headNode(state, i) {
  const name = state.heads?.[i]?.name;
  return name ? h('span', { translate: 'no' }, name) : h('span', {}, t('lab.headN', { i }));
}

/** A formula written in text (the same in every language, like KaTeX): translate="no". */
export function math(text) {
  return h('span', { translate: 'no', class: 'math-text' }, text);
}

/** A token as data: an element with translate="no" and the token made visible (␣ for a space). */
export function tokenNode(token, tag = 'span', attrs = {}) {
  return h(tag, { translate: 'no', ...attrs }, showToken(token ?? ''));
}

/** "t: token" for query row t (tokens shown visibly: leading spaces as ␣). */
export function rowLabel(state, t) {
  const tok = state.tokens?.queries?.[t];
  return tok === undefined ? `${t}` : `${t}: ${showToken(tok)}`;
}

/** rowLabel as a node: the index as text, the token as data. */
export function rowNode(state, t) {
  const tok = state.tokens?.queries?.[t];
  return tok === undefined ? h('span', {}, `${t}`) : h('span', {}, `${t}: `, tokenNode(tok));
}

/** The token of key j (visible spaces). */
export function keyLabel(state, j) {
  const tok = state.tokens?.keys?.[j];
  return tok === undefined ? `${j}` : showToken(tok);
}

let tableCount = 0;

/**
 * A table in its own horizontal scroll box: a table wider than its panel (a phone, many heads or
 * long notes) scrolls inside the panel instead of widening the page (style.css ".scroll"). The box
 * is a tab stop named by the table's caption (or "table"), so a keyboard scrolls it too.
 */
export function scrollTable(table) {
  const caption = table.querySelector(':scope > caption');
  if (caption && !caption.id) caption.id = `${table.id || `lab-table-${++tableCount}`}-caption`;
  return h(
    'div',
    {
      class: 'scroll lab-table-scroll',
      tabindex: '0',
      role: 'group',
      'aria-labelledby': caption ? caption.id : null,
      'aria-label': caption ? null : t('lab.table'),
    },
    table,
  );
}
