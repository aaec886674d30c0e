// Lab view "sweep": the lesson's parameter experiment (seed lesson 003, "参数实验"). The unit
// query q(θ) = (cos θ, sin θ) turns from θ = 0 to π/2 against the selected head's keys, with the
// selected row's mask and the state's scale; for each temperature τ in params.taus, one plot of
// every visible key's weight versus θ, the row's own query marked when it is 2-D, and a table of
// the weights at θ = 0, π/4, π/2 (the core's lab_sweep.cpp; docs/lab.md "Angle sweep").
//
// DOM ids (for tests): #lab-sweep-plot-<t> (SVG per tau index t), #lab-sweep-table, cells
// #lab-sweep-c-<row>-<t>-<j> (row 0, 1, 2 = θ 0, π/4, π/2, row "q" = the row's own query;
// t = tau index; j = key index) with data-value = the full-precision weight.
import { h, mount, svg } from '../views/dom.js';
import { fmtMetric, showToken, tData } from '../views/format.js';
import { t } from '../i18n/i18n.js';
import { numberInput, tnData } from './lab-controls.js';
import { KEY_ROWS, keysShownNote, largestIndices } from './rows.js';

const MASKED_SHOWN = 24; // masked keys named in the note; the rest counted

/**
 * The lab answer cut to the KEY_ROWS keys of largest weight at any angle and temperature (all keys
 * when there are at most KEY_ROWS): keys, curves, table and the row's own query, in key order.
 */
function cutToLargest(lab) {
  if (lab.keys.length <= KEY_ROWS) return lab;
  const top = lab.keys.map((_, k) => Math.max(...lab.curves.map((c) => Math.max(...c.weights[k]))));
  const pos = largestIndices(top);
  const pick = (list) => pos.map((k) => list[k]);
  const q = lab.query;
  return {
    ...lab,
    keys: pick(lab.keys),
    curves: lab.curves.map((c) => ({ ...c, weights: pick(c.weights) })),
    table: lab.table.map((r) => ({ ...r, weights: r.weights.map(pick) })),
    query: q && {
      ...q,
      weights: q.weights ? q.weights.map(pick) : q.weights,
      own: Array.isArray(q.own?.[0]) ? q.own.map(pick) : q.own ? pick(q.own) : q.own,
    },
  };
}

// Okabe-Ito (colour-blind safe) with a dash pattern per cycle, so curves differ by more than hue.
const COLOURS = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000', '#8C6D31'];
const DASHES = ['', '6 3', '2 3', '8 3 2 3'];
const DEG_TICKS = [0, 15, 30, 45, 60, 75, 90];
const RAD_LABELS = ['0', 'π/12', 'π/6', 'π/4', 'π/3', '5π/12', 'π/2'];
const MAX_LEGEND = 12;

const style = (k) => ({ stroke: COLOURS[k % COLOURS.length], dash: DASHES[Math.floor(k / COLOURS.length) % DASHES.length] });
const keyName = (state, j) => `${t('lab.keyN', { j })} ${showToken(state.tokens.keys[j] ?? '')}`;
/** keyName as nodes: the token is data (translate="no"). */
const keyNode = (state, j) => [`${t('lab.keyN', { j })} `, h('span', { translate: 'no' }, showToken(state.tokens.keys[j] ?? ''))];
const deg = (rad) => (rad * 180) / Math.PI;

/** One plot: every visible key's weight versus θ at temperature taus[t]. */
function plot(state, lab, ti) {
  const W = 360,
    H = 250,
    L = 44,
    R = 12,
    T = 24,
    B = 52;
  const sx = (theta) => L + (deg(theta) / 90) * (W - L - R);
  const sy = (w) => T + (1 - w) * (H - T - B);
  const tau = lab.taus[ti];
  const curves = lab.curves[ti].weights;
  const q = lab.query;
  const marked = q && q.theta !== null && q.inRange;
  return svg(
    'svg',
    {
      id: `lab-sweep-plot-${ti}`,
      class: 'sweep-plot',
      viewBox: `0 0 ${W} ${H}`,
      width: W,
      height: H,
      role: 'img',
      'aria-label': t('lab.sweep.plotAria', { n: lab.keys.length, tau }),
    },
    svg('text', { x: L, y: 15, class: 'sweep-title' }, `τ = ${tau}` + (tau === lab.stateTau ? t('lab.sweep.stateTau') : '')),
    [0, 0.25, 0.5, 0.75, 1].map((y) => [
      svg('line', { x1: L, x2: W - R, y1: sy(y), y2: sy(y), class: 'sweep-grid' }),
      svg('text', { x: L - 5, y: sy(y) + 4, class: 'sweep-tick', 'text-anchor': 'end' }, String(y)),
    ]),
    DEG_TICKS.map((d, i) => {
      const x = sx((d * Math.PI) / 180);
      return [
        svg('line', { x1: x, x2: x, y1: H - B, y2: H - B + 4, class: 'sweep-axis' }),
        svg('text', { x, y: H - B + 15, class: 'sweep-tick', 'text-anchor': 'middle' }, `${d}°`),
        svg('text', { x, y: H - B + 28, class: 'sweep-tick sweep-rad', 'text-anchor': 'middle' }, RAD_LABELS[i]),
      ];
    }),
    svg('line', { x1: L, x2: W - R, y1: H - B, y2: H - B, class: 'sweep-axis' }),
    svg('line', { x1: L, x2: L, y1: T, y2: H - B, class: 'sweep-axis' }),
    svg('text', { x: (L + W - R) / 2, y: H - 6, class: 'sweep-label', 'text-anchor': 'middle' }, t('lab.sweep.xAxis')),
    svg(
      'text',
      { x: 11, y: (T + H - B) / 2, class: 'sweep-label', 'text-anchor': 'middle', transform: `rotate(-90 11 ${(T + H - B) / 2})` },
      t('lab.sweep.yAxis'),
    ),
    curves.map((ys, k) => {
      const { stroke, dash } = style(k);
      const d = ys.map((y, i) => `${i ? 'L' : 'M'}${sx(lab.thetas[i]).toFixed(2)},${sy(y).toFixed(2)}`).join('');
      return svg(
        'path',
        { d, class: 'sweep-curve', stroke, 'stroke-dasharray': dash || null, dataset: { key: lab.keys[k] } },
        svg('title', {}, `${keyName(state, lab.keys[k])}, τ = ${tau}`),
      );
    }),
    marked
      ? [
          svg('line', { x1: sx(q.theta), x2: sx(q.theta), y1: T, y2: H - B, class: 'sweep-marker' }),
          svg(
            'text',
            { x: W - R, y: 15, class: 'sweep-marker-text', 'text-anchor': 'end' },
            t('lab.sweep.marker', { row: lab.row, theta: fmtMetric(deg(q.theta), 4) }),
          ),
          q.weights[ti].map((w, k) =>
            svg(
              'circle',
              {
                cx: sx(q.theta),
                cy: sy(w),
                r: 4,
                class: 'sweep-point',
                fill: style(k).stroke,
                id: `lab-sweep-point-${ti}-${lab.keys[k]}`,
                dataset: { value: String(w) },
              },
              svg(
                'title',
                {},
                t('lab.sweep.pointTitle', { key: keyName(state, lab.keys[k]), w: fmtMetric(w, 6), theta: fmtMetric(deg(q.theta), 4) }),
              ),
            ),
          ),
        ]
      : null,
  );
}

function legend(state, lab) {
  const shown = lab.keys.slice(0, MAX_LEGEND);
  return h(
    'ul',
    { class: 'sweep-legend', 'aria-label': t('lab.sweep.legendAria') },
    shown.map((j, k) => {
      const { stroke, dash } = style(k);
      return h(
        'li',
        {},
        svg(
          'svg',
          { width: 28, height: 10, 'aria-hidden': 'true' },
          svg('line', { x1: 1, x2: 27, y1: 5, y2: 5, stroke, 'stroke-width': 2.5, 'stroke-dasharray': dash || null }),
        ),
        keyNode(state, j),
      );
    }),
    lab.keys.length > shown.length ? h('li', {}, t('lab.sweep.moreKeys', { n: lab.keys.length - shown.length })) : null,
  );
}

function table(state, lab) {
  const q = lab.query;
  const rows = lab.table.map((r, i) => ({ id: String(i), label: `θ = ${r.label} (${fmtMetric(deg(r.theta), 4)}°)`, weights: r.weights }));
  if (q && q.theta !== null) {
    rows.push({
      id: 'q',
      weights: q.own,
      label: t('lab.sweep.ownQ', {
        row: lab.row,
        q: q.q.map((x) => fmtMetric(x, 4)).join(', '),
        theta: fmtMetric(deg(q.theta), 4),
        norm: fmtMetric(q.norm, 4),
      }),
    });
  }
  return h(
    'div',
    { class: 'scroll sweep-table-scroll' },
    h(
      'table',
      { class: 'metrics-table sweep-table', id: 'lab-sweep-table' },
      h('caption', {}, tnData('lab.sweep.tableCaption')),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { scope: 'col' }, 'θ'),
          h('th', { scope: 'col' }, 'τ'),
          lab.keys.map((j) => h('th', { scope: 'col' }, keyNode(state, j))),
        ),
      ),
      h(
        'tbody',
        {},
        rows.map((r) =>
          lab.taus.map((tau, t) =>
            h(
              'tr',
              { class: t === 0 ? 'sweep-group' : null },
              h('th', { scope: 'row', class: 'sweep-theta' }, t === 0 ? r.label : ''),
              h('td', {}, String(tau)),
              r.weights[t].map((w, k) =>
                h('td', { id: `lab-sweep-c-${r.id}-${t}-${lab.keys[k]}`, dataset: { value: String(w) } }, fmtMetric(w, 6)),
              ),
            ),
          ),
        ),
      ),
    ),
  );
}

// A temperature list refused here (before the store): the text typed and the state it was typed
// against. The view is drawn again from the same state after a language change: the box keeps
// what was typed and the refusal is worded again. Any new state forgets it.
let refused = null;

function controls(state, lab, setParams) {
  const again = refused?.state === state ? refused : null;
  refused = again;
  const error = h('span', { class: 'error', id: 'lab-sweep-param-error', role: 'alert' }, again ? t('lab.sweep.tausError') : '');
  const taus = h('input', {
    type: 'text',
    id: 'lab-param-taus',
    class: 'sweep-taus',
    value: again ? again.typed : lab.taus.join(', '),
    'aria-label': t('lab.sweep.tausAria'),
    onchange: async (e) => {
      const text = e.target.value.trim();
      const list =
        text === ''
          ? null
          : text
              .split(/[\s,;]+/)
              .filter(Boolean)
              .map(Number);
      if (list && (list.length < 1 || list.length > 4 || list.some((x) => !Number.isFinite(x) || x <= 0))) {
        refused = { state, typed: e.target.value };
        error.textContent = t('lab.sweep.tausError');
        return;
      }
      refused = null;
      error.textContent = '';
      // A list the core refuses is explained under the lab's tabs (#lab-error), worded there.
      await setParams({ taus: list });
    },
  });
  const steps = numberInput({
    id: 'lab-param-steps',
    class: 'num-box small',
    label: t('lab.sweep.stepsAria'),
    what: () => t('lab.sweep.stepsWhat'),
    value: lab.steps,
    min: 2,
    max: 721,
    whole: true,
    onValue: (x) => setParams({ steps: x }),
  });
  return h(
    'div',
    { class: 'sweep-controls' },
    h('label', { class: 'inline' }, t('lab.sweep.taus'), taus),
    h('label', { class: 'inline' }, t('lab.sweep.steps'), steps),
    error,
  );
}

export function render(container, { state, lab, setParams }) {
  const intro = h('p', { class: 'note' }, tnData('lab.sweep.intro'));
  if (!lab.supported) {
    mount(
      container,
      intro,
      h('p', { class: 'warning', id: 'lab-sweep-unsupported' }, tData('lab.sweep.unsupported', { reason: lab.reason })),
    );
    return;
  }
  const q = lab.query;
  const plane = lab.dK > 2 ? h('p', { class: 'note', id: 'lab-sweep-plane' }, t('lab.sweep.plane', { dK: lab.dK })) : null;
  const theta = q && q.theta !== null ? fmtMetric(deg(q.theta), 4) : null;
  let qNote = null;
  if (q && q.theta === null) qNote = h('p', { class: 'note', id: 'lab-sweep-qnote' }, t('lab.sweep.qZero', { row: lab.row }));
  else if (q && !q.inRange) {
    qNote = h('p', { class: 'note', id: 'lab-sweep-qnote' }, t('lab.sweep.qOutside', { row: lab.row, theta }));
  } else if (q && Math.abs(q.norm - 1) > 1e-6) {
    qNote = h('p', { class: 'note', id: 'lab-sweep-qnote' }, t('lab.sweep.qLength', { row: lab.row, theta, norm: fmtMetric(q.norm, 4) }));
  } else if (q) {
    qNote = h('p', { class: 'note', id: 'lab-sweep-qnote' }, t('lab.sweep.qUnit', { row: lab.row, theta }));
  }
  const masked = lab.masked.length
    ? h(
        'p',
        { class: 'note', id: 'lab-sweep-masked' },
        tData(
          'lab.sweep.masked',
          {
            row: lab.row,
            keys: [
              lab.masked.slice(0, MASKED_SHOWN).map((j, i) => [i ? t('lab.sens.comma') : '', keyNode(state, j)]),
              lab.masked.length > MASKED_SHOWN ? `${t('lab.sens.comma')}… +${lab.masked.length - MASKED_SHOWN}` : null,
            ],
          },
          ['keys'],
        ),
      )
    : null;
  const cut = cutToLargest(lab);
  mount(
    container,
    intro,
    h('h4', {}, t('lab.sweep.title', { row: lab.row, n: lab.visible, dK: lab.dK, scale: fmtMetric(lab.scale, 6) })),
    controls(state, lab, setParams),
    plane,
    masked,
    lab.empty
      ? h('p', { class: 'warning', id: 'lab-sweep-empty' }, t('lab.sweep.empty', { row: lab.row }))
      : [
          lab.visible === 1 ? h('p', { class: 'note' }, t('lab.sweep.single')) : null,
          legend(state, cut),
          keysShownNote(cut.keys.length, lab.keys.length, t('lab.rows.byWeight'), 'lab-sweep-shown'),
          h(
            'div',
            { class: 'sweep-plots' },
            lab.taus.map((_, t) => plot(state, cut, t)),
          ),
          qNote,
          table(state, cut),
        ],
  );
}
