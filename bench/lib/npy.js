// The generated attention dump of the import benchmarks: a [layers, heads, n, n]
// float32 .npy of causal softmax rows, used by the page import scenario (bench/browser-import.js,
// built in the page), the traced A/B (bench/import-trace.js --disk) and the `attn analyze`
// scenario (bench/cli-analyze.js), so all three read the same bytes.
//
// npyParts() is self-contained (no imports, no closure): the page builds the file with the same
// function, its source handed to page.evaluate (npyPartsSource()).

/**
 * The file's parts: the .npy header (version 1.0, the dict padded to 64 bytes) and the distinct
 * head values; head i of the file is heads[i % heads.length].
 * Row t of a head spreads its weight over keys 0..t, a different profile per head (patterns vary;
 * the numbers are exact float32 probabilities summing to 1 within rounding).
 * @returns {{header: Uint8Array, heads: Float32Array[], count: number}}
 */
export function npyParts({ layers, heads, n }) {
  const values = [];
  for (let v = 0; v < 6; v++) {
    const a = new Float32Array(n * n);
    for (let t = 0; t < n; t++) {
      let sum = 0;
      for (let j = 0; j <= t; j++) sum += a[t * n + j] = Math.exp(-((t - j) % (v + 2)) - (v === 3 && j === 0 ? -4 : 0));
      for (let j = 0; j <= t; j++) a[t * n + j] /= sum;
    }
    values.push(a);
  }
  const dict = `{'descr': '<f4', 'fortran_order': False, 'shape': (${layers}, ${heads}, ${n}, ${n}), }`;
  const pad = 64 - ((10 + dict.length + 1) % 64);
  const text = `${dict}${' '.repeat(pad % 64)}\n`;
  const header = new Uint8Array(10 + text.length);
  header.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, text.length & 255, text.length >> 8]);
  for (let i = 0; i < text.length; i++) header[10 + i] = text.charCodeAt(i);
  return { header, heads: values, count: layers * heads };
}

/** Writes the generated file to `path` (node). */
export async function writeNpy(path, shape) {
  const { openSync, writeSync, closeSync } = await import('node:fs');
  const { header, heads, count } = npyParts(shape);
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, header);
    for (let i = 0; i < count; i++) writeSync(fd, new Uint8Array(heads[i % heads.length].buffer));
  } finally {
    closeSync(fd);
  }
  return path;
}
