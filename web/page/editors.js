// The editors under the controls: the matrices of the selected head (Q, K, V or logits / weights)
// with their resize buttons and token labels, mode "x"'s X, per-head W_Q, W_K, W_V and W_O with
// the layer's controls, and the gate of the selected head. Each edit is a pure edit (edits.js, or
// web/multihead.js for the layer's shapes) committed by the store; render() rebuilds the editors
// when the shapes change, syncLayerControls() follows the state otherwise.
import { h, mount } from '../views/dom.js';
import { parseCell, renderEditor, showCell } from '../views/editor.js';
import { showToken } from '../views/format.js';
import { headShape, isLarge } from '../large.js';
import { fillRandom, resizeHeads, resizeKeyDim, resizeModel, resizeOutput, resizeTokens, resizeValueDim, setProjection } from '../multihead.js';
import { hasKey, t } from '../i18n.js';
import { randomSeed, setRandomSeed, state, update, updateWith } from './store.js';
import {
  addValues, editCell, editToken as editedToken, edited, freshLabel, nK, nQ, resizeColumns, resizeKeys, resizeQueries,
  setGate, setGateAll, setGateRow,
} from './edits.js';
import { showError } from './errors.js';
import { fillRowSelect, renderPadding } from './controls.js';

const $ = (id) => document.getElementById(id);
const GATE_BOXES_MAX = 48; // number boxes per row up to this many queries; above, the slider only

const resize = { structural: true, kind: 'resize' };

function editToken(which, i, text) {
  updateWith((s) => editedToken(s, which, i, text), { kind: `token-${which}-${i}` });
  // Every editor showing these labels follows (K and V both label the keys).
  document.querySelectorAll('#editors input.token').forEach((input) => {
    const [w, k] = input.dataset.token.split(':');
    if (input !== document.activeElement) input.value = state.tokens[w][Number(k)] ?? '';
  });
  fillRowSelect();
  $('row').value = String(state.row);
  renderPadding();
}

export function renderEditors() {
  const root = $('editors');
  if (state.mode === 'x') {
    renderLayerEditors(root);
    return;
  }
  if (isLarge(state)) {
    const { nQ, nK, dK, dV } = headShape(state);
    mount(root, h('p', { class: 'note', id: 'editors-large' }, t('app.editorsLarge', { nQ, nK, dK, dV })));
    return;
  }
  const hd = state.heads[state.head];
  const blocks = [];
  const block = (name, o) => {
    const el = h('div', { class: 'editor-block', id: `editor-${name}` });
    blocks.push(() => renderEditor(el, {
      id: `edit-${name}`, title: name, label: hasKey(`app.matrix.${name}`) ? t(`app.matrix.${name}`) : name,
      matrix: hd[name], onCell: (i, j, v) => updateWith((s) => editCell(s, name, i, j, v), { kind: `cell-${name}-${i}-${j}`, report: false }), ...o,
    }));
    return el;
  };
  const children = [];
  const keys = { addRow: () => updateWith((s) => resizeKeys(s, 1), resize), removeRow: () => updateWith((s) => resizeKeys(s, -1), resize) };
  const queries = { addRow: () => updateWith((s) => resizeQueries(s, 1), resize), removeRow: () => updateWith((s) => resizeQueries(s, -1), resize) };
  const columns = (which) => ({
    addCol: () => updateWith((s) => resizeColumns(s, which, 1), resize), removeCol: () => updateWith((s) => resizeColumns(s, which, -1), resize),
  });
  const labelEditor = (which) => ({ labelsEditable: true, tokenKind: which, onLabel: (i, t) => editToken(which, i, t) });
  if (state.mode === 'qkv') {
    children.push(block('Q', {
      rowLabels: state.tokens.queries, rowNoun: 'query', colPrefix: 'd', hint: t('app.hint.Q'),
      resize: { ...queries, ...columns('dk') }, ...labelEditor('queries'),
    }));
    children.push(block('K', {
      rowLabels: state.tokens.keys, rowNoun: 'key', colPrefix: 'd', hint: t('app.hint.K'),
      resize: { ...keys, ...columns('dk') }, ...labelEditor('keys'),
    }));
  } else {
    const name = state.mode;
    const big = nK(state) > 16;
    const el = block(name, {
      rowLabels: state.tokens.queries, rowNoun: 'query', colLabels: state.tokens.keys, allowNull: name === 'logits',
      hint: t(`app.hint.${name}`),
      resize: { ...queries, addCol: keys.addRow, removeCol: keys.removeRow },
      ...labelEditor('queries'),
    });
    children.push(big ? h('details', { class: 'big-editor' }, h('summary', {}, t('app.editBig', { name: t(`app.matrix.${name}`), nQ: nQ(state), nK: nK(state) })), el) : el);
  }
  if (hd.V) {
    children.push(block('V', {
      rowLabels: state.tokens.keys, rowNoun: 'key', colPrefix: 'd',
      hint: t('app.hint.V'),
      resize: { ...keys, ...columns('dv') },
      ...labelEditor('keys'),
    }));
  } else {
    children.push(h('p', { class: 'note' }, t('app.noV'),
      h('button', { type: 'button', class: 'small', onclick: () => updateWith(addValues, { structural: true }) }, t('app.addV'))));
  }
  children.push(gateEditor());
  mount(root, children);
  for (const draw of blocks) draw();
}

// Mode "x" editors ------------------------------------------------------------------------------

/** A change of the layer's numbers or shapes: the state is no longer its preset. */
function editLayer(fn, kind, structural = false) {
  return updateWith((s) => edited(s, fn), { structural, kind, report: !kind.startsWith('cell-') });
}

function renderLayerEditors(root) {
  const blocks = [];
  const editorBlock = (id, o) => {
    const el = h('div', { class: 'editor-block', id: `editor-${id}` });
    blocks.push(() => renderEditor(el, { id: `edit-${id}`, ...o }));
    return el;
  };
  const labels = { labelsEditable: true, tokenKind: 'queries', onLabel: (i, t) => editToken('queries', i, t) };
  const fresh = () => freshLabel('x', state.tokens.queries);
  const xBlock = editorBlock('X', {
    title: 'X', matrix: state.x.X, rowLabels: state.tokens.queries, rowNoun: 'token', colPrefix: 'd',
    hint: t('app.hint.X'),
    onCell: (i, j, v) => editLayer((s) => { s.x.X[i][j] = v; }, `cell-X-${i}-${j}`),
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
    const w = (key, what, resize) => editorBlock(`h${i}-${key}`, {
      title: key, matrix: hd[key], rowLabels: dModelLabels, rowNoun: 'd_model', colPrefix: what === 'd_v' ? 'v' : 'k',
      onCell: (r, c, v) => editLayer((s) => { s.heads[i][key][r][c] = v; }, `cell-h${i}-${key}-${r}-${c}`),
      resize,
    });
    const dk = { addCol: () => editLayer((s) => resizeKeyDim(s, i, 1), 'resize', true), removeCol: () => editLayer((s) => resizeKeyDim(s, i, -1), 'resize', true) };
    const dv = { addCol: () => editLayer((s) => resizeValueDim(s, i, 1), 'resize', true), removeCol: () => editLayer((s) => resizeValueDim(s, i, -1), 'resize', true) };
    return h('div', { class: `x-head${i === state.head ? ' selected' : ''}`, id: `x-head-${i}` },
      h('h3', {}, hd.name ? h('span', { translate: 'no' }, hd.name) : t('app.headN', { i }),
        h('span', { class: 'shape' }, t('app.shapeDims', { dk: hd.WQ[0].length, dv: hd.WV[0].length }))),
      w('WQ', 'd_k', dk), w('WK', 'd_k', dk), w('WV', 'd_v', dv));
  });
  const concatLabels = state.heads.flatMap((hd, i) => Array.from({ length: hd.WV[0].length }, (_, c) => `h${i}·${c + 1}`));
  const woBlock = state.x.WO ? editorBlock('WO', {
    title: 'W_O', matrix: state.x.WO, rowLabels: concatLabels, rowNoun: 'concat', colPrefix: 'o',
    hint: t('app.hint.WO'),
    onCell: (r, c, v) => editLayer((s) => { s.x.WO[r][c] = v; }, `cell-WO-${r}-${c}`),
    resize: {
      addCol: () => editLayer((s) => resizeOutput(s, 1), 'resize', true),
      removeCol: () => editLayer((s) => resizeOutput(s, -1), 'resize', true),
    },
  }) : h('p', { class: 'note', id: 'no-wo' }, t('app.noWO'));
  const seedBox = h('input', {
    type: 'number', id: 'x-seed', class: 'num-box small', step: '1', min: '0', value: String(randomSeed),
    'aria-label': t('app.seedAria'), onchange: (ev) => { setRandomSeed(Math.trunc(Number(ev.target.value)) || 0); },
  });
  const controls = h('div', { class: 'x-controls' },
    h('button', {
      type: 'button', id: 'x-random', title: t('app.randomTitle'),
      onclick: () => {
        setRandomSeed(Math.trunc(Number($('x-seed').value)) || 0);
        update((s) => { fillRandom(s, randomSeed); s.view.preset = 'custom'; s.source = `Random layer (mulberry32 seed ${randomSeed}): X in [-2, 2], W in [-1, 1], quarter steps.`; }, { structural: true, kind: 'random' });
      },
    }, t('app.random')),
    h('label', { class: 'inline' }, t('app.seed'), seedBox),
    h('button', { type: 'button', class: 'small', id: 'x-add-head', onclick: () => editLayer((s) => resizeHeads(s, 1, freshLabel('head ', s.heads.map((x) => x.name))), 'resize', true) }, t('app.addHead')),
    h('button', { type: 'button', class: 'small', id: 'x-remove-head', onclick: () => editLayer((s) => resizeHeads(s, -1), 'resize', true) }, t('app.removeHead')),
    h('label', { class: 'check' }, h('input', {
      type: 'checkbox', id: 'x-project', checked: !!state.x.WO,
      onchange: (ev) => editLayer((s) => setProjection(s, ev.target.checked), 'resize', true),
    }), t('app.project')),
    h('label', { class: 'check' }, h('input', {
      type: 'checkbox', id: 'x-residual', checked: state.x.residual,
      onchange: (ev) => { if (update((s) => { s.x.residual = ev.target.checked; }, { kind: 'residual' })) syncLayerControls(); },
    }), t('app.residual')),
    h('p', { class: 'error', id: 'x-error', role: 'alert', hidden: true }));
  mount(root, controls, xBlock, h('div', { class: 'x-heads' }, headCards), woBlock, gateEditor());
  for (const draw of blocks) draw();
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

// Gate (any mode) -----------------------------------------------------------------------------

/** The selected head's gate: on/off, one slider for all rows, one box per row. */
function gateEditor() {
  const hd = state.heads[state.head];
  const n = nQ(state);
  const toggle = h('label', { class: 'check' }, h('input', {
    type: 'checkbox', id: 'gate-on', checked: !!hd.gate,
    onchange: (ev) => updateWith((s) => setGate(s, ev.target.checked), { kind: 'gate', report: true }),
  }), t('app.gateToggle'));
  const parts = [h('h3', {}, t('app.gate')), toggle];
  if (hd.gate) {
    parts.push(h('div', { class: 'gate-all' },
      h('input', {
        type: 'range', id: 'gate-all', min: '-10', max: '10', step: '0.5', value: '0', 'aria-label': t('app.gateAllAria'),
        oninput: (ev) => updateWith((s) => setGateAll(s, Number(ev.target.value)), { kind: 'gate-all', report: true }),
      }),
      h('span', { id: 'gate-all-value', class: 'note' }, '')));
    if (n <= GATE_BOXES_MAX) {
      parts.push(h('div', { class: 'gate-boxes' }, hd.gate.map((g, row) => h('label', { class: 'gate-box', title: t('app.gateBoxTitle', { t: row }) },
        h('span', { class: 'idx' }, `${row}: `, h('span', { translate: 'no' }, showToken(state.tokens.queries[row]))),
        h('input', {
          type: 'text', inputmode: 'decimal', class: 'num', id: `gate-${row}`, value: showCell(g), 'aria-label': t('app.gateBoxAria', { t: row }),
          oninput: (ev) => {
            const parsed = parseCell(ev.target.value, false);
            ev.target.classList.toggle('invalid', !!parsed.error);
            if (parsed.error) {
              const typed = ev.target.value;
              showError(`heads[${state.head}].gate`, () => t('app.err.gateRow', { t: row, error: parseCell(typed, false).error }));
              return;
            }
            updateWith((s) => setGateRow(s, row, parsed.value), { kind: `gate-${row}`, report: true });
          },
        })))));
    } else {
      parts.push(h('p', { class: 'note' }, t('app.gateMany', { n })));
    }
  } else {
    parts.push(h('p', { class: 'note' }, t('app.gateOff')));
  }
  parts.push(h('p', { class: 'error', id: 'gate-error', role: 'alert', hidden: true }));
  return h('div', { class: 'editor-block gate-editor', id: 'editor-gate' }, parts);
}
