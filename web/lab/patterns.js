// Lab view "patterns": every head of the state with its pattern class and score (the core's
// classify_pattern; docs/analysis.md), as a grid coloured and labelled by pattern, and every
// class's score of the selected head. Heads follow the state's mask and temperature.
import { h, mount } from '../views/dom.js';
import { fmtMetric } from '../views/format.js';

const CLASSES = ['sink', 'self', 'previous', 'next', 'offset', 'strided', 'position', 'global'];

function label(p) {
  if (p.kind === 'offset') return `offset d=${p.parameter}`;
  if (p.kind === 'strided') return `strided p=${p.parameter}`;
  if (p.kind === 'position') return `position key ${p.parameter}`;
  return p.kind;
}

export function render(container, { state, lab }) {
  const selected = lab.heads[state.head];
  mount(container,
    h('p', { class: 'note' }, 'Each head is classified from its weights: sink (first key), self / previous / next token, ' +
      'offset (one diagonal, e.g. an induction stripe), strided (a period), fixed position (one key column), global (broad). ' +
      'The score of a class is the mean mass it explains (docs/analysis.md).'),
    h('div', { class: 'pattern-grid', id: 'lab-pattern-grid' }, lab.heads.map((p) => h('div', {
      class: `pattern-cell pattern-${p.kind}${p.head === state.head ? ' selected' : ''}`,
      dataset: { head: p.head, kind: p.kind },
    },
    h('span', { class: 'pattern-head' }, p.name || `head ${p.head}`),
    h('span', { class: 'pattern-kind' }, label(p)),
    h('span', { class: 'pattern-score' }, fmtMetric(p.confidence, 3))))),
    h('table', { class: 'metrics-table', id: 'lab-pattern-scores' },
      h('caption', {}, `Scores of every class, ${selected.name || `head ${selected.head}`}`),
      h('thead', {}, h('tr', {}, CLASSES.map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, h('tr', {}, CLASSES.map((c) => {
        const s = selected.scores;
        const extra = c === 'offset' ? ` (d=${s.offsetD})` : c === 'strided' ? ` (p=${s.period})` : c === 'position' ? ` (key ${s.positionKey})` : '';
        return h('td', { dataset: { value: s[c] ?? '' } }, `${fmtMetric(s[c], 3)}${extra}`);
      })))));
}
