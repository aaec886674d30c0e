// The editors of mode "x" (multi-head from X): X, each head's W_Q, W_K, W_V with their shape
// buttons, W_O and the layer's controls (residual, Random (seed)). Each edit is a shape edit of
// web/presets/multihead.js or a cell edit, committed by the store; render() rebuilds them when the shapes
// change (editors.js calls renderLayerEditors), editors.js syncLayerControls follows the state.
import { h, mount } from '../views/dom.js';
import { renderEditor } from '../views/editor.js';
import {
  fillRandom,
  resizeHeads,
  resizeKeyDim,
  resizeModel,
  resizeOutput,
  resizeTokens,
  resizeValueDim,
  setProjection,
} from '../presets/multihead.js';
import { t } from '../i18n/i18n.js';
import { randomSeed, setRandomSeed, state, update, updateWith } from './store.js';
import { edited, freshLabel } from './edits.js';

const $ = (id) => document.getElementById(id);

// Mode "x" editors ------------------------------------------------------------------------------

/** A change of the layer's numbers or shapes: the state is no longer its preset. */
function editLayer(fn, kind, structural = false) {
  return updateWith((s) => edited(s, fn), { structural, kind, report: !kind.startsWith('cell-') });
}

/**
 * Draws mode "x"'s editors into `root`; `parts` are editors.js's own: editToken(which, i, text),
 * gateEditor() and syncLayerControls() (passed in so the two modules need not import each other).
 */
export function renderLayerEditors(root, { editToken, gateEditor, syncLayerControls }) {
  const blocks = [];
  const editorBlock = (id, o) => {
    const el = h('div', { class: 'editor-block', id: `editor-${id}` });
    blocks.push(() => renderEditor(el, { id: `edit-${id}`, ...o }));
    return el;
  };
  const labels = { labelsEditable: true, tokenKind: 'queries', onLabel: (i, t) => editToken('queries', i, t) };
  const fresh = () => freshLabel('x', state.tokens.queries);
  const xBlock = editorBlock('X', {
    title: 'X',
    matrix: state.x.X,
    rowLabels: state.tokens.queries,
    rowNoun: 'token',
    colPrefix: 'd',
    hint: t('app.hint.X'),
    onCell: (i, j, v) =>
      editLayer((s) => {
        s.x.X[i][j] = v;
      }, `cell-X-${i}-${j}`),
    resize: {
      addRow: () => editLayer((s) => resizeTokens(s, 1, fresh()), 'resize', true),
      removeRow: () => editLayer((s) => resizeTokens(s, -1), 'resize', true),
      addCol: () => editLayer((s) => resizeModel(s, 1), 'resize', true),
      removeCol: () => editLayer((s) => resizeModel(s, -1), 'resize', true),
    },
    ...labels,
  });
  const dModelLabels = Array.from({ length: state.x.X[0].length }, (_, j) => `d${j + 1}`);
  const headCards = state.heads.map((hd, i) => {
    const w = (key, what, resize) =>
      editorBlock(`h${i}-${key}`, {
        title: key,
        matrix: hd[key],
        rowLabels: dModelLabels,
        rowNoun: 'd_model',
        colPrefix: what === 'd_v' ? 'v' : 'k',
        onCell: (r, c, v) =>
          editLayer((s) => {
            s.heads[i][key][r][c] = v;
          }, `cell-h${i}-${key}-${r}-${c}`),
        resize,
      });
    const dk = {
      addCol: () => editLayer((s) => resizeKeyDim(s, i, 1), 'resize', true),
      removeCol: () => editLayer((s) => resizeKeyDim(s, i, -1), 'resize', true),
    };
    const dv = {
      addCol: () => editLayer((s) => resizeValueDim(s, i, 1), 'resize', true),
      removeCol: () => editLayer((s) => resizeValueDim(s, i, -1), 'resize', true),
    };
    return h(
      'div',
      { class: `x-head${i === state.head ? ' selected' : ''}`, id: `x-head-${i}` },
      h(
        'h3',
        {},
        hd.name ? h('span', { translate: 'no' }, hd.name) : t('app.headN', { i }),
        h('span', { class: 'shape' }, t('app.shapeDims', { dk: hd.WQ[0].length, dv: hd.WV[0].length })),
      ),
      w('WQ', 'd_k', dk),
      w('WK', 'd_k', dk),
      w('WV', 'd_v', dv),
    );
  });
  const concatLabels = state.heads.flatMap((hd, i) => Array.from({ length: hd.WV[0].length }, (_, c) => `h${i}·${c + 1}`));
  const woBlock = state.x.WO
    ? editorBlock('WO', {
        title: 'W_O',
        matrix: state.x.WO,
        rowLabels: concatLabels,
        rowNoun: 'concat',
        colPrefix: 'o',
        hint: t('app.hint.WO'),
        onCell: (r, c, v) =>
          editLayer((s) => {
            s.x.WO[r][c] = v;
          }, `cell-WO-${r}-${c}`),
        resize: {
          addCol: () => editLayer((s) => resizeOutput(s, 1), 'resize', true),
          removeCol: () => editLayer((s) => resizeOutput(s, -1), 'resize', true),
        },
      })
    : h('p', { class: 'note', id: 'no-wo' }, t('app.noWO'));
  const seedBox = h('input', {
    type: 'number',
    id: 'x-seed',
    class: 'num-box small',
    step: '1',
    min: '0',
    value: String(randomSeed),
    'aria-label': t('app.seedAria'),
    onchange: (ev) => {
      setRandomSeed(Math.trunc(Number(ev.target.value)) || 0);
    },
  });
  const controls = h(
    'div',
    { class: 'x-controls' },
    h(
      'button',
      {
        type: 'button',
        id: 'x-random',
        title: t('app.randomTitle'),
        onclick: () => {
          setRandomSeed(Math.trunc(Number($('x-seed').value)) || 0);
          update(
            (s) => {
              fillRandom(s, randomSeed);
              s.view.preset = 'custom';
              s.source = `Random layer (mulberry32 seed ${randomSeed}): X in [-2, 2], W in [-1, 1], quarter steps.`;
            },
            { structural: true, kind: 'random' },
          );
        },
      },
      t('app.random'),
    ),
    h('label', { class: 'inline' }, t('app.seed'), seedBox),
    h(
      'button',
      {
        type: 'button',
        class: 'small',
        id: 'x-add-head',
        onclick: () =>
          editLayer(
            (s) =>
              resizeHeads(
                s,
                1,
                freshLabel(
                  'head ',
                  s.heads.map((x) => x.name),
                ),
              ),
            'resize',
            true,
          ),
      },
      t('app.addHead'),
    ),
    h(
      'button',
      { type: 'button', class: 'small', id: 'x-remove-head', onclick: () => editLayer((s) => resizeHeads(s, -1), 'resize', true) },
      t('app.removeHead'),
    ),
    h(
      'label',
      { class: 'check' },
      h('input', {
        type: 'checkbox',
        id: 'x-project',
        checked: !!state.x.WO,
        onchange: (ev) => editLayer((s) => setProjection(s, ev.target.checked), 'resize', true),
      }),
      t('app.project'),
    ),
    h(
      'label',
      { class: 'check' },
      h('input', {
        type: 'checkbox',
        id: 'x-residual',
        checked: state.x.residual,
        onchange: (ev) => {
          if (
            update(
              (s) => {
                s.x.residual = ev.target.checked;
              },
              { kind: 'residual' },
            )
          )
            syncLayerControls();
        },
      }),
      t('app.residual'),
    ),
    h('p', { class: 'error', id: 'x-error', role: 'alert', hidden: true }),
  );
  mount(root, controls, xBlock, h('div', { class: 'x-heads' }, headCards), woBlock, gateEditor());
  for (const draw of blocks) draw();
}
