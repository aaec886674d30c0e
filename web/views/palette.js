// Colour scales of the heatmaps, one chosen for the whole page (the "palette" page option,
// web/page/page-options.js). All four are perceptually uniform in lightness, so they stay ordered for
// readers with any colour-vision deficiency and in greyscale print: viridis (the default),
// cividis (designed for deuteranomaly and protanomaly), magma and greys.
//
// Text drawn on a coloured cell is black or white, whichever has the higher WCAG contrast with the
// cell; for any background one of the two reaches at least 4.58:1, so numbers on cells always pass
// WCAG AA (4.5:1) on every palette.
import { interpolateCividis, interpolateGreys, interpolateMagma, interpolateViridis } from '../vendor/vendor.js';

const SCALES = {
  viridis: interpolateViridis,
  cividis: interpolateCividis,
  magma: interpolateMagma,
  // d3's Greys runs white -> black; its lightest end (t = 0) is kept slightly off-white so a zero
  // weight is still a visible cell on a white panel.
  greys: (t) => interpolateGreys(0.06 + 0.94 * t),
};

/** The palette ids, in the order the Palette select lists them. */
export const PALETTE_IDS = Object.freeze(Object.keys(SCALES));

let current = 'viridis';
const listeners = new Set();

/** The palette in use: one of PALETTE_IDS. */
export function getPalette() {
  return current;
}

/** Switches the palette (an unknown id falls back to viridis) and tells listeners when it changed. */
export function setPalette(id) {
  const next = Object.hasOwn(SCALES, id) ? id : 'viridis';
  if (next === current) return;
  current = next;
  for (const fn of listeners) fn(next);
}

/** Calls fn(id) after every palette change; returns a function that removes it. */
export function onPaletteChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** The CSS colour ("rgb(r, g, b)") of t in [0, 1] on the palette (the current one by default). */
export function paletteColour(t, id = current) {
  const x = Number.isFinite(t) ? Math.min(1, Math.max(0, t)) : 0;
  return (SCALES[id] ?? SCALES.viridis)(x);
}

const RGB_LEVELS = 1024; // d3's viridis, cividis and magma are ramps of 256 colours: no loss
const rgbTables = new Map(); // palette id -> Uint8Array of RGB_LEVELS x [r, g, b]

/**
 * [r, g, b] of t in [0, 1] on the palette, from a table of RGB_LEVELS colours made once per
 * palette (for canvases that colour thousands of cells per draw). Writes into `out` at `at`.
 */
export function paletteRgbInto(t, out, at, id = current) {
  const table = paletteRgbTable(id);
  const x = Number.isFinite(t) ? Math.min(1, Math.max(0, t)) : 0;
  const k = 3 * Math.round(x * (RGB_LEVELS - 1));
  out[at] = table[k];
  out[at + 1] = table[k + 1];
  out[at + 2] = table[k + 2];
}

/**
 * The palette as RGB_LEVELS x [r, g, b] (t = k / (RGB_LEVELS - 1) at 3 k), made once per palette:
 * what paletteRgbInto reads, for a loop over many cells that looks it up once.
 */
export function paletteRgbTable(id = current) {
  let table = rgbTables.get(id);
  if (!table) {
    table = new Uint8Array(RGB_LEVELS * 3);
    for (let i = 0; i < RGB_LEVELS; i++) table.set(parseRgb(paletteColour(i / (RGB_LEVELS - 1), id)), 3 * i);
    rgbTables.set(id, table);
  }
  return table;
}

/** [r, g, b] (0..255) of a CSS colour "rgb(...)" or "#rrggbb". */
export function parseRgb(colour) {
  if (colour.startsWith('#')) {
    const hex =
      colour.length === 4
        ? colour
            .slice(1)
            .split('')
            .map((c) => c + c)
            .join('')
        : colour.slice(1);
    return [0, 2, 4].map((k) => parseInt(hex.slice(k, k + 2), 16));
  }
  return colour
    .match(/\d+(\.\d+)?/g)
    .slice(0, 3)
    .map(Number);
}

/** WCAG 2 relative luminance of [r, g, b] (0..255). */
export function relativeLuminance([r, g, b]) {
  const lin = (c) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

/** Black or white, whichever contrasts more with the background colour. */
export function textColourOn(background) {
  const l = relativeLuminance(typeof background === 'string' ? parseRgb(background) : background);
  // Contrast with black is (l + 0.05) / 0.05, with white 1.05 / (l + 0.05); equal at l = 0.179.
  return (l + 0.05) * (l + 0.05) > 0.05 * 1.05 ? '#000' : '#fff';
}

/** A CSS linear-gradient of the palette, left (t = 0) to right (t = 1), for legends. */
export function paletteGradient(id = current, steps = 10) {
  const stops = [];
  for (let i = 0; i <= steps; i++) stops.push(`${paletteColour(i / steps, id)} ${(100 * i) / steps}%`);
  return `linear-gradient(to right, ${stops.join(', ')})`;
}
