// A heatmap as a figure (web/export/files.js): a standalone SVG with its labels, colour bar and
// source line, the same figure as a PNG (drawn by the browser from the SVG), and the bare grid
// on a canvas. Every token string is escaped: text, never markup. What a person reads (the
// cell titles, the scale, the source line) follows the page's language.
import { paletteColour } from '../views/palette.js'; // the page's palette (Display: Palette)
import { t } from '../i18n/i18n.js';
import { escapeXml } from './text-formats.js';

const LABEL_MAX = 24;
/** A token as a label: leading/trailing spaces as ␣, newlines as ⏎ (as the page shows them),
 *  at most LABEL_MAX code points (longer ones end in …; the full text is the label's <title>). */
export const figureLabel = (t) => {
  const s = String(t).replace(/^ | $/g, '␣').replace(/\r?\n/g, '⏎').replace(/\t/g, '⇥');
  const cps = [...s];
  return cps.length > LABEL_MAX ? `${cps.slice(0, LABEL_MAX - 1).join('')}…` : s;
};
const CHAR_W = 6.6; // px per character of the 11 px labels (system-ui), for margins

/** Largest number of cells an SVG export draws one by one (beyond, the grid is pooled first). */
export const SVG_MAX_CELLS = 256 * 256;

/**
 * The axis ticks of a figure: which cells get a label and what it says. Every cell when they are
 * at least 10 px apart, else every k-th so labels stay 11 px apart. Tokens label their cell when
 * the grid is at full resolution; a pooled grid's cell is labelled with the first index it covers.
 * @returns {{at: number, text: string, full: string}[]}
 */
function ticks(cells, cell, labels, n) {
  const step = Math.max(1, Math.ceil(11 / cell));
  const out = [];
  const pooled = n !== undefined && n !== cells;
  for (let c = 0; c < cells; c += step) {
    if (!pooled && labels?.length) {
      const tok = labels[c] ?? '';
      out.push({ at: c, text: `${figureLabel(tok)}`, full: `${c} ${tok}` });
    } else {
      const first = pooled ? Math.floor((c * n) / cells) : c;
      out.push({ at: c, text: String(first), full: String(first) });
    }
  }
  return out;
}

/**
 * A heatmap as a standalone SVG figure: title, a note (what the numbers are), token labels on both
 * axes (elided past 24 characters, the full token in each label's <title>; every k-th label when
 * cells are too small for all), axis titles, a colour bar with its scale, the not-visible key and
 * a source line. Every string is escaped (tokens are text, never markup).
 * @param {object} o
 * @param {ArrayLike<number>} o.values   rows x cols, row-major; NaN or null = not visible
 * @param {number} o.rows
 * @param {number} o.cols
 * @param {string[]} [o.rowLabels]       query tokens (full resolution only)
 * @param {string[]} [o.colLabels]       key tokens
 * @param {number} [o.nQ]                queries of the full head when the grid is pooled (ticks
 *   then give the first query index of each labelled row); default rows
 * @param {number} [o.nK]                keys of the full head when pooled; default cols
 * @param {string} o.title
 * @param {string} [o.note]              a line under the title (pooling, what the numbers are)
 * @param {string} [o.source]            the source line at the foot (file, layer, head, tool)
 * @param {string} [o.scaleLabel]        what the colour bar measures (default: attention weight)
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
  }
  if (!(hi > lo)) hi = lo + 1;
  const cell = Math.max(2, Math.min(24, Math.floor(640 / Math.max(rows, cols))));
  const rowTicks = ticks(rows, cell, o.rowLabels, o.nQ);
  const colTicks = ticks(cols, cell, o.colLabels, o.nK);
  const longest = (list) => Math.max(1, ...list.map((k) => [...k.text].length)) * CHAR_W;
  // Margins sized to the longest label; column labels are rotated by 60 degrees, so they need
  // sin 60 of their length above the grid and cos 60 to the right.
  const colLen = longest(colTicks);
  const left = Math.ceil(34 + Math.max(24, longest(rowTicks)) + 6);
  const top = 72 + Math.ceil(colLen * 0.87) + 6;
  const gridW = cols * cell;
  const gridH = rows * cell;
  const title = String(o.title);
  const width = Math.ceil(Math.max(left + gridW + 24 + colLen * 0.5, 420, [...title].length * 8.6 + 24));
  const barY = top + gridH + 24;
  const height = barY + 70 + (o.source ? 16 : 0);
  const sx = (j) => left + j * cell;
  const sy = (i) => top + i * cell;
  const parts = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, 'Noto Sans', 'Noto Sans CJK SC', sans-serif" font-size="11" fill="#111">`,
  );
  parts.push(`<title>${escapeXml(title)}</title>`);
  parts.push(`<rect width="100%" height="100%" fill="#fff"/>`);
  parts.push(`<text x="12" y="22" font-size="15" font-weight="600">${escapeXml(title)}</text>`);
  if (o.note) parts.push(`<text x="12" y="40" fill="#444">${escapeXml(o.note)}</text>`);
  const hasTokens = (labels, n, cells) => labels?.length && (n === undefined || n === cells);
  // Axis titles: "key" over the column labels, "query" beside the row labels (rotated).
  const keyAxis = t(hasTokens(o.colLabels, o.nK, cols) ? 'views.axis.key' : 'views.axis.keyIndex');
  const queryAxis = t(hasTokens(o.rowLabels, o.nQ, rows) ? 'views.axis.query' : 'views.axis.queryIndex');
  parts.push(
    `<text class="axis-title" x="${left + gridW / 2}" y="60" text-anchor="middle" font-size="12" font-weight="600">${escapeXml(keyAxis)} →</text>`,
  );
  parts.push(
    `<text class="axis-title" transform="translate(16,${top + gridH / 2}) rotate(-90)" text-anchor="middle" font-size="12" font-weight="600">${escapeXml(queryAxis)} →</text>`,
  );
  for (const k of colTicks) {
    const x = sx(k.at) + cell / 2 + 3;
    parts.push(
      `<text class="col-label" transform="translate(${x},${top - 4}) rotate(-60)"><title>${escapeXml(k.full)}</title>${escapeXml(k.text)}</text>`,
    );
  }
  for (const k of rowTicks) {
    parts.push(
      `<text class="row-label" x="${left - 5}" y="${sy(k.at) + Math.min(cell, 11) * 0.5 + cell / 2 - 1}" text-anchor="end" dominant-baseline="middle"><title>${escapeXml(k.full)}</title>${escapeXml(k.text)}</text>`,
    );
  }
  const withTips = rows * cols <= 64 * 64;
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < cols; j++) {
      const x = o.values[i * cols + j];
      const fill = x === null || !Number.isFinite(x) ? '#dde2e8' : paletteColour(Math.min(1, Math.max(0, (x - lo) / (hi - lo))));
      const tip = withTips
        ? `<title>${escapeXml(
            t('lab.export.cellTitle', {
              i,
              q: hasTokens(o.rowLabels, o.nQ, rows) ? ` ${o.rowLabels[i] ?? ''}` : '',
              j,
              k: hasTokens(o.colLabels, o.nK, cols) ? ` ${o.colLabels[j] ?? ''}` : '',
              value: x === null || !Number.isFinite(x) ? t('lab.export.notVisible') : x,
            }),
          )}</title>`
        : '';
      parts.push(`<rect x="${sx(j)}" y="${sy(i)}" width="${cell}" height="${cell}" fill="${fill}">${tip}</rect>`);
    }
  }
  parts.push(
    `<rect class="frame" x="${left - 0.5}" y="${top - 0.5}" width="${gridW + 1}" height="${gridH + 1}" fill="none" stroke="#888" stroke-width="1"/>`,
  );
  // The colour bar: a gradient of the palette from lo to hi, five ticks, the scale's name.
  const barW = 220;
  const stops = Array.from({ length: 21 }, (_, k) => `<stop offset="${k / 20}" stop-color="${paletteColour(k / 20)}"/>`).join('');
  parts.push(`<defs><linearGradient id="colour-bar" x1="0" x2="1" y1="0" y2="0">${stops}</linearGradient></defs>`);
  parts.push(
    `<g class="legend"><rect class="bar" x="${left}" y="${barY}" width="${barW}" height="12" fill="url(#colour-bar)" stroke="#888" stroke-width="0.5"/>`,
  );
  for (let k = 0; k <= 4; k++) {
    const x = left + (barW * k) / 4;
    parts.push(`<line x1="${x}" x2="${x}" y1="${barY + 12}" y2="${barY + 16}" stroke="#444"/>`);
    parts.push(
      `<text class="legend-tick" x="${x}" y="${barY + 27}" text-anchor="middle">${escapeXml(fmt(lo + ((hi - lo) * k) / 4))}</text>`,
    );
  }
  parts.push(
    `<text class="legend-title" x="${left + barW / 2}" y="${barY + 42}" text-anchor="middle" fill="#333">${escapeXml(o.scaleLabel ?? t('views.scale.weight'))}</text>`,
  );
  parts.push(
    `<rect class="swatch" x="${left + barW + 18}" y="${barY}" width="12" height="12" fill="#dde2e8" stroke="#888" stroke-width="0.5"/>`,
  );
  parts.push(`<text x="${left + barW + 35}" y="${barY + 10}" fill="#333">${escapeXml(t('views.notVisible'))}</text></g>`);
  if (o.source)
    parts.push(
      `<text class="source" x="12" y="${height - 10}" font-size="10" fill="#555">${escapeXml(t('views.source', { source: o.source }))}</text>`,
    );
  parts.push('</svg>');
  return parts.join('\n') + '\n';
}

const fmt = (x) => (Math.abs(x) >= 1e-3 || x === 0 ? Number(x.toPrecision(4)).toString() : x.toExponential(2));

/**
 * An SVG figure as a PNG at `scale` times its size (2 = a print-quality figure), drawn by the
 * browser from the SVG text itself, so the PNG has the same labels, legend, title and source line.
 * @param {string} svg     an SVG document with width and height attributes
 * @param {number} [scale] 2 by default
 * @returns {Promise<Blob>} image/png
 */
export async function svgToPng(svg, scale = 2) {
  const w = Number(/width="([\d.]+)"/.exec(svg)?.[1] ?? 400);
  const hgt = Number(/height="([\d.]+)"/.exec(svg)?.[1] ?? 400);
  const img = new Image();
  const url = URL.createObjectURL(new Blob([svg], { type: 'image/svg+xml' }));
  try {
    await new Promise((resolve, reject) => {
      img.onload = resolve;
      img.onerror = () => reject(new Error('the SVG figure could not be drawn'));
      img.src = url;
    });
    const canvas = document.createElement('canvas');
    canvas.width = Math.round(w * scale);
    canvas.height = Math.round(hgt * scale);
    const ctx = canvas.getContext('2d');
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    ctx.drawImage(img, 0, 0, canvas.width, canvas.height);
    return await new Promise((resolve, reject) =>
      canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('the PNG could not be encoded'))), 'image/png'),
    );
  } finally {
    URL.revokeObjectURL(url);
  }
}

/**
 * Draws a heatmap onto a canvas: one block of pixels per cell (no labels; the figure PNG is
 * svgToPng(heatmapSvg(...))).
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
