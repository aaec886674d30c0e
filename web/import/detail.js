// The inspected head: its heatmap at up to DETAIL_SIDE cells a side (hover for query, key and
// weight; click, Enter or Space locks the readout, Esc unlocks), why it cannot be opened in the
// playground, its summary, pattern scores, export buttons and per-row metrics table.
//
// The parts: the heatmap canvas and its readout (detail-canvas.js), the scores in words
// (detail-scores.js), the token views of the head's layer (detail-tokens.js).
import { h, mount, scrollToStart } from '../views/dom.js';
import { fmtMetric, showToken, tData } from '../views/format.js';
import { hasKey, t } from '../i18n/i18n.js';
import { ROW_METRICS, columnValue, metricShort } from '../views/metrics.js';
import { renderLegend } from '../views/legend.js';
import { download, rowMetricsCsv } from '../export/files.js';
import { DETAIL_SIDE, MAX_STATE_TOKENS, numberHead } from './view-state.js';
import { errDetail, headName, patternLabel, tn, tnData, tokenOf } from './text.js';
import { detailCanvas } from './detail-canvas.js';
import { fieldScores, patternScores, structureNote } from './detail-scores.js';
import { renderTokens } from './detail-tokens.js';

/** @param {object} v the view (web/import/index.js): its store `ui`, `$`, and the other parts */
export function createDetail(v) {
  const { ui, $ } = v;

  /**
   * Inspects head `index`. `auto`: opened by the page, not by a click (a file of one head): it
   * scrolls the page's own document only, never a course page or notebook around a frame.
   */
  async function inspect(index, { auto = false } = {}) {
    ui.selected = index;
    ui.locked = null;
    v.renderGrid();
    const r = ui.heads.find((x) => x.index === index);
    const panel = $('import-detail');
    panel.hidden = false;
    mount(
      panel,
      h('h3', {}, t('import.detail.layerHead', { layer: r.layer, head: r.head })),
      h('p', { class: 'note' }, t('import.detail.loading')),
    );
    let d;
    try {
      d = await v.getWorker().request({ type: 'rows', index, options: { ...v.analysisOptions(ui.reading), thumbnail: DETAIL_SIDE } });
    } catch (e) {
      mount(panel, h('h3', {}, t('import.detail.layerHead', { layer: r.layer, head: r.head })), h('p', { class: 'error' }, errDetail(e)));
      return;
    }
    if (ui.selected !== index) return;
    ui.detail = numberHead(ui.source, d);
    renderDetail();
    // The panel opens below the grid (1,000 px and more on a layer of many heads): bring it into
    // view once drawn (its full height lets the page scroll that far) unless it is on screen.
    const top = panel.getBoundingClientRect().top;
    if (top < 0 || top > window.innerHeight * 0.3) scrollToStart(panel, { acrossFrames: !auto });
  }

  function renderDetail() {
    const d = ui.detail;
    const s = ui.source;
    const { nQ, nK } = s.layout;
    const name = headName(ui.source, d);
    const stateOk = d.verdict !== 'invalid' && (d.computed || ui.reading === 'logits') && Math.max(nQ, nK) <= MAX_STATE_TOKENS;
    const [whyKey, whyVars] =
      d.verdict === 'invalid'
        ? ['import.why.invalid', { row: d.check.firstNonfiniteRow, col: d.check.firstNonfiniteCol }]
        : Math.max(nQ, nK) > MAX_STATE_TOKENS
          ? ['import.why.tooLarge', { max: MAX_STATE_TOKENS }]
          : !d.computed
            ? ['import.why.notProbabilities', {}]
            : [null, {}];
    const why = whyKey ? tn(whyKey, whyVars) : ''; // as text (the button's title)
    const whyNode = () => h('span', {}, tnData(whyKey, whyVars));
    const verdictText = hasKey(`import.verdict.${d.verdict}`) ? tn(`import.verdict.${d.verdict}`) : d.verdict.replace('_', ' ');
    const head = h(
      'div',
      { class: 'detail-head' },
      h(
        'h3',
        {},
        tData('import.detail.title', { name, layer: d.layer, head: d.head, label: d.computed ? patternLabel(d.pattern) : verdictText }, [
          'name',
        ]),
      ),
      h(
        'button',
        {
          type: 'button',
          id: 'open-in-playground',
          class: 'primary',
          disabled: !stateOk,
          title: why || null,
          onclick: () => v.openInPlayground(d.index),
        },
        t('import.detail.open'),
      ),
    );
    if (!d.thumbRows) {
      // Nothing was computed (NaN/Inf, or not probabilities under the weights reading).
      mount($('import-detail'), head, h('p', { class: 'note', id: 'detail-why' }, tData('import.detail.notAnalysed', { why: whyNode() })));
      return;
    }
    const { frame, readout, hi, saturates, pooled } = detailCanvas(ui, s, d, name);
    ui.detailDomain = [0, hi];
    ui.detailSaturates = saturates; // the exported figure says so too (detail-export.js)
    const rows = d.rows;
    const rowTable = rows
      ? v.table(
          'detail-rows',
          [t('import.rowCol.query'), t('import.rowCol.token'), ...ROW_METRICS.map((m) => metricShort(m))],
          Array.from({ length: nQ }, (_, r) =>
            rows.empty[r]
              ? [r, showToken(tokenOf(s.queryTokens, r)), t('import.detail.emptyRow'), ...ROW_METRICS.slice(1).map(() => '')]
              : [r, showToken(tokenOf(s.queryTokens, r)), ...ROW_METRICS.map((m) => columnValue(m, rows, r))],
          ),
          [1],
        )
      : null;
    const sum = d.summary;
    const p = d.pattern;
    const meaningKey = `import.meaning.${p.kind}`;
    const meaning = hasKey(meaningKey) ? t(meaningKey, { p: p.parameter }) : null;
    mount(
      $('import-detail'),
      head,
      why ? h('p', { class: 'note' }, tData('import.detail.cannotOpen', { why: whyNode() })) : null,
      h(
        'p',
        { class: 'note' },
        pooled
          ? t('import.detail.pooledNote', { q: (nQ / d.thumbRows).toFixed(1), k: (nK / d.thumbCols).toFixed(1) })
          : t('import.detail.pixelNote'),
      ),
      renderLegend(0, hi, 3, t('import.detail.legendGrey')),
      saturates ? h('p', { class: 'note' }, t('import.detail.saturates', { hi: hi.toPrecision(3) })) : null,
      frame,
      readout,
      d.computed
        ? h(
            'p',
            { class: 'detail-summary' },
            t('import.detail.summary', {
              h: fmtMetric(sum.meanEntropy, 4),
              hn: fmtMetric(sum.meanNormalizedEntropy, 4),
              neff: fmtMetric(sum.meanNEff, 4),
              topk: fmtMetric(sum.meanTopKMass, 4),
              sink: fmtMetric(sum.meanSinkMass, 4),
              empty: sum.emptyRows,
            }),
          )
        : null,
      d.computed && meaning ? h('p', { class: 'note', id: 'detail-meaning' }, meaning) : null,
      d.computed ? patternScores(d) : null,
      d.computed ? fieldScores(ui, d) : null,
      d.computed ? structureNote(ui, d) : null,
      h(
        'div',
        { class: 'export-row' },
        h('button', { type: 'button', id: 'export-detail-png', onclick: v.exportDetailPng }, 'PNG'),
        h('button', { type: 'button', id: 'export-detail-svg', onclick: v.exportDetailSvg }, 'SVG'),
        h(
          'button',
          {
            type: 'button',
            id: 'export-rows-csv',
            disabled: !rows,
            onclick: () => download(v.fileStem('rows.csv'), rowMetricsCsv(rows, s.queryTokens), 'text/csv'),
          },
          t('import.export.rowsCsv'),
        ),
        h('button', { type: 'button', id: 'export-rows-json', disabled: !rows, onclick: v.exportRowsJson }, t('import.export.rowsJson')),
        h('button', { type: 'button', id: 'export-detail-html', onclick: v.exportDetailHtml }, t('import.export.html')),
      ),
      d.computed ? h('section', { id: 'token-views', class: 'token-views', 'aria-label': t('views.tokens.tabs') }) : null,
      rowTable
        ? h(
            'details',
            { class: 'import-table', open: nQ <= 64 },
            h('summary', {}, t('import.detail.rowsSummary', { n: nQ })),
            h('div', { class: 'scroll rows', tabindex: '0' }, rowTable),
          )
        : null,
    );
    if (d.computed) renderTokens(v);
  }

  return { inspect, renderDetail, renderTokens: () => renderTokens(v) };
}
