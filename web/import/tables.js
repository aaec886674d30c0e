// The import view's two tables: per layer (heads analysed, the core's means of their metrics,
// the pattern classes found) and per head (verdict, pattern, score and the head's means).
import { h, mount } from '../views/dom.js';
import { fmtMetric } from '../views/format.js';
import { hasKey, t } from '../i18n/i18n.js';
import { HEAD_METRICS, HEAD_SCORES, headMetricLabel, scoreShort } from '../views/metrics.js';
import { PATTERN_KINDS } from './view-state.js';
import { headNumber, kindName, patternLabel, tn } from './text.js';

/** @param {object} v the view (web/import/index.js): its store `ui`, `$`, and the other parts */
export function createTables(v) {
  const { ui, $ } = v;

  function renderTables() {
    if (!ui.heads.length) return;
    const computed = ui.heads.filter((r) => r.computed);
    const layers = [...new Set(ui.heads.map((r) => r.layer))];
    const kinds = PATTERN_KINDS;
    const layerRows = layers.map((l) => {
      // The means over the layer's computed heads are the core's (the worker's layerSummaries).
      const m = ui.layers.get(l);
      const rs = computed.filter((r) => r.layer === l);
      const counts = kinds.map((k) => [k, rs.filter((r) => r.pattern.kind === k).length]).filter(([, c]) => c);
      return [
        l,
        t('import.nOfM', { n: m.analysed, m: m.heads }),
        ...HEAD_METRICS.map((x) => m[x.head.key]),
        counts.map(([k, c]) => t('import.patternCount', { n: c, kind: kindName(k, true) })).join(t('import.listSep')),
      ];
    });
    mount(
      $('import-layer-table').querySelector('.scroll'),
      table(
        'layer-summary',
        [t('import.col.layer'), t('import.col.headsAnalysed'), ...HEAD_METRICS.map((x) => headMetricLabel(x)), t('import.col.patterns')],
        layerRows,
      ),
    );
    const verdictText = (v) => (hasKey(`import.verdict.${v}`) ? tn(`import.verdict.${v}`) : v);
    const headRows = ui.heads.map((r) => [
      r.layer,
      headNumber(ui.source, r),
      verdictText(r.verdict),
      r.computed ? patternLabel(r.pattern) : '—',
      r.pattern.confidence,
      ...HEAD_METRICS.map((x) => r.summary[x.head.key]),
      r.computed ? r.aboveDiagonalMass : '—',
      ui.flagged.has(r.index) ? t('import.col.flaggedYes', { rank: ui.flagged.get(r.index).rank + 1 }) : '',
      ...HEAD_SCORES.map((x) => (r.computed && Number.isFinite(r.field?.[x.key]) ? r.field[x.key] : '—')),
    ]);
    mount(
      $('import-head-table').querySelector('.scroll'),
      table(
        'head-summary',
        [
          ...['layer', 'head', 'verdict', 'pattern', 'score'].map((k) => t(`import.col.${k}`)),
          ...HEAD_METRICS.map((x) => headMetricLabel(x)),
          ...['aboveDiag', 'flagged'].map((k) => t(`import.col.${k}`)),
          ...HEAD_SCORES.map(scoreShort),
        ],
        headRows,
      ),
    );
    $('import-layer-table').hidden = false;
    $('import-head-table').hidden = false;
  }

  /** A table; the columns in `dataCols` hold data (tokens) and are marked translate="no". */
  function table(id, header, rows, dataCols = []) {
    return h(
      'table',
      { class: 'metrics-table', id },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          header.map((c) => h('th', { scope: 'col' }, c)),
        ),
      ),
      h(
        'tbody',
        {},
        rows.map((r) =>
          h(
            'tr',
            {},
            r.map((c, k) =>
              h(
                'td',
                { translate: dataCols.includes(k) ? 'no' : null },
                typeof c === 'number' ? (Number.isInteger(c) ? String(c) : fmtMetric(c, 4)) : String(c),
              ),
            ),
          ),
        ),
      ),
    );
  }

  return { renderTables, table };
}
