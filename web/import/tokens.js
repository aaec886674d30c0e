// Token views of an imported layer (docs/import.md "Token views"), as CircuitsVis's coloured tokens and BertViz's
// head view read a head:
//   text:  the tokens as text; choose one (hover, click, or the arrow keys) and the others are
//          shaded by its attention weight: the row of the chosen query (what it attends to) or
//          the column of the chosen key (what attends to it); one head or the core's mean over
//          the layer's heads.
//   lines: queries in a left column, keys in a right one, a line per (head, query, key) weighted
//          by the weight, one colour per head; hover or move to a token to show only its lines;
//          heads toggled with their checkboxes.
// A function of the weights it is given (the core's, from the import worker): no attention maths
// here beyond picking a row or a column and scaling a colour. Token strings are text (text nodes,
// never markup). Every shaded token and every line carries its weight in data-weight (a float32
// value written in full) so tests and users read the numbers behind the colours.
//
// The two views are web/import/token-text.js and web/import/token-lines.js; this module draws
// their tabs and export button and keeps the choice (tab, head, focus) across redraws.
import { h, mount } from '../views/dom.js';
import { tData } from '../views/format.js';
import { t } from '../i18n/i18n.js';
import { textView } from './token-text.js';
import { linesView } from './token-lines.js';

/** Largest side (queries or keys) the token views draw (the core's full-resolution thumbnail). */
export const TOKEN_VIEW_MAX = 1024;

/**
 * Builds the token views into `container`.
 * @param {HTMLElement} container
 * @param {object} o
 * @param {string[]} o.queryTokens     n_q tokens (missing ones are shown as their index)
 * @param {string[]} o.keyTokens       n_k tokens
 * @param {number} o.nQ
 * @param {number} o.nK
 * @param {{head: number, label: string, weights: Float32Array|null}[]} o.heads  the layer's heads
 *   (weights n_q * n_k row-major, NaN = not visible; null = not computed)
 * @param {Float32Array|null} o.mean   the core's mean over the computed heads
 * @param {number} o.selectedHead      the head shown first in the text view (-1 = the mean)
 * @param {string} o.title             the layer's name, for the exports
 * @param {(string|Node)[]} [o.heading] the heading as nodes (names as data, translate="no")
 * @param {(name: string, svg: string) => void} o.onExport  downloads an exported SVG
 * @returns {{state: object}} the views' current choice (tests and the exports read it)
 */
export function renderTokenViews(container, o) {
  const same = o.nQ === o.nK && o.queryTokens.every((q, i) => q === o.keyTokens[i]);
  const tokQ = (i) => o.queryTokens[i] ?? String(i);
  const tokK = (j) => o.keyTokens[j] ?? String(j);
  const st = (container.tokenState ??= {
    tab: 'text',
    which: o.selectedHead,
    direction: 'query',
    focus: null,
    locked: false,
    side: 'query',
  });
  if (!o.heads.some((x) => x.weights)) {
    mount(container, h('p', { class: 'note' }, t('views.tokens.notComputed', { why: '' })));
    return { state: st };
  }
  if (st.which >= 0 && !o.heads[st.which]?.weights) st.which = o.mean ? -1 : o.heads.findIndex((x) => x.weights);
  const tabs = h(
    'div',
    { class: 'token-tabs', role: 'tablist', 'aria-label': t('views.tokens.tabs') },
    ['text', 'lines'].map((id) =>
      h(
        'button',
        {
          type: 'button',
          role: 'tab',
          id: `token-tab-${id}`,
          'aria-selected': String(st.tab === id),
          onclick: () => {
            st.tab = id;
            st.focus = null;
            st.locked = false;
            renderTokenViews(container, o);
          },
        },
        t(`views.tokens.${id}`),
      ),
    ),
  );
  const body = h('div', { class: 'token-body', role: 'tabpanel', 'aria-labelledby': `token-tab-${st.tab}` });
  const exportButton = h('button', { type: 'button', id: 'token-export-svg' }, t('views.tokens.svg'));
  const heading = o.heading ?? tData('views.tokens.title', { name: o.title });
  mount(container, h('h4', {}, heading), tabs, body, h('div', { class: 'export-row' }, exportButton));
  const api = st.tab === 'text' ? textView(body, o, st, same, tokQ, tokK) : linesView(body, o, st, tokQ, tokK);
  exportButton.onclick = () => o.onExport(st.tab, api.toSvg());
  container.tokenApi = api;
  return { state: st };
}
