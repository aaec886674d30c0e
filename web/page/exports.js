// The import view's glue and the exports: the Playground / Import tabs, a state opened from the
// import view (committed like a preset), a file dropped on the page, and the files the page
// saves — the state, the weights as SVG / PNG, the rows as CSV, the results as JSON, a standalone
// HTML view (web/export/files.js builds them) — plus results() as plain JSON for the API.
import { download, heatmapSvg, resultsRowsCsv, standaloneHtml, svgToPng, toJson } from '../export/files.js';
import { hasKey, t } from '../i18n/i18n.js';
import { ROW_METRICS, metricShort } from '../views/metrics.js';
import { commit, coreOptions, flushBoxes, pageOptions, results, setImportView, setScaleCustom, state } from './store.js';
import { sourceText } from '../views/source.js';

/** `text` followed by the next sentence: a full stop only where it has none of its own. */
const sentence = (text) => (/[.!?。！？]$/.test(text) ? `${text} ` : `${text}. `);

const $ = (id) => document.getElementById(id);

/** Shows the playground or the import view (the tabs under the header). */
export function showView(which) {
  $('app').hidden = which !== 'playground';
  $('import-view').hidden = which !== 'import';
  $('tab-playground').setAttribute('aria-selected', String(which === 'playground'));
  $('tab-import').setAttribute('aria-selected', String(which === 'import'));
  document.body.dataset.view = which;
}

/** A state from the import view (an opened head, a saved state file): committed like a preset. */
async function openState(next, kind) {
  flushBoxes();
  setScaleCustom(false);
  next = structuredClone(next);
  if (kind === 'import' && state?.lab) next.lab = structuredClone(state.lab);
  const err = await commit(next, { structural: true, report: false, kind });
  if (!err) {
    $('banner').hidden = true;
    showView('playground');
    window.scrollTo(0, 0);
  }
  return err;
}

/** File name stem of the current state: its preset or head name. */
function exportStem() {
  const name = `${state.view.preset === 'import' || state.view.preset === 'custom' ? state.heads[state.head].name : state.view.preset}`;
  return name.replace(/[^\w.-]+/g, '_') || 'attention';
}

/** The weights on screen as a flat grid: the full matrix, or a large head's pooled overview. */
function weightsGrid() {
  if (results.large) {
    const o = results.overview;
    const pooled = o.rows !== results.nQ || o.cols !== results.nK;
    return {
      values: o.data,
      rows: o.rows,
      cols: o.cols,
      pooled,
      note: pooled ? t('lab.export.maxPooledNote', { rows: o.rows, cols: o.cols, nQ: results.nQ, nK: results.nK }) : '',
    };
  }
  const values = new Float64Array(results.nQ * results.nK);
  results.weights.forEach((row, i) =>
    row.forEach((w, j) => {
      values[i * results.nK + j] = results.visible[i][j] ? w : NaN;
    }),
  );
  return { values, rows: results.nQ, cols: results.nK, pooled: false, note: '' };
}

function weightsSvg() {
  const g = weightsGrid();
  return heatmapSvg({
    values: g.values,
    rows: g.rows,
    cols: g.cols,
    domain: g.pooled ? undefined : [0, 1],
    rowLabels: state.tokens.queries,
    colLabels: state.tokens.keys,
    nQ: results.nQ,
    nK: results.nK,
    title: t('lab.export.weightsTitle', { tau: state.tau, name: state.heads[state.head].name }),
    note: g.note || t('lab.export.weightsGridNote', { nQ: results.nQ, nK: results.nK }),
    source: `${state.source ? `${sourceText(state.source)} · ` : ''}${t('views.madeWith')}`,
  });
}

let importLoading = null;
/** The import view, loaded and started on first use (it is not on the first screen). */
function loadImportView() {
  importLoading ??= import('../import/index.js').then(({ initImportView }) => {
    const view = initImportView($('import-view'), { coreOptions, openState });
    setImportView(view);
    return view;
  });
  return importLoading;
}

/** Wires the tabs (the import view loads on first use), file drops and export buttons. */
export function wireImportExport() {
  $('tab-playground').addEventListener('click', () => showView('playground'));
  $('tab-import').addEventListener('click', () => {
    showView('import');
    loadImportView();
  });
  // A file dropped anywhere on the page is an import.
  document.addEventListener('dragover', (ev) => {
    if (ev.dataTransfer?.types?.includes('Files')) ev.preventDefault();
  });
  document.addEventListener('drop', (ev) => {
    if (!ev.dataTransfer?.files?.length || ev.defaultPrevented) return;
    ev.preventDefault();
    // Embed mode, a hidden Import tab and read-only have no import view to drop into.
    if (pageOptions.embed || pageOptions.readonly || pageOptions.hide.includes('import')) return;
    showView('import');
    const files = [...ev.dataTransfer.files];
    loadImportView().then((view) => view.importFiles(files));
  });
  $('save-state').addEventListener('click', () => {
    flushBoxes();
    download(`${exportStem()}.state.json`, `${JSON.stringify(state, null, 1)}\n`, 'application/json');
  });
  $('export-svg').addEventListener('click', () => download(`${exportStem()}_weights.svg`, weightsSvg(), 'image/svg+xml'));
  $('export-png').addEventListener('click', async () => {
    // The PNG is the SVG figure drawn at twice its size: the same labels, legend and title.
    download(`${exportStem()}_weights.png`, await svgToPng(weightsSvg(), 2));
  });
  $('export-csv').addEventListener('click', () =>
    download(`${exportStem()}_rows.csv`, resultsRowsCsv(results, state.tokens.queries), 'text/csv'),
  );
  $('export-json').addEventListener('click', () => download(`${exportStem()}_results.json`, toJson(plainResults()), 'application/json'));
  $('export-html').addEventListener('click', () => {
    const rows = results.rows.map((m, t) => [
      t,
      state.tokens.queries[t],
      ...ROW_METRICS.map((x, i) => (m.empty && !i ? 'empty' : m[x.key])),
    ]);
    download(
      `${exportStem()}_view.html`,
      standaloneHtml({
        // The page a person reads follows the language (lab.export.*); its numbers do not change.
        title: t('lab.export.pageTitle', { name: state.heads[state.head].name }),
        subtitle: `${state.source ? sentence(sourceText(state.source)) : ''}${t('lab.export.pageSubtitle', {
          mode: hasKey(`app.mode.${state.mode}`) ? t(`app.mode.${state.mode}`) : state.mode,
          tau: state.tau,
          causal: t(state.mask.causal ? 'lab.export.on' : 'lab.export.off'),
          window: state.mask.window ? t('lab.export.window', { w: state.mask.window }) : '',
          row: state.row,
        })}`,
        svg: weightsSvg(),
        tables: [
          {
            caption: t('lab.export.rowsCaptionNats'),
            header: [t('import.rowCol.query'), t('import.rowCol.token'), ...ROW_METRICS.map((m) => metricShort(m, { k: state.topK }))],
            rows,
          },
        ],
      }),
      'text/html',
    );
  });
}

/** results() as plain JSON: a large head's typed arrays become arrays. */
export function plainResults() {
  if (!results?.large) return structuredClone(results);
  const { data, ...overview } = results.overview;
  const grid = Array.from({ length: overview.rows }, (_, i) =>
    Array.from(data.subarray(i * overview.cols, (i + 1) * overview.cols), (x) => (Number.isNaN(x) ? null : x)),
  );
  const tile = results.tile && {
    rows: results.tile.rows,
    cols: results.tile.cols,
    at: results.tile.at,
    weights: Array.from({ length: results.tile.rows }, (_, i) =>
      Array.from(results.tile.weights.subarray(i * results.tile.cols, (i + 1) * results.tile.cols), (x) => (Number.isNaN(x) ? null : x)),
    ),
  };
  return structuredClone({ ...results, overview: { ...overview, data: grid }, tile });
}
