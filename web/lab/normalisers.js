// Lab view "normalisers": softmax, sparsemax and alpha-entmax of the same scores S / tau (the
// core's lab_normalisers.cpp; docs/lab.md "Normalisers"). The selected row's three distributions
// side by side as labelled bars with numbers, an alpha slider and box (state.lab.params.alpha),
// and for every row the exact zeros and entropy of each normaliser.
import { h, mount } from '../views/dom.js';
import { fmtCell, fmtMetric } from '../views/format.js';
import { t } from '../i18n/i18n.js';
import { math, numberInput, showGood, tn, tokenNode } from './lab-controls.js';
import { KEY_ROWS, keysShownNote, largestIndices, windowedRows } from './rows.js';

const KINDS = [
  { id: 'softmax', title: 'softmax', help: 'lab.norm.help.softmax' },
  { id: 'sparsemax', title: 'sparsemax', help: 'lab.norm.help.sparsemax' },
  { id: 'entmax', title: 'α-entmax', help: 'lab.norm.help.entmax' },
];

const ALPHA_MIN = 1;
const ALPHA_MAX = 4;

const methodText = (lab) =>
  ['softmax', 'exact-1.5', 'sparsemax', 'bisection'].includes(lab.method)
    ? t(`lab.norm.method.${lab.method}`, { n: lab.iterations })
    : lab.method;

/** The alpha slider and number box, kept across renders so a drag is not interrupted. */
function alphaControls(setParams) {
  const send = (x) => {
    if (Number.isFinite(x) && x >= ALPHA_MIN && x <= ALPHA_MAX) setParams({ alpha: x });
  };
  const slider = h('input', {
    type: 'range',
    id: 'lab-norm-alpha-slider',
    min: ALPHA_MIN,
    max: ALPHA_MAX,
    step: 0.05,
    'aria-label': t('lab.norm.alphaSliderAria'),
    oninput: (e) => {
      showGood(box, e.target.value);
      send(Number(e.target.value));
    },
    onpointerdown: (e) => {
      e.target.dataset.dragging = '1';
    },
    onpointerup: (e) => {
      delete e.target.dataset.dragging;
    },
    onchange: (e) => {
      delete e.target.dataset.dragging;
    },
  });
  const box = numberInput({
    id: 'lab-norm-alpha',
    class: 'num-box small',
    label: t('lab.norm.alphaAria'),
    what: () => 'entmax α',
    min: ALPHA_MIN,
    max: ALPHA_MAX,
    onValue: (x) => setParams({ alpha: x }),
  });
  return h(
    'div',
    { class: 'norm-controls' },
    h('label', { class: 'inline' }, 'entmax α ', slider, box),
    h('span', { class: 'note' }, t('lab.norm.alphaNote', { min: ALPHA_MIN, max: ALPHA_MAX })),
  );
}

/** One normaliser of the selected row: its numbers and one bar per key (`shown`: only those keys). */
function column(kind, d, state, lab, shown) {
  const weights = d.weights;
  const maxW = Math.max(1e-12, ...weights.map((w) => w ?? 0));
  const title = kind.id === 'entmax' ? `α-entmax, α = ${lab.alpha}` : kind.title;
  const empty = lab.selected.empty;
  // Many masked keys (a causal row, padding): list only the visible ones; a few stay in place.
  const nMasked = weights.filter((w) => w === null).length;
  const hideMasked = nMasked > 3 && !empty;
  return h(
    'div',
    { class: 'norm-col', id: `lab-norm-${kind.id}`, dataset: { kind: kind.id } },
    h('h4', { title: tn(kind.help) }, title),
    h(
      'dl',
      { class: 'norm-stats' },
      h('dt', {}, t('lab.norm.entropy')),
      h(
        'dd',
        { id: `lab-norm-${kind.id}-entropy`, dataset: { value: d.entropy ?? '' } },
        empty ? t('lab.undefined') : `${fmtMetric(d.entropy, 4)} ${t('app.unit.nats')}`,
      ),
      h('dt', {}, t('lab.norm.support')),
      h(
        'dd',
        { id: `lab-norm-${kind.id}-support`, dataset: { value: d.support ?? '' } },
        empty ? t('lab.undefined') : t('lab.norm.supportOf', { n: d.support, m: lab.selected.visible }),
      ),
      h('dt', {}, t('lab.norm.zeros')),
      h('dd', { id: `lab-norm-${kind.id}-zeros`, dataset: { value: d.zeros ?? '' } }, empty ? t('lab.undefined') : String(d.zeros)),
      d.threshold !== undefined
        ? [
            h('dt', { title: t('lab.norm.thresholdHelp') }, t('lab.norm.threshold')),
            h('dd', { id: `lab-norm-${kind.id}-threshold`, dataset: { value: d.threshold ?? '' } }, fmtMetric(d.threshold, 4)),
          ]
        : [h('dt', {}, t('lab.norm.threshold')), h('dd', { class: 'muted' }, t('lab.norm.noThreshold'))],
    ),
    h(
      'div',
      { class: 'bars norm-bars' },
      weights.map((w, j) => {
        const masked = w === null;
        if ((masked && hideMasked) || (shown && !shown.has(j))) return null;
        return h(
          'div',
          { class: `bar-row${masked ? ' masked' : ''}${w === 0 ? ' zero' : ''}` },
          h(
            'span',
            { class: 'bar-label', title: t('lab.keyN', { j }) },
            h('span', { class: 'idx' }, String(j)),
            ' ',
            tokenNode(state.tokens.keys[j]),
          ),
          h('span', { class: 'bar-track' }, h('span', { class: 'bar', style: { width: `${(100 * (w ?? 0)) / maxW}%` } })),
          h(
            'span',
            { class: 'bar-num', id: `lab-norm-${kind.id}-k${j}`, dataset: { value: masked ? '' : String(w) } },
            masked ? t('lab.masked') : empty ? '0' : fmtCell(w, 4),
          ),
        );
      }),
      hideMasked ? h('p', { class: 'note norm-masked-note' }, t('lab.norm.maskedHidden', { n: nMasked })) : null,
      shown ? keysShownNote(shown.size, lab.selected.visible, t('lab.rows.byWeight'), `lab-norm-${kind.id}-shown`) : null,
    ),
  );
}

/** At most KEY_ROWS keys of the selected row: those of largest weight under any normaliser (null: all). */
function shownKeys(sel) {
  if (sel.empty || sel.visible <= KEY_ROWS) return null;
  const score = sel.softmax.weights.map((w, j) => (w === null ? null : Math.max(...KINDS.map((k) => sel[k.id].weights[j] ?? 0))));
  return new Set(largestIndices(score));
}

/** The per-row table: entropy and exact zeros of each normaliser for queries [lo, hi). */
function rowsTable(state, lab, lo = 0, hi = lab.rows.length) {
  const cell = (r, kind, field) => {
    const v = r[kind][field];
    const text = r.empty ? t('lab.undefined') : field === 'entropy' ? fmtMetric(v, 4) : String(v);
    return h('td', { dataset: { value: v ?? '' }, class: field === 'zeros' && v > 0 ? 'norm-has-zeros' : null }, text);
  };
  const s = lab.summary;
  return h(
    'div',
    { class: 'scroll norm-rows-scroll' },
    h(
      'table',
      { class: 'metrics-table', id: 'lab-norm-rows' },
      h('caption', {}, t('lab.norm.rowsCaption', { alpha: lab.alpha, tau: lab.tau })),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { rowspan: 2, scope: 'col' }, t('lab.col.query')),
          h('th', { rowspan: 2, scope: 'col' }, t('lab.col.visible')),
          KINDS.map((k) => h('th', { colspan: 2, scope: 'colgroup' }, k.id === 'entmax' ? math(`${lab.alpha}-entmax`) : k.title)),
        ),
        h(
          'tr',
          {},
          KINDS.map(() => [h('th', { scope: 'col' }, 'H'), h('th', { scope: 'col' }, t('lab.norm.zerosCol'))]),
        ),
      ),
      h(
        'tbody',
        {},
        lab.rows.slice(lo, hi).map((r) =>
          h(
            'tr',
            {
              class: [r.query === lab.row ? 'selected' : '', r.empty ? 'empty' : ''].join(' ').trim() || null,
              dataset: { row: r.query },
            },
            h(
              'th',
              { scope: 'row' },
              h('span', { class: 'idx' }, String(r.query)),
              ' ',
              tokenNode(state.tokens.queries[r.query]),
              r.empty ? h('span', { class: 'badge' }, t('lab.empty')) : null,
            ),
            h('td', { dataset: { value: r.visible } }, String(r.visible)),
            KINDS.map((k) => [cell(r, k.id, 'entropy'), cell(r, k.id, 'zeros')]),
          ),
        ),
      ),
      h(
        'tfoot',
        {},
        h(
          'tr',
          {},
          h('th', { scope: 'row', colspan: 2 }, t('lab.norm.footer', { n: lab.rows.length - lab.emptyRows })),
          KINDS.map((k) => [
            h(
              'td',
              { id: `lab-norm-${k.id}-mean-entropy`, dataset: { value: s[k.id].meanEntropy ?? '' } },
              fmtMetric(s[k.id].meanEntropy, 4),
            ),
            h('td', { id: `lab-norm-${k.id}-total-zeros`, dataset: { value: s[k.id].zeros } }, String(s[k.id].zeros)),
          ]),
        ),
      ),
    ),
  );
}

export function render(container, { state, lab, setParams }) {
  let root = container.querySelector(':scope > .norm-view');
  if (!root) {
    root = h(
      'div',
      { class: 'norm-view' },
      h('p', { class: 'note', dataset: { i18n: 'lab.norm.intro' } }, t('lab.norm.intro')),
      alphaControls(setParams),
      h('div', { class: 'norm-body' }),
    );
    mount(container, root);
  }
  const slider = root.querySelector('#lab-norm-alpha-slider');
  const box = root.querySelector('#lab-norm-alpha');
  // The slider keeps its place while dragged (answers may lag the drag); the box always shows
  // the alpha in effect (it commits on change, so no typing is in progress when a result comes).
  if (!slider.dataset.dragging) slider.value = String(lab.alpha);
  // The kept controls take the page's language of the moment.
  slider.setAttribute('aria-label', t('lab.norm.alphaSliderAria'));
  box.setAttribute('aria-label', t('lab.norm.alphaAria'));
  root.querySelector('.norm-controls .note').textContent = t('lab.norm.alphaNote', { min: ALPHA_MIN, max: ALPHA_MAX });
  showGood(box, lab.alpha);

  const sel = lab.selected;
  const query = state.tokens.queries[sel.query] ?? '';
  mount(
    root.querySelector('.norm-body'),
    h(
      'h4',
      { id: 'lab-norm-title' },
      t('lab.queryRow'),
      ' ',
      h('span', { class: 'idx' }, String(sel.query)),
      ' ',
      tokenNode(query, 'q', { class: 'token-inline' }),
      t('lab.norm.title', { n: sel.visible, tau: lab.tau, method: methodText(lab) }),
    ),
    sel.empty ? h('p', { class: 'warning', id: 'lab-norm-empty' }, t('lab.norm.empty')) : null,
    h(
      'div',
      { class: 'norm-cols' },
      KINDS.map((k) => column(k, sel[k.id], state, lab, shownKeys(sel))),
    ),
    windowedRows({
      id: 'lab-norm-rows',
      n: lab.rows.length,
      selected: lab.row,
      table: (lo, hi) => rowsTable(state, lab, lo, hi),
      caption: t('lab.rows.normCaption'),
      series: KINDS.map((k) => ({
        key: k.id,
        label: k.id === 'entmax' ? `${lab.alpha}-entmax` : k.title,
        values: lab.rows.map((r) => (r.empty ? null : r[k.id].entropy)),
      })),
    }),
  );
}
