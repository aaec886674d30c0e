// Lab view "spectral": the selected head's weights A as a matrix (the core's lab_spectral.cpp;
// docs/lab.md "Spectral"; docs/MATH.md "Spectral"). The stationary distribution pi (pi A = pi) as
// bars with numbers, the singular values as a small SVG bar plot with numbers and the threshold
// eps * sigma_1, effective rank, threshold rank and spectral entropy, and the heads x heads cosine
// and Jensen-Shannon tables under keep-sink and drop-sink side by side.
import { h, mount, svg } from '../views/dom.js';
import { fmtMetric, tData } from '../views/format.js';
import { t } from '../i18n/i18n.js';
import { headName, headNode, numberInput, scrollTable, tnData, tokenNode } from './lab-controls.js';
import { keysShownNote, largestIndices } from './rows.js';

const f = (x, d = 4) => fmtMetric(x, d);

/** "j: token" as nodes (the token is data). */
const keyLabel = (state, j) => {
  const tok = state.tokens?.keys?.[j];
  return tok === undefined ? `${j}` : [`${j}: `, tokenNode(tok)];
};
/** A head of the redundancy tables: its name from the state (data) or "head i". */
const pairHead = (x) => (x.name ? h('span', { translate: 'no' }, x.name) : t('lab.headN', { i: x.head }));
const pairHeadText = (x) => x.name || t('lab.headN', { i: x.head });

function epsilonControl(lab, setParams) {
  const input = numberInput({
    id: 'lab-param-epsilon',
    label: t('lab.spec.epsilonAria'),
    what: () => t('lab.spec.epsilon'),
    value: lab.epsilon,
    min: 0,
    max: 1,
    minOpen: true,
    maxOpen: true,
    onValue: (x) => setParams({ epsilon: x }),
  });
  return h(
    'div',
    { class: 'lab-params' },
    h('label', { class: 'inline lab-param' }, t('lab.spec.epsilon'), input),
    h('span', { class: 'note' }, t('lab.spec.epsilonNote')),
  );
}

const sci = (x) => (x === null ? t('lab.undefined') : x === 0 ? '0' : x.toExponential(2));
/** A step count (a power of two, up to 2^60): exact below 10^6, else 2^k. */
const steps = (t) => (t < 1e6 ? String(t) : `2^${Math.round(Math.log2(t))}`);

// The core's reasons for an undefined pi (English, as the CLI and the API give them), worded from
// the string table; any other reason is shown as it is, as data.
const REASONS = [
  [
    /^A is (\d+) x (\d+): a stationary distribution needs a square matrix \(queries = keys\)$/,
    'lab.spec.reasonNotSquare',
    (m) => ({ rows: m[1], cols: m[2] }),
  ],
  [/^A has no rows$/, 'lab.spec.reasonNoRows', () => ({})],
  [
    /^(\d+) rows? (?:is|are) empty \(no visible key\): A is not row-stochastic, so it is not a Markov chain$/,
    'lab.spec.reasonEmptyRows',
    (m) => ({ n: Number(m[1]) }),
  ],
];

/** The reason pi is undefined, in the page's language when it is one of the core's. */
export function reasonWords(reason) {
  for (const [re, key, vars] of REASONS) {
    const m = re.exec(reason);
    if (m) return t(key, vars(m));
  }
  return null;
}

/** pi as a table of bars with numbers, or the reason it is undefined. */
function stationaryBlock(state, lab) {
  const st = lab.stationary;
  const head = h('h4', {}, t('lab.spec.piTitle'));
  if (!st.defined) {
    return h(
      'div',
      { class: 'spec-block', id: 'lab-spectral-pi' },
      head,
      h(
        'p',
        { class: 'note spec-undefined', id: 'lab-spectral-pi-undefined' },
        tData(
          'lab.spec.undefinedReason',
          { reason: reasonWords(st.reason) ?? st.reason },
          reasonWords(st.reason) === null ? ['reason'] : [],
        ),
      ),
    );
  }
  const max = Math.max(1e-12, ...st.pi);
  const shown = largestIndices(st.pi);
  return h(
    'div',
    { class: 'spec-block', id: 'lab-spectral-pi' },
    head,
    h('p', { class: 'note' }, t('lab.spec.piNote')),
    scrollTable(
      h(
        'table',
        { class: 'metrics-table spec-pi' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            [t('lab.col.key'), 'π', ''].map((c) => h('th', { scope: 'col' }, c)),
          ),
        ),
        h(
          'tbody',
          {},
          shown
            .map((j) => [st.pi[j], j])
            .map(([p, j]) =>
              h(
                'tr',
                { dataset: { key: j } },
                h('td', { class: 'spec-key' }, keyLabel(state, j)),
                h(
                  'td',
                  { class: 'bar-cell' },
                  h(
                    'span',
                    { class: 'spec-bar-track' },
                    h('span', { class: 'spec-bar', style: { width: `${Math.max(0, Math.min(100, (100 * p) / max))}%` } }),
                  ),
                ),
                h('td', { id: `lab-spectral-pi-${j}`, dataset: { value: p } }, f(p, 4)),
              ),
            ),
        ),
      ),
    ),
    h(
      'p',
      { class: 'note', id: 'lab-spectral-pi-convergence' },
      t(st.converged ? 'lab.spec.converged' : 'lab.spec.notConverged', { steps: steps(st.steps), n: st.steps }) +
        (st.squarings ? t('lab.spec.squarings', { plain: st.plainSteps, squarings: st.squarings }) : '') +
        t('lab.spec.convergence', { change: sci(st.change), residual: sci(st.residual), tol: st.tolerance.toExponential(0) }),
    ),
    keysShownNote(shown.length, st.pi.length, 'π', 'lab-spectral-pi-shown'),
  );
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
    children.push(
      svg(
        'rect',
        {
          class: `spec-sigma${above ? '' : ' below'}`,
          x,
          y: y(s),
          width: barW,
          height: Math.max(0.5, y(0) - y(s)),
          id: `lab-spectral-sigma-${i}`,
          dataset: { value: s },
        },
        svg('title', {}, `σ${i + 1} = ${s}`),
      ),
    );
    const cx = x + barW / 2;
    children.push(
      vertical
        ? svg('text', { class: 'spec-value', x: cx + 3, y: y(s) - 4, transform: `rotate(-90 ${cx + 3} ${y(s) - 4})` }, f(s, 3))
        : svg('text', { class: 'spec-value', x: cx, y: y(s) - 4, 'text-anchor': 'middle' }, f(s, 3)),
    );
    children.push(svg('text', { class: 'spec-tick', x: cx, y: y(0) + 13, 'text-anchor': 'middle' }, String(i + 1)));
  });
  const ty = y(lab.epsilon * top);
  children.push(svg('line', { class: 'spec-threshold', x1: left - 4, x2: W - 4, y1: ty, y2: ty }));
  children.push(svg('text', { class: 'spec-tick', x: left, y: H - 4 }, t('lab.spec.sigmaAxis', { v: f(lab.epsilon * top, 3) })));
  return h(
    'div',
    { class: 'spec-block' },
    h('h4', {}, t('lab.spec.sigmaTitle', { n })),
    h(
      'div',
      { class: 'spec-plot-wrap' },
      svg(
        'svg',
        {
          class: 'spec-plot',
          id: 'lab-spectral-sigma',
          width: W,
          height: H,
          viewBox: `0 0 ${W} ${H}`,
          role: 'img',
          'aria-label': t('lab.spec.sigmaAria', { list: sigma.map((s) => f(s, 4)).join(', ') }),
        },
        children,
      ),
    ),
  );
}

function scalars(lab) {
  const row = (id, name, value, text, what) =>
    h(
      'tr',
      {},
      h('th', { scope: 'row' }, name),
      h('td', { id, dataset: { value: value ?? '' } }, text),
      h('td', { class: 'note-cell' }, what),
    );
  return scrollTable(
    h(
      'table',
      { class: 'metrics-table spec-scalars', id: 'lab-spectral-scalars' },
      h(
        'tbody',
        {},
        row(
          'lab-spectral-effective-rank',
          t('lab.spec.effectiveRank'),
          lab.effectiveRank,
          f(lab.effectiveRank, 5),
          tnData('lab.spec.effectiveRankHelp'),
        ),
        row(
          'lab-spectral-threshold-rank',
          t('lab.spec.thresholdRank'),
          lab.thresholdRank,
          String(lab.thresholdRank),
          `#{σᵢ > ε·σ₁}, ε = ${lab.epsilon}`,
        ),
        row(
          'lab-spectral-entropy',
          t('lab.spec.entropy'),
          lab.spectralEntropy,
          `${f(lab.spectralEntropy, 5)}${lab.spectralEntropy === null ? '' : ` ${t('app.unit.nats')}`}`,
          t('lab.spec.entropyHelp'),
        ),
      ),
    ),
  );
}

/** One heads x heads table of `metric` under `conv`. */
function pairTable(state, lab, conv, metric) {
  const tab = lab.redundancy[conv];
  const heads = lab.redundancy.heads;
  const jsd = metric === 'jsd';
  const ln2 = Math.log(2);
  const id = `lab-spectral-${conv}-${metric}`;
  return scrollTable(
    h(
      'table',
      { class: 'metrics-table spec-pairs', id },
      h('caption', {}, t(jsd ? 'lab.spec.jsdCaption' : 'lab.spec.cosineCaption')),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', {}, ''),
          heads.map((x) => h('th', { scope: 'col', title: headName(state, x.head) }, pairHead(x))),
        ),
      ),
      h(
        'tbody',
        {},
        heads.map((x, i) =>
          h(
            'tr',
            { class: i === lab.head ? 'selected-row' : null },
            h('th', { scope: 'row' }, pairHead(x)),
            heads.map((y, j) => {
              const v = tab[metric][i][j];
              const strength = v === null ? 0 : jsd ? 1 - Math.min(1, v / ln2) : v;
              const title =
                t('lab.spec.cellTitle', { a: pairHeadText(x), b: pairHeadText(y), n: tab.rows[i][j] }) +
                (tab.empty[i][j] ? t('lab.spec.cellEmpty', { n: tab.empty[i][j] }) : '') +
                (conv === 'drop' && tab.sinkOnly[i][j] ? t('lab.spec.cellSinkOnly', { n: tab.sinkOnly[i][j] }) : '');
              return h(
                'td',
                {
                  id: `${id}-r${i}-c${j}`,
                  dataset: { value: v ?? '' },
                  title,
                  class: v === null ? 'undefined-cell' : null,
                  style: v === null ? null : { background: `rgba(59, 111, 182, ${(0.05 + 0.35 * strength).toFixed(3)})` },
                },
                v === null ? t('lab.undefined') : f(v, 3),
              );
            }),
          ),
        ),
      ),
    ),
  );
}

function redundancy(state, lab) {
  const r = lab.redundancy;
  const sel = lab.head;
  const n = lab.nQ;
  const sinkOnly = r.drop.sinkOnly[sel][sel];
  const empty = r.keep.empty[sel][sel];
  const totalSkipped = Math.max(...r.drop.sinkOnly.flat());
  const dropNote = [
    tData('lab.spec.dropNote', { n: sinkOnly, m: n, name: headNode(state, sel) }, ['name']),
    r.heads.length > 1 ? t('lab.spec.dropNotePairs', { n: totalSkipped }) : '',
    t('lab.spec.dropNoteHover'),
  ];
  return h(
    'div',
    { class: 'spec-block' },
    h('h4', {}, r.heads.length === 1 ? t('lab.spec.redundancyOne') : t('lab.spec.redundancy', { n: r.heads.length })),
    h('p', { class: 'note' }, t('lab.spec.redundancyNote')),
    empty
      ? h(
          'p',
          { class: 'note', id: 'lab-spectral-empty-note' },
          tData('lab.spec.emptyNote', { n: empty, name: headNode(state, sel) }, ['name']),
        )
      : null,
    h(
      'div',
      { class: 'spec-conventions' },
      h(
        'div',
        { class: 'spec-convention', id: 'lab-spectral-keep' },
        h('h5', {}, t('lab.spec.keep')),
        pairTable(state, lab, 'keep', 'cosine'),
        pairTable(state, lab, 'keep', 'jsd'),
      ),
      h(
        'div',
        { class: 'spec-convention', id: 'lab-spectral-drop' },
        h('h5', {}, t('lab.spec.drop')),
        pairTable(state, lab, 'drop', 'cosine'),
        pairTable(state, lab, 'drop', 'jsd'),
        h('p', { class: 'note', id: 'lab-spectral-drop-note' }, dropNote),
      ),
    ),
  );
}

export function render(container, { state, lab, setParams }) {
  const shape = lab.nQ === lab.nK ? `${lab.nQ} × ${lab.nK}` : t('lab.spec.shapeCross', { nQ: lab.nQ, nK: lab.nK });
  mount(
    container,
    h(
      'p',
      { class: 'note' },
      tData('lab.spec.intro', { name: headNode(state, lab.head), shape }, ['name']),
      lab.emptyRows ? t('lab.spec.introEmpty', { n: lab.emptyRows }) : '',
      tnData('lab.spec.introEnd'),
    ),
    epsilonControl(lab, setParams),
    h('div', { class: 'spec-top' }, stationaryBlock(state, lab), h('div', { class: 'spec-right' }, sigmaPlot(lab), scalars(lab))),
    redundancy(state, lab),
  );
}
