// The selected row's formulas with its numbers substituted, rendered by KaTeX (web/views/tex.js
// loads web/vendor/katex.js on first use; its CSS and fonts in web/vendor/katex/, nothing fetched from elsewhere).
//
// API
//   renderFormulas(container, {state, results}, {defer}?)
//     container  an element; its formulas are updated in place (call again whenever state or
//                results change): a formula whose TeX (its data-tex) is unchanged keeps its
//                typeset element, only a changed one is typeset again; defer: a changed formula
//                keeps its old typesetting (class "stale") until a task two frames later
//                typesets the latest state (no cache of other states' typesetting is kept: the
//                page's DOM stays that of the state on screen)
//     state      the current valid state (docs/state.md): row, tau, mode, heads[head].Q/K/V, tokens
//     results    the core's results for that state (core.compute(state) / window.attentionPlayground
//                .results()): scores, weights, output, visible, rows, scale
//     Shows, for query row t = state.row, in this order (docs/MATH.md "Conventions"):
//       scores   s_j = c (q_t · k_j) with the products written out (mode qkv, d_k <= 3; c = the scale
//                in use), s_j = the given logit (mode logits) or s_j = ln a⁰_j (mode weights)
//       softmax  Z = Σ_{i∈Ω_t} e^{s_i/τ} and a_j = e^{s_j/τ} / Z = value, for each visible key
//       entropy  H = −Σ a_j ln a_j = value nats (0 ln 0 = 0: keys with a_j = 0 are left out)
//       output   o_t = Σ a_j v_j = value (vectors written out when d_v <= 4; no V: no output)
//     Up to 8 visible keys are written out (in key order); beyond, the sums end in "⋯" and say how
//     many terms there are. Masked keys (not in Ω_t) are left out of every sum and listed.
//     An empty row (no visible key) says its scores, weights, entropy and output are undefined.
//     A large head (results.large) shows the general formulas only.
//     Numbers: 6 significant digits (weights are float32 in results, so 0.7310585786 shows as
//     0.731059). Token strings never enter TeX; they are listed as plain text.
//     Element ids: #formula-scores, #formula-softmax, #formula-entropy, #formula-output (KaTeX
//     output inside), #formula-masked, #formula-undefined; each formula element carries data-tex.
//   formulaTex({state, results}) -> {row, empty, large, masked: [j...], lines: [{id, tex}]}
//     the same formulas as TeX strings, without a DOM (for other renderers and tests).
//   ensureKatexCss()  adds <link id="katex-css"> for web/vendor/katex/katex.min.css once
//     (renderFormulas calls it).
import { ensureKatexCss, renderTex } from './tex.js';
import { h, mount } from './dom.js';
import { fmtMetric, showToken, tData } from './format.js';
import { t as tr } from '../i18n/i18n.js';

export { ensureKatexCss };
// Words inside the TeX (\\text{...}) come from the string table too (web/i18n/lab.js
// "lab.formulas.*"); the math and the numbers are the same in every language.

export const MAX_TERMS = 8;
const MAX_VECTOR = 4;

/** A number in TeX: 6 significant digits, exponents as ×10^{n}, "undefined" for null/NaN. */
export function texNumber(x, digits = 6) {
  if (x === null || x === undefined || Number.isNaN(x)) return `\\text{${tr('lab.formulas.undefined')}}`;
  const s = fmtMetric(x, digits);
  const m = /^(-?[\d.]+)e([+-]\d+)$/.exec(s);
  if (m) return `${Number(m[1])}\\times10^{${Number(m[2])}}`;
  return s;
}

/** Key indices as text with runs shortened: [1, 2, 3, 7] -> "1–3, 7". */
export function keyRanges(keys) {
  const parts = [];
  for (let i = 0; i < keys.length; i++) {
    let k = i;
    while (k + 1 < keys.length && keys[k + 1] === keys[k] + 1) k++;
    parts.push(k - i >= 2 ? `${keys[i]}–${keys[k]}` : k > i ? `${keys[i]}, ${keys[k]}` : `${keys[i]}`);
    i = k;
  }
  return parts.join(', ');
}

/** A factor: negative numbers in parentheses. */
const factor = (x) => (x < 0 ? `(${texNumber(x)})` : texNumber(x));
const vec = (xs) => `(${xs.map((x) => texNumber(x)).join(',\\ ')})`;

/** Up to MAX_TERMS terms, then "⋯" when there are more. */
const elide = (terms) => (terms.length <= MAX_TERMS ? terms : [...terms.slice(0, MAX_TERMS), '\\cdots']);

/**
 * Lines of an aligned environment for a long sum: "&= [open] t1 + t2 + t3", "&\\qquad + t4 ...",
 * `per` terms a line, the last line closed by `close`.
 */
function sumLines(terms, per, open = '', close = '') {
  const list = elide(terms);
  const lines = [];
  for (let i = 0; i < list.length; i += per) {
    const chunk = list.slice(i, i + per).join(' + ');
    lines.push(i === 0 ? `&= ${open}${chunk}` : `&\\qquad + ${chunk}`);
  }
  lines[lines.length - 1] += close;
  return lines;
}

const more = (n) => (n > MAX_TERMS ? `\\quad\\text{${tr('lab.formulas.terms', { n })}}` : '');
const moreKeys = (n) => `&\\ \\vdots\\quad\\text{${tr('lab.formulas.moreKeys', { n })}}`;

/** The formulas of the selected row as TeX (see the API above). */
export function formulaTex({ state, results }) {
  const t = state.row;
  const out = { row: t, empty: false, large: !!results.large, masked: [], lines: [] };
  const tau = state.tau;
  const row = results.rows?.[t];
  if (row?.empty) out.empty = true;
  const general = [
    { id: 'formula-softmax', tex: 'a_j = \\frac{e^{s_j/\\tau}}{\\sum_{i\\in\\Omega_t} e^{s_i/\\tau}}' },
    { id: 'formula-entropy', tex: 'H = -\\sum_{j\\in\\Omega_t} a_j \\ln a_j' },
    { id: 'formula-output', tex: '\\mathbf o_t = \\sum_{j\\in\\Omega_t} a_j \\mathbf v_j' },
  ];
  if (out.large || !results.weights || !results.visible) {
    out.lines = general;
    return out;
  }
  const visible = results.visible[t];
  const keys = [];
  visible.forEach((v, j) => (v ? keys : out.masked).push(j));
  if (out.empty || keys.length === 0) {
    out.empty = true;
    out.lines = general;
    return out;
  }
  const shown = keys.slice(0, MAX_TERMS);
  const s = results.scores[t];
  const a = results.weights[t];
  // Mode "x": Q, K and V are derived from X and the head's W (the core returns them).
  const given = state.heads[state.head];
  const head = state.mode === 'x' && results.derived ? { ...given, ...results.derived } : given;

  // Scores.
  const scoreLines = [];
  if (state.mode === 'qkv' || state.mode === 'x') {
    const c = results.scale;
    const q = head.Q[t];
    const dk = q.length;
    for (const j of shown) {
      const k = head.K[j];
      const expanded = dk <= 3 ? `${texNumber(c)}\\,(${q.map((qc, i) => `${factor(qc)}\\cdot${factor(k[i])}`).join(' + ')})` : null;
      scoreLines.push(`s_{${j}} &= c\\,(\\mathbf q_{${t}}\\cdot\\mathbf k_{${j}})${expanded ? ` = ${expanded}` : ''} = ${texNumber(s[j])}`);
    }
  } else if (state.mode === 'logits') {
    for (const j of shown) scoreLines.push(`s_{${j}} &= \\operatorname{logit}_{${t},${j}} = ${texNumber(s[j])}`);
  } else {
    for (const j of shown)
      scoreLines.push(`s_{${j}} &= \\ln a^{0}_{${t},${j}} = \\ln ${texNumber(head.weights[t][j])} = ${texNumber(s[j])}`);
  }
  if (keys.length > MAX_TERMS) scoreLines.push(moreKeys(keys.length - MAX_TERMS));
  out.lines.push({ id: 'formula-scores', tex: `\\begin{aligned}${scoreLines.join('\\\\')}\\end{aligned}` });

  // Softmax.
  const tauT = texNumber(tau);
  const expTerm = (j) => `e^{${texNumber(s[j])}/${tauT}}`;
  const zLines = [
    `Z &= \\sum_{i\\in\\Omega_{${t}}} e^{s_i/\\tau},\\quad \\tau = ${tauT}`,
    ...sumLines(keys.map(expTerm), 4, '', more(keys.length)),
  ];
  const aLines = shown.map((j) => `a_{${j}} &= \\frac{e^{s_{${j}}/\\tau}}{Z} = \\frac{${expTerm(j)}}{Z} = ${texNumber(a[j])}`);
  if (keys.length > MAX_TERMS) aLines.push(moreKeys(keys.length - MAX_TERMS));
  out.lines.push({
    id: 'formula-softmax',
    tex: `\\begin{aligned}${[...zLines, ...aLines, '\\textstyle\\sum_j a_j &= ' + texNumber(row.rowSum)].join('\\\\')}\\end{aligned}`,
  });

  // Entropy (0 ln 0 = 0: keys whose weight is exactly 0 are left out).
  const live = keys.filter((j) => a[j] > 0);
  const hTerms = live.map((j) => `${texNumber(a[j])}\\ln ${texNumber(a[j])}`);
  out.lines.push({
    id: 'formula-entropy',
    tex:
      `\\begin{aligned}H &= -\\sum_{j\\in\\Omega_{${t}}} a_j \\ln a_j\\\\${sumLines(hTerms, 2, '-\\big(', '\\big)' + more(live.length)).join('\\\\')}` +
      `\\\\&= ${texNumber(row.entropy)}\\ \\text{${tr('app.unit.nats')}}\\end{aligned}`,
  });

  // Output.
  const V = head.V;
  const dv = results.dV ?? (V && V[0] ? V[0].length : 0);
  if (V && dv > 0) {
    const vTerm = (j) => (dv <= MAX_VECTOR ? `${texNumber(a[j])}\\,${vec(V[j])}` : `${texNumber(a[j])}\\,\\mathbf v_{${j}}`);
    const o = results.output[t];
    const oTex =
      dv <= MAX_TERMS
        ? vec(o)
        : `(${o
            .slice(0, MAX_TERMS)
            .map((x) => texNumber(x))
            .join(',\\ ')},\\ \\ldots)`;
    out.lines.push({
      id: 'formula-output',
      tex:
        `\\begin{aligned}\\mathbf o_{${t}} &= \\sum_{j\\in\\Omega_{${t}}} a_j \\mathbf v_j\\\\${sumLines(keys.map(vTerm), dv <= 2 ? 3 : 2, '', more(keys.length)).join('\\\\')}` +
        `\\\\&= ${oTex}\\end{aligned}`,
    });
  }
  return out;
}

function formula(id, tex) {
  const el = h('div', { class: 'formula-line', id, dataset: { tex } });
  renderTex(el, tex, { displayMode: true });
  return el;
}

const TITLES = {
  'formula-scores': 'lab.formulas.scores',
  'formula-softmax': 'lab.formulas.softmax',
  'formula-entropy': 'lab.formulas.entropy',
  'formula-output': 'lab.formulas.output',
};

// Deferred typesetting (renderFormulas with {defer: true}): the latest request per container,
// run after the next frame is painted, so a tau step or a drag paints its views first.
const deferred = new Map(); // container -> {state, results}
let deferTimer = null;

function runDeferred() {
  deferTimer = null;
  const jobs = [...deferred];
  deferred.clear();
  for (const [container, args] of jobs) renderFormulas(container, args);
}

/**
 * Renders the selected row's formulas into `container` (see the API at the top). Updates in
 * place: a formula whose TeX is unchanged keeps its typeset element (no KaTeX, no relayout), the
 * notes are replaced only when their text changed. options.defer: formulas whose TeX changed keep
 * their old typesetting (marked .stale) until a task after the next frame typesets the latest
 * state (coalesced: a drag typesets once it pauses for a frame, not on every step).
 */
export function renderFormulas(container, { state, results }, { defer = false } = {}) {
  deferred.delete(container);
  ensureKatexCss(container.ownerDocument);
  const f = formulaTex({ state, results });
  const t = f.row;
  const query = showToken(state.tokens.queries[t] ?? '');
  const nodes = [
    h(
      'p',
      { class: 'formula-note' },
      tData('lab.formulas.row', { t, query, tau: state.tau }, ['query']),
      state.mode === 'qkv' && results.scale !== undefined ? tr('lab.formulas.scale', { scale: fmtMetric(results.scale, 6) }) : '',
    ),
  ];
  if (f.large) {
    nodes.push(h('p', { class: 'formula-note' }, tr('lab.formulas.large')));
  }
  if (f.empty) {
    nodes.push(h('p', { class: 'formula-undefined', id: 'formula-undefined' }, tr('lab.formulas.emptyRow', { t })));
  }
  if (f.masked.length) {
    nodes.push(h('p', { class: 'formula-note', id: 'formula-masked' }, tr('lab.formulas.masked', { t, keys: keyRanges(f.masked) })));
  }
  if (!f.empty && !f.large) {
    const shownKeys = [];
    results.visible[t].forEach((v, j) => {
      if (v && shownKeys.length < MAX_TERMS) shownKeys.push(j);
    });
    nodes.push(
      h(
        'p',
        { class: 'formula-keys' },
        tr('lab.formulas.keys'),
        shownKeys.map((j, k) => [k ? ' · ' : '', `${j} `, h('span', { translate: 'no' }, `“${showToken(state.tokens.keys[j] ?? '')}”`)]),
      ),
    );
  }
  const root =
    container.firstElementChild?.classList.contains('formulas') && container.childElementCount === 1 ? container.firstElementChild : null;
  const oldBlocks = new Map();
  if (root) for (const b of root.querySelectorAll(':scope > .formula-block')) oldBlocks.set(b.dataset.line, b);
  let stale = false;
  for (const line of f.lines) {
    const title = TITLES[line.id] ? tr(TITLES[line.id]) : '';
    const old = oldBlocks.get(line.id);
    if (old && (old.lastElementChild.dataset.tex === line.tex || defer)) {
      if (old.firstElementChild.textContent !== title) old.firstElementChild.textContent = title;
      const isStale = old.lastElementChild.dataset.tex !== line.tex;
      old.classList.toggle('stale', isStale);
      stale ||= isStale;
      nodes.push(old);
      continue;
    }
    nodes.push(
      h(
        'div',
        { class: 'formula-block', dataset: { line: line.id } },
        h('div', { class: 'formula-note' }, title),
        formula(line.id, line.tex),
      ),
    );
  }
  if (!f.empty && !f.large && !f.lines.some((l) => l.id === 'formula-output')) {
    nodes.push(h('p', { class: 'formula-note' }, tr('lab.formulas.noValues')));
  }
  if (!root) {
    mount(container, h('div', { class: 'formulas' }, nodes));
  } else {
    patchChildren(root, nodes);
  }
  if (stale) {
    deferred.set(container, { state, results });
    // After the frame that shows the change (and the next one) is painted.
    deferTimer ??= requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(runDeferred, 0)));
  }
}

/**
 * Makes `parent`'s children `nodes` with the fewest moves: a new note equal to a current one keeps
 * the current one, children not kept are removed first, the kept ones stay where they are.
 */
function patchChildren(parent, nodes) {
  const spare = [...parent.children].filter((c) => !nodes.includes(c) && !c.classList.contains('formula-block'));
  const list = nodes.map((node) => {
    if (node.parentNode === parent) return node;
    const i = spare.findIndex((c) => c.isEqualNode(node));
    return i >= 0 ? spare.splice(i, 1)[0] : node;
  });
  for (const c of [...parent.childNodes]) if (!list.includes(c)) c.remove();
  let at = parent.firstChild;
  for (const node of list) {
    if (at === node) at = at.nextSibling;
    else parent.insertBefore(node, at);
  }
}
