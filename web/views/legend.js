// The heatmaps' colour scale: a value's colour on the page's palette (views/palette.js) with black
// or white text for it, and the legend bar under a heatmap's title (also the import view's and the
// large-head overview's).
import { h } from './dom.js';
import { fmtCell } from './format.js';
import { getPalette, paletteColour, paletteGradient, textColourOn } from './palette.js';
import { t } from '../i18n/i18n.js';

/** Colour of value x on [lo, hi] in the current palette, and black or white text for it. */
export function cellColours(x, lo, hi) {
  const u = hi > lo ? Math.min(1, Math.max(0, (x - lo) / (hi - lo))) : 0.5;
  const bg = paletteColour(u);
  return { bg, fg: textColourOn(bg) };
}

/** A horizontal colour bar with its end values and the masked-cell key. */
export function renderLegend(lo, hi, digits = 2, maskedText = null) {
  const loText = fmtCell(lo, digits);
  const hiText = fmtCell(hi, digits);
  return h(
    'div',
    { class: 'legend' },
    h('span', { class: 'legend-num' }, loText),
    h('span', {
      class: 'legend-bar',
      role: 'img',
      style: { 'background-image': paletteGradient() },
      'aria-label': t('a11y.legend', { palette: t(`a11y.palette.${getPalette()}`), lo: loText, hi: hiText }),
    }),
    h('span', { class: 'legend-num' }, hiText),
    maskedText
      ? h('span', { class: 'legend-masked' }, h('span', { class: 'swatch grey' }), ` ${maskedText}`)
      : h(
          'span',
          { class: 'legend-masked' },
          h('span', { class: 'swatch masked', 'aria-hidden': 'true' }, '×'),
          ` ${t('a11y.legendMasked')}`,
        ),
  );
}
