// Pure state edits of the page: each takes a valid state (docs/state.md) and returns the next
// state, a new object (the argument is never changed); none touches the DOM or holds state.
// The store validates and computes what they return (store.js updateWith); tests/node/edits.test.js
// runs them in node. Mode "x" shape edits (tokens, d_model, heads, W_O) are in web/presets/multihead.js.
import { makeLayerState } from '../presets/multihead.js';
import { SCHEMA } from '../generated/schema.js';

/** Queries of the selected head (tokens of X in mode "x"). */
export function nQ(s) {
  const hd = s.heads[s.head];
  if (s.mode === 'x') return s.x.X.length;
  return s.mode === 'qkv' ? hd.Q.length : (s.mode === 'logits' ? hd.logits : hd.weights).length;
}

/** Keys of the selected head (tokens of X in mode "x"). */
export function nK(s) {
  const hd = s.heads[s.head];
  if (s.mode === 'x') return s.x.X.length;
  return s.mode === 'qkv' ? hd.K.length : ((s.mode === 'logits' ? hd.logits : hd.weights)[0]?.length ?? 0);
}

/** After the user changes the numbers, the state is no longer the preset it came from. */
function markEdited(s) {
  if (s.view.preset === 'custom') return;
  s.view.preset = 'custom';
  s.source = `Edited from: ${s.source}`.slice(0, SCHEMA.limits.maxSourceLength);
}

/** A copy of `s` changed by `fn` (given the copy) and marked as edited: a change of numbers or shapes. */
export function edited(s, fn) {
  const next = structuredClone(s);
  fn(next);
  markEdited(next);
  return next;
}

const zeros = (n) => new Array(n).fill(0);

/** A label not yet used: prefix + the smallest free number ("k3" after k1, k2). */
export function freshLabel(prefix, used) {
  for (let i = used.length + 1; ; i++) if (!used.includes(`${prefix}${i}`)) return `${prefix}${i}`;
}

/** Cell (i, j) of matrix `name` (Q, K, V, logits, weights) of the selected head set to `value`. */
export function editCell(s, name, i, j, value) {
  return edited(s, (x) => {
    x.heads[x.head][name][i][j] = value;
  });
}

/** Token label i of `which` ("queries" or "keys"). */
export function editToken(s, which, i, text) {
  const next = structuredClone(s);
  // Self-attention: queries and keys are the same tokens, so a label edit updates both.
  const tied = next.tokens.queries.length === next.tokens.keys.length && next.tokens.queries.every((t, k) => t === next.tokens.keys[k]);
  next.tokens[which][i] = text;
  if (tied) next.tokens[which === 'queries' ? 'keys' : 'queries'][i] = text;
  return next;
}

/** Adds (delta > 0) or removes a query (row of Q / logits / weights). */
export function resizeQueries(s, delta) {
  return edited(s, (x) => {
    const hd = x.heads[x.head];
    const name = x.mode === 'qkv' ? 'Q' : x.mode;
    const m = hd[name];
    if (delta > 0) {
      const width = m[0]?.length ?? 1;
      m.push(x.mode === 'weights' ? new Array(width).fill(1 / width) : zeros(width));
      x.tokens.queries.push(freshLabel('q', x.tokens.queries));
    } else if (m.length > 1) {
      m.pop();
      x.tokens.queries.pop();
    }
    // Gates have one logit per query: a new query starts at g = 0 (sigmoid(0) = 1/2, the gate's default).
    for (const other of x.heads) {
      if (!other.gate) continue;
      while (other.gate.length < m.length) other.gate.push(0);
      other.gate.length = m.length;
    }
    x.row = Math.min(x.row, m.length - 1);
    x.mask.allow = null;
  });
}

/** Adds or removes a key (row of K and V, column of logits / weights, a padding flag). */
export function resizeKeys(s, delta) {
  if (delta < 0 && nK(s) <= 1) return structuredClone(s);
  return edited(s, (x) => {
    const hd = x.heads[x.head];
    if (x.mode === 'qkv') {
      if (delta > 0) hd.K.push(zeros(hd.K[0].length));
      else hd.K.pop();
    } else {
      const m = hd[x.mode];
      for (const row of m) {
        if (delta > 0) row.push(0);
        else row.pop();
      }
    }
    if (hd.V) {
      if (delta > 0) hd.V.push(zeros(hd.V[0]?.length ?? 1));
      else hd.V.pop();
    }
    if (delta > 0) {
      x.tokens.keys.push(freshLabel('k', x.tokens.keys));
      x.mask.padding.push(false);
    } else {
      x.tokens.keys.pop();
      x.mask.padding.pop();
    }
    x.mask.allow = null;
  });
}

/** Adds or removes a column of Q and K together (which = "dk", d_k) or of V ("dv", d_v). */
export function resizeColumns(s, which, delta) {
  const hd = s.heads[s.head];
  const first = which === 'dk' ? hd.Q : hd.V;
  if (delta < 0 && (first[0]?.length ?? 0) <= 1) return structuredClone(s);
  return edited(s, (x) => {
    const head = x.heads[x.head];
    for (const m of which === 'dk' ? [head.Q, head.K] : [head.V]) {
      for (const row of m) {
        if (delta > 0) row.push(0);
        else row.pop();
      }
    }
  });
}

/** Values for a head without V: one column, v_j = j (the output is the attended position). */
export function addValues(s) {
  const next = structuredClone(s);
  next.heads[next.head].V = Array.from({ length: nK(next) }, (_, j) => [j]);
  return next;
}

/** Edit-the-mask mode: flips cell (t, j) of the allow-matrix (created all-true; all-true is none). */
export function toggleAllow(s, t, j) {
  const next = structuredClone(s);
  const n = nK(next);
  const allow = next.mask.allow ?? Array.from({ length: nQ(next) }, () => new Array(n).fill(true));
  allow[t][j] = !allow[t][j];
  next.mask.allow = allow.every((row) => row.every(Boolean)) ? null : allow;
  return next;
}

/** The selected head's gate on (every logit 0, i.e. a factor 1/2) or off. */
export function setGate(s, on) {
  return edited(s, (x) => {
    const hd = x.heads[x.head];
    if (on) hd.gate = new Array(nQ(x)).fill(0);
    else delete hd.gate;
  });
}

/** Every gate logit of the selected head set to g. */
export function setGateAll(s, g) {
  return edited(s, (x) => {
    x.heads[x.head].gate = new Array(nQ(x)).fill(g);
  });
}

/** Gate logit of query `row` of the selected head set to g. */
export function setGateRow(s, row, g) {
  return edited(s, (x) => {
    x.heads[x.head].gate[row] = g;
  });
}

/**
 * Mode switching among "qkv", "logits" and "weights" keeps the numbers meaningful: qkv -> logits
 * copies the current scores, anything -> weights copies the current weights (and sets tau = 1,
 * as they already include the temperature), weights/logits -> qkv starts from identity-ish Q, K.
 * @param {object} s        valid state, not in mode "x"
 * @param {object} results  its results (core.compute)
 */
export function switchMode(s, results, mode) {
  const next = structuredClone(s);
  const hd = next.heads[next.head];
  const n = nK(next);
  if (mode === 'logits') hd.logits = results.scores.map((row) => row.map((x) => (x === null ? null : x)));
  if (mode === 'weights') {
    // The copied weights already include the temperature: tau = 1 shows them unchanged.
    hd.weights = results.weights.map((row) => [...row]);
    next.tau = 1;
  }
  if (mode === 'qkv' && (!hd.Q || !hd.K || hd.Q.length !== nQ(next) || hd.K.length !== n)) {
    hd.Q = Array.from({ length: nQ(next) }, (_, i) => [1, i / Math.max(1, nQ(next) - 1)]);
    hd.K = Array.from({ length: n }, (_, j) => [1, j / Math.max(1, n - 1)]);
  }
  next.mode = mode;
  return next;
}

/**
 * Into mode "x": a layer of random numbers (mulberry32 `seed`) on the key tokens, every head
 * d_model 4, d_k = d_v = 2 (at most 8 heads), with the state's other settings kept.
 */
export function enterLayerMode(s, seed) {
  const keys = s.tokens.keys;
  const next = makeLayerState({
    tokens: keys,
    dModel: 4,
    seed,
    heads: s.heads.slice(0, 8).map((hd, i) => ({ name: hd.name || `head ${i}`, dK: 2, dV: 2 })),
    projected: true,
    residual: true,
    source: `Random layer (mulberry32 seed ${seed}) on the tokens of: ${s.source}`.slice(0, SCHEMA.limits.maxSourceLength),
  });
  next.heads.forEach((hd, i) => {
    if (s.heads[i].gate && s.heads[i].gate.length === keys.length) hd.gate = [...s.heads[i].gate];
  });
  next.head = Math.min(s.head, next.heads.length - 1);
  next.mask = { ...structuredClone(s.mask), allow: nQ(s) === keys.length ? structuredClone(s.mask.allow) : null };
  Object.assign(next, { tau: s.tau, scale: s.scale, topK: s.topK, row: Math.min(s.row, keys.length - 1) });
  next.tokens.queries = nQ(s) === keys.length ? [...s.tokens.queries] : [...keys];
  if (s.lab) next.lab = structuredClone(s.lab);
  return next;
}

/**
 * Out of mode "x": every head's derived Q, K, V (and its scores or weights for those modes) as
 * the core computed them (`perHead[i]`: the results of head i), so the numbers on screen stay.
 */
export function leaveLayerMode(s, perHead, mode) {
  return edited(s, (x) => {
    x.heads.forEach((hd, i) => {
      const r = perHead[i];
      hd.Q = r.derived.Q;
      hd.K = r.derived.K;
      hd.V = r.derived.V;
      delete hd.WQ;
      delete hd.WK;
      delete hd.WV;
      if (mode === 'logits') hd.logits = r.scores.map((row) => [...row]);
      if (mode === 'weights') hd.weights = r.weights.map((row) => [...row]);
    });
    delete x.x;
    if (mode === 'weights') x.tau = 1;
    x.mode = mode;
  });
}
