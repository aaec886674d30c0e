// Lab view "routing" (routing.js): its table of every row (Ω, the (1-delta) support S_t, N_eff,
// the tunnel-vision factors), windowed for long heads (rows.js).
import { h } from '../views/dom.js';
import { fmtMetric } from '../views/format.js';
import { t } from '../i18n/i18n.js';
import { rowNode, scrollTable } from './lab-controls.js';
import { windowedRows } from './rows.js';

const f = (x, d = 4) => fmtMetric(x, d);

/** A support list of at most SUPPORT_SHOWN keys (then "… +N"). */
const SUPPORT_SHOWN = 24;
const supportText = (keys) =>
  keys.length <= SUPPORT_SHOWN ? keys.join(', ') : `${keys.slice(0, SUPPORT_SHOWN).join(', ')}, … +${keys.length - SUPPORT_SHOWN}`;

export function rowsTable(state, lab) {
  const cols = [
    t('lab.col.row'),
    '|Ω|',
    '|S_t|',
    t('lab.routing.col.supportKeys'),
    t('lab.routing.col.ignoredMass'),
    t('lab.routing.col.ignoredNorm'),
    '(1−mass)·B',
    'δ·B',
    'H_norm(a)',
    'H_norm(β)',
    t('lab.routing.col.tunnel'),
  ];
  const table = (lo, hi) =>
    scrollTable(
      h(
        'table',
        { class: 'metrics-table', id: 'lab-routing-rows' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            cols.map((c) => h('th', { scope: 'col' }, c)),
          ),
        ),
        h(
          'tbody',
          {},
          lab.rows
            .slice(lo, hi)
            .map((r) =>
              r.empty
                ? h(
                    'tr',
                    { dataset: { row: r.row } },
                    h('td', {}, rowNode(state, r.row)),
                    h('td', { colspan: cols.length - 1 }, t('lab.undefinedEmpty')),
                  )
                : h(
                    'tr',
                    { dataset: { row: r.row }, class: r.row === state.row ? 'selected-row' : null },
                    h('td', {}, rowNode(state, r.row)),
                    h('td', {}, String(r.visible)),
                    h('td', {}, String(r.supportSize)),
                    h('td', { title: r.support.length > SUPPORT_SHOWN ? r.support.join(', ') : null }, supportText(r.support)),
                    h('td', {}, f(r.ignoredMass)),
                    h('td', {}, f(r.ignoredNorm)),
                    h('td', {}, f(r.boundMass)),
                    h('td', {}, f(r.boundDelta)),
                    h('td', {}, f(r.normalizedEntropy)),
                    h('td', {}, f(r.evidenceEntropy)),
                    h('td', {}, r.tunnel.defined ? t(r.tunnel.verdict ? 'lab.yes' : 'lab.no') : t('lab.undefined')),
                  ),
            ),
        ),
      ),
    );
  return h(
    'details',
    {},
    h('summary', {}, t('lab.routing.rowsSummary', { n: lab.rows.length, tunnel: lab.tunnelRows, defined: lab.tunnelDefinedRows })),
    windowedRows({
      id: 'lab-routing-rows',
      n: lab.rows.length,
      selected: state.row,
      table,
      caption: t('lab.rows.routingCaption'),
      series: [
        { key: 'hna', label: 'H_norm(a)', values: lab.rows.map((r) => (r.empty ? null : r.normalizedEntropy)) },
        { key: 'ignored', label: t('lab.routing.col.ignoredMass'), values: lab.rows.map((r) => (r.empty ? null : r.ignoredMass)) },
      ],
    }),
  );
}
