// Token labels along the axes of a canvas heatmap (the inspected head of the import, large
// heatmaps): a strip of labels above the grid (keys, rotated) and one beside it (queries), every
// cell labelled when cells are at least LABEL_PX apart, else every k-th; each label elided past
// ELIDE code points with the full token in its title; and a highlighted label that follows the
// cell under the pointer or the keyboard, so the token of the current row and column is always
// named even when its neighbours' labels are skipped. Token strings are text (textContent).
import { h } from './dom.js';
import { showToken } from './format.js';

export const LABEL_PX = 12; // least distance between two labels of a strip
export const ELIDE = 12; // code points of a label before it is cut with …

/** A token as an axis label: as the page shows it (␣, ⏎), at most ELIDE code points. */
export function elide(token, max = ELIDE) {
  const s = showToken(String(token ?? ''));
  const cps = [...s];
  return cps.length > max ? `${cps.slice(0, max - 1).join('')}…` : s;
}

/**
 * One axis strip.
 * @param {object} o
 * @param {'top'|'left'} o.orient      top: key labels over the grid; left: query labels beside it
 * @param {number} o.cells             cells along this axis (pooled or not)
 * @param {number} o.px                CSS pixels per cell
 * @param {(c: number) => {text: string, full: string}} o.label  the label of cell c
 * @param {string} [o.id]
 * @returns {{el: HTMLElement, setCurrent: (c: number|null) => void}}
 */
export function axisStrip(o) {
  const step = Math.max(1, Math.ceil(LABEL_PX / o.px));
  const top = o.orient === 'top';
  const el = h('div', { class: `axis-strip ${o.orient}`, id: o.id ?? null, 'aria-hidden': 'true', translate: 'no' });
  el.style.setProperty(top ? 'width' : 'height', `${Math.round(o.cells * o.px)}px`);
  const place = (span, c) => {
    const at = `${(c + 0.5) * o.px}px`;
    span.style.setProperty(top ? 'left' : 'top', at);
  };
  for (let c = 0; c < o.cells; c += step) {
    const { text, full } = o.label(c);
    const span = h('span', { class: 'axis-label', title: full, dataset: { cell: c } }, text);
    place(span, c);
    el.append(span);
  }
  const current = h('span', { class: 'axis-label current', hidden: true });
  el.append(current);
  return {
    el,
    setCurrent(c) {
      if (c === null || c === undefined) {
        current.hidden = true;
        return;
      }
      const { text, full } = o.label(c);
      current.textContent = text;
      current.title = full;
      current.dataset.cell = String(c);
      place(current, c);
      current.hidden = false;
    },
  };
}
