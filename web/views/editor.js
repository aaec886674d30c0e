// Numeric grid editor for one matrix (Q, K, V, logits or weights), with row labels (tokens) and
// add/remove row and column buttons. It parses what is typed and reports it; the app decides.
import { h, mount } from './dom.js';
import { clipTyped, showToken, tData } from './format.js';
import { t } from '../i18n/i18n.js';
import { SCHEMA } from '../generated/schema.js';
import { halfWidth, readDecimal } from './number-box.js';

/**
 * Parses a cell's text. Returns {value} or {error}. With allowNull, an empty cell or "-inf" is
 * null (a masked logit).
 */
export function parseCell(text, allowNull) {
  const typed = text.trim();
  const ascii = halfWidth(typed).trim();
  if (allowNull && (ascii === '' || /^[-\u2212](inf|infinity|∞)$/i.test(ascii))) return { value: null };
  const read = readDecimal(typed); // the boxes' rule (web/views/number-box.js)
  if (read.problem === 'empty') return { error: t('app.err.empty') };
  if (read.problem === 'notNumber') return { error: t('app.err.cellNotNumber', { text: clipTyped(typed) }) };
  if (read.problem === 'tooLarge') return { error: t('app.err.tooLarge', { text: clipTyped(typed) }) };
  return { value: read.x };
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
 * @param {string} o.title               the matrix's name (Q, K, V, logits, weights, X, WQ, ...)
 * @param {string} [o.label]             its name on screen, in the page's language (default: title)
 * @param {string} [o.hint]
 * @param {(number|null)[][]} o.matrix
 * @param {string[]} o.rowLabels
 * @param {boolean} [o.labelsEditable]
 * @param {string} [o.colPrefix]         column header prefix ("d" -> d1, d2, ...)
 * @param {string[]} [o.colLabels]       column headers (key tokens), instead of the prefix
 * @param {boolean} [o.allowNull]
 * @param {boolean} [o.readOnly]
 * @param {(i:number, j:number, v:number|null) => (string|Array|null)} o.onCell   returns an error (text or
 *   nodes) or null
 * @param {(i:number, text:string) => void} [o.onLabel]
 * @param {{addRow?:Function, removeRow?:Function, addCol?:Function, removeCol?:Function}} [o.resize]
 * @param {string} [o.rowNoun]  "query" | "key" | "token" | "d_model" | "concat" (app.noun.* key)
 * @param {'queries'|'keys'} [o.tokenKind]  which token list the row labels edit
 */
export function renderEditor(container, o) {
  const errorSlot = h('p', { class: 'error', role: 'alert', id: `${o.id}-error`, hidden: true });
  const label = o.label ?? o.title;
  const noun = t(`app.noun.${o.rowNoun ?? 'row'}`);
  // msg: text, or nodes (a refusal worded with its data in translate="no" spans).
  const showError = (msg) => {
    errorSlot.hidden = !msg;
    if (msg) mount(errorSlot, `${label}: `, msg);
    else errorSlot.textContent = '';
  };
  const cols = o.matrix[0]?.length ?? 0;
  const head = h(
    'tr',
    {},
    h('th', { class: 'corner' }, o.rowNoun ? noun : ''),
    Array.from({ length: cols }, (_, j) =>
      h(
        'th',
        {
          scope: 'col',
          class: 'col',
          translate: o.colLabels ? 'no' : null,
          title: o.colLabels ? t('app.editor.colTitle', { j, token: o.colLabels[j] }) : null,
        },
        o.colLabels ? showToken(o.colLabels[j] ?? '') : `${o.colPrefix ?? ''}${j + (o.colPrefix ? 1 : 0)}`,
      ),
    ),
  );
  const rows = o.matrix.map((row, i) =>
    h(
      'tr',
      {},
      h(
        'th',
        { scope: 'row' },
        o.labelsEditable && o.onLabel
          ? h('input', {
              class: 'token',
              type: 'text',
              value: o.rowLabels[i] ?? '',
              'aria-label': t('app.editor.tokenAria', { noun, i }),
              id: `${o.id}-label-${i}`,
              maxlength: SCHEMA.limits.maxTokenLength, // UTF-16 units: a pair is two, the schema counts it once
              spellcheck: 'false',
              dataset: { token: `${o.tokenKind}:${i}` },
              oninput: (ev) => o.onLabel(i, ev.target.value),
            })
          : h('span', { class: 'token', translate: 'no' }, o.rowLabels[i] ?? String(i)),
      ),
      row.map((x, j) =>
        h(
          'td',
          {},
          h('input', {
            type: 'text',
            inputmode: 'decimal',
            class: 'num',
            id: `${o.id}-r${i}-c${j}`,
            value: showCell(x),
            title: x === null ? null : String(x),
            placeholder: o.allowNull ? t('app.editor.masked') : '',
            'aria-label': t('app.editor.cellAria', { title: label, i, j }),
            readonly: o.readOnly || null,
            oninput: (ev) => {
              const parsed = parseCell(ev.target.value, o.allowNull);
              let err = parsed.error ?? null;
              if (!err) err = o.onCell(i, j, parsed.value);
              ev.target.classList.toggle('invalid', !!err);
              ev.target.setAttribute('aria-invalid', err ? 'true' : 'false');
              showError(err ? tData('app.err.cell', { i, j, error: err }, Array.isArray(err) ? ['error'] : []) : null);
            },
          }),
        ),
      ),
    ),
  );
  const r = o.resize ?? {};
  const button = (label, fn, title) => (fn ? h('button', { type: 'button', class: 'small', title, onclick: fn }, label) : null);
  mount(
    container,
    h(
      'div',
      { class: 'editor-head' },
      h('h3', {}, label),
      h('span', { class: 'shape' }, `${o.matrix.length} × ${cols}`),
      h(
        'span',
        { class: 'buttons' },
        button(t('app.editor.addRow'), r.addRow, t('app.editor.addRowTitle', { noun })),
        button(t('app.editor.removeRow'), r.removeRow, t('app.editor.removeRowTitle', { noun })),
        button(t('app.editor.addCol'), r.addCol, t('app.editor.addColTitle')),
        button(t('app.editor.removeCol'), r.removeCol, t('app.editor.removeColTitle')),
      ),
    ),
    o.hint ? h('p', { class: 'note' }, o.hint) : null,
    h('div', { class: 'scroll' }, h('table', { class: 'editor', id: o.id }, h('thead', {}, head), h('tbody', {}, rows))),
    errorSlot,
  );
  return { showError };
}
