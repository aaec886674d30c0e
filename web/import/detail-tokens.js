// The token views of the inspected head's layer in the import view (web/import/detail.js), drawn
// by web/import/tokens.js from every head's weights the worker sends.
import { h, mount } from '../views/dom.js';
import { tData } from '../views/format.js';
import { t } from '../i18n/i18n.js';
import { TOKEN_VIEW_MAX, renderTokenViews } from './tokens.js';
import { download } from '../export/files.js';
import { errDetail, headName } from './text.js';

/**
 * The token views of the inspected head's layer (web/import/tokens.js): every head's weights at
 * full resolution and their mean, from the worker's core (kept while the file, reading and
 * causal flag stay the same, so a change of language or head does not read them again).
 */
export async function renderTokens(v) {
  const { ui, $ } = v;
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
