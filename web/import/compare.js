// Two runs compared: a second file of the same shape (another prompt, a patched run) read in the
// import worker beside the open one, every head compared by the core (compareHeads: the change
// B - A of each head mean of the metrics table, the labels, the Jensen-Shannon divergence
// of the rows), shown as a grid coloured by the chosen difference and a sortable table; CSV/JSON
// exports with the columns of `attn compare`. Nothing is computed here: the numbers are the core's.
import { h, mount } from '../views/dom.js';
import { fmtMetric, tData } from '../views/format.js';
import { download, toCsv, toJson } from '../export/files.js';
import { t } from '../i18n/i18n.js';
import { HEAD_METRICS, deltaKey, metricShort } from '../views/metrics.js';
import { numberHead } from './view-state.js';
import { errDetail, headName } from './text.js';

/** The differences a comparison shows: their label and how to read them from a compared head:
 *  the Jensen-Shannon divergences, then B - A of every head mean of the core's metrics table. */
export const COMPARE_METRICS = {
  meanJsd: { label: () => t('import.compare.col.meanJsd'), get: (c) => c.meanJsd },
  maxJsd: { label: () => t('import.compare.col.maxJsd'), get: (c) => c.maxJsd },
  ...Object.fromEntries(
    HEAD_METRICS.map((m) => [
      deltaKey(m),
      { label: () => t('import.compare.col.delta', { metric: metricShort(m) }), get: (c) => c[deltaKey(m)] },
    ]),
  ),
};
const DELTA_KEYS = HEAD_METRICS.map(deltaKey);

/** The CSV columns, as `attn compare --format csv` writes them (cpp/cli/compare.cpp). */
export const COMPARE_CSV_COLUMNS = [
  'layer',
  'head',
  ...HEAD_METRICS.flatMap((m) => [`${m.csv}_a`, `${m.csv}_b`, `delta_${m.csv}`]),
  'pattern_a',
  'pattern_b',
  'label_changed',
  'mean_jsd',
  'max_jsd',
  'max_jsd_row',
];

const side = (s, key) => (s.computed ? s.summary[key] : NaN);

/** One compared head as a CSV row (COMPARE_CSV_COLUMNS). */
export function compareCsvRow(c) {
  return [
    c.layer,
    c.head,
    ...HEAD_METRICS.flatMap((m) => [side(c.a, m.head.key), side(c.b, m.head.key), c[deltaKey(m)]]),
    c.labelA,
    c.labelB,
    c.labelChanged ? 'true' : 'false',
    c.meanJsd,
    c.maxJsd,
    c.maxJsdRow >= 0 ? c.maxJsdRow : '',
  ];
}

/** @param {object} v the view (web/import/index.js): its store `ui`, `$`, and the other parts */
export function createCompare(v) {
  const { ui, $ } = v;
  const view = { metric: 'meanJsd', sort: 'meanJsd', desc: true };

  async function compareWith(file) {
    if (!ui.source) return;
    const generation = ++ui.generation;
    ui.comparison = { name: file.name, heads: [], done: 0, total: ui.source.layout.layers * ui.source.layout.heads, error: null };
    renderComparison();
    let last = 0;
    try {
      const r = await v.getWorker().request({ type: 'compare', file, name: file.name, options: v.analysisOptions(ui.reading) }, (m) => {
        if (generation !== ui.generation || !ui.comparison) return;
        ui.comparison.heads.push(numberHead(ui.source, m.head));
        ui.comparison.done = m.done;
        const now = performance.now();
        if (now - last > 250 || m.done === m.total) {
          last = now;
          renderComparison();
        }
      });
      if (generation !== ui.generation || !ui.comparison) return;
      ui.comparison.cancelled = r.cancelled;
    } catch (e) {
      if (generation !== ui.generation || !ui.comparison) return;
      ui.comparison.error = e;
    }
    renderComparison();
  }

  function sorted(list) {
    const get = COMPARE_METRICS[view.sort]?.get;
    if (!get) return [...list].sort((a, b) => a.index - b.index);
    const dir = view.desc ? -1 : 1;
    return [...list].sort((a, b) => {
      const x = get(a);
      const y = get(b);
      if (!Number.isFinite(x)) return Number.isFinite(y) ? 1 : a.index - b.index;
      if (!Number.isFinite(y)) return -1;
      return (x - y) * dir || a.index - b.index;
    });
  }

  function renderComparison() {
    const box = $('import-compare');
    const c = ui.comparison;
    if (!c) {
      box.hidden = true;
      return;
    }
    box.hidden = false;
    const title = h('h3', {}, tData('import.compare.title', { a: ui.source.name, b: c.name }, ['a', 'b']));
    if (c.error) {
      mount(box, title, h('p', { class: 'error' }, errDetail(c.error)));
      return;
    }
    const heads = c.heads;
    const changed = heads.filter((x) => x.labelChanged).length;
    const worst = heads.reduce((a, b) => (Number.isFinite(b.meanJsd) && (!a || b.meanJsd > a.meanJsd) ? b : a), null);
    const summary = h(
      'p',
      { class: 'note', id: 'import-compare-summary', role: 'status' },
      c.done < c.total && !c.cancelled
        ? t('import.compare.running', { n: c.done, total: c.total })
        : t('import.compare.summary', {
            n: heads.length,
            changed,
            max: worst ? fmtMetric(worst.meanJsd, 4) : '—',
            where: worst ? headName(ui.source, worst) : '—',
          }),
    );
    const metricSelect = h(
      'select',
      {
        id: 'import-compare-metric',
        'aria-label': t('import.compare.metric'),
        onchange: (ev) => {
          view.metric = ev.target.value;
          renderComparison();
        },
      },
      Object.entries(COMPARE_METRICS).map(([k, m]) => h('option', { value: k, selected: k === view.metric }, m.label())),
    );
    const get = COMPARE_METRICS[view.metric].get;
    const scale = Math.max(1e-12, ...heads.map((x) => Math.abs(get(x))).filter(Number.isFinite));
    const grid = h(
      'div',
      { class: 'compare-grid', id: 'import-compare-grid' },
      heads.map((x) => {
        const val = get(x);
        const a = Number.isFinite(val) ? Math.abs(val) / scale : 0;
        // Blue for a decrease, red for an increase (JSD is >= 0: red).
        const rgb = val < 0 ? '40, 90, 200' : '200, 50, 40';
        const cell = h(
          'div',
          {
            class: `compare-cell${x.labelChanged ? ' changed' : ''}`,
            dataset: { index: x.index, value: String(val) },
            title: t('import.compare.cellTitle', {
              name: headName(ui.source, x),
              value: fmtMetric(val, 4),
              a: x.labelA,
              b: x.labelB,
            }),
          },
          h('span', { translate: 'no' }, headName(ui.source, x)),
          h('br'),
          fmtMetric(val, 3),
        );
        // CSSOM, not a style attribute (the page's CSP allows no inline style). No difference is
        // no colour: neither higher nor lower in B.
        if (val !== 0) cell.style.setProperty('background', `rgba(${rgb}, ${(0.08 + 0.72 * a).toFixed(3)})`);
        return cell;
      }),
    );
    // What the colours mean: the scale is the largest |value| of the chosen metric.
    const swatch = (rgb) => {
      const el = h('span', { class: 'swatch compare-swatch' });
      el.style.setProperty('background', `rgba(${rgb}, 0.8)`);
      return el;
    };
    const max = fmtMetric(scale, 3);
    const legend = h(
      'p',
      { class: 'note', id: 'import-compare-legend' },
      view.metric.endsWith('Jsd')
        ? [swatch('200, 50, 40'), ' ', t('import.compare.legendJsd', { max })]
        : [
            swatch('40, 90, 200'),
            ' ',
            t('import.compare.legendDown'),
            ' ',
            swatch('200, 50, 40'),
            ' ',
            t('import.compare.legendUp', { max }),
          ],
      ' ',
      h('span', { class: 'swatch compare-swatch changed' }),
      ' ',
      t('import.compare.legendChanged'),
    );
    // [label, sort key or null]
    const col = (k) => t(`import.compare.col.${k}`);
    const cols = [
      [col('layer'), null],
      [col('head'), null],
      ...DELTA_KEYS.map((k) => [COMPARE_METRICS[k].label(), k]),
      [col('labelA'), null],
      [col('labelB'), null],
      [col('changed'), null],
      [col('meanJsd'), 'meanJsd'],
      [col('maxJsd'), 'maxJsd'],
    ];
    const table = h(
      'table',
      { class: 'metrics-table compare-table', id: 'import-compare-table' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          cols.map(([label, key]) =>
            h(
              'th',
              { scope: 'col', 'aria-sort': key && view.sort === key ? (view.desc ? 'descending' : 'ascending') : null },
              key
                ? h(
                    'button',
                    {
                      type: 'button',
                      dataset: { sort: key },
                      onclick: () => {
                        view.desc = view.sort === key ? !view.desc : true;
                        view.sort = key;
                        renderComparison();
                      },
                    },
                    label,
                  )
                : label,
            ),
          ),
        ),
      ),
      h(
        'tbody',
        {},
        sorted(heads).map((x) =>
          h(
            'tr',
            { dataset: { index: x.index } },
            [
              x.layer,
              x.head,
              ...DELTA_KEYS.map((k) => x[k]),
              x.labelA,
              x.labelB,
              x.labelChanged ? t('import.compare.yes') : '',
              x.meanJsd,
              x.maxJsd,
            ].map((val) => h('td', {}, typeof val === 'number' ? (Number.isInteger(val) ? String(val) : fmtMetric(val, 4)) : String(val))),
          ),
        ),
      ),
    );
    const stem = `${(ui.source.name ?? 'a').replace(/\.[^.]+$/, '')}_vs_${c.name.replace(/\.[^.]+$/, '')}`.replace(/[^\w.-]+/g, '_');
    const exports = h(
      'div',
      { class: 'export-row' },
      h(
        'button',
        { type: 'button', id: 'export-compare-csv', onclick: () => download(`${stem}_compare.csv`, compareCsv(), 'text/csv') },
        t('import.compare.exportCsv'),
      ),
      h(
        'button',
        { type: 'button', id: 'export-compare-json', onclick: () => download(`${stem}_compare.json`, compareJson(), 'application/json') },
        t('import.compare.exportJson'),
      ),
      h(
        'button',
        {
          type: 'button',
          id: 'import-compare-close',
          onclick: () => {
            ui.comparison = null;
            renderComparison();
          },
        },
        t('import.compare.close'),
      ),
    );
    mount(
      box,
      title,
      summary,
      h('label', { class: 'inline' }, t('import.compare.metric'), ' ', metricSelect),
      grid,
      legend,
      h('div', { class: 'scroll' }, table),
      exports,
    );
  }

  /** The comparison as CSV: the columns of `attn compare --format csv`, heads in file order. */
  function compareCsv() {
    return toCsv(COMPARE_CSV_COLUMNS, [...ui.comparison.heads].sort((a, b) => a.index - b.index).map(compareCsvRow));
  }
  /** The comparison as JSON: the fields of `attn compare` per head. */
  function compareJson() {
    const c = ui.comparison;
    const s = ui.source;
    const sideJson = (x, label) => ({
      verdict: x.verdict,
      meanEntropy: side(x, 'meanEntropy'),
      meanNormalizedEntropy: side(x, 'meanNormalizedEntropy'),
      meanSinkMass: side(x, 'meanSinkMass'),
      pattern: x.computed ? x.pattern.kind : null,
      parameter: x.pattern.parameter,
      confidence: x.computed ? x.pattern.confidence : null,
      label,
    });
    return toJson({
      a: s.name,
      b: c.name,
      layers: s.layout.layers,
      layerNumbers: Array.from({ length: s.layout.layers }, (_, i) => s.layerNumbers?.[i] ?? i),
      headsPerLayer: s.layout.heads,
      nQ: s.layout.nQ,
      nK: s.layout.nK,
      reading: ui.reading,
      causal: ui.causal,
      // Run A's structure as its analysis found it (the same object as the Metrics JSON's and
      // attn compare's): "causal" above is only the box.
      structure: ui.structure,
      heads: [...c.heads]
        .sort((a, b) => a.index - b.index)
        .map((x) => ({
          layer: x.layer,
          layerIndex: x.layerIndex,
          head: x.head,
          a: sideJson(x.a, x.labelA),
          b: sideJson(x.b, x.labelB),
          delta: { meanEntropy: x.deltaEntropy, meanNormalizedEntropy: x.deltaNormalizedEntropy, meanSinkMass: x.deltaSinkMass },
          labelChanged: x.labelChanged,
          meanJsd: x.meanJsd,
          maxJsd: x.maxJsd,
          maxJsdRow: x.maxJsdRow >= 0 ? x.maxJsdRow : null,
        })),
      labelChanges: c.heads.filter((x) => x.labelChanged).length,
    });
  }

  return { compareWith, renderComparison, compareCsv, compareJson };
}
