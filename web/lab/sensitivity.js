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
import { fmtMetric, showToken } from '../views/format.js';

const keyName = (state, j) => `key ${j} “${showToken(state.tokens.keys[j] ?? '')}”`;
const f = (x) => fmtMetric(x, 4);
const list = (state, keys) => {
  const names = keys.map((j) => keyName(state, j));
  return names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
};
const byKey = (lab, j) => lab.keys.find((k) => k.key === j);

/** The answer for this row, in sentences built from the core's leaders. */
function answer(state, lab) {
  const qkv = lab.mode === 'qkv';
  const top = lab.leaders.weight;
  const t = byKey(lab, top[0]);
  const out = [];
  if (lab.visible === 1) {
    return `Only ${keyName(state, t.key)} is visible: its weight is 1 and the output is its value. Changing that value moves the output one for one; ` +
      'moving its key or score changes nothing (a single weight stays 1); deleting it leaves the row empty (undefined).';
  }
  const who = top.length > 1 ? `${list(state, top)} tie for the largest weight (a = ${f(t.weight)})` : `${keyName(state, t.key)} has the largest weight (a = ${f(t.weight)})`;
  out.push(`For the values themselves, yes: ${who}, and ∂o/∂v_j = a_j I, so changing value j by Δ moves the output by exactly a_j Δ; ` +
    `no other value moves it more per unit change.`);
  const measure = qkv ? 'key' : 'score';
  const lead = lab.leaders[measure];
  const effect = qkv ? 'keyEffect' : 'scoreEffect';
  const sym = qkv ? '‖∂o/∂k_j‖' : '‖∂o/∂s_j‖';
  const what = qkv ? 'its key vector' : 'its score';
  if (lead.length && !lab.agrees[measure]) {
    const m = byKey(lab, lead[0]);
    out.push(`But moving ${what} is another matter: ${keyName(state, m.key)} moves the output most (${sym} = ${f(m[effect])}, against ${f(t[effect])} for ${keyName(state, t.key)}), ` +
      `because ∂o/∂s_j = a_j (v_j − o)/τ and its value lies far from the output (‖v_j − o‖ = ${f(m.distance)} against ${f(t.distance)}).`);
  } else if (lead.length) {
    out.push(`Moving ${what} also moves the output most for ${lead.length > 1 ? list(state, lead) : keyName(state, lead[0])} (${sym} = ${f(byKey(lab, lead[0])[effect])}).`);
  }
  const del = lab.leaders.deletion;
  if (del.length && !lab.agrees.deletion) {
    const d = byKey(lab, del[0]);
    out.push(`Deleting a token and renormalising: removing ${keyName(state, d.key)} shifts the output most (‖o₋ⱼ − o‖ = ${f(d.deletion)}, against ${f(t.deletion)} for ${keyName(state, t.key)}).`);
  } else if (del.length) {
    out.push(`Deleting ${del.length > 1 ? list(state, del) : keyName(state, del[0])} and renormalising also shifts the output most (‖o₋ⱼ − o‖ = ${f(byKey(lab, del[0]).deletion)}).`);
  }
  out.push('A weight describes one mixing step of one head; it does not measure a token\'s causal effect on the model\'s prediction.');
  return out.join(' ');
}

function cell(id, x, lead, text) {
  const defined = x !== null && x !== undefined;
  return h('td', { id, class: lead ? 'lead' : null, dataset: { value: defined ? String(x) : '' } },
    defined ? (text ?? f(x)) : 'undefined', lead ? h('span', { class: 'sens-first', title: 'first place' }, ' ★1st') : null);
}

function table(state, lab) {
  const qkv = lab.mode === 'qkv';
  const L = lab.leaders;
  const showShift = lab.dV <= 4;
  const cols = [
    ['key', 'j'], ['token', 'token'], ['weight', 'weight a_j'], ['value', '‖∂o/∂v_j‖ = a_j'], ['distance', '‖v_j − o‖'],
    ['score', '‖∂o/∂s_j‖ = a_j‖v_j − o‖/τ'],
    qkv ? ['key-effect', `‖∂o/∂k_j‖_F = a_j‖v_j − o‖·‖q‖·scale/τ`] : null,
    ['deletion', '‖o₋ⱼ − o‖ (delete j, renormalise)'],
    showShift ? ['shift', 'o₋ⱼ − o'] : null,
  ].filter(Boolean);
  return h('div', { class: 'scroll sens-table-scroll' }, h('table', { class: 'metrics-table sens-table', id: 'lab-sens-table' },
    h('caption', {}, `Row ${lab.row}: what each visible key does to the output o = Σ a_j v_j (★1st marks the first place of each column)`),
    h('thead', {}, h('tr', {}, cols.map(([, title]) => h('th', { scope: 'col' }, title)))),
    h('tbody', {}, lab.keys.map((k) => h('tr', { dataset: { key: k.key } },
      h('th', { scope: 'row' }, String(k.key)),
      h('td', {}, showToken(state.tokens.keys[k.key] ?? '')),
      cell(`lab-sens-weight-${k.key}`, k.weight, L.weight.includes(k.key)),
      cell(`lab-sens-value-${k.key}`, k.valueEffect, L.value.includes(k.key)),
      cell(`lab-sens-distance-${k.key}`, k.distance, false),
      cell(`lab-sens-score-${k.key}`, k.scoreEffect, L.score.includes(k.key)),
      qkv ? cell(`lab-sens-key-${k.key}`, k.keyEffect, L.key.includes(k.key)) : null,
      cell(`lab-sens-deletion-${k.key}`, k.deletion, L.deletion.includes(k.key)),
      showShift ? h('td', { class: 'sens-shift' }, k.deletionShift ? `(${k.deletionShift.map(f).join(', ')})` : 'undefined (row left empty)') : null)))));
}

export function render(container, { state, lab }) {
  const intro = h('p', { class: 'note' }, 'The lesson asks: does the largest weight mark the value whose change moves the output most? ' +
    'For the selected row, o = Σ a_j v_j: a value enters with its weight (∂o/∂v_j = a_j I), but a key or score enters through the softmax, ' +
    'where ∂o/∂s_j = a_j (v_j − o)/τ also depends on how far the value lies from the output; deleting a token renormalises the rest.');
  if (!lab.supported) {
    mount(container, intro, h('p', { class: 'warning', id: 'lab-sens-unsupported' }, `Not available for this head: ${lab.reason}.`));
    return;
  }
  if (lab.empty) {
    mount(container, intro, h('p', { class: 'warning', id: 'lab-sens-empty' },
      `Row ${lab.row} is empty: the mask leaves it no visible key, so its weights, output and every sensitivity are undefined.`));
    return;
  }
  const masked = lab.masked.length
    ? h('p', { class: 'note', id: 'lab-sens-masked' }, `Masked for row ${lab.row} (weight 0, no effect on the output): ${lab.masked.map((j) => keyName(state, j)).join(', ')}.`)
    : null;
  mount(container, intro,
    h('h4', {}, `Query row ${lab.row} “${showToken(state.tokens.queries[lab.row] ?? '')}”: o = (${lab.output.map(f).join(', ')}), τ = ${lab.tau}` +
      (lab.mode === 'qkv' ? `, ‖q‖ = ${f(lab.queryNorm)}, scale = ${f(lab.scale)}` : '')),
    h('p', { class: 'sens-answer', id: 'lab-sens-answer' }, answer(state, lab)),
    lab.mode === 'qkv' ? null : h('p', { class: 'note' }, `Mode ${lab.mode}: there are no key vectors, so the table gives the derivative with respect to each score s_j.`),
    masked,
    table(state, lab),
    lab.dV > 4 ? h('p', { class: 'note' }, `d_v = ${lab.dV}: the shift vectors o₋ⱼ − o are in results().lab (deletionShift), the table gives their lengths.`) : null);
}
