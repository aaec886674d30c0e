// Lab view "saturation": how flat the selected row's softmax is (the core's lab_saturation.cpp;
// docs/lab.md "Saturation"; MATH.md "Calculus"). Two line plots of the two-token curves
// a_1 = sigmoid(Delta/tau) and H(Delta/tau) with this row's own gap marked, the softmax Jacobian
// as a table coloured and numbered, dH/dz per key as signed bars with numbers, and dH/dtau.
import { h, mount, svg } from '../views/dom.js';
import { fmtCell, fmtMetric, showToken } from '../views/format.js';
import { cellColours } from '../views/legend.js';
import { t } from '../i18n/i18n.js';
import { math, numberParam, tn, tnData, tokenNode } from './lab-controls.js';
import { KEY_ROWS, keysShownNote, largestIndices } from './rows.js';

/** "j token" as nodes: the index as text, the token as data. */
const keyNode = (state, j) => [`${j} `, tokenNode(state.tokens.keys[j])];

/**
 * A line plot of ys over xs with numbered axes and the point (px, py) marked and written.
 * px null: no point (the row has fewer than two visible keys).
 */
function linePlot({ id, title, xs, ys, yMax, yTicks, yLabel, px, py, pointText }) {
  const W = 340,
    H = 210,
    L = 46,
    R = 12,
    T = 22,
    B = 38;
  const x0 = xs[0],
    x1 = xs[xs.length - 1];
  const sx = (x) => L + ((x - x0) / (x1 - x0)) * (W - L - R);
  const sy = (y) => T + (1 - y / yMax) * (H - T - B);
  const path = xs.map((x, i) => `${i ? 'L' : 'M'}${sx(x).toFixed(2)},${sy(ys[i]).toFixed(2)}`).join('');
  const xTicks = [x0, x0 / 2, 0, x1 / 2, x1];
  const clamped = px === null ? null : Math.min(x1, Math.max(x0, px));
  return svg(
    'svg',
    { id, class: 'sat-plot', viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: 'img', 'aria-label': title },
    svg('text', { x: L, y: 14, class: 'sat-title' }, title),
    yTicks.map((y) => [
      svg('line', { x1: L, x2: W - R, y1: sy(y), y2: sy(y), class: 'sat-grid' }),
      svg('text', { x: L - 5, y: sy(y) + 4, class: 'sat-tick', 'text-anchor': 'end' }, fmtMetric(y, 3)),
    ]),
    xTicks.map((x) => [
      svg('line', { x1: sx(x), x2: sx(x), y1: H - B, y2: H - B + 4, class: 'sat-axis' }),
      svg('text', { x: sx(x), y: H - B + 15, class: 'sat-tick', 'text-anchor': 'middle' }, fmtMetric(x, 3)),
    ]),
    svg('line', { x1: L, x2: W - R, y1: H - B, y2: H - B, class: 'sat-axis' }),
    svg('line', { x1: L, x2: L, y1: T, y2: H - B, class: 'sat-axis' }),
    svg('text', { x: (L + W - R) / 2, y: H - 4, class: 'sat-label', 'text-anchor': 'middle' }, 'x = Δ / τ'),
    svg(
      'text',
      { x: 11, y: (T + H - B) / 2, class: 'sat-label', 'text-anchor': 'middle', transform: `rotate(-90 11 ${(T + H - B) / 2})` },
      yLabel,
    ),
    svg('path', { d: path, class: 'sat-curve' }),
    clamped === null
      ? null
      : [
          svg('line', { x1: sx(clamped), x2: sx(clamped), y1: sy(py), y2: H - B, class: 'sat-drop' }),
          svg('circle', {
            cx: sx(clamped),
            cy: sy(py),
            r: 5,
            class: 'sat-point',
            id: `${id}-point`,
            dataset: { x: String(px), y: String(py) },
          }),
          svg(
            'text',
            {
              // Above the point, or below it when the point is near the top of the plot.
              x: sx(clamped) + (sx(clamped) > W / 2 ? -8 : 8),
              y: sy(py) - 8 < T + 12 ? sy(py) + 18 : sy(py) - 8,
              class: 'sat-point-text',
              'text-anchor': sx(clamped) > W / 2 ? 'end' : 'start',
            },
            pointText,
          ),
        ],
  );
}

/** The Jacobian block as a numbered, coloured table (keys need not be contiguous). */
function jacobianTable(state, jac, tau) {
  const values = jac.matrix.flat();
  const lo = Math.min(0, ...values),
    hi = Math.max(0, ...values);
  return h(
    'div',
    { class: 'sat-block' },
    h(
      'p',
      { class: 'sat-caption' },
      t('lab.sat.jacobianCaption', { tau }) + (jac.complete ? '' : t('lab.sat.jacobianTop', { n: jac.keys.length })),
    ),
    h(
      'div',
      { class: 'scroll sat-jac-scroll' },
      h(
        'table',
        { class: 'sat-jacobian', id: 'lab-sat-jacobian' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            h('th', { class: 'corner', scope: 'col' }, 'i \\ j'),
            jac.keys.map((j) => h('th', { scope: 'col', title: t('lab.keyN', { j }) }, keyNode(state, j))),
          ),
        ),
        h(
          'tbody',
          {},
          jac.matrix.map((row, a) =>
            h(
              'tr',
              {},
              h('th', { scope: 'row', title: t('lab.keyN', { j: jac.keys[a] }) }, keyNode(state, jac.keys[a])),
              row.map((x, b) => {
                const { bg, fg } = cellColours(x, lo, hi);
                return h(
                  'td',
                  { id: `lab-sat-j-r${a}-c${b}`, dataset: { value: String(x) }, style: { background: bg, color: fg }, title: String(x) },
                  fmtCell(x, 4),
                );
              }),
            ),
          ),
        ),
      ),
    ),
  );
}

/** dH/dz per visible key: weight, derivative, a signed bar. */
function gradientTable(state, lab) {
  const maxAbs = Math.max(1e-12, ...lab.dHdz.map(Math.abs));
  return h(
    'div',
    { class: 'sat-block' },
    h('p', { class: 'sat-caption' }, tnData('lab.sat.gradCaption', { d: fmtMetric(lab.dHdtau, 4) })),
    h(
      'div',
      { class: 'scroll sat-grad-scroll' },
      h(
        'table',
        { class: 'metrics-table', id: 'lab-sat-grad' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            [t('lab.col.key'), t('lab.col.token'), t('lab.sat.col.weight'), t('lab.sat.col.grad'), ''].map((c) =>
              h('th', { scope: 'col' }, c),
            ),
          ),
        ),
        h(
          'tbody',
          {},
          largestIndices(lab.dHdz.map(Math.abs)).map((i) => {
            const j = lab.keys[i];
            const g = lab.dHdz[i];
            const pct = (50 * Math.abs(g)) / maxAbs;
            return h(
              'tr',
              { dataset: { key: j } },
              h('td', {}, String(j)),
              h('td', { translate: 'no' }, showToken(state.tokens.keys[j] ?? '')),
              h('td', { dataset: { value: String(lab.weights[i]) } }, fmtCell(lab.weights[i], 4)),
              h('td', { id: `lab-sat-dhdz-k${j}`, dataset: { value: String(g) } }, fmtMetric(g, 4)),
              h(
                'td',
                { class: 'sat-bar-cell' },
                h(
                  'span',
                  { class: 'sat-bar-track' },
                  h('span', {
                    class: `sat-bar ${g < 0 ? 'neg' : 'pos'}`,
                    style: g < 0 ? { right: '50%', width: `${pct}%` } : { left: '50%', width: `${pct}%` },
                  }),
                ),
              ),
            );
          }),
        ),
      ),
    ),
    keysShownNote(Math.min(KEY_ROWS, lab.keys.length), lab.keys.length, '|dH/dz|', 'lab-sat-grad-shown'),
  );
}

export function render(container, { state, lab, setParams }) {
  const c = lab.curve;
  const query = state.tokens.queries[lab.row] ?? '';
  const has = lab.x !== null;
  const metric = (id, name, value, text, help) => [
    h('dt', { title: help }, name),
    h('dd', { id: `lab-sat-${id}`, dataset: { value: value ?? '' } }, text ?? fmtMetric(value, 6)),
  ];
  const why = lab.empty ? t('lab.undefinedEmpty') : t('lab.sat.undefinedOneKey');
  const top = lab.topKeys ?? [];

  mount(
    container,
    h('p', { class: 'note' }, t('lab.sat.intro')),
    h(
      'h4',
      { id: 'lab-sat-title' },
      t('lab.queryRow'),
      ' ',
      h('span', { class: 'idx' }, String(lab.row)),
      ' ',
      tokenNode(query, 'q', { class: 'token-inline' }),
      t('lab.sat.title', { n: lab.visible, tau: lab.tau }),
    ),
    lab.empty ? h('p', { class: 'warning', id: 'lab-sat-empty' }, t('lab.sat.empty')) : null,
    !lab.empty && !has ? h('p', { class: 'note', id: 'lab-sat-single' }, t('lab.sat.single')) : null,
    h(
      'div',
      { class: 'sat-top' },
      h(
        'dl',
        { class: 'sat-metrics' },
        metric(
          'gap',
          t('lab.sat.gap'),
          lab.gap,
          has
            ? [
                `${fmtMetric(lab.gap, 6)} (${t('lab.col.key')} `,
                keyNode(state, top[0]),
                ` − ${t('lab.col.key')} `,
                keyNode(state, top[1]),
                ')',
              ]
            : why,
          t('lab.sat.gapHelp'),
        ),
        metric('x', math('x = Δ / τ'), lab.x, has ? undefined : why),
        metric('a1', math('a₁ = σ(x)'), lab.a1, has ? undefined : why, t('lab.sat.a1Help')),
        metric('top-weight', t('lab.sat.topWeight'), lab.topWeight, lab.empty ? t('lab.undefined') : undefined, t('lab.sat.topWeightHelp')),
        metric('h2', t('lab.sat.h2'), lab.twoTokenEntropy, has ? undefined : why, `softplus(x) − x σ(x), ${t('app.unit.nats')}`),
        metric(
          'entropy',
          t('lab.sat.entropy'),
          lab.entropy,
          lab.empty ? t('lab.undefined') : `${fmtMetric(lab.entropy, 6)} ${t('app.unit.nats')}`,
        ),
        metric(
          'dhdtau',
          math('∂H/∂τ = Var_a(z)/τ³'),
          lab.dHdtau,
          lab.empty ? t('lab.undefined') : t('lab.sat.perTau', { v: fmtMetric(lab.dHdtau, 6) }),
          t('lab.sat.dhdtauHelp'),
        ),
        metric('frobenius', math('‖J‖_F'), lab.jacobian.frobenius, lab.empty ? t('lab.undefined') : undefined, tn('lab.sat.frobeniusHelp')),
        metric('maxabs', math('max |J_ij|'), lab.jacobian.maxAbs, lab.empty ? t('lab.undefined') : undefined, t('lab.sat.maxabsHelp')),
      ),
      h(
        'div',
        { class: 'sat-controls' },
        numberParam({
          id: 'lab-sat-range',
          name: 'gapRange',
          label: t('lab.sat.range'),
          what: () => 'R',
          value: lab.gapRange,
          min: 0.5,
          max: 100,
          class: 'num-box small',
          labelClass: 'inline',
          setParams,
        }),
        numberParam({
          id: 'lab-sat-keys',
          name: 'jacobianKeys',
          label: t('lab.sat.keys'),
          what: () => t('lab.sat.keysWhat'),
          value: lab.jacobianKeys,
          min: 1,
          max: 64,
          whole: true,
          class: 'num-box small',
          labelClass: 'inline',
          setParams,
        }),
      ),
    ),
    h(
      'div',
      { class: 'sat-plots' },
      linePlot({
        id: 'lab-sat-plot-a1',
        title: t('lab.sat.plotA1'),
        xs: c.x,
        ys: c.a1,
        yMax: 1,
        yTicks: [0, 0.25, 0.5, 0.75, 1],
        yLabel: 'a₁',
        px: lab.x,
        py: lab.a1,
        pointText: has ? `x = ${fmtMetric(lab.x, 3)}, a₁ = ${fmtMetric(lab.a1, 4)}` : '',
      }),
      linePlot({
        id: 'lab-sat-plot-h',
        title: t('lab.sat.plotH'),
        xs: c.x,
        ys: c.entropy,
        yMax: Math.LN2 * 1.08,
        yTicks: [0, 0.2, 0.4, 0.6, Math.LN2],
        yLabel: 'H',
        px: lab.x,
        py: lab.twoTokenEntropy,
        pointText: has ? `x = ${fmtMetric(lab.x, 3)}, H = ${fmtMetric(lab.twoTokenEntropy, 4)}` : '',
      }),
    ),
    has && !lab.inRange
      ? h('p', { class: 'note', id: 'lab-sat-offplot' }, t('lab.sat.offplot', { x: fmtMetric(lab.x, 4), r: lab.gapRange }))
      : null,
    lab.empty ? null : h('div', { class: 'sat-tables' }, jacobianTable(state, lab.jacobian, lab.tau), gradientTable(state, lab)),
  );
}
