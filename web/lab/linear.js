// Lab view "linear": linear attention beside softmax on the same Q, K, V (the core's
// lab_linear.cpp; docs/lab.md "Linear attention"). The selected row's softmax and linear weights
// side by side as bars with numbers, both outputs with their difference and error, every row's
// error, and the controls for the feature map, the number of random features m and the seed.
import { h, mount } from '../views/dom.js';
import { fmtMetric, tData } from '../views/format.js';
import { t } from '../i18n/i18n.js';
import { headNode, math, numberParam, rowNode, scrollTable, tn, tnData, tokenNode } from './lab-controls.js';
import { windowedRows } from './rows.js';

const f = (x, d = 4) => fmtMetric(x, d);
/** "j: token" as nodes (the token is data). */
const keyLabel = (state, j) => {
  const tok = state.tokens?.keys?.[j];
  return tok === undefined ? `${j}` : [`${j}: `, tokenNode(tok)];
};
const rowLabel = rowNode;

function controls(lab, setParams) {
  const numberBox = (name, label, value, attrs) =>
    numberParam({ name, label, value, setParams, whole: true, class: 'num-box small', ...attrs });
  const relu = lab.feature === 'relu';
  return h(
    'div',
    { class: 'lab-params' },
    h(
      'label',
      { class: 'inline lab-param' },
      t('lab.linear.featureMap'),
      h(
        'select',
        {
          id: 'lab-param-feature',
          'aria-label': t('lab.linear.featureMapAria'),
          onchange: (e) => setParams({ feature: e.target.value }),
        },
        h('option', { value: 'elu', selected: !relu, translate: 'no' }, 'elu(x) + 1'),
        h('option', { value: 'relu', selected: relu }, tn('lab.linear.reluFeatures')),
      ),
    ),
    numberBox('features', t('lab.linear.features'), lab.features, {
      min: 1,
      max: 1024,
      disabled: !relu,
      title: relu ? null : tn('lab.linear.featuresOff'),
    }),
    numberBox('seed', t('lab.linear.seed'), lab.seed, { min: 0, disabled: !relu, title: relu ? null : tn('lab.linear.seedOff') }),
    h(
      'span',
      { class: 'note', id: 'lab-linear-feature-note' },
      relu ? tnData('lab.linear.reluNote', { m: lab.m, dK: lab.dK }) : tnData('lab.linear.eluNote', { m: lab.m }),
    ),
  );
}

function bar(x, max, cls) {
  return h(
    'span',
    { class: 'lin-bar-track' },
    x === null ? null : h('span', { class: `lin-bar ${cls}`, style: { width: `${Math.max(0, Math.min(100, (100 * x) / max))}%` } }),
  );
}

const undefinedText = (row) => (row.empty ? t('lab.undefinedEmptyRow') : t('lab.linear.undefinedDegenerate'));

/** The selected row: weights side by side, then the outputs with the error. */
function selectedRow(state, lab) {
  const tr = Math.min(state.row ?? 0, lab.nQ - 1);
  const row = lab.rows[tr];
  const sw = lab.softmax.weights[tr];
  const lw = lab.linear.weights[tr];
  const title = h('h4', {}, t('lab.rowTitle'), ' ', rowLabel(state, tr));
  if (row.empty) {
    return h(
      'div',
      { class: 'lin-block', id: 'lab-linear-row' },
      title,
      h('p', { class: 'note undefined-text', id: 'lab-linear-row-undefined' }, undefinedText(row)),
    );
  }
  const max = Math.max(1e-12, ...sw.filter((x) => x !== null), ...lw.filter((x) => x !== null));
  const weights = scrollTable(
    h(
      'table',
      { class: 'metrics-table lin-weights', id: 'lab-linear-weights' },
      h('caption', {}, tnData('lab.linear.weightsCaption')),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          [t('lab.col.key'), 'softmax', '', t('lab.linear.linear'), '', math('a_lin − a')].map((c) => h('th', { scope: 'col' }, c)),
        ),
      ),
      h(
        'tbody',
        {},
        sw.map((a, j) => {
          if (a === null) {
            return h(
              'tr',
              { class: 'masked-row' },
              h('td', { class: 'lin-key' }, keyLabel(state, j)),
              h('td', { colspan: 5, class: 'undefined-cell' }, t('lab.linear.notVisible')),
            );
          }
          const b = lw[j];
          return h(
            'tr',
            { dataset: { key: j } },
            h('td', { class: 'lin-key' }, keyLabel(state, j)),
            h('td', { class: 'bar-cell' }, bar(a, max, 'soft')),
            h('td', { id: `lab-linear-soft-${j}`, dataset: { value: a } }, f(a)),
            h('td', { class: 'bar-cell' }, bar(b, max, 'lin')),
            h(
              'td',
              { id: `lab-linear-lin-${j}`, dataset: { value: b ?? '' }, class: b === null ? 'undefined-cell' : null },
              b === null ? t('lab.undefined') : f(b),
            ),
            h('td', { dataset: { value: b === null ? '' : b - a } }, b === null ? t('lab.undefined') : f(b - a, 3)),
          );
        }),
      ),
    ),
  );
  const so = lab.softmax.output[tr];
  const lo = lab.linear.output[tr];
  const outputs =
    lab.dV === 0
      ? h('p', { class: 'note' }, t('lab.linear.noOutput'))
      : scrollTable(
          h(
            'table',
            { class: 'metrics-table lin-outputs', id: 'lab-linear-outputs' },
            h('caption', {}, tnData('lab.linear.outputsCaption')),
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                [t('lab.linear.dim'), 'softmax O', tnData('lab.linear.linearO'), math('O_lin − O')].map((c) =>
                  h('th', { scope: 'col' }, c),
                ),
              ),
            ),
            h(
              'tbody',
              {},
              so.map((o, e) =>
                h(
                  'tr',
                  {},
                  h('td', {}, `d${e}`),
                  h('td', { id: `lab-linear-out-soft-${e}`, dataset: { value: o } }, f(o)),
                  h(
                    'td',
                    { id: `lab-linear-out-lin-${e}`, dataset: { value: lo[e] ?? '' } },
                    lo[e] === null ? t('lab.undefined') : f(lo[e]),
                  ),
                  h('td', {}, lo[e] === null ? t('lab.undefined') : f(lo[e] - o, 3)),
                ),
              ),
            ),
          ),
        );
  const err = row.degenerate
    ? h('p', { class: 'note undefined-text', id: 'lab-linear-row-undefined' }, undefinedText(row))
    : h(
        'p',
        { class: 'lin-errors', id: 'lab-linear-row-errors' },
        h(
          'span',
          {},
          math('‖O_lin − O‖₂ = '),
          h('b', { id: 'lab-linear-row-output-error', dataset: { value: row.outputError ?? '' } }, f(row.outputError)),
        ),
        h(
          'span',
          {},
          t('lab.linear.relativeEq'),
          h('b', { id: 'lab-linear-row-relative-error', dataset: { value: row.relativeError ?? '' } }, f(row.relativeError)),
        ),
        h(
          'span',
          {},
          math('max |a_lin − a| = '),
          h('b', { id: 'lab-linear-row-weight-error', dataset: { value: row.maxWeightError ?? '' } }, f(row.maxWeightError)),
        ),
      );
  return h(
    'div',
    { class: 'lin-block', id: 'lab-linear-row' },
    title,
    h('div', { class: 'lin-side' }, weights, h('div', {}, outputs, err)),
  );
}

function rowsTable(state, lab, lo = 0, hi = lab.rows.length) {
  const t0 = Math.min(state.row ?? 0, lab.nQ - 1);
  return scrollTable(
    h(
      'table',
      { class: 'metrics-table lin-rows', id: 'lab-linear-rows' },
      h('caption', {}, t('lab.linear.rowsCaption')),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          [t('lab.col.row'), 'φ(q)·Σφ(k)', math('‖O_lin − O‖₂'), t('lab.linear.relative'), math('max |a_lin − a|')].map((c) =>
            h('th', { scope: 'col' }, c),
          ),
        ),
      ),
      h(
        'tbody',
        {},
        lab.rows.slice(lo, hi).map((r) => {
          const cls = r.row === t0 ? 'selected-row' : null;
          if (r.empty || r.degenerate) {
            return h(
              'tr',
              { class: `${cls ?? ''} empty-row`.trim(), dataset: { row: r.row } },
              h('td', {}, rowLabel(state, r.row)),
              h('td', { colspan: 4 }, undefinedText(r)),
            );
          }
          return h(
            'tr',
            { class: cls, dataset: { row: r.row } },
            h('td', {}, rowLabel(state, r.row)),
            h('td', { dataset: { value: r.denominator } }, f(r.denominator)),
            h('td', { dataset: { value: r.outputError ?? '' } }, f(r.outputError)),
            h('td', { dataset: { value: r.relativeError ?? '' } }, f(r.relativeError)),
            h('td', { dataset: { value: r.maxWeightError ?? '' } }, f(r.maxWeightError)),
          );
        }),
      ),
      h(
        'tfoot',
        {},
        h(
          'tr',
          { id: 'lab-linear-means' },
          h('th', { scope: 'row' }, t('lab.linear.mean', { n: lab.definedRows })),
          h('td', {}, ''),
          h('td', { id: 'lab-linear-mean-output-error', dataset: { value: lab.meanOutputError ?? '' } }, f(lab.meanOutputError)),
          h('td', { id: 'lab-linear-mean-relative-error', dataset: { value: lab.meanRelativeError ?? '' } }, f(lab.meanRelativeError)),
          h('td', { id: 'lab-linear-mean-weight-error', dataset: { value: lab.meanMaxWeightError ?? '' } }, f(lab.meanMaxWeightError)),
        ),
      ),
    ),
  );
}

export function render(container, { state, lab, setParams }) {
  if (!lab.available) {
    mount(container, h('p', { class: 'note', id: 'lab-linear-unavailable' }, tData('lab.linear.unavailable', { reason: lab.reason })));
    return;
  }
  const path = t(lab.path === 'prefix' ? 'lab.linear.pathPrefix' : 'lab.linear.pathRows');
  mount(
    container,
    h('p', { class: 'note' }, tnData('lab.linear.intro', { c: f(lab.inputScale, 4), path })),
    controls(lab, setParams),
    selectedRow(state, lab),
    windowedRows({
      id: 'lab-linear-rows',
      n: lab.rows.length,
      selected: Math.min(state.row ?? 0, lab.nQ - 1),
      table: (lo, hi) => rowsTable(state, lab, lo, hi),
      caption: t('lab.rows.linearCaption'),
      series: [
        { key: 'relative', label: t('lab.linear.relative'), values: lab.rows.map((r) => r.relativeError ?? null) },
        { key: 'weight', label: 'max |a_lin − a|', values: lab.rows.map((r) => r.maxWeightError ?? null) },
      ],
    }),
    h(
      'p',
      { class: 'note' },
      tData('lab.linear.footer', { name: headNode(state, lab.head), nQ: lab.nQ, nK: lab.nK, dK: lab.dK, dV: lab.dV, m: lab.m }, ['name']),
    ),
  );
}
