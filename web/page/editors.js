// The editors under the controls: the matrices of the selected head (Q, K, V or logits / weights)
// with their resize buttons and token labels, mode "x"'s X, per-head W_Q, W_K, W_V and W_O with
// the layer's controls, and the gate of the selected head. Each edit is a pure edit (edits.js, or
// web/presets/multihead.js for the layer's shapes) committed by the store; render() rebuilds the editors
// when the shapes change, syncLayerControls() follows the state otherwise.
import { h, mount } from '../views/dom.js';
import { parseCell, renderEditor, showCell } from '../views/editor.js';
import { showToken } from '../views/format.js';
import { headShape, isLarge } from '../large/large.js';
import { hasKey, t } from '../i18n/i18n.js';
import { state, updateWith } from './store.js';
import {
  addValues,
  editCell,
  editToken as editedToken,
  nK,
  nQ,
  resizeColumns,
  resizeKeys,
  resizeQueries,
  setGate,
  setGateAll,
  setGateRow,
} from './edits.js';
import { showError } from './errors.js';
import { wordDetail } from './details.js';
import { renderLayerEditors } from './layer-editors.js';
import { fillRowSelect, renderPadding, syncLayerControls } from './sync.js';

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
    renderLayerEditors(root, { editToken, gateEditor, syncLayerControls });
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
    blocks.push(() =>
      renderEditor(el, {
        id: `edit-${name}`,
        title: name,
        label: hasKey(`app.matrix.${name}`) ? t(`app.matrix.${name}`) : name,
        matrix: hd[name],
        // A refusal of the validator or the core, worded in the page's language (page/details.js).
        onCell: (i, j, v) => {
          const err = updateWith((s) => editCell(s, name, i, j, v), { kind: `cell-${name}-${i}-${j}`, report: false });
          return typeof err === 'string' ? wordDetail(err) : err;
        },
        ...o,
      }),
    );
    return el;
  };
  const children = [];
  const keys = { addRow: () => updateWith((s) => resizeKeys(s, 1), resize), removeRow: () => updateWith((s) => resizeKeys(s, -1), resize) };
  const queries = {
    addRow: () => updateWith((s) => resizeQueries(s, 1), resize),
    removeRow: () => updateWith((s) => resizeQueries(s, -1), resize),
  };
  const columns = (which) => ({
    addCol: () => updateWith((s) => resizeColumns(s, which, 1), resize),
    removeCol: () => updateWith((s) => resizeColumns(s, which, -1), resize),
  });
  const labelEditor = (which) => ({ labelsEditable: true, tokenKind: which, onLabel: (i, t) => editToken(which, i, t) });
  if (state.mode === 'qkv') {
    children.push(
      block('Q', {
        rowLabels: state.tokens.queries,
        rowNoun: 'query',
        colPrefix: 'd',
        hint: t('app.hint.Q'),
        resize: { ...queries, ...columns('dk') },
        ...labelEditor('queries'),
      }),
    );
    children.push(
      block('K', {
        rowLabels: state.tokens.keys,
        rowNoun: 'key',
        colPrefix: 'd',
        hint: t('app.hint.K'),
        resize: { ...keys, ...columns('dk') },
        ...labelEditor('keys'),
      }),
    );
  } else {
    const name = state.mode;
    const big = nK(state) > 16;
    const el = block(name, {
      rowLabels: state.tokens.queries,
      rowNoun: 'query',
      colLabels: state.tokens.keys,
      allowNull: name === 'logits',
      hint: t(`app.hint.${name}`),
      resize: { ...queries, addCol: keys.addRow, removeCol: keys.removeRow },
      ...labelEditor('queries'),
    });
    children.push(
      big
        ? h(
            'details',
            { class: 'big-editor' },
            h('summary', {}, t('app.editBig', { name: t(`app.matrix.${name}`), nQ: nQ(state), nK: nK(state) })),
            el,
          )
        : el,
    );
  }
  if (hd.V) {
    children.push(
      block('V', {
        rowLabels: state.tokens.keys,
        rowNoun: 'key',
        colPrefix: 'd',
        hint: t('app.hint.V'),
        resize: { ...keys, ...columns('dv') },
        ...labelEditor('keys'),
      }),
    );
  } else {
    children.push(
      h(
        'p',
        { class: 'note' },
        t('app.noV'),
        h('button', { type: 'button', class: 'small', onclick: () => updateWith(addValues, { structural: true }) }, t('app.addV')),
      ),
    );
  }
  children.push(gateEditor());
  mount(root, children);
  for (const draw of blocks) draw();
}

// Gate (any mode) -----------------------------------------------------------------------------

/** The selected head's gate: on/off, one slider for all rows, one box per row. */
function gateEditor() {
  const hd = state.heads[state.head];
  const n = nQ(state);
  const toggle = h(
    'label',
    { class: 'check' },
    h('input', {
      type: 'checkbox',
      id: 'gate-on',
      checked: !!hd.gate,
      onchange: (ev) => updateWith((s) => setGate(s, ev.target.checked), { kind: 'gate', report: true }),
    }),
    t('app.gateToggle'),
  );
  const parts = [h('h3', {}, t('app.gate')), toggle];
  if (hd.gate) {
    parts.push(
      h(
        'div',
        { class: 'gate-all' },
        h('input', {
          type: 'range',
          id: 'gate-all',
          min: '-10',
          max: '10',
          step: '0.5',
          value: '0',
          'aria-label': t('app.gateAllAria'),
          oninput: (ev) => updateWith((s) => setGateAll(s, Number(ev.target.value)), { kind: 'gate-all', report: true }),
        }),
        h('span', { id: 'gate-all-value', class: 'note' }, ''),
      ),
    );
    if (n <= GATE_BOXES_MAX) {
      parts.push(
        h(
          'div',
          { class: 'gate-boxes' },
          hd.gate.map((g, row) =>
            h(
              'label',
              { class: 'gate-box', title: t('app.gateBoxTitle', { t: row }) },
              h('span', { class: 'idx' }, `${row}: `, h('span', { translate: 'no' }, showToken(state.tokens.queries[row]))),
              h('input', {
                type: 'text',
                inputmode: 'decimal',
                class: 'num',
                id: `gate-${row}`,
                value: showCell(g),
                'aria-label': t('app.gateBoxAria', { t: row }),
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
              }),
            ),
          ),
        ),
      );
    } else {
      parts.push(h('p', { class: 'note' }, t('app.gateMany', { n })));
    }
  } else {
    parts.push(h('p', { class: 'note' }, t('app.gateOff')));
  }
  parts.push(h('p', { class: 'error', id: 'gate-error', role: 'alert', hidden: true }));
  return h('div', { class: 'editor-block gate-editor', id: 'editor-gate' }, parts);
}
