// Lab view "normalisers": softmax, sparsemax and alpha-entmax of the same scores S / tau (the
// core's lab_normalisers.cpp; docs/lab.md "Normalisers"). The selected row's three distributions
// side by side as labelled bars with numbers, an alpha slider and box (state.lab.params.alpha),
// and for every row the exact zeros and entropy of each normaliser.
import { h, mount } from '../views/dom.js';
import { fmtCell, fmtMetric, showToken } from '../views/format.js';

const KINDS = [
  { id: 'softmax', title: 'softmax', help: 'exp(z) / Σ exp: every visible key gets weight > 0 (exact zeros only by underflow)' },
  { id: 'sparsemax', title: 'sparsemax', help: '[z − θ]₊ with Σ = 1 (Martins & Astudillo 2016): keys below the threshold θ get exactly 0' },
  { id: 'entmax', title: 'α-entmax', help: '[(α−1) z − θ]₊^(1/(α−1)) with Σ = 1 (Peters et al. 2019): between softmax (α = 1) and sparsemax (α = 2)' },
];

const ALPHA_MIN = 1;
const ALPHA_MAX = 4;

const methodText = (lab) => ({
  softmax: 'α = 1 is softmax',
  'exact-1.5': 'exact sort-based algorithm for α = 1.5',
  sparsemax: 'α = 2 is sparsemax',
  bisection: `bisection on θ, ${lab.iterations} halvings, renormalised`,
}[lab.method] ?? lab.method);

/** The alpha slider and number box, kept across renders so a drag is not interrupted. */
function alphaControls(setParams) {
  const send = (x) => {
    if (Number.isFinite(x) && x >= ALPHA_MIN && x <= ALPHA_MAX) setParams({ alpha: x });
  };
  const slider = h('input', {
    type: 'range', id: 'lab-norm-alpha-slider', min: ALPHA_MIN, max: ALPHA_MAX, step: 0.05, 'aria-label': 'entmax alpha (slider)',
    oninput: (e) => { box.value = e.target.value; send(Number(e.target.value)); },
    onpointerdown: (e) => { e.target.dataset.dragging = '1'; },
    onpointerup: (e) => { delete e.target.dataset.dragging; },
    onchange: (e) => { delete e.target.dataset.dragging; },
  });
  const box = h('input', {
    type: 'number', id: 'lab-norm-alpha', class: 'num-box small', min: ALPHA_MIN, max: ALPHA_MAX, step: 'any', 'aria-label': 'entmax alpha',
    onchange: (e) => {
      const text = e.target.value.trim();
      setParams({ alpha: text === '' ? null : Number(text) }); // out of range: the core's message is shown
    },
  });
  return h('div', { class: 'norm-controls' },
    h('label', { class: 'inline' }, 'entmax α ', slider, box),
    h('span', { class: 'note' }, `${ALPHA_MIN} = softmax, 1.5 = exact 1.5-entmax, 2 = sparsemax, up to ${ALPHA_MAX}; the core refuses values outside [${ALPHA_MIN}, ${ALPHA_MAX}].`));
}

/** One normaliser of the selected row: its numbers and one bar per key. */
function column(kind, d, state, lab) {
  const weights = d.weights;
  const maxW = Math.max(1e-12, ...weights.map((w) => w ?? 0));
  const title = kind.id === 'entmax' ? `α-entmax, α = ${lab.alpha}` : kind.title;
  const empty = lab.selected.empty;
  // Many masked keys (a causal row, padding): list only the visible ones; a few stay in place.
  const nMasked = weights.filter((w) => w === null).length;
  const hideMasked = nMasked > 3 && !empty;
  return h('div', { class: 'norm-col', id: `lab-norm-${kind.id}`, dataset: { kind: kind.id } },
    h('h4', { title: kind.help }, title),
    h('dl', { class: 'norm-stats' },
      h('dt', {}, 'entropy H'), h('dd', { id: `lab-norm-${kind.id}-entropy`, dataset: { value: d.entropy ?? '' } },
        empty ? 'undefined' : `${fmtMetric(d.entropy, 4)} nats`),
      h('dt', {}, 'support'), h('dd', { id: `lab-norm-${kind.id}-support`, dataset: { value: d.support ?? '' } },
        empty ? 'undefined' : `${d.support} of ${lab.selected.visible} keys`),
      h('dt', {}, 'exact zeros'), h('dd', { id: `lab-norm-${kind.id}-zeros`, dataset: { value: d.zeros ?? '' } },
        empty ? 'undefined' : String(d.zeros)),
      d.threshold !== undefined
        ? [h('dt', { title: 'threshold θ on the scale of the formula, after subtracting the row maximum' }, 'threshold θ'),
          h('dd', { id: `lab-norm-${kind.id}-threshold`, dataset: { value: d.threshold ?? '' } }, fmtMetric(d.threshold, 4))]
        : [h('dt', {}, 'threshold θ'), h('dd', { class: 'muted' }, 'none (never exactly 0)')]),
    h('div', { class: 'bars norm-bars' }, weights.map((w, j) => {
      const masked = w === null;
      if (masked && hideMasked) return null;
      return h('div', { class: `bar-row${masked ? ' masked' : ''}${w === 0 ? ' zero' : ''}` },
        h('span', { class: 'bar-label', title: `key ${j}` }, h('span', { class: 'idx' }, String(j)), ' ', showToken(state.tokens.keys[j] ?? '')),
        h('span', { class: 'bar-track' }, h('span', { class: 'bar', style: { width: `${(100 * (w ?? 0)) / maxW}%` } })),
        h('span', { class: 'bar-num', id: `lab-norm-${kind.id}-k${j}`, dataset: { value: masked ? '' : String(w) } },
          masked ? 'masked' : empty ? '0' : fmtCell(w, 4)));
    }),
    hideMasked ? h('p', { class: 'note norm-masked-note' }, `${nMasked} masked keys not shown`) : null));
}

/** The per-row table: entropy and exact zeros of each normaliser for every query. */
function rowsTable(state, lab) {
  const cell = (r, kind, field) => {
    const v = r[kind][field];
    const text = r.empty ? 'undefined' : field === 'entropy' ? fmtMetric(v, 4) : String(v);
    return h('td', { dataset: { value: v ?? '' }, class: field === 'zeros' && v > 0 ? 'norm-has-zeros' : null }, text);
  };
  const s = lab.summary;
  return h('div', { class: 'scroll norm-rows-scroll' }, h('table', { class: 'metrics-table', id: 'lab-norm-rows' },
    h('caption', {}, `Every row: entropy H (nats) and exact zeros among the visible keys, α = ${lab.alpha}, τ = ${lab.tau}`),
    h('thead', {},
      h('tr', {}, h('th', { rowspan: 2, scope: 'col' }, 'query'), h('th', { rowspan: 2, scope: 'col' }, 'visible'),
        KINDS.map((k) => h('th', { colspan: 2, scope: 'colgroup' }, k.id === 'entmax' ? `${lab.alpha}-entmax` : k.title))),
      h('tr', {}, KINDS.map(() => [h('th', { scope: 'col' }, 'H'), h('th', { scope: 'col' }, 'zeros')]))),
    h('tbody', {}, lab.rows.map((r) => h('tr', {
      class: [r.query === lab.row ? 'selected' : '', r.empty ? 'empty' : ''].join(' ').trim() || null, dataset: { row: r.query },
    },
    h('th', { scope: 'row' }, h('span', { class: 'idx' }, String(r.query)), ' ', showToken(state.tokens.queries[r.query] ?? ''),
      r.empty ? h('span', { class: 'badge' }, 'empty') : null),
    h('td', { dataset: { value: r.visible } }, String(r.visible)),
    KINDS.map((k) => [cell(r, k.id, 'entropy'), cell(r, k.id, 'zeros')])))),
    h('tfoot', {}, h('tr', {}, h('th', { scope: 'row', colspan: 2 }, `mean H / total zeros (${lab.rows.length - lab.emptyRows} non-empty row${lab.rows.length - lab.emptyRows === 1 ? '' : 's'})`),
      KINDS.map((k) => [h('td', { id: `lab-norm-${k.id}-mean-entropy`, dataset: { value: s[k.id].meanEntropy ?? '' } }, fmtMetric(s[k.id].meanEntropy, 4)),
        h('td', { id: `lab-norm-${k.id}-total-zeros`, dataset: { value: s[k.id].zeros } }, String(s[k.id].zeros))])))));
}

export function render(container, { state, lab, setParams }) {
  let root = container.querySelector(':scope > .norm-view');
  if (!root) {
    root = h('div', { class: 'norm-view' },
      h('p', { class: 'note' }, 'The same scores z = S / τ of every row, normalised three ways. Softmax gives every visible key some weight; ' +
        'sparsemax and α-entmax (α > 1) can give exactly 0, so the attention graph loses edges. Entropy in nats over the non-zero weights.'),
      alphaControls(setParams),
      h('div', { class: 'norm-body' }));
    mount(container, root);
  }
  const slider = root.querySelector('#lab-norm-alpha-slider');
  const box = root.querySelector('#lab-norm-alpha');
  // The slider keeps its place while dragged (answers may lag the drag); the box always shows
  // the alpha in effect (it commits on change, so no typing is in progress when a result comes).
  if (!slider.dataset.dragging) slider.value = String(lab.alpha);
  box.value = String(lab.alpha);

  const sel = lab.selected;
  const query = state.tokens.queries[sel.query] ?? '';
  mount(root.querySelector('.norm-body'),
    h('h4', { id: 'lab-norm-title' }, 'Query row ', h('span', { class: 'idx' }, String(sel.query)), ' ', h('q', { class: 'token-inline' }, showToken(query)),
      `: ${sel.visible} visible key${sel.visible === 1 ? '' : 's'}, τ = ${lab.tau}; entmax by ${methodText(lab)}`),
    sel.empty
      ? h('p', { class: 'warning', id: 'lab-norm-empty' }, 'This row is empty: the mask leaves it no visible key, so every normaliser is undefined here (weights 0, entropy undefined).')
      : null,
    h('div', { class: 'norm-cols' }, KINDS.map((k) => column(k, sel[k.id], state, lab))),
    rowsTable(state, lab));
}
