// Lab view "sink": sink versus content, attention rows as compositional data (the core's
// lab_sink.cpp; docs/lab.md "Sink vs content"; idea from Papamichalis & Ruane 2026,
// arXiv:2608.14712). Every row's entropy as a stacked bar H = h(s) + (1-s) H(c) with its numbers,
// the same for each head's means, the selected head against every other head under keep-sink and
// drop-sink (with the Aitchison distance and its sink/content split), the verdicts that flip
// between the conventions, in words, and the entropy change to compareTau / compareHead split
// into a sink part and a content part.
import { h, mount } from '../views/dom.js';
import { tData } from '../views/format.js';
import { t } from '../i18n/i18n.js';
import { headName, headNode, numberParam, scrollTable, tnData } from './lab-controls.js';
import { f, legend, rowsTable, headsTable, pairsTable } from './sink-parts.js';
import { windowedRows } from './rows.js';

/** A flip in words. */
function flipWords(state, x) {
  const [r, p, q] = [x.reference, x.p, x.q];
  const [near, far] = x.keep === 'p' ? [p, q] : [q, p];
  return tData('lab.sink.flip', { r: headNode(state, r), near: headNode(state, near), far: headNode(state, far) });
}

function flipsSection(state, lab) {
  const blocks = [
    ['jsd', 'lab.sink.flipName.jsd'],
    ['cosine', 'lab.sink.flipName.cosine'],
    ['entropyGap', 'lab.sink.flipName.entropyGap'],
  ];
  return h(
    'div',
    { class: 'sink-flips', id: 'lab-sink-flips' },
    h('h4', {}, t('lab.sink.flipsTitle')),
    lab.heads.length < 3
      ? h('p', { class: 'note' }, t('lab.sink.flipsNeedThree', { n: lab.heads.length }))
      : blocks.map(([key, nameKey]) => {
          const fl = lab.flips[key];
          const mine = fl.list.filter((x) => x.reference === lab.head);
          const pct = fl.triples ? ` (${((100 * fl.count) / fl.triples).toFixed(1)}%)` : '';
          return h(
            'div',
            { class: 'flip-block', dataset: { metric: key, count: fl.count, triples: fl.triples } },
            h(
              'p',
              {},
              h('strong', {}, t(nameKey)),
              tData(
                'lab.sink.flipCount',
                { count: fl.count, triples: fl.triples, pct, name: headNode(state, lab.head), mine: mine.length },
                ['name'],
              ),
              fl.list.length < fl.count ? t('lab.sink.flipListed', { n: fl.list.length }) : '',
            ),
            mine.length
              ? h(
                  'ul',
                  { class: 'flip-list' },
                  mine.slice(0, 12).map((x) => h('li', {}, flipWords(state, x))),
                )
              : null,
            mine.length > 12 ? h('p', { class: 'note' }, t('lab.sink.flipMore', { n: mine.length - 12 })) : null,
            fl.list.length > mine.length
              ? h(
                  'details',
                  {},
                  h('summary', {}, t('lab.sink.flipEvery', { n: fl.list.length })),
                  h(
                    'ul',
                    { class: 'flip-list' },
                    fl.list.map((x) => h('li', {}, flipWords(state, x))),
                  ),
                )
              : null,
          );
        }),
  );
}

function attributionBlock(title, a, id) {
  if (!a) return null;
  const m = a.mean;
  const rowsFor = [
    ['termwise', 'lab.sink.split.termwise'],
    ['sinkFirst', 'lab.sink.split.sinkFirst'],
    ['contentFirst', 'lab.sink.split.contentFirst'],
    ['shapley', 'lab.sink.split.shapley'],
  ];
  if (a.rows === 0) {
    return h('div', { class: 'sink-attribution', id }, h('h4', {}, title), h('p', { class: 'note' }, t('lab.sink.attrUndefined')));
  }
  const share = m.sinkShare;
  return h(
    'div',
    { class: 'sink-attribution', id },
    h('h4', {}, title),
    h(
      'p',
      {},
      t('lab.sink.attrChange', { before: f(m.before), after: f(m.after), total: f(m.total), n: a.rows }),
      share === null ? t('lab.sink.attrNoChange') : tnData('lab.sink.attrShare', { pct: (100 * share).toFixed(1) }),
    ),
    scrollTable(
      h(
        'table',
        { class: 'metrics-table' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['split', 'sinkPart', 'contentPart', 'sum'].map((c) => h('th', { scope: 'col' }, t(`lab.sink.col.${c}`))),
          ),
        ),
        h(
          'tbody',
          {},
          rowsFor.map(([key, nameKey]) =>
            h(
              'tr',
              { dataset: { split: key } },
              h('td', {}, tnData(nameKey)),
              h('td', { dataset: { value: m[key].sink } }, f(m[key].sink)),
              h('td', { dataset: { value: m[key].content } }, f(m[key].content)),
              h('td', {}, f(m[key].sink + m[key].content)),
            ),
          ),
        ),
      ),
    ),
  );
}

export function render(container, { state, lab, setParams }) {
  const heads = state.heads.length;
  const compareSelect = h(
    'select',
    {
      id: 'lab-param-compareHead',
      'aria-label': t('lab.sink.compareAria'),
      onchange: (e) => {
        if (e.target.isConnected) setParams({ compareHead: Number(e.target.value) });
      },
    },
    h('option', { value: '-1', selected: lab.compareHead === -1 }, t('lab.sink.none')),
    state.heads.map((_, i) =>
      h('option', { value: String(i), selected: lab.compareHead === i, translate: state.heads[i]?.name ? 'no' : null }, headName(state, i)),
    ),
  );
  const mine = lab.pairs.filter((p) => p.a === lab.head || p.b === lab.head);
  mount(
    container,
    h(
      'p',
      { class: 'note' },
      tnData('lab.sink.intro', { keys: lab.sinkKeys === 1 ? t('lab.sink.firstKey') : t('lab.sink.firstKeys', { n: lab.sinkKeys }) }),
    ),
    h(
      'div',
      { class: 'lab-params' },
      numberParam({ name: 'sinkKeys', label: t('lab.sink.sinkKeys'), value: lab.sinkKeys, setParams, min: 1, whole: true }),
      h('label', { class: 'inline lab-param' }, t('lab.sink.compareWith'), compareSelect),
      numberParam({ name: 'compareTau', label: t('lab.sink.compareTau'), value: lab.compareTau, setParams, min: 0 }),
    ),
    legend(lab.sinkKeys > 1),
    windowedRows({
      id: 'lab-sink-rows',
      n: lab.rows.length,
      selected: state.row,
      table: (lo, hi) => rowsTable(state, lab, lo, hi),
      caption: t('lab.rows.sinkCaption'),
      series: [
        { key: 'mass', label: 's', values: lab.rows.map((r) => (r.empty ? null : r.sinkMass)) },
        { key: 'entropy', label: 'H', values: lab.rows.map((r) => (r.empty ? null : r.entropy)) },
      ],
    }),
    h(
      'p',
      { class: 'note' },
      t('lab.sink.residual', { r: lab.identityMaxResidual === null ? t('lab.undefined') : lab.identityMaxResidual.toExponential(1) }),
    ),
    headsTable(state, lab),
    heads > 1
      ? [
          pairsTable(state, lab, mine, 'lab-sink-pairs', tData('lab.sink.pairsCaption', { name: headNode(state, lab.head) })),
          lab.pairs.length > mine.length
            ? h(
                'details',
                {},
                h('summary', {}, t('lab.sink.allPairs', { n: lab.pairs.length })),
                pairsTable(state, lab, lab.pairs, 'lab-sink-all-pairs', t('lab.sink.everyPair')),
              )
            : null,
          h('p', { class: 'note' }, tnData(lab.aitchisonSource === 'logits' ? 'lab.sink.aitchisonLogits' : 'lab.sink.aitchisonLogWeights')),
          flipsSection(state, lab),
        ]
      : h('p', { class: 'note' }, t('lab.sink.oneHead')),
    h('h4', {}, t('lab.sink.attrTitle')),
    attributionBlock(
      tData('lab.sink.attrTau', { from: f(lab.attribution.tau.from), to: f(lab.attribution.tau.to), name: headNode(state, lab.head) }, [
        'name',
      ]),
      lab.attribution.tau,
      'lab-sink-attr-tau',
    ),
    lab.attribution.head
      ? attributionBlock(
          [headNode(state, lab.attribution.head.from), ' → ', headNode(state, lab.attribution.head.to)],
          lab.attribution.head,
          'lab-sink-attr-head',
        )
      : null,
  );
}
