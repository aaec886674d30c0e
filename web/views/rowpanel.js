// The selected query row: its metrics as numbers, its weights as labelled bars, its output.
import { h, mount } from './dom.js';
import { fmtCell, fmtMetric, showToken } from './format.js';

/**
 * @param {HTMLElement} container
 * @param {object} o
 * @param {object} o.results   results JSON (docs/state.md)
 * @param {number} o.row
 * @param {string[]} o.queryTokens
 * @param {string[]} o.keyTokens
 * @param {number} o.topK
 * @param {number} o.tau
 * @param {(number|null)[]} o.weights   the row's weights, null where the key is not visible
 * @param {number} [o.maxBars]          show only the largest this many weights (long rows)
 */
export function renderRowPanel(container, o) {
  const { results: r, row } = o;
  const m = r.rows[row];
  const weights = o.weights.map((w) => w ?? 0);
  const metric = (name, key, value, unit, help) => h('div', { class: 'metric', dataset: { metric: key } },
    h('dt', { title: help }, name),
    h('dd', { id: `metric-${key}`, dataset: { value: value === null ? '' : String(value) } },
      fmtMetric(value), unit && value !== null && Number.isFinite(value) ? h('span', { class: 'unit' }, ` ${unit}`) : null));
  const maxW = Math.max(...weights, 1e-12);
  let keys = weights.map((_, j) => j);
  const limited = o.maxBars && keys.length > o.maxBars;
  if (limited) keys = keys.sort((a, b) => weights[b] - weights[a]).slice(0, o.maxBars).sort((a, b) => a - b);
  const bars = keys.map((j) => {
    const w = weights[j];
    const visible = o.weights[j] !== null;
    return h('div', { class: `bar-row${visible ? '' : ' masked'}` },
      h('span', { class: 'bar-label', title: `key ${j}` }, h('span', { class: 'idx' }, String(j)), ' ', showToken(o.keyTokens[j])),
      h('span', { class: 'bar-track' },
        h('span', { class: 'bar', style: { width: `${(100 * w) / maxW}%` } })),
      h('span', { class: 'bar-num' }, visible ? fmtCell(w, 4) : 'masked'));
  });
  const out = r.output[row] ?? [];
  mount(container,
    h('div', { class: 'view-head' },
      h('h3', {}, 'Selected query row ', h('span', { class: 'idx' }, String(row)), ' ',
        h('q', { class: 'token-inline' }, showToken(o.queryTokens[row] ?? ''))),
      m.empty
        ? h('p', { class: 'warning', id: 'row-empty' }, 'This row is empty: the mask leaves it no visible key. Its weights and output are 0 and its metrics are undefined.')
        : h('p', { class: 'note' }, `Softmax over the ${m.visible} visible key${m.visible === 1 ? '' : 's'} at temperature τ = ${o.tau}.`)),
    h('dl', { class: 'metrics' },
      metric('entropy H', 'entropy', m.entropy, 'nats', 'H = −Σ a ln a over the visible keys'),
      metric('normalised entropy', 'normalizedEntropy', m.normalizedEntropy, '', 'H / ln |visible keys|; 0 for a single visible key'),
      metric('N_eff = exp(H)', 'nEff', m.nEff, 'keys', 'effective context size'),
      metric(`top-${o.topK} mass`, 'topKMass', m.topKMass, '', `sum of the ${o.topK} largest weights`),
      metric('sink mass', 'sinkMass', m.sinkMass, '', 'weight on key 0'),
      metric('row sum', 'rowSum', m.rowSum, '', 'Σ weights; 1 for every non-empty row'),
      metric('visible keys', 'visible', m.visible, '', '|Ω_t|: keys this query may attend to'),
      metric('90% support', 'support', m.support, 'keys', 'fewest keys holding at least 90% of the mass (the (1−δ) support, δ = 0.1)')),
    h('h4', {}, limited ? `The ${o.maxBars} largest weights of this row (of ${weights.length} keys)` : 'Weights of this row'),
    h('div', { class: 'bars', id: 'row-bars' }, bars),
    h('h4', {}, 'Output o = Σ a_j v_j'),
    out.length
      ? h('p', { class: 'vector', id: 'row-output' }, '(', out.map((x, c) => [c ? ', ' : '', h('span', { dataset: { value: String(x) } }, fmtCell(x, 4))]), ')')
      : h('p', { class: 'note' }, 'No values V: no output.'));
}

/** The output matrix O as a plain numeric table, selected row highlighted. */
export function renderOutput(container, o) {
  const out = o.results.output;
  const dv = o.results.dV;
  mount(container,
    h('div', { class: 'view-head' }, h('h3', {}, `Output O = A V (${out.length} × ${dv})`),
      o.note ? h('p', { class: 'note' }, o.note) : null),
    dv === 0 ? h('p', { class: 'note' }, 'No values V given.') :
      h('div', { class: 'scroll' }, h('table', { class: 'output', id: 'output' },
        h('thead', {}, h('tr', {}, h('th', {}, 'query'), Array.from({ length: dv }, (_, c) => h('th', {}, `o${c + 1}`)))),
        h('tbody', {}, out.map((row, i) => h('tr', { class: i === o.row ? 'selected' : null, dataset: { row: i } },
          h('th', { scope: 'row' }, h('span', { class: 'idx' }, String(i)), ' ', showToken(o.queryTokens[i] ?? '')),
          row.map((x, c) => h('td', { id: `output-r${i}-c${c}`, dataset: { value: String(x) } }, fmtCell(x, 3)))))))));
}
