// Views of mode "x" (multi-head from X) and of the gated head output. Functions of the results the
// core computed (results.layer, results.gate; docs/state.md): they draw numbers, they compute none.
import { h, mount } from './dom.js';
import { fmtCell, fmtMetric, showToken } from './format.js';
import { renderHeatmap } from './heatmap.js';

/** A numeric table: one row per token, headers given; cells carry data-value with all digits. */
function numberTable(id, headers, rows, tokens, selectedRow, digits = 3) {
  return h('div', { class: 'scroll' }, h('table', { class: 'output', id },
    h('thead', {}, h('tr', {}, h('th', {}, 'token'), headers.map((c) => h('th', {}, c)))),
    h('tbody', {}, rows.map((row, i) => h('tr', { class: i === selectedRow ? 'selected' : null },
      h('th', { scope: 'row' }, h('span', { class: 'idx' }, String(i)), ' ', showToken(tokens[i] ?? '')),
      row.map((x, c) => h('td', { id: `${id}-r${i}-c${c}`, dataset: { value: String(x) } }, fmtCell(x, digits))))))));
}

/**
 * The heads side by side (weights heatmap with numbers, output Y_h) and the layer output.
 * @param {HTMLElement} container
 * @param {{state: object, results: object, onSelectHead: (h: number) => void}} o
 */
export function renderLayer(container, o) {
  const { state, results } = o;
  const layer = results.layer;
  const tokens = state.tokens.queries;
  const cards = layer.heads.map((hd) => {
    const box = h('div', { class: 'layer-heatmap' });
    const sm = hd.summary;
    const card = h('div', { class: `layer-head${hd.head === state.head ? ' selected' : ''}`, id: `layer-head-${hd.head}` },
      h('div', { class: 'layer-head-title' },
        h('button', {
          type: 'button', class: 'small', 'aria-pressed': String(hd.head === state.head),
          title: 'show this head in the heatmaps, the row panel and the lab', onclick: () => o.onSelectHead(hd.head),
        }, hd.head === state.head ? 'selected' : 'select'),
        h('strong', {}, ` ${hd.name || `head ${hd.head}`}`),
        h('span', { class: 'note' }, ` d_k = ${hd.dK}, d_v = ${hd.dV}, scale ${fmtMetric(hd.scale, 4)}`)),
      h('p', { class: 'note' }, `mean entropy ${fmtMetric(sm.meanEntropy, 4)} nats · mean N_eff ${fmtMetric(sm.meanNEff, 4)} · mean sink mass ${fmtMetric(sm.meanSinkMass, 4)}`,
        sm.emptyRows ? ` · ${sm.emptyRows} empty row${sm.emptyRows > 1 ? 's' : ''} (metrics undefined)` : '',
        hd.gate ? ' · gated (G1)' : ''),
      box,
      h('h4', {}, hd.gate ? `Output Y${hd.head} × sigmoid(g) (${tokens.length} × ${hd.dV})` : `Output Y${hd.head} = A V (${tokens.length} × ${hd.dV})`),
      numberTable(`layer-y${hd.head}`, Array.from({ length: hd.dV }, (_, c) => `y${c + 1}`), hd.output, tokens, state.row));
    if (hd.weights) {
      renderHeatmap(box, {
        id: `layer-w${hd.head}`, title: 'Weights A',
        matrix: hd.weights, visible: hd.weights.map((row) => row.map((x) => x !== null)),
        rowLabels: tokens, colLabels: state.tokens.keys, domain: [0, 1], selectedRow: state.row,
        emptyRows: hd.weights.map((row) => row.every((x) => x === null)), showNumbers: true,
      });
    } else {
      mount(box, h('p', { class: 'note' }, 'Too many tokens to draw every head here; select the head to see its weights.'));
    }
    return card;
  });
  const concatHeaders = layer.heads.flatMap((hd) => Array.from({ length: hd.dV }, (_, c) => `h${hd.head}·${c + 1}`));
  const formula = `${layer.projected ? '[Y0 | … ] W_O' : '[Y0 | … ] (no W_O)'}${layer.residual ? ' + X' : ''}`;
  mount(container,
    h('div', { class: 'view-head' }, h('h3', {}, `Multi-head layer: ${layer.heads.length} head${layer.heads.length > 1 ? 's' : ''} side by side`),
      h('p', { class: 'note' }, 'Each head: Q = X W_Q, K = X W_K, V = X W_V, then the same scale, masks and τ as above. ' +
        'The heads\' outputs are put side by side and projected: output = ', formula, '.')),
    h('div', { class: 'layer-heads' }, cards),
    h('details', { class: 'layer-concat' }, h('summary', {}, `Concatenation [Y0 | … ] (${tokens.length} × ${concatHeaders.length})`),
      numberTable('layer-concat', concatHeaders, layer.concat, tokens, state.row)),
    h('h4', {}, `Layer output = ${formula} (${tokens.length} × ${layer.dOut})`),
    numberTable('layer-output', Array.from({ length: layer.dOut }, (_, c) => `o${c + 1}`), layer.output, tokens, state.row));
}

/**
 * The gate of the selected head, per row: sink mass, sigmoid(g_t), ||Y_t|| before and after.
 * @param {HTMLElement} container
 * @param {{state: object, results: object}} o
 */
export function renderGate(container, o) {
  const { state, results } = o;
  const gate = results.gate;
  const explain = 'Gated output (Qiu et al. 2025, G1): each output row is multiplied by sigmoid(g_t). ' +
    'A closed gate (g_t ≪ 0) lets a head output ~0 without parking its weights on the first token, ' +
    'so its softmax no longer needs an attention sink to say "nothing here".';
  if (!gate) {
    mount(container, h('div', { class: 'view-head' }, h('h3', {}, 'Gate'), h('p', { class: 'note' }, explain)),
      h('p', { class: 'note', id: 'gate-off' }, 'This head has no gate: turn it on under Inputs → Gate.'));
    return;
  }
  const tokens = state.tokens.queries;
  mount(container,
    h('div', { class: 'view-head' }, h('h3', {}, 'Gate of this head, per row'), h('p', { class: 'note' }, explain)),
    h('div', { class: 'scroll' }, h('table', { class: 'metrics-table gate-table', id: 'gate-table' },
      h('thead', {}, h('tr', {}, ['token', 'sink mass a_t0', 'gate logit g_t', 'sigmoid(g_t)', '‖Y_t‖ before', '‖Y_t‖ after'].map((c) => h('th', {}, c)))),
      h('tbody', {}, tokens.map((t, i) => {
        const row = results.rows[i];
        const cells = [
          row.empty ? 'undefined (empty row)' : fmtMetric(row.sinkMass, 4),
          fmtMetric(gate.logits[i], 4), fmtMetric(gate.open[i], 4),
          fmtMetric(gate.normUngated[i], 4), fmtMetric(gate.normGated[i], 4),
        ];
        return h('tr', { class: i === state.row ? 'selected' : null, id: `gate-row-${i}` },
          h('th', { scope: 'row' }, h('span', { class: 'idx' }, String(i)), ' ', showToken(t)),
          cells.map((c, k) => h('td', { dataset: { col: String(k) } }, c)),
        );
      })))));
}
