// The inspected head: its heatmap at up to DETAIL_SIDE cells a side (hover for query, key and
// weight; click, Enter or Space locks the readout, Esc unlocks), why it cannot be opened in the
// playground, its summary, pattern scores, export buttons and per-row metrics table.
import { h, mount, scrollToStart } from '../views/dom.js';
import { fmtMetric, showToken, tData } from '../views/format.js';
import { hasKey, t } from '../i18n/i18n.js';
import { ROW_METRICS, columnValue, metricShort } from '../views/metrics.js';
import { paintGrid } from '../views/overview.js';
import { renderLegend } from '../views/legend.js';
import { LABEL_PX, axisStrip, elide } from '../views/axes.js';
import { TOKEN_VIEW_MAX, renderTokenViews } from './tokens.js';
import { download, rowMetricsCsv } from '../export/files.js';
import { DETAIL_SIDE, MAX_STATE_TOKENS, numberHead } from './view-state.js';
import { errDetail, headName, patternLabel, tn, tnData, tokenOf } from './text.js';

/** @param {object} v the view (web/import/index.js): its store `ui`, `$`, and the other parts */
export function createDetail(v) {
  const { ui, $ } = v;

  /**
   * Inspects head `index`. `auto`: opened by the page, not by a click (a file of one head): it
   * scrolls the page's own document only, never a course page or notebook around a frame.
   */
  async function inspect(index, { auto = false } = {}) {
    ui.selected = index;
    ui.locked = null;
    v.renderGrid();
    const r = ui.heads.find((x) => x.index === index);
    const panel = $('import-detail');
    panel.hidden = false;
    mount(
      panel,
      h('h3', {}, t('import.detail.layerHead', { layer: r.layer, head: r.head })),
      h('p', { class: 'note' }, t('import.detail.loading')),
    );
    let d;
    try {
      d = await v.getWorker().request({ type: 'rows', index, options: { ...v.analysisOptions(ui.reading), thumbnail: DETAIL_SIDE } });
    } catch (e) {
      mount(panel, h('h3', {}, t('import.detail.layerHead', { layer: r.layer, head: r.head })), h('p', { class: 'error' }, errDetail(e)));
      return;
    }
    if (ui.selected !== index) return;
    ui.detail = numberHead(ui.source, d);
    renderDetail();
    // The panel opens below the grid (1,000 px and more on a layer of many heads): bring it into
    // view once drawn (its full height lets the page scroll that far) unless it is on screen.
    const top = panel.getBoundingClientRect().top;
    if (top < 0 || top > window.innerHeight * 0.3) scrollToStart(panel, { acrossFrames: !auto });
  }

  function renderDetail() {
    const d = ui.detail;
    const s = ui.source;
    const { nQ, nK } = s.layout;
    const name = headName(ui.source, d);
    const stateOk = d.verdict !== 'invalid' && (d.computed || ui.reading === 'logits') && Math.max(nQ, nK) <= MAX_STATE_TOKENS;
    const [whyKey, whyVars] =
      d.verdict === 'invalid'
        ? ['import.why.invalid', { row: d.check.firstNonfiniteRow, col: d.check.firstNonfiniteCol }]
        : Math.max(nQ, nK) > MAX_STATE_TOKENS
          ? ['import.why.tooLarge', { max: MAX_STATE_TOKENS }]
          : !d.computed
            ? ['import.why.notProbabilities', {}]
            : [null, {}];
    const why = whyKey ? tn(whyKey, whyVars) : ''; // as text (the button's title)
    const whyNode = () => h('span', {}, tnData(whyKey, whyVars));
    const verdictText = hasKey(`import.verdict.${d.verdict}`) ? tn(`import.verdict.${d.verdict}`) : d.verdict.replace('_', ' ');
    const head = h(
      'div',
      { class: 'detail-head' },
      h(
        'h3',
        {},
        tData('import.detail.title', { name, layer: d.layer, head: d.head, label: d.computed ? patternLabel(d.pattern) : verdictText }, [
          'name',
        ]),
      ),
      h(
        'button',
        {
          type: 'button',
          id: 'open-in-playground',
          class: 'primary',
          disabled: !stateOk,
          title: why || null,
          onclick: () => v.openInPlayground(d.index),
        },
        t('import.detail.open'),
      ),
    );
    if (!d.thumbRows) {
      // Nothing was computed (NaN/Inf, or not probabilities under the weights reading).
      mount($('import-detail'), head, h('p', { class: 'note', id: 'detail-why' }, tData('import.detail.notAnalysed', { why: whyNode() })));
      return;
    }
    const pooled = d.thumbRows !== nQ || d.thumbCols !== nK;
    const canvas = h('canvas', {
      width: d.thumbCols,
      height: d.thumbRows,
      id: 'detail-canvas',
      class: 'detail-canvas',
      tabindex: 0,
      role: 'img',
      'aria-label': t(pooled ? 'import.detail.canvasAriaPooled' : 'import.detail.canvasAria', { name, nQ, nK }),
    });
    const { hi, saturates } = paintGrid(canvas, d.thumbnail, d.thumbRows, d.thumbCols);
    ui.detailDomain = [0, hi];
    ui.detailSaturates = saturates; // the exported figure says so too (detail-export.js)
    // 360 px a side, more (up to 600) so that every token gets its label up to 50 tokens.
    const side = Math.min(600, Math.max(360, Math.max(d.thumbRows, d.thumbCols) * LABEL_PX));
    const scale = side / Math.max(d.thumbRows, d.thumbCols);
    canvas.style.setProperty('width', `${Math.round(d.thumbCols * scale)}px`);
    canvas.style.setProperty('height', `${Math.round(d.thumbRows * scale)}px`);
    const range = (c, cells, n) => {
      const a = Math.floor((c * n) / cells);
      const b = Math.floor(((c + 1) * n) / cells) - 1;
      return [a, Math.max(a, b)];
    };
    // Token labels on both axes: tokens at full resolution, the first index of each pooled cell.
    const axisLabel = (tokens, cells, n) => (c) => {
      if (pooled) {
        const [a, b] = range(c, cells, n);
        return { text: String(a), full: a === b ? String(a) : `${a}–${b}` };
      }
      const tok = tokenOf(tokens, c);
      return { text: elide(tok), full: `${c} ${tok}` };
    };
    const keyAxis = axisStrip({
      orient: 'top',
      id: 'detail-keys',
      cells: d.thumbCols,
      px: scale,
      label: axisLabel(s.keyTokens, d.thumbCols, nK),
    });
    const queryAxis = axisStrip({
      orient: 'left',
      id: 'detail-queries',
      cells: d.thumbRows,
      px: scale,
      label: axisLabel(s.queryTokens, d.thumbRows, nQ),
    });
    const mark = h('div', { class: 'detail-mark', hidden: true });
    const readout = h('p', { id: 'detail-readout', class: 'readout', 'aria-live': 'polite' }, tnData('import.detail.readoutHelp'));
    const cellAt = (ev) => {
      const rect = canvas.getBoundingClientRect();
      const i = Math.min(d.thumbRows - 1, Math.max(0, Math.floor(((ev.clientY - rect.top) / rect.height) * d.thumbRows)));
      const j = Math.min(d.thumbCols - 1, Math.max(0, Math.floor(((ev.clientX - rect.left) / rect.width) * d.thumbCols)));
      return [i, j];
    };
    let cursor = [0, 0];
    const show = ([i, j], locked) => {
      cursor = [i, j];
      const w = d.thumbnail[i * d.thumbCols + j];
      const value = Number.isNaN(w) ? t('import.detail.notVisible') : fmtMetric(w, 4);
      let text;
      if (!pooled) {
        text = tData(
          'import.detail.readout',
          { i, qt: showToken(tokenOf(s.queryTokens, i)), j, kt: showToken(tokenOf(s.keyTokens, j)), value },
          ['qt', 'kt'],
        );
      } else {
        const [q0, q1] = range(i, d.thumbRows, nQ);
        const [k0, k1] = range(j, d.thumbCols, nK);
        text = t('import.detail.readoutPooled', { q0, q1, k0, k1, value });
      }
      mount(readout, locked ? t('import.detail.locked') : null, text);
      mark.hidden = false;
      mark.style.setProperty('top', `${i * scale}px`);
      mark.style.setProperty('left', `${j * scale}px`);
      mark.style.setProperty('width', `${scale}px`);
      mark.style.setProperty('height', `${scale}px`);
      mark.classList.toggle('locked', Boolean(locked));
      queryAxis.setCurrent(i);
      keyAxis.setCurrent(j);
    };
    ui.unlockReadout = () => show(cursor, false);
    const toggleLock = (c) => {
      if (ui.locked) {
        ui.locked = null;
        show(c, false);
      } else {
        ui.locked = c;
        show(c, true);
      }
    };
    canvas.addEventListener('mousemove', (ev) => {
      if (!ui.locked) show(cellAt(ev), false);
    });
    canvas.addEventListener('mouseleave', () => {
      if (!ui.locked) {
        mark.hidden = true;
        queryAxis.setCurrent(null);
        keyAxis.setCurrent(null);
      }
    });
    canvas.addEventListener('click', (ev) => toggleLock(cellAt(ev)));
    canvas.addEventListener('keydown', (ev) => {
      const step = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] }[ev.key];
      if (step && !ui.locked) {
        ev.preventDefault();
        show(
          [Math.min(d.thumbRows - 1, Math.max(0, cursor[0] + step[0])), Math.min(d.thumbCols - 1, Math.max(0, cursor[1] + step[1]))],
          false,
        );
      } else if (ev.key === 'Enter' || ev.key === ' ') {
        ev.preventDefault();
        toggleLock(cursor);
      }
    });
    canvas.addEventListener('focus', () => {
      if (!ui.locked) show(cursor, false);
    });
    const rows = d.rows;
    const rowTable = rows
      ? v.table(
          'detail-rows',
          [t('import.rowCol.query'), t('import.rowCol.token'), ...ROW_METRICS.map((m) => metricShort(m))],
          Array.from({ length: nQ }, (_, r) =>
            rows.empty[r]
              ? [r, showToken(tokenOf(s.queryTokens, r)), t('import.detail.emptyRow'), ...ROW_METRICS.slice(1).map(() => '')]
              : [r, showToken(tokenOf(s.queryTokens, r)), ...ROW_METRICS.map((m) => columnValue(m, rows, r))],
          ),
          [1],
        )
      : null;
    const sum = d.summary;
    const p = d.pattern;
    const meaningKey = `import.meaning.${p.kind}`;
    const meaning = hasKey(meaningKey) ? t(meaningKey, { p: p.parameter }) : null;
    const scoreName = (k) => (hasKey(`lab.patternShort.${k}`) ? t(`lab.patternShort.${k}`) : k);
    mount(
      $('import-detail'),
      head,
      why ? h('p', { class: 'note' }, tData('import.detail.cannotOpen', { why: whyNode() })) : null,
      h(
        'p',
        { class: 'note' },
        pooled
          ? t('import.detail.pooledNote', { q: (nQ / d.thumbRows).toFixed(1), k: (nK / d.thumbCols).toFixed(1) })
          : t('import.detail.pixelNote'),
      ),
      renderLegend(0, hi, 3, t('import.detail.legendGrey')),
      saturates ? h('p', { class: 'note' }, t('import.detail.saturates', { hi: hi.toPrecision(3) })) : null,
      h(
        'div',
        { class: 'detail-axes' },
        h('span', { class: 'axis-title key' }, `${t('views.axis.key')} →`),
        h('span', { class: 'axis-corner' }),
        keyAxis.el,
        h('span', { class: 'axis-title query' }, `${t('views.axis.query')} →`),
        queryAxis.el,
        h('div', { class: 'detail-frame' }, canvas, mark),
      ),
      readout,
      d.computed
        ? h(
            'p',
            { class: 'detail-summary' },
            t('import.detail.summary', {
              h: fmtMetric(sum.meanEntropy, 4),
              hn: fmtMetric(sum.meanNormalizedEntropy, 4),
              neff: fmtMetric(sum.meanNEff, 4),
              topk: fmtMetric(sum.meanTopKMass, 4),
              sink: fmtMetric(sum.meanSinkMass, 4),
              empty: sum.emptyRows,
            }),
          )
        : null,
      d.computed && meaning ? h('p', { class: 'note', id: 'detail-meaning' }, meaning) : null,
      d.computed
        ? h(
            'p',
            { class: 'note', id: 'detail-scores' },
            t('import.detail.scores') +
              Object.entries(p.scores)
                .filter(([k]) => !['offsetD', 'period', 'positionKey'].includes(k))
                .map(
                  ([k, v]) =>
                    `${scoreName(k)} ${fmtMetric(v, 3)}${
                      k === 'offset'
                        ? ` (d=${p.scores.offsetD})`
                        : k === 'strided'
                          ? ` (p=${p.scores.period})`
                          : k === 'position'
                            ? ` (${t('lab.patternParam.position', { key: p.scores.positionKey }).trim()})`
                            : ''
                    }`,
                )
                .join(' · '),
          )
        : null,
      d.computed ? fieldScores(d) : null,
      d.computed ? structureNote(d) : null,
      h(
        'div',
        { class: 'export-row' },
        h('button', { type: 'button', id: 'export-detail-png', onclick: v.exportDetailPng }, 'PNG'),
        h('button', { type: 'button', id: 'export-detail-svg', onclick: v.exportDetailSvg }, 'SVG'),
        h(
          'button',
          {
            type: 'button',
            id: 'export-rows-csv',
            disabled: !rows,
            onclick: () => download(v.fileStem('rows.csv'), rowMetricsCsv(rows, s.queryTokens), 'text/csv'),
          },
          t('import.export.rowsCsv'),
        ),
        h('button', { type: 'button', id: 'export-rows-json', disabled: !rows, onclick: v.exportRowsJson }, t('import.export.rowsJson')),
        h('button', { type: 'button', id: 'export-detail-html', onclick: v.exportDetailHtml }, t('import.export.html')),
      ),
      d.computed ? h('section', { id: 'token-views', class: 'token-views', 'aria-label': t('views.tokens.tabs') }) : null,
      rowTable
        ? h(
            'details',
            { class: 'import-table', open: nQ <= 64 },
            h('summary', {}, t('import.detail.rowsSummary', { n: nQ })),
            h('div', { class: 'scroll rows', tabindex: '0' }, rowTable),
          )
        : null,
    );
    if (d.computed) renderTokens();
  }

  /** TransformerLens's head-detector scores of the head (the core's; docs/import.md). */
  function fieldScores(d) {
    const f = d.field ?? {};
    const { nQ, nK } = ui.source.layout;
    // Undefined for a head that is not square (TransformerLens asserts n_q = n_k), else without tokens.
    const none = nQ !== nK ? t('import.detail.fieldNotSquare', { nQ, nK }) : t('import.detail.fieldNone');
    const val = (x) => (Number.isFinite(x) ? fmtMetric(x, 4) : none);
    return h(
      'p',
      { class: 'note', id: 'detail-field-scores' },
      tnData(
        'import.detail.field',
        {
          prev: val(f.previousToken),
          dup: val(f.duplicateToken),
          ind: val(f.induction),
          ours: fmtMetric(d.pattern.scores.previous, 4),
          fn: 'detect_head',
          measure: '"mul"',
        },
        ['fn', 'measure'],
      ),
    );
  }

  /** Whether the head is causal by its values, what |Omega_t| was taken as, its flag. */
  function structureNote(d) {
    const f = ui.flagged.get(d.index);
    const { nQ, nK } = ui.source.layout;
    // A head that is not square and not masked by its values has no diagonal to speak of.
    const key =
      nQ !== nK && !d.causalVisibility && !d.causalStructure
        ? 'import.detail.notSquare'
        : f
          ? 'import.detail.flagged'
          : d.causalVisibility
            ? 'import.detail.causalVisibility'
            : d.causalStructure
              ? 'import.detail.causalStructure'
              : 'import.detail.notCausal';
    return h(
      'p',
      { class: 'note', id: 'detail-structure' },
      t(key, {
        mass: fmtMetric(d.aboveDiagonalMass, 4),
        rank: f ? f.rank + 1 : 0,
        k: ui.flagged.size,
        max: fmtMetric(d.check.maxAboveDiagonal, 3),
        nQ,
        nK,
      }),
    );
  }

  /**
   * The token views of the inspected head's layer (web/import/tokens.js): every head's weights at
   * full resolution and their mean, from the worker's core (kept while the file, reading and
   * causal flag stay the same, so a change of language or head does not read them again).
   */
  async function renderTokens() {
    const box = $('token-views');
    const d = ui.detail;
    if (!box || !d) return;
    const s = ui.source;
    const { nQ, nK, heads } = s.layout;
    if (Math.max(nQ, nK) > TOKEN_VIEW_MAX) {
      mount(box, h('p', { class: 'note' }, t('views.tokens.tooLarge', { max: TOKEN_VIEW_MAX, n: Math.max(nQ, nK) })));
      return;
    }
    const key = JSON.stringify([s.name, s.shape, d.layer, ui.reading, ui.causal, ui.generation]);
    if (ui.tokenData?.key !== key) {
      mount(box, h('p', { class: 'note' }, t('views.tokens.loading')));
      let r;
      try {
        r = await v.getWorker().request({ type: 'layerWeights', layer: d.layer, options: v.analysisOptions(ui.reading) });
      } catch (e) {
        mount(box, h('p', { class: 'error' }, errDetail(e)));
        return;
      }
      ui.tokenData = { key, ...r };
    }
    if (ui.detail !== d || !box.isConnected) return;
    const layerHeads = ui.tokenData.heads.map((x) => ({
      head: x.head,
      label: headName(s, { layer: d.layer, head: x.head, index: x.index }),
      weights: x.weights,
    }));
    // The views' choices (tab, head, focus) survive a redraw of the same layer of the same file.
    box.tokenState = ui.tokenState?.key === key ? ui.tokenState.st : undefined;
    const { state } = renderTokenViews(box, {
      queryTokens: s.queryTokens,
      keyTokens: s.keyTokens,
      nQ,
      nK,
      heads: layerHeads,
      mean: heads > 1 ? ui.tokenData.mean : null,
      selectedHead: d.index - d.layer * heads,
      title: t('views.tokens.layerName', { file: s.name, layer: s.layerLabels?.[d.layer] ?? d.layer }),
      heading: tData('views.tokens.title', {
        name: tData('views.tokens.layerName', { file: s.name, layer: s.layerLabels?.[d.layer] ?? d.layer }, ['file', 'layer']),
      }),
      onExport: (tab, text) => download(v.fileStem(`tokens-${tab}.svg`), text, 'image/svg+xml'),
    });
    ui.tokenState = { key, st: state };
  }

  return { inspect, renderDetail, renderTokens };
}
