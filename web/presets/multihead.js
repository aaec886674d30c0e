// Mode "x" (multi-head attention from X, docs/state.md): seeded random layers and the shape edits
// the page offers (tokens, d_model, d_k, d_v, heads, W_O). Plain data in, plain data out: no DOM
// and no attention maths (the C++ core computes Q = X W_Q, the heads and the layer output).
import { mulberry32 } from './random.js';

/** Random numbers shown in the editors: quarter steps, exact in float32 (short links). */
const quarter = (rng, span) => Math.round((rng() * 2 - 1) * span * 4) / 4;

/**
 * Fills a layer with seeded numbers. The draws are in a fixed order (X row by row, then per head
 * WQ, WK, WV, then WO), so the same seed and shapes always give the same layer.
 * @param {number} seed  integer; the mulberry32 seed (web/presets/random.js)
 * @param {{n: number, dModel: number, heads: {dK: number, dV: number}[], dOut: number|null}} shape
 *   dOut null = no W_O
 * @returns {{X: number[][], heads: {WQ: number[][], WK: number[][], WV: number[][]}[], WO: number[][]|null}}
 *   X in [-2, 2], W's in [-1, 1], quarter steps
 */
export function randomLayer(seed, shape) {
  const rng = mulberry32(seed);
  const matrix = (rows, cols, span) => Array.from({ length: rows }, () => Array.from({ length: cols }, () => quarter(rng, span) + 0));
  const X = matrix(shape.n, shape.dModel, 2);
  const heads = shape.heads.map(({ dK, dV }) => ({
    WQ: matrix(shape.dModel, dK, 1),
    WK: matrix(shape.dModel, dK, 1),
    WV: matrix(shape.dModel, dV, 1),
  }));
  const sumDv = shape.heads.reduce((a, hd) => a + hd.dV, 0);
  const WO = shape.dOut ? matrix(sumDv, shape.dOut, 1) : null;
  return { X, heads, WO };
}

/** The shapes of a valid mode-"x" state, for randomLayer(). */
export function layerShape(s) {
  return {
    n: s.x.X.length,
    dModel: s.x.X[0].length,
    heads: s.heads.map((hd) => ({ dK: hd.WQ[0].length, dV: hd.WV[0].length })),
    dOut: s.x.WO ? s.x.WO[0].length : null,
  };
}

/** Replaces the numbers of a mode-"x" state (in place) by randomLayer(seed) of the same shapes. */
export function fillRandom(s, seed) {
  const r = randomLayer(seed, layerShape(s));
  s.x.X = r.X;
  s.x.WO = r.WO;
  s.heads.forEach((hd, i) => Object.assign(hd, r.heads[i]));
  return s;
}

/**
 * A complete mode-"x" state: n tokens, seeded numbers.
 * @param {object} o
 * @param {string[]} o.tokens
 * @param {number} o.dModel
 * @param {{name: string, dK: number, dV: number}[]} o.heads
 * @param {boolean} [o.projected]  with W_O ((sum d_v) x d_model); default true
 * @param {boolean} [o.residual]   default true (needs W_O or sum d_v = d_model)
 * @param {number} o.seed
 */
export function makeLayerState(o) {
  const n = o.tokens.length;
  const projected = o.projected ?? true;
  const r = randomLayer(o.seed, { n, dModel: o.dModel, heads: o.heads, dOut: projected ? o.dModel : null });
  return {
    version: 1,
    mode: 'x',
    heads: o.heads.map((hd, i) => ({ name: hd.name, Q: null, K: null, V: null, logits: null, weights: null, ...r.heads[i] })),
    head: 0,
    tokens: { queries: [...o.tokens], keys: [...o.tokens] },
    mask: { causal: o.causal ?? false, window: 0, padding: new Array(n).fill(false), allow: null },
    tau: 1,
    scale: 'auto',
    topK: 2,
    row: 0,
    view: { panel: 'weights', preset: o.preset ?? 'custom', numbers: 'auto' },
    source: o.source ?? `Random layer, seed ${o.seed}`,
    x: { X: r.X, WO: r.WO, residual: o.residual ?? true },
  };
}

// ---- Shape edits (in place, on a copy of a valid state; the result is validated by the caller)

const zeros = (n) => new Array(n).fill(0);

/** Offset of head h's columns in the concatenation (= its first row in W_O). */
export function concatOffset(s, h) {
  let off = 0;
  for (let i = 0; i < h; i++) off += s.heads[i].WV[0].length;
  return off;
}

/** Adds (delta 1) or removes (-1) the last token: a row of X, both token lists, padding, gates. */
export function resizeTokens(s, delta, label) {
  const n = s.x.X.length;
  if (delta < 0 && n <= 1) return;
  if (delta > 0) {
    s.x.X.push(zeros(s.x.X[0].length));
    s.tokens.queries.push(label);
    s.tokens.keys.push(label);
    s.mask.padding.push(false);
  } else {
    s.x.X.pop();
    s.tokens.queries.pop();
    s.tokens.keys.pop();
    s.mask.padding.pop();
  }
  for (const hd of s.heads) {
    if (!hd.gate) continue;
    if (delta > 0) hd.gate.push(0);
    else hd.gate.pop();
  }
  s.mask.allow = null;
  s.row = Math.min(s.row, s.x.X.length - 1);
}

/**
 * Adds or removes the last column of X (d_model): a row of every W_Q, W_K, W_V, and, when W_O's
 * width was d_model (the residual shape), a column of W_O too.
 */
export function resizeModel(s, delta) {
  const d = s.x.X[0].length;
  if (delta < 0 && d <= 1) return;
  for (const row of s.x.X) {
    if (delta > 0) row.push(0);
    else row.pop();
  }
  for (const hd of s.heads) {
    for (const key of ['WQ', 'WK', 'WV']) {
      if (delta > 0) hd[key].push(zeros(hd[key][0].length));
      else hd[key].pop();
    }
  }
  if (s.x.WO && s.x.WO[0].length === d)
    for (const row of s.x.WO) {
      if (delta > 0) row.push(0);
      else row.pop();
    }
}

/** Adds or removes the last column of head h's W_Q and W_K (d_k). */
export function resizeKeyDim(s, h, delta) {
  const hd = s.heads[h];
  if (delta < 0 && hd.WQ[0].length <= 1) return;
  for (const m of [hd.WQ, hd.WK])
    for (const row of m) {
      if (delta > 0) row.push(0);
      else row.pop();
    }
}

/** Adds or removes the last column of head h's W_V (d_v), and the matching row of W_O. */
export function resizeValueDim(s, h, delta) {
  const hd = s.heads[h];
  const dv = hd.WV[0].length;
  if (delta < 0 && dv <= 1) return;
  const at = concatOffset(s, h) + dv; // the row after head h's last row of W_O
  for (const row of hd.WV) {
    if (delta > 0) row.push(0);
    else row.pop();
  }
  if (s.x.WO) {
    if (delta > 0) s.x.WO.splice(at, 0, zeros(s.x.WO[0].length));
    else s.x.WO.splice(at - 1, 1);
  }
}

/** Adds a head (zeros, the last head's d_k and d_v) or removes the last one (keeps at least 1). */
export function resizeHeads(s, delta, name) {
  if (delta < 0) {
    if (s.heads.length <= 1) return;
    const last = s.heads.length - 1;
    const dv = s.heads[last].WV[0].length;
    if (s.x.WO) s.x.WO.splice(s.x.WO.length - dv, dv);
    s.heads.pop();
    s.head = Math.min(s.head, s.heads.length - 1);
    return;
  }
  const d = s.x.X[0].length;
  const prev = s.heads[s.heads.length - 1];
  const dK = prev.WQ[0].length;
  const dV = prev.WV[0].length;
  const m = (cols) => Array.from({ length: d }, () => zeros(cols));
  s.heads.push({ name, Q: null, K: null, V: null, logits: null, weights: null, WQ: m(dK), WK: m(dK), WV: m(dV) });
  if (s.x.WO) for (let i = 0; i < dV; i++) s.x.WO.push(zeros(s.x.WO[0].length));
}

/** Adds or removes the last column of W_O (d_out). */
export function resizeOutput(s, delta) {
  if (!s.x.WO) return;
  if (delta < 0 && s.x.WO[0].length <= 1) return;
  for (const row of s.x.WO) {
    if (delta > 0) row.push(0);
    else row.pop();
  }
}

/** W_O on (an identity-like (sum d_v) x d_model matrix: 1 where row = column) or off (null). */
export function setProjection(s, on) {
  if (!on) {
    s.x.WO = null;
    return;
  }
  const sumDv = concatOffset(s, s.heads.length);
  const d = s.x.X[0].length;
  s.x.WO = Array.from({ length: sumDv }, (_, i) => Array.from({ length: d }, (_, j) => (i === j ? 1 : 0)));
}
