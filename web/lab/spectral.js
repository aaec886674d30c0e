// Lab view "spectral": the selected head's weights A as a matrix (the core's lab_spectral.cpp;
// docs/lab.md "Spectral"; docs/MATH.md "Spectral"). The stationary distribution pi (pi A = pi) as
// bars with numbers, the singular values as a small SVG bar plot with numbers and the threshold
// eps * sigma_1, effective rank, threshold rank and spectral entropy, and the heads x heads cosine
// and Jensen-Shannon tables under keep-sink and drop-sink side by side.
import { h, mount, svg } from '../views/dom.js';
import { fmtMetric, showToken } from '../views/format.js';

const f = (x, d = 4) => fmtMetric(x, d);


const headName = (state, i) => state.heads?.[i]?.name || `head ${i}`;
const keyLabel = (state, j) => {
  const t = state.tokens?.keys?.[j];
  return t === undefined ? `${j}` : `${j}: ${showToken(t)}`;
};

function epsilonControl(lab, setParams) {
  const input = h('input', {
    type: 'number', class: 'num-box', id: 'lab-param-epsilon', value: lab.epsilon, min: 0, max: 1, step: 'any',
    'aria-label': 'epsilon of the threshold rank (0 < ε < 1)',
    onchange: (e) => {
      const text = e.target.value.trim();
      setParams({ epsilon: text === '' ? null : Number(text) });
    },
  });
  return h('div', { class: 'lab-params' },
    h('label', { class: 'inline lab-param' }, 'threshold rank ε', input),
    h('span', { class: 'note' }, 'counts σᵢ > ε·σ₁; 0 < ε < 1, default 0.01'));
}

const sci = (x) => (x === null ? 'undefined' : x === 0 ? '0' : x.toExponential(2));
/** A step count (a power of two, up to 2^60): exact below 10^6, else 2^k. */
const steps = (t) => (t < 1e6 ? String(t) : `2^${Math.round(Math.log2(t))}`);

/** pi as a table of bars with numbers, or the reason it is undefined. */
function stationaryBlock(state, lab) {
  const st = lab.stationary;
  const head = h('h4', {}, 'Stationary distribution π (π A = π)');
  if (!st.defined) {
    return h('div', { class: 'spec-block', id: 'lab-spectral-pi' }, head,
      h('p', { class: 'note spec-undefined', id: 'lab-spectral-pi-undefined' }, `undefined: ${st.reason}.`));
  }
  const max = Math.max(1e-12, ...st.pi);
  return h('div', { class: 'spec-block', id: 'lab-spectral-pi' }, head,
    h('p', { class: 'note' }, 'A row-stochastic A is a Markov chain on the tokens (query t moves to key j with probability A[t, j]); ' +
      'π is where a long walk spends its time. Power iteration from uniform on (I + A)/2 (same π, no periodicity). ' +
      'In a causal head whose queries all put some weight on earlier keys, every walk ends at token 0: π = e₀.'),
    h('table', { class: 'metrics-table spec-pi' },
      h('thead', {}, h('tr', {}, ['key', 'π', ''].map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, st.pi.map((p, j) => h('tr', { dataset: { key: j } },
        h('td', { class: 'spec-key' }, keyLabel(state, j)),
        h('td', { class: 'bar-cell' }, h('span', { class: 'spec-bar-track' },
          h('span', { class: 'spec-bar', style: { width: `${Math.max(0, Math.min(100, (100 * p) / max))}%` } }))),
        h('td', { id: `lab-spectral-pi-${j}`, dataset: { value: p } }, f(p, 4)))))),
    h('p', { class: 'note', id: 'lab-spectral-pi-convergence' },
      `${st.converged ? 'converged' : 'NOT converged'} after ${steps(st.steps)} step${st.steps === 1 ? '' : 's'} of (I + A)/2` +
      (st.squarings ? ` (after ${st.plainSteps} plain steps, by ${st.squarings} matrix squarings: a token keeps almost all its weight on itself, so the chain mixes slowly)` : '') +
      `: the last half of the run changed π by ${sci(st.change)}, ‖πA − π‖₁ = ${sci(st.residual)} (tolerance ${st.tolerance.toExponential(0)} for both).`));
}

/** Singular values as bars, each with its number, and the line eps * sigma_1. */
function sigmaPlot(lab) {
  const sigma = lab.sigma;
  const n = sigma.length;
  const top = Math.max(1e-12, sigma[0] ?? 0);
  const barW = Math.max(10, Math.min(40, Math.floor(520 / Math.max(1, n))));
  const gap = Math.max(2, Math.round(barW / 5));
  const left = 40;
  const plotH = 120;
  const vertical = barW < 30; // narrow bars: numbers written upwards
  const labelRoom = vertical ? 48 : 16;
  const W = Math.max(300, left + n * (barW + gap) + 10); // room for the axis caption
  const H = labelRoom + plotH + 30;
  const y = (v) => labelRoom + plotH * (1 - v / top);
  const children = [
    svg('line', { class: 'spec-axis', x1: left - 4, x2: W - 4, y1: y(0), y2: y(0) }),
    svg('text', { class: 'spec-tick', x: left - 6, y: y(0) + 3, 'text-anchor': 'end' }, '0'),
    svg('text', { class: 'spec-tick', x: left - 6, y: y(top) + 3, 'text-anchor': 'end' }, f(top, 3)),
  ];
  sigma.forEach((s, i) => {
    const x = left + i * (barW + gap);
    const above = s > lab.epsilon * top;
    children.push(svg('rect', {
      class: `spec-sigma${above ? '' : ' below'}`, x, y: y(s), width: barW, height: Math.max(0.5, y(0) - y(s)),
      id: `lab-spectral-sigma-${i}`, dataset: { value: s },
    }, svg('title', {}, `σ${i + 1} = ${s}`)));
    const cx = x + barW / 2;
    children.push(vertical
      ? svg('text', { class: 'spec-value', x: cx + 3, y: y(s) - 4, transform: `rotate(-90 ${cx + 3} ${y(s) - 4})` }, f(s, 3))
      : svg('text', { class: 'spec-value', x: cx, y: y(s) - 4, 'text-anchor': 'middle' }, f(s, 3)));
    children.push(svg('text', { class: 'spec-tick', x: cx, y: y(0) + 13, 'text-anchor': 'middle' }, String(i + 1)));
  });
  const ty = y(lab.epsilon * top);
  children.push(svg('line', { class: 'spec-threshold', x1: left - 4, x2: W - 4, y1: ty, y2: ty }));
  children.push(svg('text', { class: 'spec-tick', x: left, y: H - 4 }, `i (σ descending); dashed: ε·σ₁ = ${f(lab.epsilon * top, 3)}`));
  return h('div', { class: 'spec-block' },
    h('h4', {}, `Singular values σ of A (${n})`),
    h('div', { class: 'spec-plot-wrap' },
      svg('svg', { class: 'spec-plot', id: 'lab-spectral-sigma', width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: 'img',
        'aria-label': `singular values: ${sigma.map((s) => f(s, 4)).join(', ')}` }, children)));
}

function scalars(lab) {
  const row = (id, name, value, text, what) => h('tr', {},
    h('th', { scope: 'row' }, name),
    h('td', { id, dataset: { value: value ?? '' } }, text),
    h('td', { class: 'note-cell' }, what));
  return h('table', { class: 'metrics-table spec-scalars', id: 'lab-spectral-scalars' },
    h('tbody', {},
      row('lab-spectral-effective-rank', 'effective rank', lab.effectiveRank, f(lab.effectiveRank, 5),
        'exp(H(σ/Σσ)) (Roy & Vetterli 2007): 1 = rank one, n = identity'),
      row('lab-spectral-threshold-rank', 'threshold rank', lab.thresholdRank, String(lab.thresholdRank),
        `#{σᵢ > ε·σ₁}, ε = ${lab.epsilon}`),
      row('lab-spectral-entropy', 'spectral entropy', lab.spectralEntropy, `${f(lab.spectralEntropy, 5)}${lab.spectralEntropy === null ? '' : ' nats'}`,
        'H(σ/Σσ), natural log')));
}

/** One heads x heads table of `metric` under `conv`. */
function pairTable(state, lab, conv, metric) {
  const t = lab.redundancy[conv];
  const heads = lab.redundancy.heads;
  const jsd = metric === 'jsd';
  const ln2 = Math.log(2);
  const id = `lab-spectral-${conv}-${metric}`;
  return h('table', { class: 'metrics-table spec-pairs', id },
    h('caption', {}, jsd ? 'Jensen-Shannon divergence (nats, 0 … ln 2)' : 'cosine similarity (0 … 1)'),
    h('thead', {}, h('tr', {}, h('th', {}, ''), heads.map((x) => h('th', { scope: 'col', title: headName(state, x.head) }, x.name || `head ${x.head}`)))),
    h('tbody', {}, heads.map((x, i) => h('tr', { class: i === lab.head ? 'selected-row' : null },
      h('th', { scope: 'row' }, x.name || `head ${x.head}`),
      heads.map((y, j) => {
        const v = t[metric][i][j];
        const strength = v === null ? 0 : jsd ? 1 - Math.min(1, v / ln2) : v;
        const title = `${x.name || `head ${x.head}`} vs ${y.name || `head ${y.head}`}: mean over ${t.rows[i][j]} rows` +
          (t.empty[i][j] ? `; ${t.empty[i][j]} empty skipped` : '') +
          (conv === 'drop' && t.sinkOnly[i][j] ? `; ${t.sinkOnly[i][j]} with all mass on key 0 skipped` : '');
        return h('td', {
          id: `${id}-r${i}-c${j}`, dataset: { value: v ?? '' }, title,
          class: v === null ? 'undefined-cell' : null,
          style: v === null ? null : { background: `rgba(59, 111, 182, ${(0.05 + 0.35 * strength).toFixed(3)})` },
        }, v === null ? 'undefined' : f(v, 3));
      })))));
}

function redundancy(state, lab) {
  const r = lab.redundancy;
  const sel = lab.head;
  const n = lab.nQ;
  const sinkOnly = r.drop.sinkOnly[sel][sel];
  const empty = r.keep.empty[sel][sel];
  const totalSkipped = Math.max(...r.drop.sinkOnly.flat());
  const dropNote = `Drop-sink: each row without key 0, renormalised. Rows whose whole mass is on key 0 have no content distribution and are skipped: ` +
    `${sinkOnly} of ${n} in ${headName(state, sel)}` + (r.heads.length > 1 ? `, at most ${totalSkipped} for a pair of heads` : '') +
    ' (hover a cell for its count).';
  return h('div', { class: 'spec-block' },
    h('h4', {}, r.heads.length === 1 ? 'Head redundancy (one head in this state: it is compared with itself only)'
      : `Head redundancy: every pair of the ${r.heads.length} heads (mean over rows)`),
    h('p', { class: 'note' }, 'Cosine similarity and Jensen-Shannon divergence of the two heads\' rows, averaged over the rows both can compare. ' +
      'Keep-sink uses the rows as they are; drop-sink compares only where the attention goes besides the first token, ' +
      'so two heads that both park most of their mass on token 0 may agree under keep and disagree under drop.'),
    empty ? h('p', { class: 'note', id: 'lab-spectral-empty-note' }, `${empty} empty row${empty === 1 ? '' : 's'} (no visible key) of ${headName(state, sel)} ${empty === 1 ? 'is' : 'are'} undefined and skipped in every comparison.`) : null,
    h('div', { class: 'spec-conventions' },
      h('div', { class: 'spec-convention', id: 'lab-spectral-keep' },
        h('h5', {}, 'keep sink (full rows)'),
        pairTable(state, lab, 'keep', 'cosine'), pairTable(state, lab, 'keep', 'jsd')),
      h('div', { class: 'spec-convention', id: 'lab-spectral-drop' },
        h('h5', {}, 'drop sink (without key 0, renormalised)'),
        pairTable(state, lab, 'drop', 'cosine'), pairTable(state, lab, 'drop', 'jsd'),
        h('p', { class: 'note', id: 'lab-spectral-drop-note' }, dropNote))));
}

export function render(container, { state, lab, setParams }) {
  const shape = lab.nQ === lab.nK ? `${lab.nQ} × ${lab.nK}` : `${lab.nQ} queries × ${lab.nK} keys`;
  mount(container,
    h('p', { class: 'note' }, `The weights A of ${headName(state, lab.head)} (${shape}) as a matrix: rows sum to 1, so A is a Markov chain ` +
      'on the tokens and its singular values say how many independent directions the mixing keeps. ' +
      (lab.emptyRows ? `${lab.emptyRows} empty row${lab.emptyRows === 1 ? '' : 's'} (no visible key) count as zero rows. ` : '') +
      'Formulas and fields: docs/lab.md "Spectral".'),
    epsilonControl(lab, setParams),
    h('div', { class: 'spec-top' },
      stationaryBlock(state, lab),
      h('div', { class: 'spec-right' }, sigmaPlot(lab), scalars(lab))),
    redundancy(state, lab));
}
