// Lab view "sensitivity": the lesson's question "does the largest weight mark the value whose
// change moves the output most?" for the selected row (the core's lab_sensitivity.cpp;
// docs/lab.md "Sensitivity"). One sentence answers it with this row's numbers; a table gives per
// visible key its weight, ‖∂o/∂v_j‖ = a_j, ‖∂o/∂s_j‖, ‖∂o/∂k_j‖ (mode qkv) and the exact shift of
// the output when the token is deleted, with the first place of each column marked.
//
// DOM ids (for tests): #lab-sens-answer (the sentence), #lab-sens-table, cells
// #lab-sens-<measure>-<j> (measure: weight, value, score, key, deletion, distance; j = key index)
// with data-value (empty when undefined) and class "lead" on the first place.
import { h, mount } from '../views/dom.js';
import { fmtMetric, showToken, tData } from '../views/format.js';
import { hasKey, t } from '../i18n/i18n.js';
import { math, tnData } from './lab-controls.js';
import { KEY_ROWS, keysShownNote, largestIndices } from './rows.js';

/** "key j “token”" as nodes: the token is data (translate="no"). */
const keyName = (state, j) => [
  t('lab.sens.keyPrefix', { j }),
  h('span', { translate: 'no' }, `“${showToken(state.tokens.keys[j] ?? '')}”`),
];
const f = (x) => fmtMetric(x, 4);
const list = (state, keys) => {
  const names = keys.map((j) => keyName(state, j));
  if (names.length <= 1) return names;
  return [...names.slice(0, -1).flatMap((n, i) => (i ? [t('lab.sens.comma'), n] : [n])), t('lab.sens.and'), names[names.length - 1]];
};
const byKey = (lab, j) => lab.keys.find((k) => k.key === j);
/** One sentence: a table entry with its placeholders filled (key names as nodes). */
const sentence = (key, vars) =>
  tData(
    key,
    vars,
    Object.keys(vars).filter((k) => typeof vars[k] === 'object'),
  );

/** The answer for this row, in sentences built from the core's leaders. */
function answer(state, lab) {
  const qkv = lab.mode === 'qkv';
  const top = lab.leaders.weight;
  const tk = byKey(lab, top[0]);
  const out = [];
  if (lab.visible === 1) return sentence('lab.sens.only', { key: keyName(state, tk.key) });
  const who =
    top.length > 1
      ? sentence('lab.sens.tie', { keys: list(state, top), a: f(tk.weight) })
      : sentence('lab.sens.largest', { key: keyName(state, tk.key), a: f(tk.weight) });
  out.push(sentence('lab.sens.values', { who }));
  const measure = qkv ? 'key' : 'score';
  const lead = lab.leaders[measure];
  const effect = qkv ? 'keyEffect' : 'scoreEffect';
  const sym = qkv ? '‖∂o/∂k_j‖' : '‖∂o/∂s_j‖';
  const what = t(qkv ? 'lab.sens.whatKey' : 'lab.sens.whatScore');
  if (lead.length && !lab.agrees[measure]) {
    const m = byKey(lab, lead[0]);
    out.push(
      sentence('lab.sens.butMoving', {
        what,
        key: keyName(state, m.key),
        sym,
        effect: f(m[effect]),
        topEffect: f(tk[effect]),
        top: keyName(state, tk.key),
        distance: f(m.distance),
        topDistance: f(tk.distance),
      }),
    );
  } else if (lead.length) {
    out.push(
      sentence('lab.sens.alsoMoving', {
        what,
        keys: lead.length > 1 ? list(state, lead) : keyName(state, lead[0]),
        sym,
        effect: f(byKey(lab, lead[0])[effect]),
      }),
    );
  }
  const del = lab.leaders.deletion;
  if (del.length && !lab.agrees.deletion) {
    const d = byKey(lab, del[0]);
    out.push(
      sentence('lab.sens.deleting', {
        key: keyName(state, d.key),
        shift: f(d.deletion),
        topShift: f(tk.deletion),
        top: keyName(state, tk.key),
      }),
    );
  } else if (del.length) {
    out.push(
      sentence('lab.sens.alsoDeleting', {
        keys: del.length > 1 ? list(state, del) : keyName(state, del[0]),
        shift: f(byKey(lab, del[0]).deletion),
      }),
    );
  }
  out.push(t('lab.sens.caveat'));
  return out.map((x, i) => (i ? [t('lab.sens.sentenceSep'), x] : x));
}

function cell(id, x, lead, text) {
  const defined = x !== null && x !== undefined;
  return h(
    'td',
    { id, class: lead ? 'lead' : null, dataset: { value: defined ? String(x) : '' } },
    defined ? (text ?? f(x)) : t('lab.undefined'),
    lead ? h('span', { class: 'sens-first', title: t('lab.sens.firstPlace') }, t('lab.sens.first')) : null,
  );
}

function table(state, lab) {
  const qkv = lab.mode === 'qkv';
  const L = lab.leaders;
  const showShift = lab.dV <= 4;
  const cols = [
    ['key', 'j'],
    ['token', t('lab.col.token')],
    ['weight', t('lab.sens.col.weight')],
    ['value', '‖∂o/∂v_j‖ = a_j'],
    ['distance', '‖v_j − o‖'],
    ['score', '‖∂o/∂s_j‖ = a_j‖v_j − o‖/τ'],
    qkv ? ['key-effect', math('‖∂o/∂k_j‖_F = a_j‖v_j − o‖·‖q‖·scale/τ')] : null,
    ['deletion', t('lab.sens.col.deletion')],
    showShift ? ['shift', 'o₋ⱼ − o'] : null,
  ].filter(Boolean);
  // Many keys: those of largest weight and every key that leads a measure, in key order.
  const leading = new Set(Object.values(L).flat());
  const keep = new Set(largestIndices(lab.keys.map((k) => k.weight)));
  lab.keys.forEach((k, i) => leading.has(k.key) && keep.add(i));
  const shown = lab.keys.length <= KEY_ROWS ? lab.keys : lab.keys.filter((_, i) => keep.has(i));
  return h(
    'div',
    { class: 'scroll sens-table-scroll' },
    h(
      'table',
      { class: 'metrics-table sens-table', id: 'lab-sens-table' },
      h('caption', {}, t('lab.sens.caption', { row: lab.row })),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          cols.map(([, title]) => h('th', { scope: 'col' }, title)),
        ),
      ),
      h(
        'tbody',
        {},
        shown.map((k) =>
          h(
            'tr',
            { dataset: { key: k.key } },
            h('th', { scope: 'row' }, String(k.key)),
            h('td', { translate: 'no' }, showToken(state.tokens.keys[k.key] ?? '')),
            cell(`lab-sens-weight-${k.key}`, k.weight, L.weight.includes(k.key)),
            cell(`lab-sens-value-${k.key}`, k.valueEffect, L.value.includes(k.key)),
            cell(`lab-sens-distance-${k.key}`, k.distance, false),
            cell(`lab-sens-score-${k.key}`, k.scoreEffect, L.score.includes(k.key)),
            qkv ? cell(`lab-sens-key-${k.key}`, k.keyEffect, L.key.includes(k.key)) : null,
            cell(`lab-sens-deletion-${k.key}`, k.deletion, L.deletion.includes(k.key)),
            showShift
              ? h(
                  'td',
                  { class: 'sens-shift' },
                  k.deletionShift ? `(${k.deletionShift.map(f).join(', ')})` : t('lab.sens.undefinedLeftEmpty'),
                )
              : null,
          ),
        ),
      ),
    ),
    keysShownNote(shown.length, lab.keys.length, t('lab.sens.col.weight'), 'lab-sens-shown'),
  );
}

export function render(container, { state, lab }) {
  const intro = h('p', { class: 'note' }, t('lab.sens.intro'));
  if (!lab.supported) {
    mount(container, intro, h('p', { class: 'warning', id: 'lab-sens-unsupported' }, tData('lab.notAvailable', { reason: lab.reason })));
    return;
  }
  if (lab.empty) {
    mount(container, intro, h('p', { class: 'warning', id: 'lab-sens-empty' }, t('lab.sens.empty', { row: lab.row })));
    return;
  }
  const masked = lab.masked.length
    ? h(
        'p',
        { class: 'note', id: 'lab-sens-masked' },
        tData(
          'lab.sens.masked',
          {
            row: lab.row,
            keys: lab.masked.map((j, i) => [i ? t('lab.sens.comma') : '', keyName(state, j)]),
          },
          ['keys'],
        ),
      )
    : null;
  mount(
    container,
    intro,
    h(
      'h4',
      {},
      tData(
        'lab.sens.title',
        { row: lab.row, token: `“${showToken(state.tokens.queries[lab.row] ?? '')}”`, o: lab.output.map(f).join(', '), tau: lab.tau },
        ['token'],
      ),
      lab.mode === 'qkv' ? t('lab.sens.titleQkv', { q: f(lab.queryNorm), scale: f(lab.scale) }) : '',
    ),
    h('p', { class: 'sens-answer', id: 'lab-sens-answer' }, answer(state, lab)),
    lab.mode === 'qkv'
      ? null
      : h('p', { class: 'note' }, t('lab.sens.noKeys', { mode: hasKey(`app.mode.${lab.mode}`) ? t(`app.mode.${lab.mode}`) : lab.mode })),
    masked,
    table(state, lab),
    lab.dV > 4 ? h('p', { class: 'note' }, tnData('lab.sens.longShift', { dv: lab.dV })) : null,
  );
}
