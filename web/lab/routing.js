// Lab view "routing": routing width of the selected head (the core's lab_routing.cpp; docs/lab.md
// "Routing width"; the seed article on attention entropy and dynamic topology). The head as a
// graph (tokens on a line, an arc per weight above the threshold, N_eff under each query), the
// selected row's (1-delta) support S_t with the bound on the output it ignores, the tunnel-vision
// verdict with its two factors, the entropy-regulariser values and every row in a table.
// Arcs to earlier keys are drawn above the line of tokens, arcs to later keys below it. The rows'
// table is routing-rows.js.
import { h, mount } from '../views/dom.js';
import { fmtMetric, tData } from '../views/format.js';
import { t } from '../i18n/i18n.js';
import { headNode, keyLabel, math, numberParam, once, rowLabel, rowNode, scrollTable, svg, tnData, tokenNode } from './lab-controls.js';
import { windowedRows } from './rows.js';
import { rowsTable } from './routing-rows.js';

const f = (x, d = 4) => fmtMetric(x, d);

/**
 * The graph: self-attention as an arc diagram on one line, cross-attention as two lines. Only the
 * queries [lo, hi) (all by default) with their edges are drawn, and only the tokens they touch, in
 * order (a large head: the window of rows.js windowedRows).
 */
function graph(state, lab, lo = 0, hi = lab.graph.queries.length) {
  const all = lab.graph;
  const cut = lo > 0 || hi < all.queries.length;
  const edgesIn = cut ? all.edges.filter((e) => e.query >= lo && e.query < hi) : all.edges;
  const reached = new Set(edgesIn.map((e) => e.key));
  const tokensShown = new Set(all.queries.slice(lo, hi).map((q) => q.index));
  if (all.selfAttention) for (const k of reached) tokensShown.add(k);
  const g = cut
    ? {
        ...all,
        edges: edgesIn,
        queries: all.queries.filter((q) => tokensShown.has(q.index)),
        keys: all.keys.filter((k) => (all.selfAttention ? tokensShown.has(k.index) : reached.has(k.index))),
      }
    : all;
  // Positions on the line: the shown tokens side by side, in index order.
  const rank = (list) => new Map(list.map((item, p) => [item.index, p]));
  const qPos = rank(g.queries);
  const kPos = all.selfAttention ? qPos : rank(g.keys);
  const nq = g.queries.length;
  const nk = g.keys.length;
  const n = Math.max(nq, nk);
  const step = Math.max(20, Math.min(64, 1150 / Math.max(n, 1)));
  const left = 80; // room for the first rotated token label
  const width = left * 2 + step * Math.max(n - 1, 0);
  const xq = (i) => left + (qPos.get(i) ?? 0) * step;
  const xk = (j) => left + (kPos.get(j) ?? 0) * step;
  const x = xq;
  const edgeStyle = (e) => {
    const sel = e.query === state.row;
    return {
      class: `route-edge${sel ? ' selected' : ''}`,
      'stroke-width': (0.6 + 5 * e.weight).toFixed(2),
      'stroke-opacity': sel ? 0.9 : (0.25 + 0.5 * e.weight).toFixed(2),
      dataset: { query: e.query, key: e.key, weight: e.weight },
    };
  };
  const title = (e) =>
    svg('title', {}, t('lab.routing.edgeTitle', { q: rowLabel(state, e.query), k: e.key, kt: keyLabel(state, e.key), w: f(e.weight) }));
  // Edges of the selected row last, so they are drawn on top.
  const edges = [...g.edges].sort((a, b) => (a.query === state.row) - (b.query === state.row));
  const labelBlock = (i, y, token, extra, cls) =>
    svg(
      'g',
      { class: cls },
      svg('text', { x: x(i), y, class: 'route-neff', 'text-anchor': 'middle' }, extra),
      svg(
        'text',
        { x: x(i), y: y + 12, class: 'route-token', translate: 'no', 'text-anchor': 'end', transform: `rotate(-50 ${x(i)} ${y + 12})` },
        token,
      ),
    );
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
    return svg(
      'svg',
      {
        class: 'route-graph',
        id: 'lab-routing-graph',
        width,
        height,
        viewBox: `0 0 ${width} ${height}`,
        role: 'img',
        'aria-label': t('lab.routing.graphAria', { n: g.edgeCount, threshold: lab.threshold }),
      },
      fwd.length
        ? g.queries.map((q) => svg('line', { x1: x(q.index), y1: base, x2: x(q.index), y2: labelsY - 10, class: 'route-guide' }))
        : null,
      edges.map((e) => {
        if (e.query === e.key) {
          return svg('circle', { cx: x(e.query), cy: base - 13, r: 7, fill: 'none', ...edgeStyle(e) }, title(e));
        }
        const x1 = x(e.query);
        const x2 = xk(e.key);
        const c = e.key < e.query ? base - arcH(span(e)) * 1.33 : base + arcH(span(e)) * 1.33;
        return svg('path', { d: `M ${x1} ${base} C ${x1} ${c} ${x2} ${c} ${x2} ${base}`, fill: 'none', ...edgeStyle(e) }, title(e));
      }),
      g.queries.map((q) =>
        svg(
          'circle',
          { cx: x(q.index), cy: base, r: 4.5, class: `route-node${q.index === state.row ? ' selected' : ''}${q.empty ? ' empty' : ''}` },
          svg('title', {}, `${rowLabel(state, q.index)}: N_eff ${q.empty ? t('lab.undefined') : f(q.nEff)}`),
        ),
      ),
      g.queries.map((q) => labelBlock(q.index, labelsY, keyLabel(state, q.index), q.empty ? '—' : f(q.nEff, 3), 'route-label')),
    );
  }
  const top = 90; // room above for the rotated query tokens
  const bottom = top + 150;
  const height = bottom + 110;
  return svg(
    'svg',
    {
      class: 'route-graph',
      id: 'lab-routing-graph',
      width,
      height,
      viewBox: `0 0 ${width} ${height}`,
      role: 'img',
      'aria-label': t('lab.routing.graphAriaCross', { n: g.edgeCount, threshold: lab.threshold }),
    },
    edges.map((e) => svg('line', { x1: xq(e.query), y1: top, x2: xk(e.key), y2: bottom, ...edgeStyle(e) }, title(e))),
    g.queries.map((q) => [
      svg('circle', { cx: x(q.index), cy: top, r: 4.5, class: `route-node${q.index === state.row ? ' selected' : ''}` }),
      svg('text', { x: x(q.index), y: top - 8, class: 'route-neff', 'text-anchor': 'middle' }, q.empty ? '—' : f(q.nEff, 3)),
      svg(
        'text',
        {
          x: x(q.index),
          y: top - 22,
          class: 'route-token',
          translate: 'no',
          'text-anchor': 'start',
          transform: `rotate(-50 ${x(q.index)} ${top - 22})`,
        },
        rowLabel(state, q.index).replace(/^\d+: /, ''),
      ),
    ]),
    g.keys.map((k) => [
      svg('circle', { cx: xk(k.index), cy: bottom, r: 4.5, class: 'route-node key' }),
      svg(
        'text',
        {
          x: xk(k.index),
          y: bottom + 12,
          class: 'route-token',
          translate: 'no',
          'text-anchor': 'end',
          transform: `rotate(-50 ${xk(k.index)} ${bottom + 12})`,
        },
        keyLabel(state, k.index),
      ),
    ]),
  );
}

function selectedRow(state, lab, results) {
  const r = lab.rows[state.row];
  const title = h('h4', {}, t('lab.rowTitle'), ' ', rowNode(state, state.row));
  if (!r) return h('div', { id: 'lab-routing-row' }, title, h('p', { class: 'note' }, t('lab.routing.noRow')));
  if (r.empty) {
    return h('div', { id: 'lab-routing-row', class: 'route-row' }, title, h('p', {}, t('lab.routing.emptyRow')));
  }
  // A large head (results.large) has no weights matrix, only the selected row's weights.
  const w = results.weights?.[state.row] ?? results.rowWeights ?? [];
  const keys = r.support.map((k) =>
    h('li', { dataset: { key: k } }, t('lab.keyN', { j: k }), ' (', tokenNode(keyLabel(state, k)), `): ${f(w[k])}`),
  );
  const bound =
    lab.valueBound === null
      ? h('p', { class: 'note', id: 'lab-routing-bound' }, tnData('lab.routing.noValues'))
      : h(
          'p',
          { id: 'lab-routing-bound' },
          tnData('lab.routing.bound', { norm: f(r.ignoredNorm), mass: f(r.boundMass), delta: f(r.boundDelta) }),
          '  (',
          math(`B = max‖v_i‖ = ${f(lab.valueBound)}`),
          ')',
        );
  const tv = r.tunnel;
  const tunnel = tv.defined
    ? h(
        'p',
        { id: 'lab-routing-tunnel', dataset: { verdict: String(tv.verdict) } },
        h('strong', {}, t('lab.routing.tunnel', { verdict: t(tv.verdict ? 'lab.yes' : 'lab.no') })),
        ' = ',
        '[',
        math(`H_norm(a) = ${f(r.normalizedEntropy)} ${tv.narrow ? '<' : '≥'} α = ${lab.tunnelAlpha}`),
        `: ${t(tv.narrow ? 'lab.routing.narrow' : 'lab.routing.notNarrow')}] × `,
        '[',
        math(`H_norm(β) = ${f(r.evidenceEntropy)} ${tv.broad ? '>' : '≤'} γ = ${lab.tunnelGamma}`),
        `: ${t(tv.broad ? 'lab.routing.broad' : 'lab.routing.notBroad')}]`,
      )
    : h('p', { id: 'lab-routing-tunnel' }, t('lab.routing.tunnelUndefined'));
  return h(
    'div',
    { id: 'lab-routing-row', class: 'route-row' },
    title,
    h(
      'p',
      {},
      t('lab.routing.support', { delta: lab.delta, n: r.supportSize, m: r.visible, mass: f(r.supportMass), ignored: f(r.ignoredMass) }),
    ),
    h('ul', { class: 'route-support', id: 'lab-routing-support' }, keys),
    bound,
    tunnel,
  );
}

function regularisers(lab) {
  const g = lab.regularisers;
  const rows = [
    ['minimise', t('lab.routing.reg.minimise'), 'mean_t H_t'],
    ['maximise', t('lab.routing.reg.maximise'), '− mean_t H_t'],
    ['target', t('lab.routing.reg.target', { h: f(g.targetEntropy) }), 'mean_t (H_t − H*)²'],
  ];
  return h(
    'div',
    {},
    h('h4', {}, t('lab.routing.regTitle', { n: g.rows })),
    scrollTable(
      h(
        'table',
        { class: 'metrics-table', id: 'lab-routing-regularisers' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['regulariser', 'formula', 'value'].map((c) => h('th', { scope: 'col' }, t(`lab.routing.col.${c}`))),
          ),
        ),
        h(
          'tbody',
          {},
          rows.map(([key, name, formula]) =>
            h(
              'tr',
              { dataset: { reg: key } },
              h('td', {}, name),
              h('td', {}, math(formula)),
              h('td', { dataset: { value: g[key] ?? '' } }, f(g[key])),
            ),
          ),
        ),
      ),
    ),
  );
}

export function render(container, { state, lab, results, setParams }) {
  const betaText = lab.betaUniform ? '' : lab.beta.join(', ');
  const beta = h('input', {
    type: 'text',
    id: 'lab-param-beta',
    class: 'beta-box',
    value: betaText,
    placeholder: t('lab.routing.betaPlaceholder'),
    'aria-label': t('lab.routing.betaAria', { n: lab.beta.length }),
    onchange: (e) => {
      const text = e.target.value.trim();
      if (!once(e.target, text)) return;
      setParams({
        beta:
          text === ''
            ? null
            : text
                .split(/[\s,;]+/)
                .filter(Boolean)
                .map(Number),
      });
    },
  });
  mount(
    container,
    h('p', { class: 'note' }, tnData('lab.routing.intro')),
    h(
      'div',
      { class: 'lab-params' },
      numberParam({ name: 'delta', label: 'δ', value: lab.delta, setParams, min: 0, max: 1, maxOpen: true, title: '0 ≤ δ < 1' }),
      numberParam({ name: 'threshold', label: t('lab.routing.edgeThreshold'), value: lab.threshold, setParams, min: 0, max: 1 }),
      numberParam({ name: 'tunnelAlpha', label: 'α', value: lab.tunnelAlpha, setParams, min: 0, max: 1 }),
      numberParam({ name: 'tunnelGamma', label: 'γ', value: lab.tunnelGamma, setParams, min: 0, max: 1 }),
      numberParam({ name: 'target', label: `H* (${t('app.unit.nats')})`, value: Number(lab.target.toPrecision(6)), setParams, min: 0 }),
    ),
    h(
      'div',
      { class: 'lab-params' },
      h('label', { class: 'inline lab-param' }, t('lab.routing.beta', { n: lab.beta.length }), beta),
      lab.betaUniform
        ? h('span', { class: 'note' }, t('lab.routing.uniform'))
        : h('button', { type: 'button', class: 'small', onclick: () => setParams({ beta: null }) }, t('lab.routing.uniform')),
    ),
    h(
      'h4',
      {},
      tData('lab.routing.graphTitle', { name: headNode(state, lab.head), n: lab.graph.edgeCount, threshold: lab.threshold }, ['name']),
    ),
    h(
      'div',
      { class: 'route-graph-wrap' },
      windowedRows({
        id: 'lab-routing-graph',
        n: lab.graph.queries.length,
        selected: state.row,
        table: (lo, hi) => graph(state, lab, lo, hi),
      }),
    ),
    selectedRow(state, lab, results),
    regularisers(lab),
    rowsTable(state, lab),
  );
}
