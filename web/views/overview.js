// Overview of a large weight matrix: the core's pooled grid (each cell the max or mean of a block
// of (query, key) cells) drawn on a canvas, with the pooling stated on screen. Clicking a cell asks
// for a full-resolution tile around it. A function of its inputs: no maths beyond colouring.
import { h, patch } from './dom.js';
import { axisStrip, elide } from './axes.js';
import { renderLegend } from './legend.js';
import { getPalette, paletteRgbTable } from './palette.js';
import { gridPixels as pixelsOf } from './grid-pixels.js';
import { t } from '../i18n/i18n.js';

const SIZE = 480; // drawn size in CSS pixels
const STEP = 16; // arrow keys move the zoomed tile this many queries or keys (Shift: 32)
let keyboardFocus = false; // the canvas had the keyboard focus when the page redrew it

/**
 * @param {HTMLElement} container
 * @param {object} o
 * @param {Float32Array} o.grid        rows x cols pooled weights, row-major
 * @param {number} o.rows
 * @param {number} o.cols
 * @param {number} o.nQ
 * @param {number} o.nK
 * @param {'max'|'mean'} o.pool
 * @param {number} o.selectedRow       query index (marked with a line)
 * @param {[number, number, number, number] | null} o.tile  [r0, r1, c0, c1] outlined
 * @param {(query: number, key: number) => void} o.onPick
 * @param {string[]} [o.queryTokens]  the nQ query tokens: labels beside the grid (each pooled row
 *   by its first token, elided; the block's first and last token in full on hover)
 * @param {string[]} [o.keyTokens]    the nK key tokens: labels above the grid
 */
export function renderOverview(container, o) {
  // The canvas is kept from one draw to the next (same grid size): its listeners read the latest
  // inputs, the pixels are painted again, the text and marks around it change in place.
  let canvas = container.querySelector('#overview-canvas');
  if (!canvas || canvas.width !== o.cols || canvas.height !== o.rows) canvas = overviewCanvas(o);
  canvas.overview = o;
  canvas.setAttribute(
    'aria-label',
    t('a11y.overviewName', { nQ: o.nQ, nK: o.nK, pool: t(`a11y.pool.${o.pool}`), rows: o.rows, cols: o.cols }),
  );
  const { hi, saturates } = paintGrid(canvas, o.grid, o.rows, o.cols);
  const scale = SIZE / Math.max(o.rows, o.cols);
  canvas.style.setProperty('width', `${Math.round(o.cols * scale)}px`);
  canvas.style.setProperty('height', `${Math.round(o.rows * scale)}px`);
  const marks = [];
  const rowY = ((o.selectedRow + 0.5) / o.nQ) * o.rows * scale;
  marks.push(h('div', { class: 'overview-row', style: { top: `${rowY}px`, width: `${Math.round(o.cols * scale)}px` } }));
  if (o.tile) {
    const [r0, r1, c0, c1] = o.tile;
    marks.push(
      h('div', {
        class: 'overview-tile',
        style: {
          top: `${(r0 / o.nQ) * o.rows * scale}px`,
          left: `${(c0 / o.nK) * o.cols * scale}px`,
          height: `${Math.max(2, ((r1 - r0) / o.nQ) * o.rows * scale)}px`,
          width: `${Math.max(2, ((c1 - c0) / o.nK) * o.cols * scale)}px`,
        },
      }),
    );
  }
  // Token labels: the tokens of pooled row (column) c, by its first one
  // (the core pools token t into cell floor(t cells / n): cell c holds ceil(c n / cells) onwards).
  const span = (c, cells, n) => [Math.ceil((c * n) / cells), Math.max(Math.ceil((c * n) / cells), Math.ceil(((c + 1) * n) / cells) - 1)];
  const label = (tokens, cells, n) => (c) => {
    const [a, b] = span(c, cells, n);
    const tok = (i) => String(tokens?.[i] ?? i);
    return { text: elide(tokens ? tokens[a] : String(a)), full: a === b ? `${a} ${tok(a)}` : `${a}–${b}: ${tok(a)} … ${tok(b)}` };
  };
  // The strips are kept while the tokens and the grid are the same (patch() below keeps the nodes
  // on screen, so the strips' own elements must be those nodes for setCurrent to reach them).
  const stripKey = JSON.stringify([o.rows, o.cols, o.nQ, o.nK, scale, o.queryTokens ?? null, o.keyTokens ?? null]);
  if (container.overviewStrips?.key !== stripKey) {
    container.querySelector('.overview-axes')?.remove(); // else patch() would fill the old strips' nodes
    container.overviewStrips = {
      key: stripKey,
      keys: axisStrip({ orient: 'top', id: 'overview-keys', cells: o.cols, px: scale, label: label(o.keyTokens, o.cols, o.nK) }),
      queries: axisStrip({ orient: 'left', id: 'overview-queries', cells: o.rows, px: scale, label: label(o.queryTokens, o.rows, o.nQ) }),
    };
  }
  const { keys: keyStrip, queries: queryStrip } = container.overviewStrips;
  const oldFrame = canvas.parentElement?.classList.contains('overview-frame') && container.contains(canvas) ? canvas.parentElement : null;
  const frame = oldFrame ? patch(oldFrame, canvas, ...marks) : h('div', { class: 'overview-frame detail-frame' }, canvas, ...marks);
  // The labels of the pooled cell under the pointer are highlighted (its tokens named in full).
  canvas.onmousemove = (ev) => {
    const rect = canvas.getBoundingClientRect();
    const r = Math.min(o.rows - 1, Math.max(0, Math.floor(((ev.clientY - rect.top) / rect.height) * o.rows)));
    const c = Math.min(o.cols - 1, Math.max(0, Math.floor(((ev.clientX - rect.left) / rect.width) * o.cols)));
    queryStrip.setCurrent(r);
    keyStrip.setCurrent(c);
    canvas.title = t('app.overview.cellTitle', {
      q: label(o.queryTokens, o.rows, o.nQ)(r).full,
      k: label(o.keyTokens, o.cols, o.nK)(c).full,
    });
  };
  canvas.onmouseleave = () => {
    queryStrip.setCurrent(null);
    keyStrip.setCurrent(null);
  };
  // The axes box stays while it holds these strips and this frame: building a new one would move
  // the strips' hundreds of labels out of the page and back (relaid out on every draw).
  const keyTitle = `${t('views.axis.key')} →`;
  const queryTitle = `${t('views.axis.query')} →`;
  let axes = container.querySelector('.overview-axes');
  if (axes && keyStrip.el.parentElement === axes && queryStrip.el.parentElement === axes && frame.parentElement === axes) {
    const [key, query] = axes.querySelectorAll(':scope > .axis-title');
    if (key.textContent !== keyTitle) key.textContent = keyTitle;
    if (query.textContent !== queryTitle) query.textContent = queryTitle;
  } else {
    axes?.remove(); // else patch() would fill the old box with the new one's nodes
    axes = h(
      'div',
      { class: 'detail-axes heatmap-axes overview-axes' },
      h('span', { class: 'axis-title key' }, keyTitle),
      h('span', { class: 'axis-corner' }),
      keyStrip.el,
      h('span', { class: 'axis-title query' }, queryTitle),
      queryStrip.el,
      frame,
    );
  }
  const blockR = o.nQ / o.rows;
  const blockC = o.nK / o.cols;
  const pool = t(`app.pool.${o.pool}`);
  const block =
    blockR === 1 && blockC === 1 ? t('app.overview.oneCell') : t('app.overview.block', { pool, r: fmtBlock(blockR), c: fmtBlock(blockC) });
  patch(
    container,
    h(
      'div',
      { class: 'view-head' },
      h('h3', {}, t('app.overview.title', { nQ: o.nQ, nK: o.nK })),
      h(
        'p',
        { class: 'note', id: 'overview-pooling' },
        t('app.overview.pooling', { pool, block }) + (saturates ? t('app.overview.saturates', { hi: hi.toPrecision(3) }) : ''),
      ),
    ),
    renderLegend(0, hi, 3, t('app.overview.masked')),
    axes,
    h('p', { class: 'note' }, t('app.overview.axes', { q: o.nQ - 1, k: o.nK - 1 })),
  );
  if (keyboardFocus && (!document.activeElement || document.activeElement === document.body)) canvas.focus();
}

/** A new overview canvas; its listeners act on canvas.overview, the inputs of the latest draw. */
function overviewCanvas(first) {
  const canvas = h('canvas', {
    width: first.cols,
    height: first.rows,
    class: 'overview',
    id: 'overview-canvas',
    role: 'img',
    tabindex: '0',
    'aria-describedby': 'overview-pooling',
  });
  // Keyboard zoom: arrows move the tile (its centre) by STEP, Shift by 2 STEP; Enter zooms at the
  // selected row. The tile's query row becomes the selected row, as a click does.
  canvas.addEventListener('keydown', (ev) => {
    const o = canvas.overview;
    const centre = o.tile
      ? [Math.floor((o.tile[0] + o.tile[1]) / 2), Math.floor((o.tile[2] + o.tile[3]) / 2)]
      : [o.selectedRow, Math.min(o.nK - 1, o.selectedRow)];
    const step = ev.shiftKey ? 2 * STEP : STEP;
    const move = { ArrowUp: [-step, 0], ArrowDown: [step, 0], ArrowLeft: [0, -step], ArrowRight: [0, step], Enter: [0, 0] }[ev.key];
    if (!move) return;
    ev.preventDefault();
    keyboardFocus = true;
    const query = Math.min(o.nQ - 1, Math.max(0, (ev.key === 'Enter' && !o.tile ? o.selectedRow : centre[0]) + move[0]));
    const key = Math.min(o.nK - 1, Math.max(0, centre[1] + move[1]));
    o.onPick(query, key);
  });
  canvas.addEventListener('blur', (ev) => {
    if (ev.relatedTarget) keyboardFocus = false;
  });
  canvas.addEventListener('click', (ev) => {
    const o = canvas.overview;
    const rect = canvas.getBoundingClientRect();
    const query = Math.min(o.nQ - 1, Math.floor(((ev.clientY - rect.top) / rect.height) * o.nQ));
    const key = Math.min(o.nK - 1, Math.floor(((ev.clientX - rect.left) / rect.width) * o.nK));
    o.onPick(query, key);
  });
  return canvas;
}

/**
 * gridPixels (web/views/grid-pixels.js) in a palette given by its id (default: the current one).
 * @returns {{pixels: Uint8ClampedArray, rows: number, cols: number, hi: number, saturates: boolean,
 *   palette: string}}
 */
export function gridPixels(grid, rows, cols, palette = getPalette()) {
  return { ...pixelsOf(grid, rows, cols, paletteRgbTable(palette)), palette };
}

/** Draws gridPixels()'s result onto a canvas of rows x cols pixels. */
export function drawPixels(canvas, g) {
  canvas.getContext('2d').putImageData(new ImageData(g.pixels, g.cols, g.rows), 0, 0);
}

/**
 * Paints a rows x cols grid of weights onto a canvas of that many pixels (gridPixels, drawn).
 * @returns {{hi: number, saturates: boolean}} the top of the colour scale and whether some cells
 *   lie above it
 */
export function paintGrid(canvas, grid, rows, cols) {
  const g = gridPixels(grid, rows, cols);
  drawPixels(canvas, g);
  return { hi: g.hi, saturates: g.saturates };
}

function fmtBlock(x) {
  return Number.isInteger(x) ? String(x) : x.toFixed(1);
}
