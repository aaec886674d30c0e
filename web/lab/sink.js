// Lab view "sink": sink versus content, attention rows as compositional data (the core's
// lab_sink.cpp; docs/lab.md "Sink vs content"; idea from Papamichalis & Ruane 2026,
// arXiv:2608.14712). Every row's entropy as a stacked bar H = h(s) + (1-s) H(c) with its numbers,
// the same for each head's means, the selected head against every other head under keep-sink and
// drop-sink (with the Aitchison distance and its sink/content split), the verdicts that flip
// between the conventions, in words, and the entropy change to compareTau / compareHead split
// into a sink part and a content part.
import { h, mount } from '../views/dom.js';
import { fmtMetric, tData } from '../views/format.js';
import { t } from '../i18n.js';
import { headName, headNode, numberParam, rowNode, tnData } from './controls.js';

const f = (x, d = 4) => fmtMetric(x, d);
const METRICS = [['jsd', 'lab.sink.metric.jsd'], ['cosine', 'lab.sink.metric.cosine'], ['entropyGap', 'lab.sink.metric.entropyGap']];

/** A stacked bar of the entropy's parts, widths relative to `scale` (nats). */
function bar(parts, scale, label) {
  return h('div', { class: 'sink-bar', role: 'img', 'aria-label': label },
    parts.filter(([, x]) => x > 0).map(([cls, x, title]) => h('span', {
      class: `sink-seg ${cls}`, title, style: { width: `${Math.min(100, (100 * x) / scale)}%` },
    })));
}

function legend(withSpread) {
  return h('p', { class: 'note sink-legend' },
    h('span', { class: 'sink-swatch seg-sink' }), ` ${t('lab.sink.legend.sink')}  `,
    withSpread ? [h('span', { class: 'sink-swatch seg-spread' }), ` ${t('lab.sink.legend.spread')}  `] : null,
    h('span', { class: 'sink-swatch seg-content' }), ` ${t('lab.sink.legend.content')}`);
}

function rowsTable(state, lab) {
  const spread = lab.sinkKeys > 1;
  const scale = Math.max(1e-9, ...lab.rows.map((r) => r.entropy ?? 0));
  return h('table', { class: 'metrics-table sink-rows', id: 'lab-sink-rows' },
    h('caption', {}, tData('lab.sink.rowsCaption', { name: headNode(state, lab.head), parts: spread ? 's·H(σ) + ' : '' }, ['name'])),
    h('thead', {}, h('tr', {},
      [t('lab.col.row'), t('lab.sink.col.parts'), 's', 'h(s)', spread ? 's·H(σ)' : null, 'H(c)', '(1−s)·H(c)', 'H', t('lab.sink.col.residual')]
        .filter(Boolean).map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, lab.rows.map((r) => {
      if (r.empty) {
        return h('tr', { dataset: { row: r.row }, class: 'empty-row' },
          h('td', {}, rowNode(state, r.row)), h('td', { colspan: spread ? 8 : 7 }, t('lab.undefinedEmptyRow')));
      }
      const parts = [['seg-sink', r.sinkEntropy, `h(s) = ${f(r.sinkEntropy)}`],
        ['seg-spread', r.sinkSpreadTerm, `s·H(σ) = ${f(r.sinkSpreadTerm)}`],
        ['seg-content', r.contentTerm, `(1−s)·H(c) = ${f(r.contentTerm)}`]];
      return h('tr', { dataset: { row: r.row }, class: r.row === state.row ? 'selected-row' : null },
        h('td', {}, rowNode(state, r.row)),
        h('td', { class: 'bar-cell' }, bar(parts, scale, t('lab.sink.rowBarAria', { row: r.row, h: f(r.entropy) }))),
        h('td', { dataset: { value: r.sinkMass } }, f(r.sinkMass)),
        h('td', { dataset: { value: r.sinkEntropy } }, f(r.sinkEntropy)),
        spread ? h('td', { dataset: { value: r.sinkSpreadTerm } }, f(r.sinkSpreadTerm)) : null,
        h('td', { dataset: { value: r.contentEntropy ?? '' } }, r.contentDefined ? f(r.contentEntropy) : t('lab.sink.undefinedS1')),
        h('td', { dataset: { value: r.contentTerm } }, f(r.contentTerm)),
        h('td', { dataset: { value: r.entropy } }, f(r.entropy)),
        h('td', { dataset: { value: r.residual } }, r.residual === 0 ? '0' : r.residual.toExponential(1)));
    })));
}

function headsTable(state, lab) {
  const spread = lab.sinkKeys > 1;
  const scale = Math.max(1e-9, ...lab.heads.map((x) => x.meanEntropy ?? 0));
  const mean = (what) => t('lab.sink.mean', { what });
  return h('table', { class: 'metrics-table sink-heads', id: 'lab-sink-heads' },
    h('caption', {}, t('lab.sink.headsCaption', { parts: spread ? `${mean('s·H(σ)')} + ` : '' })),
    h('thead', {}, h('tr', {},
      [t('lab.col.head'), mean(t('lab.sink.col.parts')), mean('s'), mean('h(s)'), spread ? mean('s·H(σ)') : null, mean('(1−s)·H(c)'), mean('H'), mean('H(c)')]
        .filter(Boolean).map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, lab.heads.map((x) => {
      const name = x.name || t('lab.headN', { i: x.head });
      const nameCell = () => h('td', { translate: x.name ? 'no' : null }, name);
      if (x.rows === 0) {
        return h('tr', { dataset: { head: x.head } }, nameCell(), h('td', { colspan: spread ? 7 : 6 }, t('lab.sink.undefinedAllEmpty')));
      }
      const parts = [['seg-sink', x.meanSinkEntropy, `${mean('h(s)')} = ${f(x.meanSinkEntropy)}`],
        ['seg-spread', x.meanSinkSpreadTerm, `${mean('s·H(σ)')} = ${f(x.meanSinkSpreadTerm)}`],
        ['seg-content', x.meanContentTerm, `${mean('(1−s)·H(c)')} = ${f(x.meanContentTerm)}`]];
      return h('tr', { dataset: { head: x.head }, class: x.head === lab.head ? 'selected-row' : null },
        nameCell(),
        h('td', { class: 'bar-cell' }, bar(parts, scale, `${name}: ${mean('H')} ${f(x.meanEntropy)}`)),
        h('td', { dataset: { value: x.meanSinkMass } }, f(x.meanSinkMass)),
        h('td', { dataset: { value: x.meanSinkEntropy } }, f(x.meanSinkEntropy)),
        spread ? h('td', { dataset: { value: x.meanSinkSpreadTerm } }, f(x.meanSinkSpreadTerm)) : null,
        h('td', { dataset: { value: x.meanContentTerm } }, f(x.meanContentTerm)),
        h('td', { dataset: { value: x.meanEntropy } }, f(x.meanEntropy)),
        h('td', { dataset: { value: x.meanContentEntropy ?? '' } },
          x.contentRows ? t('lab.sink.contentRows', { h: f(x.meanContentEntropy), n: x.contentRows }) : t('lab.sink.undefinedS1All')));
    })));
}

function aitchisonCells(a) {
  if (a.rows === 0 || a.distance === null) {
    return [h('td', { colspan: 3, class: 'undefined-cell' }, tData('lab.sink.undefinedWhy', { why: a.reason ?? t('lab.sink.noRow') }, a.reason ? ['why'] : []))];
  }
  const share = a.distanceSq > 0 ? a.sinkSq / a.distanceSq : null;
  return [
    h('td', { dataset: { value: a.distance } }, f(a.distance)),
    h('td', { dataset: { value: a.sinkSq } }, `${f(a.sinkSq)} + ${f(a.contentSq)}${a.withinSinkSq > 0 ? ` + ${f(a.withinSinkSq)}` : ''} = ${f(a.distanceSq)}` +
      (share === null ? '' : t('lab.sink.sinkShare', { pct: (100 * share).toFixed(0) }))),
    h('td', { class: 'note-cell' }, a.reason ? tData('lab.sink.rowsWhy', { n: a.rows, why: a.reason }, ['why']) : t('lab.sink.rowsN', { n: a.rows })),
  ];
}

/** The selected head against every other head (or all pairs). */
function pairsTable(state, lab, pairs, id, caption) {
  return h('table', { class: 'metrics-table sink-pairs', id },
    h('caption', {}, caption),
    h('thead', {},
      h('tr', {}, h('th', { rowspan: 2, scope: 'col' }, t('lab.sink.col.heads')), h('th', { rowspan: 2, scope: 'col' }, t('lab.sink.col.rows')),
        METRICS.map(([, key]) => h('th', { colspan: 2, scope: 'colgroup' }, t(key))),
        h('th', { colspan: 3, scope: 'colgroup' }, tnData('lab.sink.col.aitchison'))),
      h('tr', {}, METRICS.map(() => [h('th', { scope: 'col' }, t('lab.sink.keep')), h('th', { scope: 'col' }, t('lab.sink.drop'))]),
        h('th', { scope: 'col' }, 'd_A'), h('th', { scope: 'col' }, t(lab.sinkKeys > 1 ? 'lab.sink.col.dsqWithin' : 'lab.sink.col.dsq')),
        h('th', { scope: 'col' }, t('lab.sink.col.rows')))),
    h('tbody', {}, pairs.map((p) => h('tr', { dataset: { a: p.a, b: p.b } },
      h('td', {}, headNode(state, p.a), ' – ', headNode(state, p.b)),
      h('td', { dataset: { value: p.rows } }, String(p.rows)),
      METRICS.map(([key]) => ['keep', 'drop'].map((c) => h('td', { dataset: { metric: key, convention: c, value: p[key][c] ?? '' } },
        p.rows === 0 ? t('lab.undefined') : f(p[key][c])))),
      aitchisonCells(p.aitchison)))));
}

/** A flip in words. */
function flipWords(state, x) {
  const [r, p, q] = [x.reference, x.p, x.q];
  const [near, far] = x.keep === 'p' ? [p, q] : [q, p];
  return tData('lab.sink.flip', { r: headNode(state, r), near: headNode(state, near), far: headNode(state, far) });
}

function flipsSection(state, lab) {
  const blocks = [['jsd', 'lab.sink.flipName.jsd'], ['cosine', 'lab.sink.flipName.cosine'], ['entropyGap', 'lab.sink.flipName.entropyGap']];
  return h('div', { class: 'sink-flips', id: 'lab-sink-flips' },
    h('h4', {}, t('lab.sink.flipsTitle')),
    lab.heads.length < 3
      ? h('p', { class: 'note' }, t('lab.sink.flipsNeedThree', { n: lab.heads.length }))
      : blocks.map(([key, nameKey]) => {
        const fl = lab.flips[key];
        const mine = fl.list.filter((x) => x.reference === lab.head);
        const pct = fl.triples ? ` (${((100 * fl.count) / fl.triples).toFixed(1)}%)` : '';
        return h('div', { class: 'flip-block', dataset: { metric: key, count: fl.count, triples: fl.triples } },
          h('p', {}, h('strong', {}, t(nameKey)),
            tData('lab.sink.flipCount', { count: fl.count, triples: fl.triples, pct, name: headNode(state, lab.head), mine: mine.length }, ['name']),
            fl.list.length < fl.count ? t('lab.sink.flipListed', { n: fl.list.length }) : ''),
          mine.length ? h('ul', { class: 'flip-list' }, mine.slice(0, 12).map((x) => h('li', {}, flipWords(state, x)))) : null,
          mine.length > 12 ? h('p', { class: 'note' }, t('lab.sink.flipMore', { n: mine.length - 12 })) : null,
          fl.list.length > mine.length ? h('details', {}, h('summary', {}, t('lab.sink.flipEvery', { n: fl.list.length })),
            h('ul', { class: 'flip-list' }, fl.list.map((x) => h('li', {}, flipWords(state, x))))) : null);
      }));
}

function attributionBlock(title, a, id) {
  if (!a) return null;
  const m = a.mean;
  const rowsFor = [['termwise', 'lab.sink.split.termwise'], ['sinkFirst', 'lab.sink.split.sinkFirst'],
    ['contentFirst', 'lab.sink.split.contentFirst'], ['shapley', 'lab.sink.split.shapley']];
  if (a.rows === 0) {
    return h('div', { class: 'sink-attribution', id }, h('h4', {}, title),
      h('p', { class: 'note' }, t('lab.sink.attrUndefined')));
  }
  const share = m.sinkShare;
  return h('div', { class: 'sink-attribution', id },
    h('h4', {}, title),
    h('p', {}, t('lab.sink.attrChange', { before: f(m.before), after: f(m.after), total: f(m.total), n: a.rows }),
      share === null ? t('lab.sink.attrNoChange') : tnData('lab.sink.attrShare', { pct: (100 * share).toFixed(1) })),
    h('table', { class: 'metrics-table' },
      h('thead', {}, h('tr', {}, ['split', 'sinkPart', 'contentPart', 'sum'].map((c) => h('th', { scope: 'col' }, t(`lab.sink.col.${c}`))))),
      h('tbody', {}, rowsFor.map(([key, nameKey]) => h('tr', { dataset: { split: key } },
        h('td', {}, tnData(nameKey)),
        h('td', { dataset: { value: m[key].sink } }, f(m[key].sink)),
        h('td', { dataset: { value: m[key].content } }, f(m[key].content)),
        h('td', {}, f(m[key].sink + m[key].content)))))));
}

export function render(container, { state, lab, setParams }) {
  const heads = state.heads.length;
  const compareSelect = h('select', {
    id: 'lab-param-compareHead', 'aria-label': t('lab.sink.compareAria'),
    onchange: (e) => { if (e.target.isConnected) setParams({ compareHead: Number(e.target.value) }); },
  }, h('option', { value: '-1', selected: lab.compareHead === -1 }, t('lab.sink.none')),
  state.heads.map((_, i) => h('option', { value: String(i), selected: lab.compareHead === i, translate: state.heads[i]?.name ? 'no' : null }, headName(state, i))));
  const mine = lab.pairs.filter((p) => p.a === lab.head || p.b === lab.head);
  mount(container,
    h('p', { class: 'note' }, tnData('lab.sink.intro', { keys: lab.sinkKeys === 1 ? t('lab.sink.firstKey') : t('lab.sink.firstKeys', { n: lab.sinkKeys }) })),
    h('div', { class: 'lab-params' },
      numberParam({ name: 'sinkKeys', label: t('lab.sink.sinkKeys'), value: lab.sinkKeys, setParams, min: 1, step: 1 }),
      h('label', { class: 'inline lab-param' }, t('lab.sink.compareWith'), compareSelect),
      numberParam({ name: 'compareTau', label: t('lab.sink.compareTau'), value: lab.compareTau, setParams, min: 0 })),
    legend(lab.sinkKeys > 1),
    rowsTable(state, lab),
    h('p', { class: 'note' }, t('lab.sink.residual', { r: lab.identityMaxResidual === null ? t('lab.undefined') : lab.identityMaxResidual.toExponential(1) })),
    headsTable(state, lab),
    heads > 1
      ? [pairsTable(state, lab, mine, 'lab-sink-pairs', tData('lab.sink.pairsCaption', { name: headNode(state, lab.head) })),
        lab.pairs.length > mine.length ? h('details', {}, h('summary', {}, t('lab.sink.allPairs', { n: lab.pairs.length })),
          pairsTable(state, lab, lab.pairs, 'lab-sink-all-pairs', t('lab.sink.everyPair'))) : null,
        h('p', { class: 'note' }, tnData(lab.aitchisonSource === 'logits' ? 'lab.sink.aitchisonLogits' : 'lab.sink.aitchisonLogWeights')),
        flipsSection(state, lab)]
      : h('p', { class: 'note' }, t('lab.sink.oneHead')),
    h('h4', {}, t('lab.sink.attrTitle')),
    attributionBlock(tData('lab.sink.attrTau', { from: f(lab.attribution.tau.from), to: f(lab.attribution.tau.to), name: headNode(state, lab.head) }, ['name']),
      lab.attribution.tau, 'lab-sink-attr-tau'),
    lab.attribution.head ? attributionBlock([headNode(state, lab.attribution.head.from), ' → ', headNode(state, lab.attribution.head.to)],
      lab.attribution.head, 'lab-sink-attr-head') : null);
}
