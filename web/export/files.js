// Exports: a heatmap as SVG or PNG, metrics as CSV or JSON, a standalone HTML page of a view.
// Pure functions from numbers to text (PNG needs a canvas, passed in), so node tests read exactly
// what a user downloads. Every token string is escaped: text, never markup.
//
// This module is the exports' one import path: it holds the standalone page and the download,
// and re-exports the text formats (text-formats.js), the metrics files (metrics-files.js) and the
// heatmap figure (figure.js).
import { getLang, t } from '../i18n/i18n.js';
import { escapeXml } from './text-formats.js';

export { escapeXml, csvField, toCsv, toJson } from './text-formats.js';
export {
  HEAD_METRIC_COLUMNS,
  ROW_METRIC_COLUMNS,
  headMetricsCsv,
  headMetricsJson,
  resultsRowsCsv,
  rowMetricsCsv,
} from './metrics-files.js';
export { SVG_MAX_CELLS, drawHeatmap, figureLabel, heatmapSvg, svgToPng } from './figure.js';

/**
 * A standalone HTML page (no scripts, inline style) of a view: title, what it shows, the SVG
 * heatmap and metric tables.
 * @param {{title: string, subtitle?: string, svg?: string, tables?: {caption: string,
 *   header: string[], rows: (string|number|null)[][]}[], footer?: string}} o
 */
export function standaloneHtml(o) {
  const undefinedText = t('lab.export.undefined');
  const table = (t) =>
    `<table>\n<caption>${escapeXml(t.caption)}</caption>\n<thead><tr>${t.header.map((c) => `<th scope="col">${escapeXml(c)}</th>`).join('')}</tr></thead>\n<tbody>\n${t.rows
      .map(
        (r) =>
          `<tr>${r.map((c, k) => `<td${k === 1 ? ' translate="no"' : ''}>${escapeXml(c === null || c === undefined || (typeof c === 'number' && !Number.isFinite(c)) ? undefinedText : typeof c === 'number' ? Number(c.toPrecision(6)) : c)}</td>`).join('')}</tr>`,
      )
      .join('\n')}\n</tbody>\n</table>`;
  return `<!doctype html>
<html lang="${getLang()}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeXml(o.title)}</title>
<style>
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px; color: #111; }
table { border-collapse: collapse; margin: 16px 0; font-variant-numeric: tabular-nums; }
caption { text-align: left; font-weight: 600; padding: 4px 0; }
th, td { border: 1px solid #ccd; padding: 2px 8px; text-align: right; }
th { background: #f0f2f6; }
td:nth-child(2) { text-align: left; }
.sub { color: #444; }
</style>
</head>
<body>
<h1>${escapeXml(o.title)}</h1>
${o.subtitle ? `<p class="sub">${escapeXml(o.subtitle)}</p>` : ''}
${o.svg ?? ''}
${(o.tables ?? []).map(table).join('\n')}
<p class="sub">${escapeXml(o.footer ?? t('lab.export.footer'))}</p>
</body>
</html>
`;
}

/** Starts a download of `content` (string or Blob) as `filename` (browser only). */
export function download(filename, content, type = 'text/plain') {
  const blob = content instanceof Blob ? content : new Blob([content], { type });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
