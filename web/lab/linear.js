// Lab view "linear": linear attention beside softmax on the same Q, K, V (the core's
// lab_linear.cpp; docs/lab.md "Linear attention"). The selected row's softmax and linear weights
// side by side as bars with numbers, both outputs with their difference and error, every row's
// error, and the controls for the feature map, the number of random features m and the seed.
import { h, mount } from '../views/dom.js';
import { fmtMetric, showToken } from '../views/format.js';

const f = (x, d = 4) => fmtMetric(x, d);
const headName = (state, i) => state.heads?.[i]?.name || `head ${i}`;
const keyLabel = (state, j) => {
  const t = state.tokens?.keys?.[j];
  return t === undefined ? `${j}` : `${j}: ${showToken(t)}`;
};
const rowLabel = (state, t) => {
  const tok = state.tokens?.queries?.[t];
  return tok === undefined ? `${t}` : `${t}: ${showToken(tok)}`;
};

function controls(lab, setParams) {
  const numberBox = (name, label, value, attrs) => h('label', { class: 'inline lab-param' }, label, h('input', {
    type: 'number', class: 'num-box small', id: `lab-param-${name}`, value, step: 1, 'aria-label': label, ...attrs,
    onchange: (e) => {
      const text = e.target.value.trim();
      setParams({ [name]: text === '' ? null : Number(text) });
    },
  }));
  const relu = lab.feature === 'relu';
  return h('div', { class: 'lab-params' },
    h('label', { class: 'inline lab-param' }, 'feature map φ',
      h('select', {
        id: 'lab-param-feature', 'aria-label': 'feature map',
        onchange: (e) => setParams({ feature: e.target.value }),
      },
      h('option', { value: 'elu', selected: !relu }, 'elu(x) + 1'),
      h('option', { value: 'relu', selected: relu }, 'ReLU random features'))),
    numberBox('features', 'random features m', lab.features, { min: 1, max: 1024, disabled: !relu, title: relu ? null : 'elu + 1 uses m = d_k' }),
    numberBox('seed', 'seed', lab.seed, { min: 0, disabled: !relu, title: relu ? null : 'elu + 1 has no randomness' }),
    h('span', { class: 'note', id: 'lab-linear-feature-note' }, relu
      ? `φ(x) = relu(W x)/√m with W a Gaussian matrix of m × d_k = ${lab.m} × ${lab.dK} drawn from the seed (Performer-style); m 1 … 1024.`
      : `φ(x) = elu(x) + 1 elementwise, m = d_k = ${lab.m} (Katharopoulos et al. 2020).`));
}

function bar(x, max, cls) {
  return h('span', { class: 'lin-bar-track' },
    x === null ? null : h('span', { class: `lin-bar ${cls}`, style: { width: `${Math.max(0, Math.min(100, (100 * x) / max))}%` } }));
}

const undefinedText = (row) => (row.empty ? 'undefined (empty row: no visible key)'
  : 'undefined (φ(q)·Σφ(k) = 0: no feature of this query meets a visible key)');

/** The selected row: weights side by side, then the outputs with the error. */
function selectedRow(state, lab) {
  const t = Math.min(state.row ?? 0, lab.nQ - 1);
  const row = lab.rows[t];
  const sw = lab.softmax.weights[t];
  const lw = lab.linear.weights[t];
  const title = h('h4', {}, `Row ${rowLabel(state, t)}`);
  if (row.empty) {
    return h('div', { class: 'lin-block', id: 'lab-linear-row' }, title, h('p', { class: 'note undefined-text', id: 'lab-linear-row-undefined' }, undefinedText(row)));
  }
  const max = Math.max(1e-12, ...sw.filter((x) => x !== null), ...lw.filter((x) => x !== null));
  const weights = h('table', { class: 'metrics-table lin-weights', id: 'lab-linear-weights' },
    h('caption', {}, 'Weights of this row: softmax a vs linear a_lin'),
    h('thead', {}, h('tr', {}, ['key', 'softmax', '', 'linear', '', 'a_lin − a'].map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, sw.map((a, j) => {
      if (a === null) {
        return h('tr', { class: 'masked-row' }, h('td', { class: 'lin-key' }, keyLabel(state, j)),
          h('td', { colspan: 5, class: 'undefined-cell' }, 'not visible'));
      }
      const b = lw[j];
      return h('tr', { dataset: { key: j } },
        h('td', { class: 'lin-key' }, keyLabel(state, j)),
        h('td', { class: 'bar-cell' }, bar(a, max, 'soft')),
        h('td', { id: `lab-linear-soft-${j}`, dataset: { value: a } }, f(a)),
        h('td', { class: 'bar-cell' }, bar(b, max, 'lin')),
        h('td', { id: `lab-linear-lin-${j}`, dataset: { value: b ?? '' }, class: b === null ? 'undefined-cell' : null }, b === null ? 'undefined' : f(b)),
        h('td', { dataset: { value: b === null ? '' : b - a } }, b === null ? 'undefined' : f(b - a, 3)));
    })));
  const so = lab.softmax.output[t];
  const lo = lab.linear.output[t];
  const outputs = lab.dV === 0
    ? h('p', { class: 'note' }, 'V has no columns (d_v = 0): there is no output to compare.')
    : h('table', { class: 'metrics-table lin-outputs', id: 'lab-linear-outputs' },
      h('caption', {}, 'Outputs of this row: O = a V and O_lin = a_lin V'),
      h('thead', {}, h('tr', {}, ['dim', 'softmax O', 'linear O_lin', 'O_lin − O'].map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, so.map((o, e) => h('tr', {},
        h('td', {}, `d${e}`),
        h('td', { id: `lab-linear-out-soft-${e}`, dataset: { value: o } }, f(o)),
        h('td', { id: `lab-linear-out-lin-${e}`, dataset: { value: lo[e] ?? '' } }, lo[e] === null ? 'undefined' : f(lo[e])),
        h('td', {}, lo[e] === null ? 'undefined' : f(lo[e] - o, 3))))));
  const err = row.degenerate
    ? h('p', { class: 'note undefined-text', id: 'lab-linear-row-undefined' }, undefinedText(row))
    : h('p', { class: 'lin-errors', id: 'lab-linear-row-errors' },
      h('span', {}, '‖O_lin − O‖₂ = ', h('b', { id: 'lab-linear-row-output-error', dataset: { value: row.outputError ?? '' } }, f(row.outputError))),
      h('span', {}, 'relative = ', h('b', { id: 'lab-linear-row-relative-error', dataset: { value: row.relativeError ?? '' } }, f(row.relativeError))),
      h('span', {}, 'max |a_lin − a| = ', h('b', { id: 'lab-linear-row-weight-error', dataset: { value: row.maxWeightError ?? '' } }, f(row.maxWeightError))));
  return h('div', { class: 'lin-block', id: 'lab-linear-row' }, title, h('div', { class: 'lin-side' }, weights, h('div', {}, outputs, err)));
}

function rowsTable(state, lab) {
  const t0 = Math.min(state.row ?? 0, lab.nQ - 1);
  return h('table', { class: 'metrics-table lin-rows', id: 'lab-linear-rows' },
    h('caption', {}, 'Every row (undefined rows are left out of the means)'),
    h('thead', {}, h('tr', {}, ['row', 'φ(q)·Σφ(k)', '‖O_lin − O‖₂', 'relative', 'max |a_lin − a|'].map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, lab.rows.map((r) => {
      const cls = r.row === t0 ? 'selected-row' : null;
      if (r.empty || r.degenerate) {
        return h('tr', { class: `${cls ?? ''} empty-row`.trim(), dataset: { row: r.row } },
          h('td', {}, rowLabel(state, r.row)), h('td', { colspan: 4 }, undefinedText(r)));
      }
      return h('tr', { class: cls, dataset: { row: r.row } },
        h('td', {}, rowLabel(state, r.row)),
        h('td', { dataset: { value: r.denominator } }, f(r.denominator)),
        h('td', { dataset: { value: r.outputError ?? '' } }, f(r.outputError)),
        h('td', { dataset: { value: r.relativeError ?? '' } }, f(r.relativeError)),
        h('td', { dataset: { value: r.maxWeightError ?? '' } }, f(r.maxWeightError)));
    })),
    h('tfoot', {}, h('tr', { id: 'lab-linear-means' },
      h('th', { scope: 'row' }, `mean (${lab.definedRows} row${lab.definedRows === 1 ? '' : 's'})`),
      h('td', {}, ''),
      h('td', { id: 'lab-linear-mean-output-error', dataset: { value: lab.meanOutputError ?? '' } }, f(lab.meanOutputError)),
      h('td', { id: 'lab-linear-mean-relative-error', dataset: { value: lab.meanRelativeError ?? '' } }, f(lab.meanRelativeError)),
      h('td', { id: 'lab-linear-mean-weight-error', dataset: { value: lab.meanMaxWeightError ?? '' } }, f(lab.meanMaxWeightError)))));
}

export function render(container, { state, lab, setParams }) {
  if (!lab.available) {
    mount(container,
      h('p', { class: 'note', id: 'lab-linear-unavailable' }, `Linear attention is not available for this head: ${lab.reason}. ` +
        'Switch the mode to Q, K, V (or pick a lesson preset with Q, K and V) to compare it with softmax.'));
    return;
  }
  const path = lab.path === 'prefix'
    ? 'every query sees a prefix of the keys, so the core keeps running sums Σφ(k)vᵀ and Σφ(k): O(n·m·d_v), linear in the length'
    : 'the mask is not a prefix per query (window, stride, sinks, padding in the middle or an edited mask): computed per row over its visible keys, O(Σ|Ω_t|·(m + d_v)), quadratic like softmax';
  mount(container,
    h('p', { class: 'note' }, `Linear attention replaces exp(q·k·scale/τ) by φ(q)·φ(k), so O_lin[t] = φ(q_t)ᵀ(Σ_j φ(k_j) v_jᵀ) / φ(q_t)ᵀΣ_j φ(k_j) ` +
      `over the keys the mask lets query t see; its implied weights a_lin[t, j] = φ(q_t)·φ(k_j) / Σ sum to 1 like softmax's. ` +
      `φ is applied to c·q and c·k with c = √(scale/τ) = ${f(lab.inputScale, 4)}. Here ${path}. Formulas and fields: docs/lab.md "Linear attention".`),
    controls(lab, setParams),
    selectedRow(state, lab),
    rowsTable(state, lab),
    h('p', { class: 'note' }, `${headName(state, lab.head)}: ${lab.nQ} quer${lab.nQ === 1 ? 'y' : 'ies'}, ${lab.nK} key${lab.nK === 1 ? '' : 's'}, d_k = ${lab.dK}, d_v = ${lab.dV}, m = ${lab.m}.`));
}
