// The plain JS reference kernels of the benchmark: what a web developer would write by hand over
// Float32Array, with no library. They are the speed baseline ("plain JS") and the oracle every
// other variant's output is compared with before it is timed.
//
// Layout: `x` is a rows x n row-major float32 matrix of scores; every row is one query and the
// softmax runs over its n keys (docs MATH.md: the last axis). No mask (the benchmark times the
// dense kernel).
//
// Entropy form: H = ln s - (sum_j e_j z_j) / s with z_j = (x_j - max) / tau, e_j = exp(z_j),
// s = sum_j e_j. This is -sum_j p_j ln p_j rewritten so that there is no log per element
// (p_j = e_j / s, ln p_j = z_j - ln s). Sums accumulate in JS numbers (double).

/**
 * Fused row softmax with temperature plus per-row entropy (nats).
 *   x:   Float32Array(rows * n)  scores
 *   out: Float32Array(rows * n)  weights (may not alias x)
 *   ent: Float32Array(rows)      entropies
 *   tau: > 0
 */
export function softmaxEntropyJS(x, out, ent, rows, n, tau) {
  const inv = 1 / tau;
  for (let i = 0, o = 0; i < rows; i++, o += n) {
    let m = -Infinity;
    for (let j = 0; j < n; j++) if (x[o + j] > m) m = x[o + j];
    let s = 0;
    let ez = 0;
    for (let j = 0; j < n; j++) {
      const z = (x[o + j] - m) * inv;
      const e = Math.exp(z);
      out[o + j] = e;
      s += e;
      ez += e * z;
    }
    const r = 1 / s;
    for (let j = 0; j < n; j++) out[o + j] *= r;
    ent[i] = Math.log(s) - ez * r;
  }
}

/** Row softmax with temperature alone: same layout as softmaxEntropyJS, no entropy. */
export function softmaxJS(x, out, rows, n, tau) {
  const inv = 1 / tau;
  for (let i = 0, o = 0; i < rows; i++, o += n) {
    let m = -Infinity;
    for (let j = 0; j < n; j++) if (x[o + j] > m) m = x[o + j];
    let s = 0;
    for (let j = 0; j < n; j++) {
      const e = Math.exp((x[o + j] - m) * inv);
      out[o + j] = e;
      s += e;
    }
    const r = 1 / s;
    for (let j = 0; j < n; j++) out[o + j] *= r;
  }
}

/**
 * Checks the reference itself against the definition, in double, on the first `rows` rows:
 * p = exp(z - logsumexp z), H = -sum p ln p (0 ln 0 = 0). Returns the max abs errors of the
 * weights and of H. Independent of the rewritten entropy form above.
 */
export function checkReferenceRows(x, weights, ent, n, tau, rows = 8) {
  let errW = 0;
  let errH = 0;
  for (let i = 0; i < rows; i++) {
    const row = Array.from(x.subarray(i * n, (i + 1) * n), (v) => v / tau);
    const m = Math.max(...row);
    const lse = m + Math.log(row.reduce((a, v) => a + Math.exp(v - m), 0));
    let h = 0;
    for (let j = 0; j < n; j++) {
      const p = Math.exp(row[j] - lse);
      if (p > 0) h -= p * Math.log(p);
      errW = Math.max(errW, Math.abs(p - weights[i * n + j]));
    }
    errH = Math.max(errH, Math.abs(h - ent[i]));
  }
  return { weights: errW, entropy: errH };
}
