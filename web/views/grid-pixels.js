// The colours of a pooled grid of weights as RGBA pixels: the overview's canvas and the import's
// head thumbnails. No imports and no DOM, so the import worker colours its thumbnails with it
// (web/import/import-worker.js) without the colour scales' code: it is given the palette's table
// (web/views/palette.js paletteRgbTable).

const MASKED_RGB = [221, 226, 232]; // a cell with no visible key: light grey

/**
 * The pixels of a rows x cols grid of weights (row-major; NaN = no visible key, light grey), one
 * RGBA pixel per cell. The colour scale spans 0 .. the 99th percentile of the cells (a few cells
 * near 1, like row 0 of a causal head, would otherwise leave the rest dark).
 * @param {Float32Array} grid
 * @param {number} rows
 * @param {number} cols
 * @param {Uint8Array} table  the palette as L x [r, g, b], t = k / (L - 1) at 3 k (paletteRgbTable)
 * @returns {{pixels: Uint8ClampedArray, rows: number, cols: number, hi: number, saturates: boolean}}
 *   pixels: rows * cols * 4 bytes (ImageData's layout); hi: the top of the colour scale;
 *   saturates: whether some cells lie above it
 */
export function gridPixels(grid, rows, cols, table) {
  const sorted = Float32Array.from(grid)
    .filter((x) => !Number.isNaN(x))
    .sort();
  const top = sorted.length ? sorted[sorted.length - 1] : 0;
  let hi = sorted.length ? sorted[Math.floor(0.99 * (sorted.length - 1))] : 1;
  if (!(hi > 0)) hi = top > 0 ? top : 1;
  const px = new Uint8ClampedArray(4 * rows * cols);
  const top3 = table.length / 3 - 1;
  for (let i = 0; i < rows * cols; i++) {
    const x = grid[i];
    if (Number.isNaN(x)) px.set(MASKED_RGB, 4 * i);
    else {
      const u = x / hi;
      const k = 3 * Math.round((Number.isFinite(u) ? Math.min(1, Math.max(0, u)) : 0) * top3);
      px[4 * i] = table[k];
      px[4 * i + 1] = table[k + 1];
      px[4 * i + 2] = table[k + 2];
    }
    px[4 * i + 3] = 255;
  }
  return { pixels: px, rows, cols, hi, saturates: top > hi };
}
