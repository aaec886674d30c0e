// Numeric grid editor for one matrix (Q, K, V, logits or weights), with row labels (tokens) and
// add/remove row and column buttons. It parses what is typed and reports it; the app decides.
import { h, mount } from './dom.js';
import { showToken } from './format.js';

/**
 * Parses a cell's text. Returns {value} or {error}. With allowNull, an empty cell or "-inf" is
 * null (a masked logit).
 */
export function parseCell(text, allowNull) {
  const t = text.trim();
  if (allowNull && (t === '' || /^-(inf|infinity|∞)$/i.test(t))) return { value: null };
  if (t === '') return { error: 'empty cell: type a number' };
  const plain = t.replace('−', '-');
  // Plain decimals only (Number() would also take "0x10" or "0b1").
  if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(plain)) return { error: `"${t}" is not a number` };
  const x = Number(plain);
  if (!Number.isFinite(x)) return { error: `"${t}" is too large` };
  return { value: x };
}

/** What a cell shows: up to 7 significant digits (float32 noise hidden, exponents kept). The
 * state keeps the exact number until the cell is edited. */
export function showCell(x) {
  if (x === null) return '';
  return Number.isInteger(x) && Math.abs(x) < 1e7 ? String(x) : String(Number(x.toPrecision(7)));
}

/**
 * @param {HTMLElement} container
 * @param {object} o
 * @param {string} o.id                  DOM id prefix; inputs are `${id}-r${i}-c${j}`
 * @param {string} o.title
 * @param {string} [o.hint]
 * @param {(number|null)[][]} o.matrix
 * @param {string[]} o.rowLabels
 * @param {boolean} [o.labelsEditable]
 * @param {string} [o.colPrefix]         column header prefix ("d" -> d1, d2, ...)
 * @param {string[]} [o.colLabels]       column headers (key tokens), instead of the prefix
 * @param {boolean} [o.allowNull]
 * @param {boolean} [o.readOnly]
 * @param {(i:number, j:number, v:number|null) => (string|null)} o.onCell   returns an error or null
 * @param {(i:number, text:string) => void} [o.onLabel]
 * @param {{addRow?:Function, removeRow?:Function, addCol?:Function, removeCol?:Function}} [o.resize]
 * @param {string} [o.rowNoun]  "query" | "key"
 * @param {'queries'|'keys'} [o.tokenKind]  which token list the row labels edit
 */
export function renderEditor(container, o) {
  const errorSlot = h('p', { class: 'error', role: 'alert', id: `${o.id}-error`, hidden: true });
  const showError = (msg) => {
    errorSlot.hidden = !msg;
    errorSlot.textContent = msg ? `${o.title}: ${msg}` : '';
  };
  const cols = o.matrix[0]?.length ?? 0;
  const head = h('tr', {}, h('th', { class: 'corner' }, o.rowNoun ?? ''),
    Array.from({ length: cols }, (_, j) => h('th', { scope: 'col', class: 'col', title: o.colLabels ? `key ${j}: ${o.colLabels[j]}` : null },
      o.colLabels ? showToken(o.colLabels[j] ?? '') : `${o.colPrefix ?? ''}${j + (o.colPrefix ? 1 : 0)}`)));
  const rows = o.matrix.map((row, i) => h('tr', {},
    h('th', { scope: 'row' },
      o.labelsEditable && o.onLabel
        ? h('input', {
          class: 'token', type: 'text', value: o.rowLabels[i] ?? '', 'aria-label': `${o.rowNoun ?? 'row'} ${i} token`,
          id: `${o.id}-label-${i}`, maxlength: 200, spellcheck: 'false', dataset: { token: `${o.tokenKind}:${i}` },
          oninput: (ev) => o.onLabel(i, ev.target.value),
        })
        : h('span', { class: 'token' }, o.rowLabels[i] ?? String(i))),
    row.map((x, j) => h('td', {}, h('input', {
      type: 'text', inputmode: 'decimal', class: 'num', id: `${o.id}-r${i}-c${j}`,
      value: showCell(x), title: x === null ? null : String(x), placeholder: o.allowNull ? 'masked' : '',
      'aria-label': `${o.title} row ${i} column ${j}`, readonly: o.readOnly || null,
      oninput: (ev) => {
        const parsed = parseCell(ev.target.value, o.allowNull);
        let err = parsed.error ?? null;
        if (!err) err = o.onCell(i, j, parsed.value);
        ev.target.classList.toggle('invalid', !!err);
        ev.target.setAttribute('aria-invalid', err ? 'true' : 'false');
        showError(err ? `row ${i}, column ${j}: ${err}` : null);
      },
    })))));
  const r = o.resize ?? {};
  const button = (label, fn, title) => fn
    ? h('button', { type: 'button', class: 'small', title, onclick: fn }, label) : null;
  mount(container,
    h('div', { class: 'editor-head' },
      h('h3', {}, o.title),
      h('span', { class: 'shape' }, `${o.matrix.length} × ${cols}`),
      h('span', { class: 'buttons' },
        button('+ row', r.addRow, `add a ${o.rowNoun ?? 'row'}`),
        button('− row', r.removeRow, `remove the last ${o.rowNoun ?? 'row'}`),
        button('+ col', r.addCol, 'add a column'),
        button('− col', r.removeCol, 'remove the last column'))),
    o.hint ? h('p', { class: 'note' }, o.hint) : null,
    h('div', { class: 'scroll' }, h('table', { class: 'editor', id: o.id }, h('thead', {}, head), h('tbody', {}, rows))),
    errorSlot);
  return { showError };
}
