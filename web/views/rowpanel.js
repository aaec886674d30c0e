// The selected query row: its metrics as numbers, its weights as labelled bars, its output.
import { h, patch } from './dom.js';
import { fmtCell, fmtMetric, showToken } from './format.js';
import { t } from '../i18n.js';

/**
 * @param {HTMLElement} container
 * @param {object} o
 * @param {object} o.results   results JSON (docs/state.md)
 * @param {number} o.row
 * @param {string[]} o.queryTokens
 * @param {string[]} o.keyTokens
 * @param {number} o.topK
 * @param {number} o.tau
 * @param {(number|null)[]} o.weights   the row's weights, null where the key is not visible
 * @param {number} [o.maxBars]          show only the largest this many weights (long rows)
 */
export function renderRowPanel(container, o) {
  const { results: r, row } = o;
  const m = r.rows[row];
  const weights = o.weights.map((w) => w ?? 0);
  const metric = (key, value, unit, vars = {}) =>
    h(
      'div',
      { class: 'metric', dataset: { metric: key } },
      h('dt', { title: t(`app.metric.${key}Help`, vars) }, t(`app.metric.${key}`, vars)),
      h(
        'dd',
        { id: `metric-${key}`, dataset: { value: value === null ? '' : String(value) } },
        fmtMetric(value),
        unit && value !== null && Number.isFinite(value) ? h('span', { class: 'unit' }, ` ${t(`app.unit.${unit}`)}`) : null,
      ),
    );
  const maxW = Math.max(...weights, 1e-12);
  let keys = weights.map((_, j) => j);
  const limited = o.maxBars && keys.length > o.maxBars;
  if (limited)
    keys = keys
      .sort((a, b) => weights[b] - weights[a])
      .slice(0, o.maxBars)
      .sort((a, b) => a - b);
  const bars = keys.map((j) => {
    const w = weights[j];
    const visible = o.weights[j] !== null;
    return h(
      'div',
      { class: `bar-row${visible ? '' : ' masked'}` },
      h(
        'span',
        { class: 'bar-label', title: t('app.row.keyTitle', { j }) },
        h('span', { class: 'idx' }, String(j)),
        ' ',
        h('span', { translate: 'no' }, showToken(o.keyTokens[j])),
      ),
      h('span', { class: 'bar-track' }, h('span', { class: 'bar', style: { width: `${(100 * w) / maxW}%` } })),
      h('span', { class: 'bar-num' }, visible ? fmtCell(w, 4) : t('app.editor.masked')),
    );
  });
  const out = r.output[row] ?? [];
  patch(
    container,
    h(
      'div',
      { class: 'view-head' },
      h(
        'h3',
        {},
        t('app.row.title'),
        h('span', { class: 'idx' }, String(row)),
        ' ',
        h('q', { class: 'token-inline', translate: 'no' }, showToken(o.queryTokens[row] ?? '')),
      ),
      m.empty
        ? h('p', { class: 'warning', id: 'row-empty' }, t('app.row.empty'))
        : h('p', { class: 'note' }, t('app.row.softmaxOver', { n: m.visible, tau: o.tau })),
    ),
    h(
      'dl',
      { class: 'metrics' },
      metric('entropy', m.entropy, 'nats'),
      metric('normalizedEntropy', m.normalizedEntropy, ''),
      metric('nEff', m.nEff, 'keys'),
      metric('topKMass', m.topKMass, '', { k: o.topK }),
      metric('sinkMass', m.sinkMass, ''),
      metric('rowSum', m.rowSum, ''),
      metric('visible', m.visible, ''),
      metric('support', m.support, 'keys'),
    ),
    h('h4', { id: 'row-bars-title' }, limited ? t('app.row.largest', { max: o.maxBars, n: weights.length }) : t('app.row.weights')),
    // Focusable (tabindex 0): the list scrolls for long rows and must be scrollable by keyboard.
    h('div', { class: 'bars', id: 'row-bars', tabindex: '0', role: 'group', 'aria-labelledby': 'row-bars-title' }, bars),
    h('h4', {}, t('app.row.output')),
    out.length
      ? h(
          'p',
          { class: 'vector', id: 'row-output' },
          '(',
          out.map((x, c) => [c ? ', ' : '', h('span', { dataset: { value: String(x) } }, fmtCell(x, 4))]),
          ')',
        )
      : h('p', { class: 'note' }, t('app.row.noOutput')),
  );
}

/** The output matrix O as a plain numeric table, selected row highlighted. */
export function renderOutput(container, o) {
  const out = o.results.output;
  const dv = o.results.dV;
  patch(
    container,
    h(
      'div',
      { class: 'view-head' },
      h('h3', { id: 'output-title' }, t('app.output.title', { n: out.length, dv })),
      o.note ? h('p', { class: 'note' }, o.note) : null,
    ),
    dv === 0
      ? h('p', { class: 'note' }, t('app.output.noV'))
      : h(
          'div',
          { class: 'scroll', tabindex: '0', role: 'group', 'aria-labelledby': 'output-title' },
          h(
            'table',
            { class: 'output', id: 'output' },
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                h('th', {}, t('app.output.query')),
                Array.from({ length: dv }, (_, c) => h('th', {}, `o${c + 1}`)),
              ),
            ),
            h(
              'tbody',
              {},
              out.map((row, i) =>
                h(
                  'tr',
                  { class: i === o.row ? 'selected' : null, dataset: { row: i } },
                  h(
                    'th',
                    { scope: 'row' },
                    h('span', { class: 'idx' }, String(i)),
                    ' ',
                    h('span', { translate: 'no' }, showToken(o.queryTokens[i] ?? '')),
                  ),
                  row.map((x, c) => h('td', { id: `output-r${i}-c${c}`, dataset: { value: String(x) } }, fmtCell(x, 3))),
                ),
              ),
            ),
          ),
        ),
  );
}
