// One analysis run of the open file: every head analysed in the worker, one progress message
// each (the head's result and the core's summary of its layer so far), superseded by a newer run;
// then the importer's verdicts as messages and the grid, tables and inspected head drawn again.
import { summarise } from '../importer.js';
import { tData } from '../views/format.js';
import { getLang, t } from '../i18n.js';
import { errDetail } from './text.js';

/** @param {object} v the view (web/import/index.js): its store `ui`, `$`, and the other parts */
export function createAnalysis(v) {
  const { ui, $ } = v;

  function analysisOptions(reading) {
    return { reading, causal: $('import-causal').checked, topK: 2, sinkKeys: 1, delta: 0.1, thumbnail: 32 };
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
    v.clearCards();
    ui.running = true;
    $('import-cancel').disabled = false;
    v.setProgress(0, total);
    $('import-toolbar').hidden = false;
    let lastPaint = 0;
    try {
      const done = await v.getWorker().request({ type: 'analyze', options: analysisOptions(reading) }, (m) => {
        if (generation !== ui.generation) return;
        ui.heads.push(m.head);
        ui.layers.set(m.layer.layer, m.layer);
        v.setProgress(m.done, m.total);
        const now = performance.now();
        if (now - lastPaint > 250 || m.done === m.total) {
          lastPaint = now;
          v.renderGrid();
        }
      });
      if (generation !== ui.generation) return;
      if (done.cancelled) v.showProgressText(() => t('import.progress.cancelled', { done: done.done, total }));
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
    // The verdicts are worded again in the language of the moment (summarise() is cheap).
    const heads = ui.heads;
    const causal = ui.causal;
    const verdictsIn = () => summarise(heads, { causal, reading, lang: getLang() });
    const verdicts = verdictsIn();
    const drawItems = (list) => list.map((it) => () => tData(it.key, it.vars, it.data));
    v.messages.warnings = () => drawItems(verdictsIn().warningItems);
    v.setMessages('analysis', () => drawItems(verdictsIn().errorItems));
    $('import-logits-offer').hidden = !(verdicts.offerLogits && reading === 'weights');
    if (auto && verdicts.offerLogits) {
      const before = v.progressText();
      v.showProgressText(() => `${before()}${t('import.progress.notProbabilities')}`);
    }
    v.renderGrid();
    v.renderTables();
    // The inspected head was analysed again (another reading, the causal box): show it anew.
    if (ui.selected !== null && ui.heads.some((r) => r.index === ui.selected)) v.inspect(ui.selected);
  }

  return { analysisOptions, analyse };
}
