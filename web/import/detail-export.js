// Exports of the import view: the inspected head as PNG, SVG, its rows as CSV or JSON and a
// standalone HTML page; every head's metrics as CSV or JSON (the toolbar). File names from the
// file's stem and the head (name_L3H5_heatmap.svg).
import { download, headMetricsCsv, headMetricsJson, heatmapSvg, standaloneHtml, svgToPng } from '../export/files.js';
import { fmtMetric } from '../views/format.js';
import { t } from '../i18n/i18n.js';
import { ROW_METRICS, columnValue, metricShort } from '../views/metrics.js';
import { headName, patternLabel, tokenOf } from './text.js';

/** @param {object} v the view (web/import/index.js): its store `ui`, `$`, and the other parts */
export function createExports(v) {
  const { ui } = v;

  function fileStem(suffix) {
    const base = (ui.source?.name ?? 'attention').replace(/\.[^.]+$/, '').replace(/[^\w.-]+/g, '_');
    return ui.detail ? `${base}_L${ui.detail.layer}H${ui.detail.head}_${suffix}` : `${base}_${suffix}`;
  }

  function detailSvg() {
    const d = ui.detail;
    const s = ui.source;
    const pooled = d.thumbRows !== s.layout.nQ || d.thumbCols !== s.layout.nK;
    return heatmapSvg({
      values: d.thumbnail,
      rows: d.thumbRows,
      cols: d.thumbCols,
      rowLabels: s.queryTokens,
      colLabels: s.keyTokens,
      nQ: s.layout.nQ,
      nK: s.layout.nK,
      domain: ui.detailDomain,
      title: t('lab.export.importSvgTitle', {
        file: s.name,
        name: headName(ui.source, d),
        layer: d.layer,
        head: d.head,
        label: d.computed ? patternLabel(d.pattern) : d.verdict,
      }),
      note:
        (pooled
          ? t('lab.export.pooledNote', { rows: d.thumbRows, cols: d.thumbCols, nQ: s.layout.nQ, nK: s.layout.nK })
          : t('lab.export.weightsNote', { nQ: s.layout.nQ, nK: s.layout.nK })) +
        // A figure read alone must not pass the scale's top for the largest weight.
        (ui.detailSaturates ? t('lab.export.saturatesNote', { hi: ui.detailDomain[1].toPrecision(3) }) : ''),
      source: `${s.name}, ${headName(ui.source, d)} (${s.format}${s.dtype ? `, ${s.dtype}` : ''}, ${ui.reading}) · ${t('views.madeWith')}`,
    });
  }
  function exportDetailSvg() {
    download(fileStem('heatmap.svg'), detailSvg(), 'image/svg+xml');
  }
  async function exportDetailPng() {
    // The SVG figure drawn at twice its size: the same labels, legend, title and source line.
    download(fileStem('heatmap.png'), await svgToPng(detailSvg(), 2));
  }
  function exportRowsJson() {
    const d = ui.detail;
    download(
      fileStem('rows.json'),
      JSON.stringify(
        {
          file: ui.source.name,
          layer: d.layer,
          head: d.head,
          reading: ui.reading,
          queryTokens: ui.source.queryTokens,
          summary: d.summary,
          pattern: d.pattern,
          rows: Object.fromEntries(Object.entries(d.rows).map(([k, v]) => [k, Array.from(v, (x) => (Number.isFinite(x) ? x : null))])),
        },
        null,
        2,
      ),
      'application/json',
    );
  }
  function exportDetailHtml() {
    const d = ui.detail;
    const s = ui.source;
    const rows = d.rows;
    const tables = rows
      ? [
          {
            caption: t('lab.export.rowsCaption'),
            header: [t('import.rowCol.query'), t('import.rowCol.token'), ...ROW_METRICS.map((m) => metricShort(m))],
            rows: Array.from({ length: s.layout.nQ }, (_, r) => [
              r,
              tokenOf(s.queryTokens, r),
              ...ROW_METRICS.map((m) => columnValue(m, rows, r)),
            ]),
          },
        ]
      : [];
    download(
      fileStem('view.html'),
      standaloneHtml({
        title: t('lab.export.importHtmlTitle', { file: s.name, layer: d.layer, head: d.head }),
        subtitle: d.computed
          ? t('lab.export.importHtmlSubtitle', {
              label: patternLabel(d.pattern),
              score: fmtMetric(d.pattern.confidence, 3),
              h: fmtMetric(d.summary.meanEntropy, 4),
              sink: fmtMetric(d.summary.meanSinkMass, 4),
            })
          : d.verdict,
        svg: detailSvg(),
        tables,
      }),
      'text/html',
    );
  }

  /** The toolbar's exports: every head's metrics as CSV or JSON. */
  function exportHeadsCsv() {
    download(fileStem('heads.csv').replace(/_L\d+H\d+/, ''), headMetricsCsv(ui.heads), 'text/csv');
  }
  function exportHeadsJson() {
    download(
      fileStem('heads.json').replace(/_L\d+H\d+/, ''),
      headMetricsJson(
        {
          file: ui.source.name,
          format: ui.source.format,
          dtype: ui.source.dtype,
          shape: ui.source.shape,
          layers: ui.source.layout.layers,
          headsPerLayer: ui.source.layout.heads,
          nQ: ui.source.layout.nQ,
          nK: ui.source.layout.nK,
          layerNumbers: Array.from({ length: ui.source.layout.layers }, (_, i) => ui.source.layerNumbers?.[i] ?? i),
          reading: ui.reading,
          causal: ui.causal,
          tokens: { queries: ui.source.queryTokens, keys: ui.source.keyTokens },
          structure: ui.structure,
        },
        ui.heads.map((r) => ({ ...r, label: ui.source.headLabels?.[r.head] || undefined })),
      ),
      'application/json',
    );
  }

  return { fileStem, detailSvg, exportDetailSvg, exportDetailPng, exportRowsJson, exportDetailHtml, exportHeadsCsv, exportHeadsJson };
}
