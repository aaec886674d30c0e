// Render orchestration: after each apply the store calls render(structural), which rebuilds the
// editors and selects when the shapes changed, puts the controls back to the state and draws the
// views of the results — dense heatmaps, the large-head overview and tile, the row panel, the
// output, mode "x"'s layer and the gate, the formulas, the cost line and the analysis lab. Views
// (web/views/, web/lab/) draw; a new view is called from renderViews (or renderLargeViews). The lab's part
// is render-lab.js.
import { h, mount, patch } from '../views/dom.js';
import { renderHeatmap } from '../views/heatmap.js';
import { renderOutput, renderRowPanel } from '../views/rowpanel.js';
import { renderOverview } from '../views/overview.js';
import { TILE } from '../large/large.js';
import { stateCost } from '../core/cost.js';
import { renderFormulas } from '../views/formulas.js';
import { fmtInt } from '../views/format.js';
import { renderGate, renderLayer } from '../views/layer.js';
import { t } from '../i18n/i18n.js';
import { core, lessonPanel, results, setZoom, state, update, updateWith } from './store.js';
import { nK, toggleAllow } from './edits.js';
import { rejected } from './errors.js';
import { fillHeadSelects, fillRowSelect, renderPadding, showNumbers, syncControls } from './sync.js';
import { renderEditors } from './editors.js';
import { renderLab } from './render-lab.js';

const $ = (id) => document.getElementById(id);
const SIDE_BY_SIDE_MAX = 16; // above this many keys one heatmap is shown at a time (view.panel)

/** Shows the current state and results; structural: rebuild editors and selects too. */
export function render(structural) {
  if (structural) {
    renderEditors();
    fillRowSelect();
    fillHeadSelects();
    renderPadding();
  }
  syncControls();
  // A structural change (a preset, a new shape, the API's setState) typesets the formulas at once;
  // a tau, mask or edit step paints its views first and typesets them after (formulas.js).
  renderViews({ deferFormulas: !structural });
  lessonPanel?.render();
}

/** The n² cost of the current state, in bytes and multiply-adds (the core counts them). */
function renderCost() {
  if (state.mode === 'x') {
    const { projectionMacs: proj, attentionMacs: attn, outputMacs: out } = stateCost(core, state);
    $('cost').textContent = t('app.cost.layer', {
      heads: state.heads.length,
      n: state.x.X.length,
      d: state.x.X[0].length,
      proj: fmtInt(proj),
      attn: fmtInt(attn),
      out: out ? fmtInt(out) : '',
    });
    return;
  }
  const c = stateCost(core, state);
  const mib = (b) =>
    b >= 1 << 20 ? `${(b / (1 << 20)).toFixed(1)} MiB` : b >= 1024 ? `${(b / 1024).toFixed(1)} KiB` : t('app.bytes', { n: b });
  const big = (x) => (x >= 1e6 ? `${(x / 1e6).toFixed(1)} M` : fmtInt(x));
  const parts = [t('app.cost.cells', { cells: fmtInt(c.cells) }), t('app.cost.matrix', { size: mib(c.matrixBytes) })];
  if (c.scoreMacs) parts.push(t('app.cost.scores', { macs: big(c.scoreMacs) }));
  if (c.outputMacs) parts.push(t('app.cost.output', { macs: big(c.outputMacs) }));
  parts.push(results.large ? t('app.cost.worker', { size: mib(c.streamBytes) }) : t('app.cost.page'));
  const text = t('app.cost', { parts: parts.join(t('app.costSep')) });
  if ($('cost').textContent !== text) $('cost').textContent = text;
}

/** Draws the views of the current results; deferFormulas (default true): see renderFormulas. */
export function renderViews({ deferFormulas = true } = {}) {
  renderCost();
  renderLab();
  try {
    renderFormulas($('formulas'), { state, results }, { defer: deferFormulas });
  } catch (e) {
    // a display-only panel must never stop the views
    mount($('formulas'), h('p', { class: 'note' }, rejected(e.message, 'app.formulasFailed')));
  }
  if (results.large) {
    renderLargeViews();
    return;
  }
  const r = results;
  const keyTokens = state.tokens.keys;
  const queryTokens = state.tokens.queries;
  const emptyRows = r.rows.map((m) => m.empty);
  const numbers = showNumbers();
  let lo = Infinity;
  let hi = -Infinity;
  for (const row of r.scores) {
    for (const x of row) {
      if (x === null) continue;
      if (x < lo) lo = x;
      if (x > hi) hi = x;
    }
  }
  if (lo > hi) {
    lo = 0;
    hi = 1;
  }
  const selectRow = (i) =>
    update(
      (s) => {
        s.row = i;
      },
      { kind: 'row' },
    );
  renderHeatmap($('scores-view'), {
    id: 'scores',
    title: state.mode === 'weights' ? t('app.scoresTitleWeights') : t('app.scoresTitle'),
    note: state.mode === 'qkv' ? t('app.scoresNoteQkv', { scale: r.scale.toPrecision(4) }) : t('app.scoresNote'),
    matrix: r.scores,
    visible: r.visible,
    rowLabels: queryTokens,
    colLabels: keyTokens,
    domain: [lo, hi],
    selectedRow: state.row,
    emptyRows,
    showNumbers: numbers,
    onSelectRow: selectRow,
  });
  // Edit-the-mask mode: a click on cell (t, j) flips it in the allow-matrix.
  const flipAllow = (row, j) => {
    updateWith((s) => toggleAllow(s, row, j), { kind: 'edit' });
  };
  renderHeatmap($('weights-view'), {
    id: 'weights',
    title: t('app.weightsTitle'),
    note: t('app.weightsNote', { tau: state.tau }),
    matrix: r.weights,
    visible: r.visible,
    rowLabels: queryTokens,
    colLabels: keyTokens,
    domain: [0, 1],
    selectedRow: state.row,
    emptyRows,
    showNumbers: numbers,
    onSelectRow: selectRow,
    onCellClick: $('edit-allow').checked ? flipAllow : null,
    rowMetrics: r.rows,
    announce: true,
  });
  // Large matrices: one heatmap at a time, chosen by view.panel; small ones side by side.
  const tabs = nK(state) > SIDE_BY_SIDE_MAX;
  $('panel-tabs').hidden = !tabs;
  document
    .querySelectorAll('#panel-tabs button')
    .forEach((b) => b.setAttribute('aria-selected', String(b.dataset.panel === state.view.panel)));
  $('scores-view').hidden = tabs && state.view.panel !== 'scores';
  $('weights-view').hidden = tabs && state.view.panel !== 'weights';
  renderRowPanel($('row-view'), {
    results: r,
    row: state.row,
    queryTokens,
    keyTokens,
    topK: state.topK,
    tau: state.tau,
    weights: r.weights[state.row].map((w, j) => (r.visible[state.row][j] ? w : null)),
  });
  renderOutput($('output-view'), {
    results: r,
    row: state.row,
    queryTokens,
    note: r.gate ? t('app.gatedNote') : null,
  });
  renderLayerViews();
}

/** Mode "x": the heads side by side and the layer output; any mode: the gate table. */
function renderLayerViews() {
  const layerBox = $('layer-view');
  layerBox.hidden = !results.layer;
  if (results.layer) {
    renderLayer(layerBox, {
      state,
      results,
      onSelectHead: (i) =>
        update(
          (s) => {
            s.head = i;
          },
          { structural: true, kind: 'head' },
        ),
    });
  } else {
    layerBox.replaceChildren();
  }
  const gateBox = $('gate-view');
  gateBox.hidden = !results.gate;
  if (results.gate) renderGate(gateBox, { state, results });
  else gateBox.replaceChildren();
}

/** Large heads: pooled overview, a zoomed full-resolution tile, the selected row's metrics. */
function renderLargeViews() {
  $('layer-view').hidden = true;
  $('gate-view').hidden = true;
  const r = results;
  const { nQ, nK } = r;
  $('panel-tabs').hidden = true;
  $('weights-view').hidden = false;
  $('scores-view').hidden = false;
  patch(
    $('scores-view'),
    h(
      'div',
      { class: 'view-head' },
      h('h3', {}, t('app.scoresTitle')),
      h('p', { class: 'note', id: 'scores-not-drawn' }, t('app.scoresNotDrawn', { nQ, nK })),
    ),
  );
  // The overview and tile boxes stay from one draw to the next: their views update in place.
  const overviewBox = $('overview-view') ?? h('div', { id: 'overview-view' });
  const tileBox = $('tile-view') ?? h('div', { id: 'tile-view', class: 'tile-view' });
  if (overviewBox.parentElement !== $('weights-view') || tileBox.previousElementSibling !== overviewBox) {
    mount($('weights-view'), overviewBox, tileBox);
  }
  const pick = (query, key) => {
    setZoom([Math.max(0, Math.min(nQ - TILE, query - TILE / 2)), 0, Math.max(0, Math.min(nK - TILE, key - TILE / 2)), 0]);
    update(
      (s) => {
        s.row = query;
      },
      { kind: 'row' },
    );
  };
  renderOverview(overviewBox, {
    grid: r.overview.data,
    rows: r.overview.rows,
    cols: r.overview.cols,
    nQ,
    nK,
    pool: r.overview.pool,
    selectedRow: state.row,
    tile: r.tile?.at ?? null,
    onPick: pick,
    queryTokens: state.tokens.queries,
    keyTokens: state.tokens.keys,
  });
  if (r.tile) {
    const [r0, r1, c0, c1] = r.tile.at;
    const rows = Array.from({ length: r1 - r0 }, (_, i) =>
      Array.from(r.tile.weights.subarray(i * (c1 - c0), (i + 1) * (c1 - c0)), (x) => (Number.isNaN(x) ? null : x)),
    );
    let tileMax = 0;
    for (const row of rows) for (const x of row) if (x !== null && x > tileMax) tileMax = x;
    renderHeatmap(tileBox, {
      id: 'tile',
      title: t('app.tileTitle', { r0, r1: r1 - 1, c0, c1: c1 - 1 }),
      note: t('app.tileNote'),
      matrix: rows,
      visible: rows.map((row) => row.map((x) => x !== null)),
      rowLabels: state.tokens.queries.slice(r0, r1),
      colLabels: state.tokens.keys.slice(c0, c1),
      rowIndex: r0,
      colIndex: c0,
      domain: [0, tileMax > 0 ? tileMax : 1],
      selectedRow: state.row - r0,
      emptyRows: r.rows.slice(r0, r1).map((m) => m.empty),
      showNumbers: state.view.numbers !== 'off',
      rowMetrics: r.rows.slice(r0, r1),
      announce: true,
      onSelectRow: (i) =>
        update(
          (s) => {
            s.row = r0 + i;
          },
          { kind: 'row' },
        ),
    });
  } else {
    patch(tileBox, h('p', { class: 'note' }, t('app.tileHint')));
  }
  renderRowPanel($('row-view'), {
    results: r,
    row: state.row,
    queryTokens: state.tokens.queries,
    keyTokens: state.tokens.keys,
    topK: state.topK,
    tau: state.tau,
    weights: r.rowWeights,
    maxBars: 24,
  });
  renderOutput($('output-view'), { results: r, row: state.row, queryTokens: state.tokens.queries });
}
