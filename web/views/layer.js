// Views of mode "x" (multi-head from X) and of the gated head output. Functions of the results the
// core computed (results.layer, results.gate; docs/state.md): they draw numbers, they compute none.
import { h, mount, patch } from './dom.js';
import { fmtCell, fmtMetric, showToken } from './format.js';
import { renderHeatmap } from './heatmap.js';
import { t } from '../i18n/i18n.js';

/** A numeric table: one row per token, headers given; cells carry data-value with all digits. */
function numberTable(id, headers, rows, tokens, selectedRow, digits = 3) {
  return h(
    'div',
    { class: 'scroll' },
    h(
      'table',
      { class: 'output', id },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', {}, t('app.layer.token')),
          headers.map((c) => h('th', {}, c)),
        ),
      ),
      h(
        'tbody',
        {},
        rows.map((row, i) =>
          h(
            'tr',
            { class: i === selectedRow ? 'selected' : null },
            h(
              'th',
              { scope: 'row' },
              h('span', { class: 'idx' }, String(i)),
              ' ',
              h('span', { translate: 'no' }, showToken(tokens[i] ?? '')),
            ),
            row.map((x, c) => h('td', { id: `${id}-r${i}-c${c}`, dataset: { value: String(x) } }, fmtCell(x, digits))),
          ),
        ),
      ),
    ),
  );
}

/**
 * The heads side by side (weights heatmap with numbers, output Y_h) and the layer output.
 * @param {HTMLElement} container
 * @param {{state: object, results: object, onSelectHead: (h: number) => void}} o
 */
export function renderLayer(container, o) {
  const { state, results } = o;
  const layer = results.layer;
  const tokens = state.tokens.queries;
  const cards = layer.heads.map((hd) => {
    const box = h('div', { class: 'layer-heatmap' });
    const sm = hd.summary;
    const card = h(
      'div',
      { class: `layer-head${hd.head === state.head ? ' selected' : ''}`, id: `layer-head-${hd.head}` },
      h(
        'div',
        { class: 'layer-head-title' },
        h(
          'button',
          {
            type: 'button',
            class: 'small',
            'aria-pressed': String(hd.head === state.head),
            title: t('app.layer.selectTitle'),
            onclick: () => o.onSelectHead(hd.head),
          },
          hd.head === state.head ? t('app.layer.selected') : t('app.layer.select'),
        ),
        ' ',
        hd.name ? h('strong', { translate: 'no' }, hd.name) : h('strong', {}, t('app.headN', { i: hd.head })),
        h('span', { class: 'note' }, t('app.layer.headShape', { dk: hd.dK, dv: hd.dV, scale: fmtMetric(hd.scale, 4) })),
      ),
      h(
        'p',
        { class: 'note' },
        t('app.layer.summary', {
          entropy: fmtMetric(sm.meanEntropy, 4),
          neff: fmtMetric(sm.meanNEff, 4),
          sink: fmtMetric(sm.meanSinkMass, 4),
        }),
        sm.emptyRows ? t('app.layer.emptyRows', { n: sm.emptyRows }) : '',
        hd.gate ? t('app.layer.gated') : '',
      ),
      box,
      h('h4', {}, t(hd.gate ? 'app.layer.outputGated' : 'app.layer.output', { h: hd.head, n: tokens.length, dv: hd.dV })),
      numberTable(
        `layer-y${hd.head}`,
        Array.from({ length: hd.dV }, (_, c) => `y${c + 1}`),
        hd.output,
        tokens,
        state.row,
      ),
    );
    if (hd.weights) {
      renderHeatmap(box, {
        id: `layer-w${hd.head}`,
        title: t('app.layer.weights'),
        matrix: hd.weights,
        visible: hd.weights.map((row) => row.map((x) => x !== null)),
        rowLabels: tokens,
        colLabels: state.tokens.keys,
        domain: [0, 1],
        selectedRow: state.row,
        emptyRows: hd.weights.map((row) => row.every((x) => x === null)),
        showNumbers: true,
      });
    } else {
      mount(box, h('p', { class: 'note' }, t('app.layer.tooMany')));
    }
    return card;
  });
  const concatHeaders = layer.heads.flatMap((hd) => Array.from({ length: hd.dV }, (_, c) => `h${hd.head}·${c + 1}`));
  const formula = `${layer.projected ? '[Y0 | … ] W_O' : `[Y0 | … ] ${t('app.layer.noWO')}`}${layer.residual ? ' + X' : ''}`;
  mount(
    container,
    h(
      'div',
      { class: 'view-head' },
      h('h3', {}, t('app.layer.title', { n: layer.heads.length })),
      h('p', { class: 'note' }, t('app.layer.note', { formula })),
    ),
    h('div', { class: 'layer-heads' }, cards),
    h(
      'details',
      { class: 'layer-concat' },
      h('summary', {}, t('app.layer.concat', { n: tokens.length, m: concatHeaders.length })),
      numberTable('layer-concat', concatHeaders, layer.concat, tokens, state.row),
    ),
    h('h4', {}, t('app.layer.layerOutput', { formula, n: tokens.length, m: layer.dOut })),
    numberTable(
      'layer-output',
      Array.from({ length: layer.dOut }, (_, c) => `o${c + 1}`),
      layer.output,
      tokens,
      state.row,
    ),
  );
}

/**
 * The gate of the selected head, per row: sink mass, sigmoid(g_t), ||Y_t|| before and after.
 * @param {HTMLElement} container
 * @param {{state: object, results: object}} o
 */
export function renderGate(container, o) {
  const { state, results } = o;
  const gate = results.gate;
  const explain = t('app.gate.explain');
  if (!gate) {
    patch(
      container,
      h('div', { class: 'view-head' }, h('h3', {}, t('app.gate')), h('p', { class: 'note' }, explain)),
      h('p', { class: 'note', id: 'gate-off' }, t('app.gate.off')),
    );
    return;
  }
  const tokens = state.tokens.queries;
  patch(
    container,
    h('div', { class: 'view-head' }, h('h3', {}, t('app.gate.tableTitle')), h('p', { class: 'note' }, explain)),
    h(
      'div',
      { class: 'scroll' },
      h(
        'table',
        { class: 'metrics-table gate-table', id: 'gate-table' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['colToken', 'colSink', 'colLogit', 'colOpen', 'colBefore', 'colAfter'].map((c) => h('th', {}, t(`app.gate.${c}`))),
          ),
        ),
        h(
          'tbody',
          {},
          tokens.map((token, i) => {
            const row = results.rows[i];
            const cells = [
              row.empty ? t('app.gate.emptyRow') : fmtMetric(row.sinkMass, 4),
              fmtMetric(gate.logits[i], 4),
              fmtMetric(gate.open[i], 4),
              fmtMetric(gate.normUngated[i], 4),
              fmtMetric(gate.normGated[i], 4),
            ];
            return h(
              'tr',
              { class: i === state.row ? 'selected' : null, id: `gate-row-${i}` },
              h('th', { scope: 'row' }, h('span', { class: 'idx' }, String(i)), ' ', h('span', { translate: 'no' }, showToken(token))),
              cells.map((c, k) => h('td', { dataset: { col: String(k) } }, c)),
            );
          }),
        ),
      ),
    ),
  );
}
