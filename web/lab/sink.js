// Lab view "sink": sink versus content, attention rows as compositional data (the core's
// lab_sink.cpp; docs/lab.md "Sink vs content"; idea from Papamichalis & Ruane 2026,
// arXiv:2608.14712). Every row's entropy as a stacked bar H = h(s) + (1-s) H(c) with its numbers,
// the same for each head's means, the selected head against every other head under keep-sink and
// drop-sink (with the Aitchison distance and its sink/content split), the verdicts that flip
// between the conventions, in words, and the entropy change to compareTau / compareHead split
// into a sink part and a content part.
import { h, mount } from '../views/dom.js';
import { fmtMetric } from '../views/format.js';
import { headName, numberParam, rowLabel } from './controls.js';

const f = (x, d = 4) => fmtMetric(x, d);
const METRICS = [['jsd', 'JSD (nats)'], ['cosine', 'cosine'], ['entropyGap', '|ΔH| (nats)']];

/** A stacked bar of the entropy's parts, widths relative to `scale` (nats). */
function bar(parts, scale, label) {
  return h('div', { class: 'sink-bar', role: 'img', 'aria-label': label },
    parts.filter(([, x]) => x > 0).map(([cls, x, title]) => h('span', {
      class: `sink-seg ${cls}`, title, style: { width: `${Math.min(100, (100 * x) / scale)}%` },
    })));
}

function legend(withSpread) {
  return h('p', { class: 'note sink-legend' },
    h('span', { class: 'sink-swatch seg-sink' }), ' h(s): how the row splits between sink and content  ',
    withSpread ? [h('span', { class: 'sink-swatch seg-spread' }), ' s·H(σ): spread over the sink keys  '] : null,
    h('span', { class: 'sink-swatch seg-content' }), ' (1−s)·H(c): spread over the content keys');
}

function rowsTable(state, lab) {
  const spread = lab.sinkKeys > 1;
  const scale = Math.max(1e-9, ...lab.rows.map((r) => r.entropy ?? 0));
  return h('table', { class: 'metrics-table sink-rows', id: 'lab-sink-rows' },
    h('caption', {}, `Each row of ${headName(state, lab.head)}: H = h(s) + ${spread ? 's·H(σ) + ' : ''}(1−s)·H(c), nats`),
    h('thead', {}, h('tr', {},
      ['row', 'H = parts', 's', 'h(s)', spread ? 's·H(σ)' : null, 'H(c)', '(1−s)·H(c)', 'H', 'residual']
        .filter(Boolean).map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, lab.rows.map((r) => {
      if (r.empty) {
        return h('tr', { dataset: { row: r.row }, class: 'empty-row' },
          h('td', {}, rowLabel(state, r.row)), h('td', { colspan: spread ? 8 : 7 }, 'undefined (empty row: no visible key)'));
      }
      const parts = [['seg-sink', r.sinkEntropy, `h(s) = ${f(r.sinkEntropy)}`],
        ['seg-spread', r.sinkSpreadTerm, `s·H(σ) = ${f(r.sinkSpreadTerm)}`],
        ['seg-content', r.contentTerm, `(1−s)·H(c) = ${f(r.contentTerm)}`]];
      return h('tr', { dataset: { row: r.row }, class: r.row === state.row ? 'selected-row' : null },
        h('td', {}, rowLabel(state, r.row)),
        h('td', { class: 'bar-cell' }, bar(parts, scale, `row ${r.row}: H ${f(r.entropy)}`)),
        h('td', { dataset: { value: r.sinkMass } }, f(r.sinkMass)),
        h('td', { dataset: { value: r.sinkEntropy } }, f(r.sinkEntropy)),
        spread ? h('td', { dataset: { value: r.sinkSpreadTerm } }, f(r.sinkSpreadTerm)) : null,
        h('td', { dataset: { value: r.contentEntropy ?? '' } }, r.contentDefined ? f(r.contentEntropy) : 'undefined (s = 1)'),
        h('td', { dataset: { value: r.contentTerm } }, f(r.contentTerm)),
        h('td', { dataset: { value: r.entropy } }, f(r.entropy)),
        h('td', { dataset: { value: r.residual } }, r.residual === 0 ? '0' : r.residual.toExponential(1)));
    })));
}

function headsTable(state, lab) {
  const spread = lab.sinkKeys > 1;
  const scale = Math.max(1e-9, ...lab.heads.map((x) => x.meanEntropy ?? 0));
  return h('table', { class: 'metrics-table sink-heads', id: 'lab-sink-heads' },
    h('caption', {}, 'Per head, means over its non-empty rows (mean H = mean h(s) + ' + (spread ? 'mean s·H(σ) + ' : '') + 'mean (1−s)·H(c))'),
    h('thead', {}, h('tr', {},
      ['head', 'mean H = parts', 'mean s', 'mean h(s)', spread ? 'mean s·H(σ)' : null, 'mean (1−s)·H(c)', 'mean H', 'mean H(c)']
        .filter(Boolean).map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, lab.heads.map((x) => {
      const name = x.name || `head ${x.head}`;
      if (x.rows === 0) {
        return h('tr', { dataset: { head: x.head } }, h('td', {}, name), h('td', { colspan: spread ? 7 : 6 }, 'undefined (every row is empty)'));
      }
      const parts = [['seg-sink', x.meanSinkEntropy, `mean h(s) = ${f(x.meanSinkEntropy)}`],
        ['seg-spread', x.meanSinkSpreadTerm, `mean s·H(σ) = ${f(x.meanSinkSpreadTerm)}`],
        ['seg-content', x.meanContentTerm, `mean (1−s)·H(c) = ${f(x.meanContentTerm)}`]];
      return h('tr', { dataset: { head: x.head }, class: x.head === lab.head ? 'selected-row' : null },
        h('td', {}, name),
        h('td', { class: 'bar-cell' }, bar(parts, scale, `${name}: mean H ${f(x.meanEntropy)}`)),
        h('td', { dataset: { value: x.meanSinkMass } }, f(x.meanSinkMass)),
        h('td', { dataset: { value: x.meanSinkEntropy } }, f(x.meanSinkEntropy)),
        spread ? h('td', { dataset: { value: x.meanSinkSpreadTerm } }, f(x.meanSinkSpreadTerm)) : null,
        h('td', { dataset: { value: x.meanContentTerm } }, f(x.meanContentTerm)),
        h('td', { dataset: { value: x.meanEntropy } }, f(x.meanEntropy)),
        h('td', { dataset: { value: x.meanContentEntropy ?? '' } },
          x.contentRows ? `${f(x.meanContentEntropy)} (${x.contentRows} rows)` : 'undefined (s = 1 in every row)'));
    })));
}

function aitchisonCells(a) {
  if (a.rows === 0 || a.distance === null) {
    return [h('td', { colspan: 3, class: 'undefined-cell' }, `undefined: ${a.reason ?? 'no row'}`)];
  }
  const share = a.distanceSq > 0 ? a.sinkSq / a.distanceSq : null;
  return [
    h('td', { dataset: { value: a.distance } }, f(a.distance)),
    h('td', { dataset: { value: a.sinkSq } }, `${f(a.sinkSq)} + ${f(a.contentSq)}${a.withinSinkSq > 0 ? ` + ${f(a.withinSinkSq)}` : ''} = ${f(a.distanceSq)}` +
      (share === null ? '' : ` (sink ${(100 * share).toFixed(0)}%)`)),
    h('td', { class: 'note-cell' }, a.reason ? `${a.rows} rows; ${a.reason}` : `${a.rows} rows`),
  ];
}

/** The selected head against every other head (or all pairs). */
function pairsTable(state, lab, pairs, id, caption) {
  return h('table', { class: 'metrics-table sink-pairs', id },
    h('caption', {}, caption),
    h('thead', {},
      h('tr', {}, h('th', { rowspan: 2, scope: 'col' }, 'heads'), h('th', { rowspan: 2, scope: 'col' }, 'rows'),
        METRICS.map(([, name]) => h('th', { colspan: 2, scope: 'colgroup' }, name)),
        h('th', { colspan: 3, scope: 'colgroup' }, 'Aitchison d_A (mean over rows)')),
      h('tr', {}, METRICS.map(() => [h('th', { scope: 'col' }, 'keep'), h('th', { scope: 'col' }, 'drop')]),
        h('th', { scope: 'col' }, 'd_A'), h('th', { scope: 'col' }, lab.sinkKeys > 1 ? 'mean d² = sink² + content² + within-sink²' : 'mean d² = sink² + content²'), h('th', { scope: 'col' }, 'rows'))),
    h('tbody', {}, pairs.map((p) => h('tr', { dataset: { a: p.a, b: p.b } },
      h('td', {}, `${headName(state, p.a)} – ${headName(state, p.b)}`),
      h('td', { dataset: { value: p.rows } }, String(p.rows)),
      METRICS.map(([key]) => ['keep', 'drop'].map((c) => h('td', { dataset: { metric: key, convention: c, value: p[key][c] ?? '' } },
        p.rows === 0 ? 'undefined' : f(p[key][c])))),
      aitchisonCells(p.aitchison)))));
}

/** A flip in words. */
function flipWords(state, x) {
  const [r, p, q] = [x.reference, x.p, x.q].map((i) => headName(state, i));
  const [near, far] = x.keep === 'p' ? [p, q] : [q, p];
  return `keep-sink: ${r} closer to ${near} than to ${far}; drop-sink: the reverse`;
}

function flipsSection(state, lab) {
  const blocks = [['jsd', 'Jensen-Shannon divergence'], ['cosine', 'cosine similarity'], ['entropyGap', 'entropy gap |ΔH|']];
  return h('div', { class: 'sink-flips', id: 'lab-sink-flips' },
    h('h4', {}, 'Flips: "R is closer to P than to Q" under keep-sink vs drop-sink'),
    lab.heads.length < 3
      ? h('p', { class: 'note' }, 'A flip needs three heads (a reference and two others); this state has ' + `${lab.heads.length}.`)
      : blocks.map(([key, name]) => {
        const fl = lab.flips[key];
        const mine = fl.list.filter((x) => x.reference === lab.head);
        const pct = fl.triples ? ` (${((100 * fl.count) / fl.triples).toFixed(1)}%)` : '';
        return h('div', { class: 'flip-block', dataset: { metric: key, count: fl.count, triples: fl.triples } },
          h('p', {}, h('strong', {}, name), `: ${fl.count} of ${fl.triples} triples flip${pct}; with ${headName(state, lab.head)} as R: ${mine.length}` +
            (fl.list.length < fl.count ? ` (among the first ${fl.list.length} listed)` : '')),
          mine.length ? h('ul', { class: 'flip-list' }, mine.slice(0, 12).map((x) => h('li', {}, flipWords(state, x)))) : null,
          mine.length > 12 ? h('p', { class: 'note' }, `… and ${mine.length - 12} more with this reference.`) : null,
          fl.list.length > mine.length ? h('details', {}, h('summary', {}, `every listed flip (${fl.list.length})`),
            h('ul', { class: 'flip-list' }, fl.list.map((x) => h('li', {}, flipWords(state, x))))) : null);
      }));
}

function attributionBlock(title, a, id) {
  if (!a) return null;
  const m = a.mean;
  const rowsFor = [['termwise', 'term by term: [h(s₂)−h(s₁)] + [(1−s₂)H(c₂) − (1−s₁)H(c₁)]'],
    ['sinkFirst', 's first, then c'], ['contentFirst', 'c first, then s'], ['shapley', 'Shapley (mean of the two orders)']];
  if (a.rows === 0) {
    return h('div', { class: 'sink-attribution', id }, h('h4', {}, title),
      h('p', { class: 'note' }, 'undefined: no row has a content distribution in both (s = 1, or empty rows).'));
  }
  const share = m.sinkShare;
  return h('div', { class: 'sink-attribution', id },
    h('h4', {}, title),
    h('p', {}, `mean H ${f(m.before)} → ${f(m.after)} nats: change ${f(m.total)} over ${a.rows} rows` +
      (share === null ? ' (no change to split).' : `; the sink carries ${(100 * share).toFixed(1)}% of it (Shapley).`)),
    h('table', { class: 'metrics-table' },
      h('thead', {}, h('tr', {}, ['split', 'sink part', 'content part', 'sum'].map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, rowsFor.map(([key, name]) => h('tr', { dataset: { split: key } },
        h('td', {}, name),
        h('td', { dataset: { value: m[key].sink } }, f(m[key].sink)),
        h('td', { dataset: { value: m[key].content } }, f(m[key].content)),
        h('td', {}, f(m[key].sink + m[key].content)))))));
}

export function render(container, { state, lab, setParams }) {
  const heads = state.heads.length;
  const compareSelect = h('select', {
    id: 'lab-param-compareHead', 'aria-label': 'compare with head',
    onchange: (e) => { if (e.target.isConnected) setParams({ compareHead: Number(e.target.value) }); },
  }, h('option', { value: '-1', selected: lab.compareHead === -1 }, 'none'),
  state.heads.map((_, i) => h('option', { value: String(i), selected: lab.compareHead === i }, headName(state, i))));
  const mine = lab.pairs.filter((p) => p.a === lab.head || p.b === lab.head);
  mount(container,
    h('p', { class: 'note' }, 'A row of attention is a composition: the sink mass s on the first ' +
      `${lab.sinkKeys === 1 ? 'key' : `${lab.sinkKeys} keys`} and the content distribution c = a₁:/(1−s) over the rest. ` +
      'Its entropy splits exactly, H = h(s) + (1−s)·H(c), and any comparison of rows can keep the sink (full rows) or drop it ' +
      '(compare c only): the two can disagree on which heads are alike. Idea: Papamichalis & Ruane 2026, arXiv:2608.14712; formulas: docs/MATH.md.'),
    h('div', { class: 'lab-params' },
      numberParam({ name: 'sinkKeys', label: 'sink keys', value: lab.sinkKeys, setParams, min: 1, step: 1 }),
      h('label', { class: 'inline lab-param' }, 'compare with', compareSelect),
      numberParam({ name: 'compareTau', label: 'compare at τ', value: lab.compareTau, setParams, min: 0 })),
    legend(lab.sinkKeys > 1),
    rowsTable(state, lab),
    h('p', { class: 'note' }, `Largest |residual| of the identity on this head: ${lab.identityMaxResidual === null ? 'undefined' : lab.identityMaxResidual.toExponential(1)} nats.`),
    headsTable(state, lab),
    heads > 1
      ? [pairsTable(state, lab, mine, 'lab-sink-pairs', `${headName(state, lab.head)} against every other head: keep-sink (full rows) vs drop-sink (content only), means over the rows where both are defined`),
        lab.pairs.length > mine.length ? h('details', {}, h('summary', {}, `all ${lab.pairs.length} pairs of heads`),
          pairsTable(state, lab, lab.pairs, 'lab-sink-all-pairs', 'Every pair of heads')) : null,
        h('p', { class: 'note' }, `Aitchison distance from ${lab.aitchisonSource === 'logits' ? 'the logits' : 'the log-weights'} (clr = centred scores / τ); ` +
          'its square splits exactly into the sink balance term and the content term.'),
        flipsSection(state, lab)]
      : h('p', { class: 'note' }, 'One head: no other head to compare with (load a state with several heads).'),
    h('h4', {}, 'Entropy change: how much is the sink, how much the content'),
    attributionBlock(`τ = ${f(lab.attribution.tau.from)} → ${f(lab.attribution.tau.to)} (${headName(state, lab.head)})`, lab.attribution.tau, 'lab-sink-attr-tau'),
    lab.attribution.head ? attributionBlock(`${headName(state, lab.attribution.head.from)} → ${headName(state, lab.attribution.head.to)}`, lab.attribution.head, 'lab-sink-attr-head') : null);
}
