// The analysis lab's part of the page's render (render.js renderViews calls renderLab): the
// view tabs, the core's computation of state.lab.view (in this thread or the lab worker), its
// module drawing it, and lab parameters the store refused.
import { AttentionError } from '../core/core.js';
import { LAB_VIEWS } from '../core/state-schema.js';
import { h, mount, patch } from '../views/dom.js';
import { LAB_TITLES, hasLabView, loadLabView } from '../lab/registry.js';
import { t } from '../i18n/i18n.js';
import { core, labSeq, nextLabSeq, results, state, update } from './store.js';
import { rejected } from './errors.js';

/** A message as a sentence: its full stop (。 in Chinese, page/details.js) before what follows. */
const sentence = (message) => (message.endsWith('.') ? message : `${message}.`);
const $ = (id) => document.getElementById(id);

// Analysis lab (web/lab/): one analysis of the current head at a time, chosen by state.lab.view.

/** Shows state.lab.view: the core computes it (core.lab), its module draws it. */
export async function renderLab() {
  const seq = nextLabSeq();
  const current = state.lab?.view ?? 'none';
  const choices = [['none', t('app.labOff')], ...LAB_VIEWS.filter(hasLabView).map((id) => [id, LAB_TITLES[id]])];
  // The tabs are rebuilt only when the view chosen or their titles (the language) changed.
  const tabs = $('lab-tabs');
  const tabsKey = JSON.stringify([current, choices]);
  if (tabs.tabsKey !== tabsKey) {
    tabs.tabsKey = tabsKey;
    patch(
      tabs,
      choices.map(([id, title]) =>
        h(
          'button',
          {
            type: 'button',
            role: 'tab',
            id: `lab-tab-${id}`,
            'aria-selected': String(id === current),
            'aria-controls': 'lab-view',
            dataset: { lab: id },
            onclick: () =>
              update(
                (s) => {
                  s.lab = { view: id, params: s.lab?.params ?? {} };
                },
                { kind: 'lab' },
              ),
          },
          title,
        ),
      ),
    );
  }
  const container = $('lab-view');
  if (!labRefuseWired) {
    // A lab number box refused its text (web/lab/lab-controls.js numberInput): nothing was sent, the
    // state is the same; its words stay with this state, as a refusal of the store's does.
    labRefuseWired = true;
    container.addEventListener('lab-refuse', (ev) => {
      const { word } = ev.detail;
      if (word) {
        labRefused = { state, word, box: true };
        showLabError(word);
      } else if (labRefused?.box) {
        labRefused = null;
        $('lab-error').hidden = true;
      }
    });
  }
  delete container.dataset.drawn; // set to the view's id once it is drawn (tests wait on it)
  $('lab-error').hidden = true;
  if (labRefused?.state === state) showLabError(labRefused.word);
  else labRefused = null;
  container.classList.remove('stale');
  results.lab = null;
  if (current === 'none') {
    patch(container, h('p', { class: 'note' }, t('app.labIntro')));
    return;
  }
  let lab;
  try {
    if (results.large) {
      // A large head's analysis runs in the lab worker (web/lab/offthread.js): progress, Cancel.
      const { labOffThread } = await import('../lab/offthread.js');
      mount(container);
      lab = await labOffThread(state, { progressBox: container, coreOptions: { variant: core.variant } });
      if (seq !== labSeq) return;
    } else {
      // The lab module loads on the first view that needs it (web/core/core.js loadLab).
      if (!core.labReady(state)) {
        mount(container, h('p', { class: 'note', id: 'lab-loading' }, t('views.lab.loadingModule')));
        try {
          await core.loadLab();
        } catch (e) {
          if (seq === labSeq)
            mount(container, h('p', { class: 'note error', id: 'lab-load-failed' }, t('views.lab.loadFailed', { detail: e.message })));
          return;
        }
        if (seq !== labSeq) return;
      }
      lab = core.lab(state);
    }
  } catch (e) {
    if (e?.cancelled) {
      if (seq === labSeq) mount(container, h('p', { class: 'note', id: 'lab-cancelled' }, t('views.lab.cancelled')));
      return;
    }
    if (seq !== labSeq) return;
    if (!(e instanceof AttentionError)) throw e;
    // Keep the view (its controls fix the value) but mark its numbers as those of the last
    // accepted parameters.
    container.classList.add('stale');
    mount($('lab-error'), rejected(sentence(e.message)), t('app.labStale'));
    $('lab-error').hidden = false;
    return;
  }
  results.lab = lab;
  const view = await loadLabView(current);
  if (seq !== labSeq) return; // a newer state is being shown
  view.render(container, { state, lab, results, setParams: setLabParams });
  container.dataset.drawn = current;
}

/** Merges `patch` into state.lab.params and recomputes; resolves to null or the error message. */
async function setLabParams(patch) {
  const err = await update(
    (s) => {
      s.lab = { view: s.lab?.view ?? 'none', params: { ...(s.lab?.params ?? {}), ...patch } };
    },
    { kind: 'lab-params', report: false },
  );
  if (err) {
    labRefused = { state, word: () => rejected(sentence(err)) };
    showLabError(labRefused.word);
  }
  return err;
}

// Lab parameters the store refused: the state they were refused against and their words. The
// lab is drawn again from that same state after a language change: the refusal stays, worded
// in the new language. Any new state forgets it.
let labRefused = null;
let labRefuseWired = false;

function showLabError(word) {
  mount($('lab-error'), word());
  $('lab-error').hidden = false;
}
