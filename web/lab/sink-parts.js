// Lab view "sink" (web/lab/sink.js), its parts: the stacked entropy bars with their legend, the
// rows' and the heads' tables, and the head pairs under keep-sink and drop-sink with the
// Aitchison split. Numbers are the core's (lab_sink.cpp); these functions only lay them out.
import { h } from '../views/dom.js';
import { fmtMetric, tData } from '../views/format.js';
import { t } from '../i18n/i18n.js';
import { headNode, rowNode, scrollTable, tnData } from './lab-controls.js';

export const f = (x, d = 4) => fmtMetric(x, d);
export const METRICS = [
  ['jsd', 'lab.sink.metric.jsd'],
  ['cosine', 'lab.sink.metric.cosine'],
  ['entropyGap', 'lab.sink.metric.entropyGap'],
];

/** A stacked bar of the entropy's parts, widths relative to `scale` (nats). */
export function bar(parts, scale, label) {
  return h(
    'div',
    { class: 'sink-bar', role: 'img', 'aria-label': label },
    parts
      .filter(([, x]) => x > 0)
      .map(([cls, x, title]) =>
        h('span', {
          class: `sink-seg ${cls}`,
          title,
          style: { width: `${Math.min(100, (100 * x) / scale)}%` },
        }),
      ),
  );
}

export function legend(withSpread) {
  return h(
    'p',
    { class: 'note sink-legend' },
    h('span', { class: 'sink-swatch seg-sink' }),
    ` ${t('lab.sink.legend.sink')}  `,
    withSpread ? [h('span', { class: 'sink-swatch seg-spread' }), ` ${t('lab.sink.legend.spread')}  `] : null,
    h('span', { class: 'sink-swatch seg-content' }),
    ` ${t('lab.sink.legend.content')}`,
  );
}

/** The rows [lo, hi) of the per-row table (all rows by default; bars scaled over all rows). */
export function rowsTable(state, lab, lo = 0, hi = lab.rows.length) {
  const spread = lab.sinkKeys > 1;
  const scale = Math.max(1e-9, ...lab.rows.map((r) => r.entropy ?? 0));
  return scrollTable(
    h(
      'table',
      { class: 'metrics-table sink-rows', id: 'lab-sink-rows' },
      h('caption', {}, tData('lab.sink.rowsCaption', { name: headNode(state, lab.head), parts: spread ? 's·H(σ) + ' : '' }, ['name'])),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          [
            t('lab.col.row'),
            t('lab.sink.col.parts'),
            's',
            'h(s)',
            spread ? 's·H(σ)' : null,
            'H(c)',
            '(1−s)·H(c)',
            'H',
            t('lab.sink.col.residual'),
          ]
            .filter(Boolean)
            .map((c) => h('th', { scope: 'col' }, c)),
        ),
      ),
      h(
        'tbody',
        {},
        lab.rows.slice(lo, hi).map((r) => {
          if (r.empty) {
            return h(
              'tr',
              { dataset: { row: r.row }, class: 'empty-row' },
              h('td', {}, rowNode(state, r.row)),
              h('td', { colspan: spread ? 8 : 7 }, t('lab.undefinedEmptyRow')),
            );
          }
          const parts = [
            ['seg-sink', r.sinkEntropy, `h(s) = ${f(r.sinkEntropy)}`],
            ['seg-spread', r.sinkSpreadTerm, `s·H(σ) = ${f(r.sinkSpreadTerm)}`],
            ['seg-content', r.contentTerm, `(1−s)·H(c) = ${f(r.contentTerm)}`],
          ];
          return h(
            'tr',
            { dataset: { row: r.row }, class: r.row === state.row ? 'selected-row' : null },
            h('td', {}, rowNode(state, r.row)),
            h('td', { class: 'bar-cell' }, bar(parts, scale, t('lab.sink.rowBarAria', { row: r.row, h: f(r.entropy) }))),
            h('td', { dataset: { value: r.sinkMass } }, f(r.sinkMass)),
            h('td', { dataset: { value: r.sinkEntropy } }, f(r.sinkEntropy)),
            spread ? h('td', { dataset: { value: r.sinkSpreadTerm } }, f(r.sinkSpreadTerm)) : null,
            h('td', { dataset: { value: r.contentEntropy ?? '' } }, r.contentDefined ? f(r.contentEntropy) : t('lab.sink.undefinedS1')),
            h('td', { dataset: { value: r.contentTerm } }, f(r.contentTerm)),
            h('td', { dataset: { value: r.entropy } }, f(r.entropy)),
            h('td', { dataset: { value: r.residual } }, r.residual === 0 ? '0' : r.residual.toExponential(1)),
          );
        }),
      ),
    ),
  );
}

export function headsTable(state, lab) {
  const spread = lab.sinkKeys > 1;
  const scale = Math.max(1e-9, ...lab.heads.map((x) => x.meanEntropy ?? 0));
  const mean = (what) => t('lab.sink.mean', { what });
  return scrollTable(
    h(
      'table',
      { class: 'metrics-table sink-heads', id: 'lab-sink-heads' },
      h('caption', {}, t('lab.sink.headsCaption', { parts: spread ? `${mean('s·H(σ)')} + ` : '' })),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          [
            t('lab.col.head'),
            mean(t('lab.sink.col.parts')),
            mean('s'),
            mean('h(s)'),
            spread ? mean('s·H(σ)') : null,
            mean('(1−s)·H(c)'),
            mean('H'),
            mean('H(c)'),
          ]
            .filter(Boolean)
            .map((c) => h('th', { scope: 'col' }, c)),
        ),
      ),
      h(
        'tbody',
        {},
        lab.heads.map((x) => {
          const name = x.name || t('lab.headN', { i: x.head });
          const nameCell = () => h('td', { translate: x.name ? 'no' : null }, name);
          if (x.rows === 0) {
            return h(
              'tr',
              { dataset: { head: x.head } },
              nameCell(),
              h('td', { colspan: spread ? 7 : 6 }, t('lab.sink.undefinedAllEmpty')),
            );
          }
          const parts = [
            ['seg-sink', x.meanSinkEntropy, `${mean('h(s)')} = ${f(x.meanSinkEntropy)}`],
            ['seg-spread', x.meanSinkSpreadTerm, `${mean('s·H(σ)')} = ${f(x.meanSinkSpreadTerm)}`],
            ['seg-content', x.meanContentTerm, `${mean('(1−s)·H(c)')} = ${f(x.meanContentTerm)}`],
          ];
          return h(
            'tr',
            { dataset: { head: x.head }, class: x.head === lab.head ? 'selected-row' : null },
            nameCell(),
            h('td', { class: 'bar-cell' }, bar(parts, scale, `${name}: ${mean('H')} ${f(x.meanEntropy)}`)),
            h('td', { dataset: { value: x.meanSinkMass } }, f(x.meanSinkMass)),
            h('td', { dataset: { value: x.meanSinkEntropy } }, f(x.meanSinkEntropy)),
            spread ? h('td', { dataset: { value: x.meanSinkSpreadTerm } }, f(x.meanSinkSpreadTerm)) : null,
            h('td', { dataset: { value: x.meanContentTerm } }, f(x.meanContentTerm)),
            h('td', { dataset: { value: x.meanEntropy } }, f(x.meanEntropy)),
            h(
              'td',
              { dataset: { value: x.meanContentEntropy ?? '' } },
              x.contentRows ? t('lab.sink.contentRows', { h: f(x.meanContentEntropy), n: x.contentRows }) : t('lab.sink.undefinedS1All'),
            ),
          );
        }),
      ),
    ),
  );
}

export function aitchisonCells(a) {
  if (a.rows === 0 || a.distance === null) {
    return [
      h(
        'td',
        { colspan: 3, class: 'undefined-cell' },
        tData('lab.sink.undefinedWhy', { why: a.reason ?? t('lab.sink.noRow') }, a.reason ? ['why'] : []),
      ),
    ];
  }
  const share = a.distanceSq > 0 ? a.sinkSq / a.distanceSq : null;
  return [
    h('td', { dataset: { value: a.distance } }, f(a.distance)),
    h(
      'td',
      { dataset: { value: a.sinkSq } },
      `${f(a.sinkSq)} + ${f(a.contentSq)}${a.withinSinkSq > 0 ? ` + ${f(a.withinSinkSq)}` : ''} = ${f(a.distanceSq)}` +
        (share === null ? '' : t('lab.sink.sinkShare', { pct: (100 * share).toFixed(0) })),
    ),
    h(
      'td',
      { class: 'note-cell' },
      a.reason ? tData('lab.sink.rowsWhy', { n: a.rows, why: a.reason }, ['why']) : t('lab.sink.rowsN', { n: a.rows }),
    ),
  ];
}

/** The selected head against every other head (or all pairs). */
export function pairsTable(state, lab, pairs, id, caption) {
  return scrollTable(
    h(
      'table',
      { class: 'metrics-table sink-pairs', id },
      h('caption', {}, caption),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { rowspan: 2, scope: 'col' }, t('lab.sink.col.heads')),
          h('th', { rowspan: 2, scope: 'col' }, t('lab.sink.col.rows')),
          METRICS.map(([, key]) => h('th', { colspan: 2, scope: 'colgroup' }, t(key))),
          h('th', { colspan: 3, scope: 'colgroup' }, tnData('lab.sink.col.aitchison')),
        ),
        h(
          'tr',
          {},
          METRICS.map(() => [h('th', { scope: 'col' }, t('lab.sink.keep')), h('th', { scope: 'col' }, t('lab.sink.drop'))]),
          h('th', { scope: 'col' }, 'd_A'),
          h('th', { scope: 'col' }, t(lab.sinkKeys > 1 ? 'lab.sink.col.dsqWithin' : 'lab.sink.col.dsq')),
          h('th', { scope: 'col' }, t('lab.sink.col.rows')),
        ),
      ),
      h(
        'tbody',
        {},
        pairs.map((p) =>
          h(
            'tr',
            { dataset: { a: p.a, b: p.b } },
            h('td', {}, headNode(state, p.a), ' – ', headNode(state, p.b)),
            h('td', { dataset: { value: p.rows } }, String(p.rows)),
            METRICS.map(([key]) =>
              ['keep', 'drop'].map((c) =>
                h(
                  'td',
                  { dataset: { metric: key, convention: c, value: p[key][c] ?? '' } },
                  p.rows === 0 ? t('lab.undefined') : f(p[key][c]),
                ),
              ),
            ),
            aitchisonCells(p.aitchison),
          ),
        ),
      ),
    ),
  );
}
