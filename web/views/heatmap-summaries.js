// The rows' text summaries of a weights heatmap (entropy, N_eff, the largest weights, masked keys)
// and the page's polite live region, where the selected row's summary is announced
// (docs/accessibility.md "Screen readers").
import { h } from './dom.js';
import { t } from '../i18n/i18n.js';
import { quote } from './heatmap-setup.js';

/** A number as the summaries write it: 3 significant digits, identical in every language. */
function num3(x) {
  if (x === null || x === undefined || !Number.isFinite(x)) return '—';
  return String(Number(x.toPrecision(3)));
}

/**
 * The text summary of one row of weights, e.g. "Row 2 (query 'sat'): entropy 0.93 nats, N_eff 2.5,
 * the largest weights on 'cat' 0.51, 'sat' 0.3; 1 key masked."
 * @param {object} o
 * @param {number} o.index           the row's index in the full matrix
 * @param {string} o.token           its query token
 * @param {(number|null)[]} o.weights the row (null = not visible)
 * @param {boolean[]} o.visible
 * @param {string[]} o.keys          key tokens
 * @param {{entropy: number|null, nEff: number|null, empty?: boolean}} [o.metrics]
 * @param {number} [o.top]           how many of the largest weights to name (3)
 */
export function rowSummary(o) {
  const masked = o.visible.filter((v) => !v).length;
  const maskedText = masked ? t('a11y.summaryMasked', { n: masked }) : '';
  const head = t('a11y.summaryHead', { row: o.index, token: quote(o.token) });
  const live = o.weights.map((w, j) => [w, j]).filter(([w, j]) => o.visible[j] && w !== null && Number.isFinite(w));
  if (o.metrics?.empty || !live.length) return t('a11y.summaryEmpty', { head, masked: maskedText });
  const top = live
    .filter(([w]) => w > 0)
    .sort((a, b) => b[0] - a[0] || a[1] - b[1])
    .slice(0, o.top ?? 3)
    .map(([w, j]) => t('a11y.summaryWeight', { token: quote(o.keys[j]), w: num3(w) }));
  return t('a11y.summary', {
    head,
    entropy: num3(o.metrics?.entropy),
    neff: num3(o.metrics?.nEff),
    top: top.join(t('a11y.listSep')),
    masked: maskedText,
  });
}

// One polite live region for the page: a heatmap with `announce` writes the selected row's
// summary into it when the selected row changes. It exists from the start so that the first
// change is announced too.
function liveRegion() {
  let el = document.getElementById('a11y-live');
  if (!el) {
    el = h('p', { id: 'a11y-live', class: 'visually-hidden', 'aria-live': 'polite', 'aria-atomic': 'true' });
    document.body.append(el);
  }
  return el;
}
if (typeof document !== 'undefined' && document.body) liveRegion();

/** Writes `text` into the page's live region (screen readers read it when they are idle). */
export function announce(text) {
  liveRegion().textContent = text;
}

/** The rows' summaries as list items (the selected one marked); `s`: container.heatmapSummaries. */
export function fillSummaries(list, s) {
  if (!list || !s) return;
  while (list.children.length > s.rows) list.lastElementChild.remove();
  for (let i = 0; i < s.rows; i++) {
    let li = list.children[i];
    if (!li) {
      li = h('li', {});
      list.append(li);
    }
    const text = s.of(i);
    if (li.textContent !== text) li.textContent = text;
    const cls = i === s.selectedRow ? 'selected' : '';
    if (li.className !== cls) li.className = cls;
  }
}
