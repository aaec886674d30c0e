// One analysis run of the open file: every head analysed in the worker, one progress message
// each (the head's result and the core's summary of its layer so far), superseded by a newer run;
// then the importer's verdicts as messages and the grid, tables and inspected head drawn again.
import { summarise } from './summary.js';
import { tData } from '../views/format.js';
import { getLang, t } from '../i18n/i18n.js';
import { getPalette, paletteRgbTable } from '../views/palette.js';
import * as page from '../page/store.js';
import { layerNumberOf, numberHead } from './view-state.js';
import { errDetail } from './text.js';

/** @param {object} v the view (web/import/index.js): its store `ui`, `$`, and the other parts */
export function createAnalysis(v) {
  const { ui, $ } = v;

  function analysisOptions(reading) {
    // palette (its id and colour table): the worker colours each card's thumbnail in it
    // (web/views/grid-pixels.js) for the grid to draw.
    const palette = getPalette();
    return {
      reading,
      causal: $('import-causal').checked,
      topK: 2,
      sinkKeys: 1,
      delta: 0.1,
      thumbnail: 32,
      palette,
      paletteTable: paletteRgbTable(palette),
    };
  }

  async function analyse(reading, auto) {
    const total = ui.source.layout.layers * ui.source.layout.heads;
    // A newer analysis (another file, another reading) supersedes this one: its late progress
    // messages must not land in the new list.
    const generation = ++ui.generation;
    if (ui.running) v.getWorker().cancel();
    ui.reading = reading;
    ui.causal = $('import-causal').checked;
    ui.heads = [];
    ui.layers = new Map();
    for (const x of ui.thumbImages.values()) x.bitmap.close();
    ui.thumbImages = new Map();
    v.clearCards();
    ui.running = true;
    $('import-cancel').disabled = false;
    v.setProgress(0, total);
    $('import-toolbar').hidden = false;
    let lastPaint = 0;
    try {
      const done = await v.getWorker().request({ type: 'analyze', options: analysisOptions(reading) }, (m) => {
        if (generation !== ui.generation) return;
        // The worker names layers by their position in the file; the view by the model's number.
        // The thumbnail's bitmap (coloured by the worker) waits for its card, outside the head.
        const { thumbImage, ...head } = m.head;
        if (thumbImage) ui.thumbImages.set(head.index, thumbImage);
        const r = numberHead(ui.source, head);
        ui.heads.push(r);
        ui.layers.set(r.layer, { ...m.layer, layerIndex: r.layerIndex, layer: r.layer });
        // The progress bar and the grid at most every 250 ms, in the same frame: each change
        // costs the page a frame (style, layout, the hit test under the pointer, paint), and
        // heads arrive every few ms.
        const now = performance.now();
        if (now - lastPaint > 250 || m.done === m.total) {
          lastPaint = now;
          v.setProgress(m.done, m.total);
          updateStructure();
          v.renderGrid();
        }
      });
      if (generation !== ui.generation) return;
      if (done.cancelled) {
        v.setProgress(ui.heads.length, total); // the bar where the run stopped (it is drawn every 250 ms)
        v.showProgressText(() => t('import.progress.cancelled', { done: done.done, total }));
      }
    } catch (e) {
      if (generation !== ui.generation) return;
      v.setMessages('analysis', [() => tData('import.err.analysis', { detail: errDetail(e) })]);
    } finally {
      if (generation === ui.generation) {
        ui.running = false;
        $('import-cancel').disabled = true;
      }
    }
    ui.causal = $('import-causal').checked;
    updateStructure();
    // The cards stay: renderGrid() gives each the flag of the whole file's structure (cardOf).
    // The verdicts are worded again in the language of the moment (summarise() is cheap).
    const heads = ui.heads;
    const causal = ui.causal;
    const structure = ui.structure;
    const verdictsIn = () => summarise(heads, { causal, reading, lang: getLang(), structure });
    const verdicts = verdictsIn();
    const drawItems = (list) => list.map((it) => () => tData(it.key, it.vars, it.data));
    v.messages.warnings = () => drawItems(verdictsIn().warningItems);
    v.messages.notes = () => drawItems(verdictsIn().noteItems);
    v.setMessages('analysis', () => drawItems(verdictsIn().errorItems));
    $('import-logits-offer').hidden = !(verdicts.offerLogits && reading === 'weights');
    if (auto && verdicts.offerLogits) {
      const before = v.progressText();
      v.showProgressText(() => `${before()}${t('import.progress.notProbabilities')}`);
    }
    v.renderGrid();
    v.renderTables();
    // The inspected head was analysed again (another reading, the causal box): show it anew. A
    // file of one head opens on it: an overview of one card is one click away from what was asked
    // for (a notebook's show(head, tokens)).
    if (ui.selected !== null && ui.heads.some((r) => r.index === ui.selected)) v.inspect(ui.selected);
    else if (ui.selected === null && total === 1 && ui.heads.length === 1 && ui.heads[0].computed)
      v.inspect(ui.heads[0].index, { auto: true });
  }

  /**
   * The file's structure (the core's structureSummary over the heads analysed so far): causal,
   * mixed or bidirectional, and the heads flagged, largest above-diagonal mass first.
   */
  function updateStructure() {
    const core = page.core;
    ui.structure = core ? core.structureSummary(ui.heads, ui.causal, ui.reading) : null;
    ui.flagged = new Map();
    const byName = new Map(ui.heads.map((r) => [`${r.layer}/${r.head}`, r]));
    (ui.structure?.flagged ?? []).forEach((f, rank) => {
      const r = byName.get(`${f.layer}/${f.head}`);
      if (r) ui.flagged.set(r.index, { ...f, rank });
    });
  }

  /** The layers numbered anew (a typed list of layer numbers): nothing is analysed again. */
  function renumber() {
    for (const r of ui.heads) numberHead(ui.source, r);
    ui.layers = new Map(
      [...ui.layers.values()].map((m) => {
        const n = layerNumberOf(ui.source, m.layerIndex);
        return [n, { ...m, layer: n }];
      }),
    );
    if (ui.detail) numberHead(ui.source, ui.detail);
    updateStructure();
    v.clearCards();
    v.renderGrid();
    v.renderTables();
    if (ui.detail && ui.selected === ui.detail.index) v.renderDetail();
  }

  return { analysisOptions, analyse, updateStructure, renumber };
}
