// Lab view "routing": routing width of the selected head (the core's lab_routing.cpp; docs/lab.md
// "Routing width"; the seed article on attention entropy and dynamic topology). The head as a
// graph (tokens on a line, an arc per weight above the threshold, N_eff under each query), the
// selected row's (1-delta) support S_t with the bound on the output it ignores, the tunnel-vision
// verdict with its two factors, the entropy-regulariser values and every row in a table.
// Arcs to earlier keys are drawn above the line of tokens, arcs to later keys below it.
import { h, mount } from '../views/dom.js';
import { fmtMetric } from '../views/format.js';
import { headName, keyLabel, numberParam, once, rowLabel, svg } from './controls.js';

const f = (x, d = 4) => fmtMetric(x, d);

/** The graph: self-attention as an arc diagram on one line, cross-attention as two lines. */
function graph(state, lab) {
  const g = lab.graph;
  const nq = g.queries.length;
  const nk = g.keys.length;
  const n = Math.max(nq, nk);
  const step = Math.max(20, Math.min(64, 1150 / Math.max(n, 1)));
  const left = 80; // room for the first rotated token label
  const width = left * 2 + step * Math.max(n - 1, 0);
  const x = (i) => left + i * step;
  const edgeStyle = (e) => {
    const sel = e.query === state.row;
    return {
      class: `route-edge${sel ? ' selected' : ''}`,
      'stroke-width': (0.6 + 5 * e.weight).toFixed(2),
      'stroke-opacity': sel ? 0.9 : (0.25 + 0.5 * e.weight).toFixed(2),
      dataset: { query: e.query, key: e.key, weight: e.weight },
    };
  };
  const title = (e) => svg('title', {}, `query ${rowLabel(state, e.query)} reads key ${e.key}: ${keyLabel(state, e.key)} with weight ${f(e.weight)}`);
  // Edges of the selected row last, so they are drawn on top.
  const edges = [...g.edges].sort((a, b) => (a.query === state.row) - (b.query === state.row));
  const labelBlock = (i, y, token, extra, cls) => svg('g', { class: cls },
    svg('text', { x: x(i), y, class: 'route-neff', 'text-anchor': 'middle' }, extra),
    svg('text', { x: x(i), y: y + 12, class: 'route-token', 'text-anchor': 'end', transform: `rotate(-50 ${x(i)} ${y + 12})` }, token));
  if (g.selfAttention) {
    // Edges to earlier keys arc above the line, edges to later keys (bidirectional heads) below
    // it, so t -> i and i -> t never share an arc; the labels then sit under the lower arcs.
    const span = (e) => Math.abs(e.query - e.key);
    const maxSpan = Math.max(1, ...g.edges.map(span));
    const arcH = (d) => Math.min(200, (d / maxSpan) * 200);
    const back = g.edges.filter((e) => e.key < e.query);
    const fwd = g.edges.filter((e) => e.key > e.query);
    const base = 30 + Math.max(arcH(Math.max(0, ...back.map(span))), 20) + 8;
    const below = fwd.length ? arcH(Math.max(...fwd.map(span))) + 10 : 0;
    const labelsY = base + below + 16;
    const height = labelsY + 94;
    return svg('svg', { class: 'route-graph', id: 'lab-routing-graph', width, height, viewBox: `0 0 ${width} ${height}`, role: 'img',
      'aria-label': `attention graph: ${g.edgeCount} edges above the threshold ${lab.threshold}` },
    fwd.length ? g.queries.map((q) => svg('line', { x1: x(q.index), y1: base, x2: x(q.index), y2: labelsY - 10, class: 'route-guide' })) : null,
    edges.map((e) => {
      if (e.query === e.key) {
        return svg('circle', { cx: x(e.query), cy: base - 13, r: 7, fill: 'none', ...edgeStyle(e) }, title(e));
      }
      const x1 = x(e.query);
      const x2 = x(e.key);
      const c = e.key < e.query ? base - arcH(span(e)) * 1.33 : base + arcH(span(e)) * 1.33;
      return svg('path', { d: `M ${x1} ${base} C ${x1} ${c} ${x2} ${c} ${x2} ${base}`, fill: 'none', ...edgeStyle(e) }, title(e));
    }),
    g.queries.map((q) => svg('circle', { cx: x(q.index), cy: base, r: 4.5, class: `route-node${q.index === state.row ? ' selected' : ''}${q.empty ? ' empty' : ''}` },
      svg('title', {}, `${rowLabel(state, q.index)}: N_eff ${q.empty ? 'undefined' : f(q.nEff)}`))),
    g.queries.map((q) => labelBlock(q.index, labelsY, keyLabel(state, q.index), q.empty ? '—' : f(q.nEff, 3), 'route-label')));
  }
  const top = 90; // room above for the rotated query tokens
  const bottom = top + 150;
  const height = bottom + 110;
  return svg('svg', { class: 'route-graph', id: 'lab-routing-graph', width, height, viewBox: `0 0 ${width} ${height}`, role: 'img',
    'aria-label': `attention graph (queries above, keys below): ${g.edgeCount} edges above the threshold ${lab.threshold}` },
  edges.map((e) => svg('line', { x1: x(e.query), y1: top, x2: x(e.key), y2: bottom, ...edgeStyle(e) }, title(e))),
  g.queries.map((q) => [svg('circle', { cx: x(q.index), cy: top, r: 4.5, class: `route-node${q.index === state.row ? ' selected' : ''}` }),
    svg('text', { x: x(q.index), y: top - 8, class: 'route-neff', 'text-anchor': 'middle' }, q.empty ? '—' : f(q.nEff, 3)),
    svg('text', { x: x(q.index), y: top - 22, class: 'route-token', 'text-anchor': 'start', transform: `rotate(-50 ${x(q.index)} ${top - 22})` },
      rowLabel(state, q.index).replace(/^\d+: /, ''))]),
  g.keys.map((k) => [svg('circle', { cx: x(k.index), cy: bottom, r: 4.5, class: 'route-node key' }),
    svg('text', { x: x(k.index), y: bottom + 12, class: 'route-token', 'text-anchor': 'end', transform: `rotate(-50 ${x(k.index)} ${bottom + 12})` }, keyLabel(state, k.index))]));
}

function selectedRow(state, lab, results) {
  const r = lab.rows[state.row];
  const title = h('h4', {}, `Row ${rowLabel(state, state.row)}`);
  if (!r) return h('div', { id: 'lab-routing-row' }, title, h('p', { class: 'note' }, 'no row selected'));
  if (r.empty) {
    return h('div', { id: 'lab-routing-row', class: 'route-row' }, title,
      h('p', {}, 'undefined: this row has no visible key (empty row), so it has no support set, no entropy and no tunnel verdict.'));
  }
  const w = results.weights[state.row];
  const keys = r.support.map((k) => h('li', { dataset: { key: k } }, `key ${k} (${keyLabel(state, k)}): ${f(w[k])}`));
  const bound = lab.valueBound === null
    ? h('p', { class: 'note', id: 'lab-routing-bound' }, 'No value vectors V in this state: the bound on the ignored output needs them (B = max‖v_i‖).')
    : h('p', { id: 'lab-routing-bound' },
      `Ignored output ‖Σ_{i∉S} a_i v_i‖ = ${f(r.ignoredNorm)} ≤ (1 − mass)·B = ${f(r.boundMass)} ≤ δ·B = ${f(r.boundDelta)}`,
      `  (B = max‖v_i‖ = ${f(lab.valueBound)})`);
  const t = r.tunnel;
  const tunnel = t.defined
    ? h('p', { id: 'lab-routing-tunnel', dataset: { verdict: String(t.verdict) } },
      h('strong', {}, `Tunnel vision: ${t.verdict ? 'yes' : 'no'}`), ' = ',
      `[H_norm(a) = ${f(r.normalizedEntropy)} ${t.narrow ? '<' : '≥'} α = ${lab.tunnelAlpha}: ${t.narrow ? 'narrow' : 'not narrow'}] × `,
      `[H_norm(β) = ${f(r.evidenceEntropy)} ${t.broad ? '>' : '≤'} γ = ${lab.tunnelGamma}: ${t.broad ? 'broad evidence' : 'evidence not broad'}]`)
    : h('p', { id: 'lab-routing-tunnel' }, 'Tunnel vision: undefined (the evidence β has no mass on this row\'s visible keys).');
  return h('div', { id: 'lab-routing-row', class: 'route-row' }, title,
    h('p', {}, `S_t for δ = ${lab.delta}: ${r.supportSize} of ${r.visible} visible keys hold ${f(r.supportMass)} ≥ 1 − δ; ignored mass ${f(r.ignoredMass)}.`),
    h('ul', { class: 'route-support', id: 'lab-routing-support' }, keys),
    bound, tunnel);
}

function regularisers(lab) {
  const g = lab.regularisers;
  const rows = [['minimise', 'minimise entropy (narrow routing)', 'mean_t H_t'],
    ['maximise', 'maximise entropy (broad routing)', '− mean_t H_t'],
    ['target', `entropy towards H* = ${f(g.targetEntropy)}`, 'mean_t (H_t − H*)²']];
  return h('div', {}, h('h4', {}, `Entropy regularisers of this head (λ × value is added to the task loss), over ${g.rows} non-empty rows`),
    h('table', { class: 'metrics-table', id: 'lab-routing-regularisers' },
    h('thead', {}, h('tr', {}, ['regulariser', 'formula', 'value'].map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, rows.map(([key, name, formula]) => h('tr', { dataset: { reg: key } },
      h('td', {}, name), h('td', {}, formula), h('td', { dataset: { value: g[key] ?? '' } }, f(g[key])))))));
}

function rowsTable(state, lab) {
  const cols = ['row', '|Ω|', '|S_t|', 'S_t (keys)', 'ignored mass', 'ignored ‖·‖', '(1−mass)·B', 'δ·B', 'H_norm(a)', 'H_norm(β)', 'tunnel'];
  return h('details', {}, h('summary', {}, `every row (${lab.rows.length}); ${lab.tunnelRows} of ${lab.tunnelDefinedRows} rows show tunnel vision`),
    h('table', { class: 'metrics-table', id: 'lab-routing-rows' },
      h('thead', {}, h('tr', {}, cols.map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, lab.rows.map((r) => (r.empty
        ? h('tr', { dataset: { row: r.row } }, h('td', {}, rowLabel(state, r.row)), h('td', { colspan: cols.length - 1 }, 'undefined (empty row)'))
        : h('tr', { dataset: { row: r.row }, class: r.row === state.row ? 'selected-row' : null },
          h('td', {}, rowLabel(state, r.row)), h('td', {}, String(r.visible)), h('td', {}, String(r.supportSize)),
          h('td', {}, r.support.join(', ')), h('td', {}, f(r.ignoredMass)), h('td', {}, f(r.ignoredNorm)),
          h('td', {}, f(r.boundMass)), h('td', {}, f(r.boundDelta)), h('td', {}, f(r.normalizedEntropy)),
          h('td', {}, f(r.evidenceEntropy)), h('td', {}, r.tunnel.defined ? (r.tunnel.verdict ? 'yes' : 'no') : 'undefined')))))));
}

export function render(container, { state, lab, results, setParams }) {
  const betaText = lab.betaUniform ? '' : lab.beta.join(', ');
  const beta = h('input', {
    type: 'text', id: 'lab-param-beta', class: 'beta-box', value: betaText, placeholder: 'uniform over the visible keys',
    'aria-label': `evidence beta: ${lab.beta.length} numbers >= 0, comma-separated (empty = uniform)`,
    onchange: (e) => {
      const text = e.target.value.trim();
      if (!once(e.target, text)) return;
      setParams({ beta: text === '' ? null : text.split(/[\s,;]+/).filter(Boolean).map(Number) });
    },
  });
  mount(container,
    h('p', { class: 'note' }, 'A head is a graph built from the input: each query reads the keys with its weights. ' +
      'Entropy measures how wide that routing is: N_eff = exp(H) keys. The (1−δ) support S_t is the fewest keys holding 1−δ of the mass; ' +
      'the output they leave out is at most δ·max‖v_i‖. Tunnel vision: narrow attention (H_norm(a) < α) where the evidence β is broad (H_norm(β) > γ). ' +
      'Source: the seed article on attention entropy and dynamic topology; docs/MATH.md.'),
    h('div', { class: 'lab-params' },
      numberParam({ name: 'delta', label: 'δ', value: lab.delta, setParams, min: 0, max: 0.999, title: '0 ≤ δ < 1' }),
      numberParam({ name: 'threshold', label: 'edge threshold', value: lab.threshold, setParams, min: 0, max: 1 }),
      numberParam({ name: 'tunnelAlpha', label: 'α', value: lab.tunnelAlpha, setParams, min: 0, max: 1 }),
      numberParam({ name: 'tunnelGamma', label: 'γ', value: lab.tunnelGamma, setParams, min: 0, max: 1 }),
      numberParam({ name: 'target', label: 'H* (nats)', value: Number(lab.target.toPrecision(6)), setParams, min: 0 })),
    h('div', { class: 'lab-params' },
      h('label', { class: 'inline lab-param' }, `evidence β (${lab.beta.length} keys)`, beta),
      lab.betaUniform ? h('span', { class: 'note' }, 'uniform') : h('button', { type: 'button', class: 'small', onclick: () => setParams({ beta: null }) }, 'uniform')),
    h('h4', {}, `Graph of ${headName(state, lab.head)}: ${lab.graph.edgeCount} edges with weight > ${lab.threshold}; N_eff at each query`),
    h('div', { class: 'route-graph-wrap' }, graph(state, lab)),
    selectedRow(state, lab, results),
    regularisers(lab),
    rowsTable(state, lab));
}
