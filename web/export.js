// Exports: a heatmap as SVG or PNG, metrics as CSV or JSON, a standalone HTML page of a view.
// Pure functions from numbers to text (PNG needs a canvas, passed in), so node tests read exactly
// what a user downloads. Every token string is escaped: text, never markup.
import { paletteColour } from './views/palette.js'; // the page's palette (Display: Palette)
import { getLang, t } from './i18n.js';
import { SCHEMA } from './generated/schema.js';
// CSV headers and JSON keys are data formats: English and stable in every language. What a person
// reads (the SVG's cell titles, the HTML page's words) follows the page's language.

/** Escapes text for XML/HTML content and attribute values. */
export function escapeXml(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
}

/** One CSV field (RFC 4180): quoted when it holds a comma, quote, CR or LF. */
export function csvField(x) {
  if (x === null || x === undefined || (typeof x === 'number' && Number.isNaN(x))) return '';
  const s = typeof x === 'number' ? String(x) : String(x);
  // A leading = + - @, tab or CR would make a spreadsheet run the token as a formula: the core's
  // rule (text.hpp kCsvFormulaStart, through `attn schema`), the one `attn analyze` applies too.
  const safe = typeof x === 'string' && s !== '' && SCHEMA.csv.formulaStart.includes(s[0]) ? `'${s}` : s;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** Rows of fields to CSV text (CRLF line ends as RFC 4180 says). */
export function toCsv(header, rows) {
  return [header, ...rows].map((r) => r.map(csvField).join(',')).join('\r\n') + '\r\n';
}

/** JSON where NaN/Infinity (undefined metrics) become null, typed arrays become arrays. */
export function toJson(value) {
  return (
    JSON.stringify(
      value,
      (_, v) => {
        if (typeof v === 'number' && !Number.isFinite(v)) return null;
        if (ArrayBuffer.isView(v)) return Array.from(v, (x) => (Number.isFinite(x) ? x : null));
        return v;
      },
      2,
    ) + '\n'
  );
}

export const HEAD_METRIC_COLUMNS = [
  'layer',
  'head',
  'verdict',
  'rows',
  'empty_rows',
  'mean_entropy',
  'mean_normalized_entropy',
  'mean_n_eff',
  'mean_top_k_mass',
  'mean_sink_mass',
  'pattern',
  'confidence',
  'parameter',
  'above_diagonal_mass',
  'causal_structure',
  'tl_previous_token',
  'tl_duplicate_token',
  'tl_induction',
];

/** Per-head metrics (results of analyzeSourceHead) as CSV, one line per head. */
export function headMetricsCsv(heads) {
  return toCsv(
    HEAD_METRIC_COLUMNS,
    heads.map((r) => [
      r.layer,
      r.head,
      r.verdict,
      r.summary.rows,
      r.summary.emptyRows,
      r.summary.meanEntropy,
      r.summary.meanNormalizedEntropy,
      r.summary.meanNEff,
      r.summary.meanTopKMass,
      r.summary.meanSinkMass,
      r.pattern.kind,
      r.pattern.confidence,
      r.pattern.parameter,
      r.computed ? r.aboveDiagonalMass : NaN,
      r.computed ? String(Boolean(r.causalStructure)) : '',
      r.computed ? r.field?.previousToken : NaN,
      r.computed ? r.field?.duplicateToken : NaN,
      r.computed ? r.field?.induction : NaN,
    ]),
  );
}

/** Per-head metrics as JSON: `meta` (file, shape, layers, headsPerLayer, ...) and one entry per
 *  head, as `attn analyze --format json` prints them. */
export function headMetricsJson(meta, heads) {
  return toJson({
    ...meta,
    heads: heads.map((r) => ({
      layer: r.layer,
      layerIndex: r.layerIndex ?? r.layer,
      head: r.head,
      ...(r.label ? { label: r.label } : {}),
      verdict: r.verdict,
      summary: r.summary,
      pattern: r.pattern,
      fieldScores: r.computed ? r.field : null,
      check: r.check,
      causalStructure: Boolean(r.causalStructure),
      causalVisibility: Boolean(r.causalVisibility),
      aboveDiagonalMass: r.aboveDiagonalMass,
    })),
  });
}

export const ROW_METRIC_COLUMNS = [
  'row',
  'query_token',
  'empty',
  'visible',
  'entropy',
  'normalized_entropy',
  'n_eff',
  'top_k_mass',
  'sink_mass',
  'support',
];

/**
 * Per-row metrics as CSV.
 * @param {{entropy, normalizedEntropy, nEff, topKMass, sinkMass, visible, support, empty}} rows
 *   arrays of n_q entries (typed arrays from the core or plain arrays; null/NaN = undefined)
 * @param {string[]} tokens query tokens (may be empty)
 */
export function rowMetricsCsv(rows, tokens = []) {
  const n = rows.entropy.length;
  const out = [];
  for (let t = 0; t < n; t++) {
    const empty = Boolean(rows.empty[t]);
    out.push([
      t,
      tokens[t] ?? '',
      empty ? 1 : 0,
      rows.visible[t],
      rows.entropy[t],
      rows.normalizedEntropy[t],
      rows.nEff[t],
      rows.topKMass[t],
      rows.sinkMass[t],
      empty ? null : rows.support[t],
    ]);
  }
  return toCsv(ROW_METRIC_COLUMNS, out);
}

/** Per-row metrics from the playground's results (docs/state.md `rows`) in the same columns. */
export function resultsRowsCsv(res, tokens) {
  const pick = (k) => res.rows.map((r) => r[k]);
  return rowMetricsCsv(
    {
      entropy: pick('entropy'),
      normalizedEntropy: pick('normalizedEntropy'),
      nEff: pick('nEff'),
      topKMass: pick('topKMass'),
      sinkMass: pick('sinkMass'),
      visible: pick('visible'),
      support: pick('support'),
      empty: pick('empty'),
    },
    tokens,
  );
}

const LABEL_MAX = 24;
/** A token as a label: leading/trailing spaces as ␣, newlines as ⏎ (as the page shows them),
 *  at most LABEL_MAX code points. */
const label = (t) => {
  const s = String(t).replace(/^ | $/g, '␣').replace(/\r?\n/g, '⏎').replace(/\t/g, '⇥');
  const cps = [...s];
  return cps.length > LABEL_MAX ? `${cps.slice(0, LABEL_MAX - 1).join('')}…` : s;
};
const labelWidth = (labels) => Math.max(0, ...(labels ?? []).map((t) => [...label(t)].length)) * 6.6 + 12;

/** Largest number of cells an SVG export draws one by one (beyond, the grid is pooled first). */
export const SVG_MAX_CELLS = 256 * 256;

/**
 * A heatmap as a standalone SVG document.
 * @param {object} o
 * @param {ArrayLike<number>} o.values   rows x cols, row-major; NaN or null = not visible
 * @param {number} o.rows
 * @param {number} o.cols
 * @param {string[]} [o.rowLabels]       shown when there are at most 64 rows
 * @param {string[]} [o.colLabels]
 * @param {string} o.title
 * @param {string} [o.note]               a line under the title (pooling, source)
 * @param {[number, number]} [o.domain]  colour domain (default [0, max])
 * @returns {string}
 */
export function heatmapSvg(o) {
  const { rows, cols } = o;
  let hi = o.domain?.[1];
  let lo = o.domain?.[0] ?? 0;
  if (hi === undefined) {
    hi = 0;
    for (let i = 0; i < rows * cols; i++) if (Number.isFinite(o.values[i]) && o.values[i] > hi) hi = o.values[i];
    if (!(hi > lo)) hi = lo + 1;
  }
  const labels = rows <= 64 && cols <= 64;
  const cell = Math.max(2, Math.min(24, Math.floor(640 / Math.max(rows, cols))));
  // Margins sized to the longest label (11 px text, about 6.6 px per character; column labels
  // are rotated by 60 degrees, so they need sin 60 of their length above the grid).
  const left = labels && o.rowLabels?.length ? Math.max(40, labelWidth(o.rowLabels)) : 10;
  const top = 58 + (labels && o.colLabels?.length ? Math.ceil(labelWidth(o.colLabels) * 0.87) + 8 : 0);
  const width = left + cols * cell + 20 + (labels && o.colLabels?.length ? Math.ceil(labelWidth(o.colLabels) * 0.5) : 0);
  const height = top + rows * cell + 50;
  const parts = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif" font-size="11">`,
  );
  parts.push(`<title>${escapeXml(o.title)}</title>`);
  parts.push(`<rect width="100%" height="100%" fill="#fff"/>`);
  parts.push(`<text x="10" y="20" font-size="15" font-weight="600">${escapeXml(o.title)}</text>`);
  if (o.note) parts.push(`<text x="10" y="38" fill="#444">${escapeXml(o.note)}</text>`);
  if (labels && o.colLabels?.length) {
    for (let j = 0; j < cols; j++) {
      const x = left + j * cell + cell / 2 + 3;
      parts.push(`<text transform="translate(${x},${top - 4}) rotate(-60)">${escapeXml(label(o.colLabels[j]))}</text>`);
    }
  }
  for (let i = 0; i < rows; i++) {
    if (labels && o.rowLabels?.length) {
      parts.push(`<text x="${left - 4}" y="${top + i * cell + cell * 0.75}" text-anchor="end">${escapeXml(label(o.rowLabels[i]))}</text>`);
    }
    for (let j = 0; j < cols; j++) {
      const x = o.values[i * cols + j];
      const fill = x === null || !Number.isFinite(x) ? '#dde2e8' : paletteColour(Math.min(1, Math.max(0, (x - lo) / (hi - lo))));
      const tip = labels
        ? `<title>${escapeXml(
            t('lab.export.cellTitle', {
              i,
              q: o.rowLabels?.[i] !== undefined ? ` ${o.rowLabels[i]}` : '',
              j,
              k: o.colLabels?.[j] !== undefined ? ` ${o.colLabels[j]}` : '',
              value: x === null || !Number.isFinite(x) ? t('lab.export.notVisible') : x,
            }),
          )}</title>`
        : '';
      parts.push(`<rect x="${left + j * cell}" y="${top + i * cell}" width="${cell}" height="${cell}" fill="${fill}">${tip}</rect>`);
    }
  }
  const ly = top + rows * cell + 18;
  for (let k = 0; k < 20; k++) {
    parts.push(`<rect x="${left + k * 8}" y="${ly}" width="8" height="10" fill="${paletteColour(k / 19)}"/>`);
  }
  parts.push(`<text x="${left}" y="${ly + 24}">${escapeXml(fmt(lo))}</text>`);
  parts.push(`<text x="${left + 160}" y="${ly + 24}" text-anchor="end">${escapeXml(fmt(hi))}</text>`);
  parts.push(`<text x="${left + 175}" y="${ly + 9}" fill="#444">grey: not visible</text>`);
  parts.push('</svg>');
  return parts.join('\n') + '\n';
}

const fmt = (x) => (Math.abs(x) >= 1e-3 || x === 0 ? Number(x.toPrecision(4)).toString() : x.toExponential(2));

/**
 * Draws a heatmap onto a canvas (for PNG export): one block of pixels per cell.
 * @param {HTMLCanvasElement|OffscreenCanvas} canvas
 */
export function drawHeatmap(canvas, { values, rows, cols, domain }) {
  const px = Math.max(1, Math.min(16, Math.floor(2048 / Math.max(rows, cols))));
  canvas.width = cols * px;
  canvas.height = rows * px;
  const ctx = canvas.getContext('2d');
  const [lo, hi0] = domain ?? [0, Math.max(1e-12, ...Array.from(values).filter(Number.isFinite))];
  const hi = hi0 > lo ? hi0 : lo + 1;
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < cols; j++) {
      const x = values[i * cols + j];
      ctx.fillStyle = x === null || !Number.isFinite(x) ? '#dde2e8' : paletteColour(Math.min(1, Math.max(0, (x - lo) / (hi - lo))));
      ctx.fillRect(j * px, i * px, px, px);
    }
  }
  return canvas;
}

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
