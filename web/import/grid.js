// The overview grid: one card per analysed head (thumbnail, name, pattern label, metrics, a flag
// for weight above the diagonal of a causal model), by layer in file order or flat when sorted.
// Cards are built once per head and then only moved; click inspects, double click opens.
import { arrange, h } from '../views/dom.js';
import { fmtMetric } from '../views/format.js';
import { t } from '../i18n/i18n.js';
import { paintGrid } from '../views/overview.js';
import { getPalette } from '../views/palette.js';
import { visibleHeads } from './view-state.js';
import { headName, layerName, patternLabel } from './text.js';

/** @param {object} v the view (web/import/index.js): its store `ui`, `$`, and the other parts */
export function createGrid(v) {
  const { ui, $ } = v;

  /** The toolbar's sort and filter. */
  const viewOf = () => ({
    sort: $('import-sort').value,
    desc: $('import-desc').checked,
    filter: $('import-filter').value,
    range: $('import-range').value,
    min: $('import-min').value,
    max: $('import-max').value,
  });

  function card(r) {
    const canvas = h('canvas', { width: r.thumbCols, height: r.thumbRows, class: 'thumb', 'aria-hidden': 'true' });
    // The worker coloured the thumbnail (gridPixels) into a bitmap: put on the canvas as it is
    // when in the palette of the moment (else, or drawn again, coloured here).
    const image = ui.thumbImages.get(r.index);
    ui.thumbImages.delete(r.index);
    if (image && image.palette === getPalette()) canvas.getContext('bitmaprenderer').transferFromImageBitmap(image.bitmap);
    else if (r.thumbRows) paintGrid(canvas, r.thumbnail, r.thumbRows, r.thumbCols);
    if (image && image.palette !== getPalette()) image.bitmap.close();
    const s = r.summary;
    const label = r.verdict === 'invalid' ? 'NaN/Inf' : r.computed ? patternLabel(r.pattern) : t('import.card.notProbabilities');
    const shortLabel =
      r.verdict === 'invalid'
        ? 'NaN/Inf'
        : !r.computed
          ? t('import.card.notProbShort')
          : r.pattern.kind === 'sink'
            ? t('import.card.sinkShort')
            : patternLabel(r.pattern, { short: true });
    const text =
      t('import.card.title', { name: headName(ui.source, r), layer: r.layer, head: r.head, label }) +
      (r.computed
        ? t('import.card.titleMetrics', {
            score: fmtMetric(r.pattern.confidence, 3),
            hn: fmtMetric(s.meanNormalizedEntropy, 3),
            sink: fmtMetric(s.meanSinkMass, 3),
            neff: fmtMetric(s.meanNEff, 3),
          })
        : '');
    return h(
      'button',
      {
        type: 'button',
        class: `head-card pattern-${r.computed ? r.pattern.kind : 'none'}${ui.selected === r.index ? ' selected' : ''}`,
        id: `head-card-${r.layer}-${r.head}`,
        dataset: { index: r.index, pattern: r.computed ? r.pattern.kind : '' },
        title: text,
        'aria-pressed': ui.selected === r.index ? 'true' : 'false',
        onclick: () => v.inspect(r.index),
        ondblclick: () => v.openInPlayground(r.index),
      },
      canvas,
      h('span', { class: 'card-name', translate: 'no' }, headName(ui.source, r)),
      h(
        'span',
        { class: 'card-pattern', translate: r.verdict === 'invalid' ? 'no' : null },
        r.computed ? `${shortLabel} ${fmtMetric(r.pattern.confidence, 2)}` : shortLabel,
      ),
      r.computed
        ? h(
            'span',
            { class: 'card-metrics' },
            t('import.card.metrics', { hn: fmtMetric(s.meanNormalizedEntropy, 2), sink: fmtMetric(s.meanSinkMass, 2) }),
          )
        : null,
    );
  }

  /**
   * The flag of a head the structure check flagged: its above-diagonal mass, as text and as a bar
   * of that length (the badge is scaled to the head: 0.0007 and 0.57 do not look alike).
   */
  // (CSSOM, not a style attribute: the page's CSP allows no inline style.)
  function bar(mass) {
    const el = h('span', { class: 'card-flag-bar' });
    el.style.setProperty('width', `${Math.max(2, Math.round(Math.min(1, mass) * 100))}%`);
    return el;
  }
  function flagBadge(r, f) {
    const mass = f.aboveDiagonalMass;
    return h(
      'span',
      {
        class: 'card-flag',
        dataset: { mass: String(mass), rank: String(f.rank) },
        title: t('import.card.flagMassTitle', {
          mass: fmtMetric(mass, 3),
          n: r.check.rowsAboveDiagonal,
          from: r.check.firstRowAboveDiagonal,
          max: fmtMetric(r.check.maxAboveDiagonal, 3),
          rank: f.rank + 1,
          k: ui.flagged.size,
        }),
      },
      bar(mass),
      h('span', { class: 'card-flag-text' }, t('import.card.flagMass', { mass: fmtMetric(mass, 2) })),
    );
  }

  // Cards are built once per analysed head (a thumbnail and its colour scale) and then only
  // moved: rebuilding 144 of them on every progress message blocked the page for seconds. The
  // layer rows too: while heads arrive the grid only gains cards at the end of its rows (arrange:
  // the cards already in place are not laid out again).
  const cards = new Map();
  const rows = new Map(); // layer -> {el, label}: the rows of the grid by layer
  let flatRow = null;
  function cardOf(r) {
    let el = cards.get(r.index);
    if (!el) {
      el = card(r);
      cards.set(r.index, el);
    }
    const selected = ui.selected === r.index;
    if (el.classList.contains('selected') !== selected) el.classList.toggle('selected', selected);
    if (el.getAttribute('aria-pressed') !== String(selected)) el.setAttribute('aria-pressed', String(selected));
    // The flag follows the whole file's structure (it can change as heads arrive).
    const f = ui.flagged.get(r.index);
    const old = el.querySelector('.card-flag');
    if (!f) old?.remove();
    else if (!old || old.dataset.mass !== String(f.aboveDiagonalMass) || old.dataset.rank !== String(f.rank)) {
      old?.remove();
      el.append(flagBadge(r, f));
    }
    return el;
  }
  const clearCards = () => {
    cards.clear();
    rows.clear();
    flatRow = null;
  };

  function rowOf(layer, layerIndex) {
    const text = layerName(ui.source, layerIndex, layer);
    let row = rows.get(layer);
    if (!row) {
      const label = h('span', { class: 'layer-label', translate: 'no' }, text);
      row = { el: h('div', { class: 'layer-row' }, label), label };
      rows.set(layer, row);
    }
    if (row.label.textContent !== text) row.label.textContent = text;
    return row;
  }

  function renderGrid() {
    const grid = $('import-grid');
    const list = visibleHeads(ui.heads, viewOf(), ui.flagged);
    const byLayer = $('import-sort').value === 'order' && !$('import-desc').checked;
    // Out of the file's heads; after a Cancel (or while running) also how many were analysed.
    const total = ui.source.layout.layers * ui.source.layout.heads;
    const count =
      ui.heads.length < total
        ? t('import.countPartial', { n: list.length, total, analysed: ui.heads.length })
        : t('import.count', { n: list.length, total });
    if ($('import-count').textContent !== count) $('import-count').textContent = count;
    if (byLayer) {
      const layers = new Map();
      for (const r of list) {
        if (!layers.has(r.layer)) layers.set(r.layer, []);
        layers.get(r.layer).push(r);
      }
      arrange(
        grid,
        [...layers.entries()].map(([layer, rs]) => {
          const row = rowOf(layer, rs[0].layerIndex);
          return arrange(row.el, [row.label, ...rs.map(cardOf)]);
        }),
      );
    } else {
      flatRow ??= h('div', { class: 'layer-row flat' });
      arrange(grid, [arrange(flatRow, list.map(cardOf))]);
    }
  }

  return { renderGrid, clearCards };
}
