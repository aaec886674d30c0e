// Puts the controls back to the state: syncControls after every apply (each box, select and note
// follows the current state unless the user is typing in it), and the selects and padding flags
// rebuilt when the shapes change (render.js, editors.js). No listeners here: the controls' wiring
// is controls.js, which, like render.js, editors.js and presets-ui.js, imports this module.
import { LESSON_PRESETS, REAL_DATASETS, realPresetId } from '../presets/presets.js';
import { h, mount } from '../views/dom.js';
import { showToken } from '../views/format.js';
import { showCell } from '../views/editor.js';
import { sourceNodes } from '../views/source.js';
import { t } from '../i18n/i18n.js';
import { pendingBoxes, results, scaleCustom, state, update } from './store.js';
import { nK, nQ } from './edits.js';

const $ = (id) => document.getElementById(id);
const NUMBERS_AUTO_MAX = 16; // numbers drawn in heatmap cells by default up to this many queries and keys
const TAU_MIN = 0.05;
const TAU_MAX = 20;

export function syncControls() {
  document.querySelectorAll('input[name="mode"]').forEach((r) => {
    setProp(r, 'checked', r.value === state.mode);
  });
  setText($('mode-note'), t(`app.modeNote.${state.mode}`));
  // A box shows the state unless the user is typing in it (a value not yet committed).
  const tauBox = $('tau');
  if (!pendingBoxes.has('tau')) setProp(tauBox, 'value', String(state.tau));
  setProp($('tau-slider'), 'value', String(Math.log10(Math.min(TAU_MAX, Math.max(TAU_MIN, state.tau)))));
  const kind = state.scale === 'auto' ? 'auto' : state.scale === 1 && !scaleCustom ? 'one' : 'custom';
  setProp($('scale-kind'), 'value', kind);
  const scaleBox = $('scale');
  setProp(scaleBox, 'hidden', kind !== 'custom');
  if (!pendingBoxes.has('scale') && kind === 'custom') setProp(scaleBox, 'value', String(state.scale));
  const usesScale = state.mode === 'qkv' || state.mode === 'x';
  setProp($('scale-kind'), 'disabled', !usesScale);
  setProp(scaleBox, 'disabled', !usesScale);
  const hd = state.heads[state.head];
  setText(
    $('scale-note'),
    usesScale
      ? t('app.scaleUsed', {
          scale: results.scale.toPrecision(6),
          dk: (state.mode === 'x' ? hd.WQ : hd.Q)[0]?.length ?? 0,
          perHead: state.mode === 'x' && state.heads.length > 1,
        })
      : t('app.scaleUnused'),
  );
  setProp($('causal'), 'checked', state.mask.causal);
  if (!pendingBoxes.has('window')) setProp($('window'), 'value', String(state.mask.window));
  if (!pendingBoxes.has('stride')) setProp($('stride'), 'value', String(state.mask.stride ?? 0));
  if (!pendingBoxes.has('sinks')) setProp($('sinks'), 'value', String(state.mask.sinks ?? 0));
  setProp($('clear-allow'), 'hidden', !state.mask.allow);
  if (!pendingBoxes.has('topk')) setProp($('topk'), 'value', String(state.topK));
  setProp($('row'), 'value', String(state.row));
  setProp($('head'), 'value', String(state.head));
  setProp($('allow-note'), 'hidden', !state.mask.allow);
  state.mask.padding.forEach((p, j) => {
    const box = $(`pad-${j}`);
    if (box) setProp(box, 'checked', p);
  });
  const preset = state.view?.preset ?? 'custom';
  const sel = $('preset');
  const [dataset, index] = preset.split('.');
  const realInfo = REAL_DATASETS[dataset];
  setProp(sel, 'value', realInfo ? realPresetId(dataset, 0) : LESSON_PRESETS[preset] ? preset : 'custom');
  setProp($('real-head-wrap'), 'hidden', !realInfo || realInfo.heads.length < 2);
  if (realInfo) {
    const rh = $('real-head');
    if (rh.dataset.dataset !== dataset) {
      mount(
        rh,
        realInfo.heads.map((name, i) => h('option', { value: String(i), translate: 'no' }, name)),
      );
      rh.dataset.dataset = dataset;
    }
    setProp(rh, 'value', index);
  }
  setProp($('numbers'), 'checked', showNumbers());
  // The source note is built again only when it (or the language) changed, not on every step.
  const source = $('source');
  const sourceKey = JSON.stringify([t('app.source'), state.source ?? null]);
  if (source.sourceKey !== sourceKey) {
    mount(source, state.source ? [t('app.source'), sourceNodes(state.source)] : []);
    source.sourceKey = sourceKey;
  }
  syncLayerControls();
}

/** Sets an element's property when it differs: an equal write of a box's value still resets its
 * selection and invalidates its style, and syncControls runs after every change. */
function setProp(el, prop, value) {
  if (el[prop] !== value) el[prop] = value;
}

/** Sets an element's text when it differs (an equal write still replaces its text node). */
function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

export function fillRowSelect() {
  mount(
    $('row'),
    state.tokens.queries.map((token, i) => h('option', { value: String(i), translate: 'no' }, `${i}: ${showToken(token)}`)),
  );
}

export function fillHeadSelects() {
  $('head-wrap').hidden = state.heads.length < 2;
  mount(
    $('head'),
    state.heads.map((hd, i) => h('option', { value: String(i), translate: hd.name ? 'no' : null }, hd.name || t('app.headN', { i }))),
  );
}

export function renderPadding() {
  const n = nK(state);
  const box = $('padding');
  if (n > 64) {
    mount(box, h('p', { class: 'note' }, t('app.paddingMany', { padded: state.mask.padding.filter(Boolean).length, n })));
    return;
  }
  mount(
    box,
    h('span', { class: 'label' }, t('app.paddingLabel')),
    h(
      'div',
      { class: 'pad-flags' },
      state.tokens.keys.map((token, j) =>
        h(
          'label',
          { class: 'pad', title: t('app.paddingTitle', { j }) },
          h('input', {
            type: 'checkbox',
            id: `pad-${j}`,
            checked: state.mask.padding[j],
            onchange: (ev) =>
              update(
                (s) => {
                  s.mask.padding[j] = ev.target.checked;
                },
                { kind: 'mask' },
              ),
          }),
          ` ${j}: `,
          h('span', { translate: 'no' }, showToken(token)),
        ),
      ),
    ),
  );
}

/** Whether the heatmaps draw numbers in their cells: the state's choice, "auto" by the size. */
export function showNumbers() {
  return state.view.numbers === 'auto' ? nQ(state) <= NUMBERS_AUTO_MAX && nK(state) <= NUMBERS_AUTO_MAX : state.view.numbers === 'on';
}

/** Controls that follow the state without a rebuild (undo, links): the layer's checkboxes. */
export function syncLayerControls() {
  const residual = $('x-residual');
  if (residual && state.mode === 'x') residual.checked = state.x.residual;
  const gate = state.heads[state.head].gate;
  const all = $('gate-all');
  if (gate) {
    gate.forEach((g, t) => {
      const box = $(`gate-${t}`);
      if (box && document.activeElement !== box && !box.classList.contains('invalid')) box.value = showCell(g);
    });
    if (all && document.activeElement !== all) {
      const same = gate.every((g) => g === gate[0]);
      all.value = String(same ? Math.max(-10, Math.min(10, gate[0])) : 0);
      $('gate-all-value').textContent = same ? t('app.gateAllValue', { g: showCell(gate[0]) }) : t('app.gateRowsDiffer');
    }
  }
}
