// The prediction controls of each lesson step (web/lesson/panel.js): checkboxes for the keys
// whose weight rises (step 1) and the cells the mask zeroes (step 3, a grid up to GRID_MAX
// queries and keys), radio buttons otherwise. A recorded prediction is state (lesson.predictions);
// the controls are locked once the step is revealed.
import { t } from '../i18n/i18n.js';
import { h } from '../views/dom.js';
import { showToken } from '../views/format.js';
import { rich } from './rich.js';
import { GRID_MAX } from './steps.js';
import { kk, qk, tok } from './lesson-text.js';
import { SCHEMA } from '../generated/schema.js';

// The answers a prediction can take, in the order shown: the schema's (state_schema.cpp).
const CHOICES = SCHEMA.lesson.choices;

/**
 * The prediction controls of step n.
 * @param {(name: string, value: unknown) => void} setP records a prediction
 */
export function questions(n, s, lesson, locked, setP) {
  const p = lesson.predictions;
  const radios = (name, choices, vars = {}) =>
    h(
      'fieldset',
      { class: 'lesson-q', dataset: { prediction: name } },
      h('legend', {}, rich(t, `lesson.q.${name}`, vars)),
      choices.map((c) =>
        h(
          'label',
          { class: 'check' },
          h('input', {
            type: 'radio',
            name: `lesson-p-${name}`,
            id: `lesson-p-${name}-${c}`,
            value: c,
            checked: p[name] === c,
            disabled: locked,
            onchange: () => setP(name, c),
          }),
          ` ${t(`lesson.q.${name}.${c}`)}`,
        ),
      ),
    );
  const tr = s.row;
  if (n === 1) {
    const chosen = new Set(p.rise ?? []);
    return [
      h(
        'fieldset',
        { class: 'lesson-q', dataset: { prediction: 'rise' } },
        h('legend', {}, rich(t, 'lesson.q.rise', { key: kk(s, Math.min(1, s.tokens.keys.length - 1)), query: qk(s, tr) })),
        s.tokens.keys.map((_, j) =>
          h(
            'label',
            { class: 'check' },
            h('input', {
              type: 'checkbox',
              id: `lesson-p-rise-${j}`,
              checked: chosen.has(j),
              disabled: locked,
              onchange: (ev) => {
                const next = new Set(p.rise ?? []);
                if (ev.target.checked) next.add(j);
                else next.delete(j);
                setP(
                  'rise',
                  [...next].sort((a, b) => a - b),
                );
              },
            }),
            ' ',
            h('span', { translate: 'no' }, tok(s, j)),
          ),
        ),
        h('p', { class: 'note' }, t('lesson.q.riseNone')),
      ),
      radios('redistribute', CHOICES.redistribute, { query: qk(s, tr) }),
    ];
  }
  if (n === 2) return [radios('entropy', CHOICES.entropy, { query: qk(s, tr) }), radios('sums', CHOICES.sums)];
  if (n === 3) {
    const nQ = s.tokens.queries.length;
    const nK = s.tokens.keys.length;
    const parts = [];
    if (nQ <= GRID_MAX && nK <= GRID_MAX) {
      const chosen = new Set(p.zeros ?? []);
      parts.push(
        h(
          'fieldset',
          { class: 'lesson-q', dataset: { prediction: 'zeros' } },
          h('legend', {}, t('lesson.q.zeros')),
          h(
            'table',
            { class: 'lesson-grid-table', id: 'lesson-zeros-grid' },
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                h('td', {}, t('lesson.q.zerosCorner')),
                s.tokens.keys.map((k) => h('th', { scope: 'col', translate: 'no' }, showToken(k))),
              ),
            ),
            h(
              'tbody',
              {},
              s.tokens.queries.map((q, i) =>
                h(
                  'tr',
                  {},
                  h('th', { scope: 'row', translate: 'no' }, showToken(q)),
                  s.tokens.keys.map((k, j) =>
                    h(
                      'td',
                      {},
                      h('input', {
                        type: 'checkbox',
                        id: `lesson-p-zeros-${i}_${j}`,
                        checked: chosen.has(i * nK + j),
                        disabled: locked,
                        'aria-label': t('lesson.q.zerosCell', { query: showToken(q), key: showToken(k) }),
                        onchange: (ev) => {
                          const next = new Set(p.zeros ?? []);
                          if (ev.target.checked) next.add(i * nK + j);
                          else next.delete(i * nK + j);
                          setP(
                            'zeros',
                            [...next].sort((a, b) => a - b),
                          );
                        },
                      }),
                    ),
                  ),
                ),
              ),
            ),
          ),
          h('p', { class: 'note' }, t('lesson.q.zerosNone')),
        ),
      );
    } else {
      parts.push(h('p', { class: 'note' }, t('lesson.q.zerosTooLarge', { max: GRID_MAX })));
    }
    parts.push(radios('renorm', CHOICES.renorm, { query: qk(s, tr) }));
    return parts;
  }
  if (n === 4) return [radios('scores', CHOICES.scores), radios('largest', CHOICES.largest, { query: qk(s, tr) })];
  return [radios('reproduce', CHOICES.reproduce)];
}
