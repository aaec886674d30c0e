// Lab view "patterns": every head of the state with its pattern class and score (the core's
// classify_pattern; docs/analysis.md), as a grid coloured and labelled by pattern, and every
// class's score of the selected head. Heads follow the state's mask and temperature.
import { h, mount } from '../views/dom.js';
import { fmtMetric, tData } from '../views/format.js';
import { hasKey, t } from '../i18n/i18n.js';
import { scrollTable, tnData } from './lab-controls.js';

const CLASSES = ['sink', 'self', 'previous', 'next', 'offset', 'strided', 'position', 'global'];

/** A class name in the page's language (the core's id when the table has none). */
const kindName = (kind) => (hasKey(`lab.patternShort.${kind}`) ? t(`lab.patternShort.${kind}`) : kind);

function label(p) {
  if (p.kind === 'offset') return `${kindName('offset')} d=${p.parameter}`;
  if (p.kind === 'strided') return `${kindName('strided')} p=${p.parameter}`;
  if (p.kind === 'position') return `${t('lab.pattern.position')}${t('lab.patternParam.position', { key: p.parameter })}`;
  return kindName(p.kind);
}

/** A head's name: the state's (data) or "head i". */
const nameOf = (p) => (p.name ? h('span', { translate: 'no' }, p.name) : t('lab.headN', { i: p.head }));

export function render(container, { state, lab }) {
  const selected = lab.heads[state.head];
  mount(
    container,
    h('p', { class: 'note' }, tnData('lab.patterns.intro')),
    h(
      'div',
      { class: 'pattern-grid', id: 'lab-pattern-grid' },
      lab.heads.map((p) =>
        h(
          'div',
          {
            class: `pattern-cell pattern-${p.kind}${p.head === state.head ? ' selected' : ''}`,
            dataset: { head: p.head, kind: p.kind },
          },
          h('span', { class: 'pattern-head' }, nameOf(p)),
          h('span', { class: 'pattern-kind' }, label(p)),
          h('span', { class: 'pattern-score' }, fmtMetric(p.confidence, 3)),
        ),
      ),
    ),
    scrollTable(
      h(
        'table',
        { class: 'metrics-table', id: 'lab-pattern-scores' },
        h('caption', {}, tData('lab.patterns.caption', { name: nameOf(selected) })),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            CLASSES.map((c) => h('th', { scope: 'col', dataset: { kind: c } }, kindName(c))),
          ),
        ),
        h(
          'tbody',
          {},
          h(
            'tr',
            {},
            CLASSES.map((c) => {
              const s = selected.scores;
              const extra =
                c === 'offset'
                  ? ` (d=${s.offsetD})`
                  : c === 'strided'
                    ? ` (p=${s.period})`
                    : c === 'position'
                      ? ` (${t('lab.patternParam.position', { key: s.positionKey }).trim()})`
                      : '';
              return h('td', { dataset: { value: s[c] ?? '' } }, `${fmtMetric(s[c], 3)}${extra}`);
            }),
          ),
        ),
      ),
    ),
  );
}
