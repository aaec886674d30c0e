// The preset select and the dataset head select (the header): the lesson presets and the real
// datasets of web/presets/presets.js. A preset is committed like any other state (one undo step); to add
// a preset, add it to web/presets/presets.js and its name to the string tables (app.preset.<id>).
import { LESSON_PRESETS, REAL_DATASETS, loadRealPreset, realPresetId } from '../presets/presets.js';
import { h, mount } from '../views/dom.js';
import { DATASET_KEYS } from '../views/source.js';
import { hasKey, t } from '../i18n/i18n.js';
import { commit, flushBoxes, setScaleCustom, state } from './store.js';
import { nQ } from './edits.js';
import { rejected, showBanner } from './errors.js';
import { syncControls } from './sync.js';

const $ = (id) => document.getElementById(id);

export function fillPresetSelect() {
  const sel = $('preset');
  mount(
    sel,
    h(
      'optgroup',
      { label: t('app.presetGroupLesson') },
      Object.entries(LESSON_PRESETS).map(([id, p]) => h('option', { value: id }, presetLabel(`app.preset.${id}`, p))),
    ),
    h(
      'optgroup',
      { label: t('app.presetGroupReal') },
      Object.entries(REAL_DATASETS).map(([id, d]) => {
        // The one-file page carries the bundled files that fit its size (scripts/single-file.js).
        const missing = typeof globalThis.attnCarriedData === 'function' && !globalThis.attnCarriedData(`data/real/${id}/attention.json`);
        const label = presetLabel(`app.dataset.${DATASET_KEYS[id]}`, d);
        return h('option', { value: realPresetId(id, 0), disabled: missing }, missing ? t('app.presetNotCarried', { label }) : label);
      }),
    ),
    h('option', { value: 'custom', disabled: true }, t('app.presetCustom')),
  );
  if (state) syncControls();
}

/** A preset's name in the page's language: its table key, else its own labelKey, else its label. */
function presetLabel(key, p) {
  if (hasKey(key)) return t(key);
  return p.labelKey && hasKey(p.labelKey) ? t(p.labelKey) : p.label;
}

export async function applyPreset(id) {
  const status = $('copy-status');
  try {
    let next;
    if (LESSON_PRESETS[id]) {
      next = LESSON_PRESETS[id].make();
    } else {
      const [dataset, index] = id.split('.');
      status.textContent = t('app.loadingReal');
      next = await loadRealPreset(dataset, Number(index));
      status.textContent = '';
      // Another head of the same file: keep what the user set, so heads compare like for like.
      if (state?.view.preset.split('.')[0] === dataset && nQ(state) === nQ(next)) {
        next.tau = state.tau;
        next.topK = state.topK;
        next.row = state.row;
        next.mask = { ...structuredClone(state.mask) };
        next.view = { ...state.view, preset: next.view.preset };
      }
    }
    setScaleCustom(false);
    flushBoxes();
    if (state?.lab && !next.lab) next.lab = structuredClone(state.lab); // the lab view stays open across presets
    if (state?.lesson && !next.lesson) next.lesson = structuredClone(state.lesson); // and so does the lesson
    const err = await commit(next, { structural: true, kind: 'preset' });
    if (!err) $('banner').hidden = true;
  } catch (e) {
    status.textContent = '';
    showBanner(() => rejected(e.message, 'app.presetFailed'));
    syncControls();
  }
}
