// The "Import & overview" view: drop an attention file, watch its heads being analysed, browse a
// layer x head grid of thumbnails with their metrics and pattern labels, sort and filter, inspect
// one head (hover for query, key and weight; click to lock), open it in the playground, export.
//
// Everything numeric comes from the core in the import worker (web/import/import-worker.js); the view
// only asks for it and draws it. Token strings go in as text (h() uses text nodes only).
//
// Its parts, along the data flow (each gets the view `v`: the store `ui`, `$`, the worker and
// the other parts' functions, called through v so that they may call each other):
//   store.js          the view's mutable state, sort and filter     worker-client.js  the worker
//   intake.js         files in: picker, drop, tokens, npz members   analysis.js       one run
//   grid.js, tables.js  the overview                               detail.js         one head
//   detail-export.js  the exports                                   open.js           to the playground
//   layout.js, status.js, text.js  the page, its messages, its words
import { onLangChange } from '../i18n/i18n.js';
import { createAnalysis } from './analysis.js';
import { createCompare } from './compare.js';
import { createExports } from './detail-export.js';
import { createDetail } from './detail.js';
import { createGrid } from './grid.js';
import { createIntake } from './intake.js';
import { buildLayout } from './layout.js';
import { createOpen } from './open.js';
import { createStatus } from './status.js';
import { SORT_KEYS, createStore } from './view-state.js';
import { createTables } from './tables.js';
import { tn } from './text.js';
import { ImportWorker } from './worker-client.js';
import * as page from '../page/store.js';

export { SORT_KEYS } from './view-state.js';
export { patternLabel } from './text.js';

/**
 * Builds the import view into `root` and wires it.
 * @param {HTMLElement} root
 * @param {object} o
 * @param {object} o.coreOptions            loadCore options for the worker
 * @param {(state: object, what: string) => Promise<string|null>} o.openState
 *   shows a state in the playground; resolves to null or an error message
 * @returns {{importFile: (file: File) => Promise<void>, importFiles: (files: File[]) => Promise<void>,
 *   getImport: () => object}}
 */
export function initImportView(root, o) {
  const $ = (id) => document.getElementById(id);
  const ui = createStore();
  const layout = buildLayout(root);
  // The import workers start with the view (the Import tab opened): their cores load while the user
  // picks a file, not after the drop. The pool's merged heads are summarised per layer by the
  // page's core (already loaded), not queued behind the first worker's analysis.
  let worker = null;
  const getWorker = () => (worker ??= new ImportWorker(o.coreOptions, { layerSummaries: (heads) => page.core.layerSummaries(heads) }));
  const v = { ui, $, o, root, getWorker };
  Object.assign(v, createStatus($));
  for (const part of [createIntake, createAnalysis, createGrid, createTables, createDetail, createExports, createOpen, createCompare]) {
    Object.assign(v, part(v));
  }
  v.wireIntake(layout, root);
  getWorker();

  // --- wiring -----------------------------------------------------------------------------
  for (const id of ['import-sort', 'import-desc', 'import-filter', 'import-range', 'import-min', 'import-max']) {
    $(id).addEventListener(id.endsWith('min') || id.endsWith('max') ? 'input' : 'change', v.renderGrid);
  }
  // The range applies to the sort metric when there is one (and stays on its metric for
  // "layer, head": a typed range is never ignored).
  $('import-sort').addEventListener('change', () => {
    if ($('import-sort').value !== 'order') $('import-range').value = $('import-sort').value;
    v.renderGrid();
  });
  $('import-range').value = 'meanNormalizedEntropy';
  $('import-layer-numbers').addEventListener('change', () => v.applyLayerNumbers());
  $('import-compare-file').addEventListener('change', () => {
    const f = $('import-compare-file').files[0];
    $('import-compare-file').value = '';
    if (f) v.compareWith(f);
  });
  $('import-cancel').addEventListener('click', () => v.getWorker().cancel());
  $('import-as-logits').addEventListener('click', () => {
    $('import-reading').value = 'logits';
    v.analyse('logits', false);
  });
  $('import-causal').addEventListener('change', () => {
    if (ui.source && !ui.running) v.analyse(ui.reading, false);
  });
  $('export-heads-csv').addEventListener('click', v.exportHeadsCsv);
  $('export-heads-json').addEventListener('click', v.exportHeadsJson);
  document.addEventListener('keydown', (ev) => {
    if (ev.key === 'Escape' && ui.locked) {
      ui.locked = null;
      root.querySelector('.detail-mark')?.classList.remove('locked');
      ui.unlockReadout?.();
    }
  });

  // A new language: the same import drawn again from what is held (no file is read again and
  // nothing is analysed again). Static text follows by itself (data-i18n, setLang).
  onLangChange(() => {
    layout.redrawNamed();
    for (const o of root.querySelectorAll('option[data-sort-key]')) o.textContent = SORT_KEYS[o.dataset.sortKey].label();
    $('import-member').setAttribute('aria-label', tn('import.member'));
    v.redraw();
    if (!ui.heads.length) return;
    v.clearCards();
    v.renderGrid();
    v.renderTables();
    if (ui.detail && ui.selected === ui.detail.index) {
      ui.locked = null; // the readout starts again with its help text
      v.renderDetail();
    }
    if (ui.comparison) v.renderComparison();
  });

  return {
    importFile: v.importFile,
    importFiles: v.importFiles,
    // workersReady: every import worker has loaded its core (the benchmark waits for it).
    getImport: () => ({
      source: ui.source,
      heads: ui.heads,
      reading: ui.reading,
      running: ui.running,
      workersReady: worker?.allReady ?? false,
    }),
    /** What Copy link shares on the Import tab: the inspected head as a state, or why not
     *  ({why: 'noFile'|'noHead'|'invalid'|'tooLarge'|'notProbabilities'|'values', name, bytes}). */
    screenState: async () => {
      if (!ui.source) return { why: 'noFile' };
      const base = { name: ui.source.name, bytes: ui.file?.size ?? 0 };
      if (ui.selected === null || ui.selected === undefined || !ui.heads.some((r) => r.index === ui.selected))
        return { ...base, why: 'noHead' };
      const r = ui.heads.find((x) => x.index === ui.selected);
      return { ...base, head: `L${r.layer} H${r.head}`, ...(await v.headState(ui.selected)) };
    },
  };
}
