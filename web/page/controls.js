// The control column and the header's controls: their wiring to the store (each control's change
// is an update or a pure edit of edits.js, committed by the store). syncControls (sync.js) puts
// every control back to the current state after each apply. To add a control: its markup in
// index.html, its listener in wireControls, its value in sync.js syncControls, its error slot in
// errors.js.
import { AttentionError } from '../core/core.js';
import { realPresetId } from '../presets/presets.js';
import { clipTyped, fmtInt } from '../views/format.js';
import { arrowSteps, readBox } from '../views/number-box.js';
import { LARGE_KEYS } from '../large/large.js';
import { LIMITS } from '../core/state-schema.js';
import { onLangChange, t } from '../i18n/i18n.js';
import { onPaletteChange } from '../views/palette.js';
import { initTabs } from '../views/tabs.js';
import { commit, core, pendingBoxes, randomSeed, results, setScaleCustom, state, undo, update, updateWith } from './store.js';
import { enterLayerMode, leaveLayerMode, nK, nQ, switchMode as switchedMode } from './edits.js';
import { rejected, showError } from './errors.js';
import { choosePalette, chooseLang, wireLink } from './address.js';
import { applyPreset } from './presets-ui.js';
import { renderViews } from './render.js';
import { syncControls } from './sync.js';

const $ = (id) => document.getElementById(id);

/** The mode radio buttons: a pure edit of edits.js; a large head keeps its mode. */
function switchMode(mode) {
  if (mode === state.mode) return;
  if (mode === 'x' || state.mode === 'x') {
    switchLayerMode(mode);
    return;
  }
  if (results.large && mode !== state.mode) {
    const [q, k] = [nQ(state), nK(state)];
    showError('mode', () => t('app.err.largeMode', { nQ: q, nK: k, cells: fmtInt(q * k) }));
    syncControls();
    return;
  }
  updateWith(
    (s) => {
      const next = switchedMode(s, results, mode);
      if (next.tau !== s.tau) $('copy-status').textContent = t('app.tauReset', { tau: s.tau });
      return next;
    },
    { structural: true, kind: 'mode' },
  );
}

/** Into mode "x" (a seeded layer) or out of it (the core's derived matrices of every head). */
function switchLayerMode(mode) {
  if (mode === 'x') {
    if (results.large) {
      const n = nK(state);
      showError('mode', () => t('app.err.largeX', { max: LARGE_KEYS, n }));
      syncControls();
      return;
    }
    commit(enterLayerMode(state, randomSeed), { structural: true, kind: 'mode' });
    return;
  }
  let perHead;
  try {
    perHead = state.heads.map((_, i) => (i === state.head ? results : core.compute({ ...state, head: i }, { validated: true })));
  } catch (e) {
    if (!(e instanceof AttentionError)) throw e;
    showError('mode', rejected(e.message));
    return;
  }
  updateWith(
    (s) => {
      const next = leaveLayerMode(s, perHead, mode);
      if (next.tau !== s.tau) $('copy-status').textContent = t('app.tauReset', { tau: s.tau });
      return next;
    },
    { structural: true, kind: 'mode' },
  );
}

/**
 * A number box that commits 350 ms after typing stops, or at once on Enter or leaving it, so a
 * half-typed value (the "500" of "5000") is never committed. A refused value is explained next to
 * the box, with what is kept.
 * @param {string} id
 * @param {{field: string, kept: () => string, parse: (x: number) => (string|[string, object]|null),
 *   apply: (s: object, x: number) => void, min?: number}} o  parse returns the string-table key
 *   of the error (web/i18n/app.js), or [key, its variables], or null; min: a whole-number box (the
 *   arrow keys step it down to min)
 */
function numberBox(id, o) {
  const el = $(id);
  let timer = 0;
  // word() gives the reason in the current language (again after a language change).
  const refuse = (word) => {
    el.classList.add('invalid');
    showError(o.field, () => [word(), t('app.err.keeping', { kept: o.kept() })]);
  };
  // A refusal of the validator (English, naming schema paths) is technical detail.
  const refuseDetail = (e) => refuse(() => rejected(e.endsWith('.') ? e : `${e}.`));
  const commitBox = () => {
    clearTimeout(timer);
    if (!pendingBoxes.has(id) && document.activeElement !== el) return; // nothing typed since
    pendingBoxes.delete(id);
    const typed = el.value;
    const read = readBox(typed); // the shared rule (views/number-box.js); o.parse words the limits
    if (read.problem) {
      const key = { empty: 'app.err.emptyBox', tooLarge: 'app.err.boxTooLarge' }[read.problem] ?? 'app.err.notNumber';
      refuse(() => t(key, { text: clipTyped(typed) }));
      return;
    }
    const { x } = read;
    const problem = o.parse(x);
    if (problem) {
      const [key, vars] = Array.isArray(problem) ? problem : [problem, {}];
      refuse(() => t(key, vars));
      return;
    }
    el.classList.remove('invalid');
    const err = update((s) => o.apply(s, x), { kind: o.field, report: false });
    if (typeof err === 'string') refuseDetail(err);
    else if (err && typeof err.then === 'function') {
      err.then((e) => {
        if (e) refuseDetail(e);
      });
    }
  };
  el.addEventListener('input', () => {
    clearTimeout(timer);
    pendingBoxes.set(id, commitBox);
    timer = setTimeout(commitBox, 350);
  });
  el.addEventListener('change', commitBox);
  // A whole-number box: the arrow keys step it, as they step a number box.
  if (o.min !== undefined) arrowSteps(el, () => ({ min: o.min, whole: true }));
}

/** Wires the controls once at start-up; `relabel` runs after each language change. */
export function wireControls(relabel) {
  document.querySelectorAll('input[name="mode"]').forEach((r) => r.addEventListener('change', () => switchMode(r.value)));
  $('tau-slider').addEventListener('input', (ev) => {
    const tau = Number((10 ** Number(ev.target.value)).toPrecision(3));
    update(
      (s) => {
        s.tau = tau;
      },
      { kind: 'tau' },
    );
  });
  numberBox('tau', {
    field: 'tau',
    kept: () => `τ = ${state.tau}`,
    // The schema's upper limit here too, so that the message says τ as the others (the core's
    // would name the field tau).
    parse: (x) => (!(x > 0) ? 'app.err.tau' : x > LIMITS.maxTau ? ['app.err.tauMax', { max: LIMITS.maxTau }] : null),
    apply: (s, x) => {
      s.tau = x;
    },
  });
  $('scale-kind').addEventListener('change', (ev) => {
    const kind = ev.target.value;
    setScaleCustom(kind === 'custom');
    update(
      (s) => {
        s.scale = kind === 'auto' ? 'auto' : kind === 'one' ? 1 : typeof s.scale === 'number' ? s.scale : 0.5;
      },
      { kind: 'scale' },
    );
  });
  numberBox('scale', {
    field: 'scale',
    kept: () => `scale = ${state.scale}`,
    parse: (x) => (x > 0 ? null : 'app.err.scale'),
    apply: (s, x) => {
      s.scale = x;
    },
  });
  $('causal').addEventListener('change', (ev) =>
    update(
      (s) => {
        s.mask.causal = ev.target.checked;
      },
      { kind: 'mask' },
    ),
  );
  numberBox('window', {
    field: 'mask.window',
    min: 0,
    kept: () => `w = ${state.mask.window}`,
    parse: (x) => (Number.isInteger(x) && x >= 0 ? null : 'app.err.window'),
    apply: (s, x) => {
      s.mask.window = x;
    },
  });
  numberBox('stride', {
    field: 'mask.stride',
    min: 0,
    kept: () => `s = ${state.mask.stride ?? 0}`,
    parse: (x) => (Number.isInteger(x) && x >= 0 ? null : 'app.err.stride'),
    apply: (s, x) => {
      if (x > 1) s.mask.stride = x;
      else delete s.mask.stride;
    },
  });
  numberBox('sinks', {
    field: 'mask.sinks',
    min: 0,
    kept: () => t('app.kept.sinks', { n: state.mask.sinks ?? 0 }),
    parse: (x) => (Number.isInteger(x) && x >= 0 ? null : 'app.err.sinks'),
    apply: (s, x) => {
      if (x > 0) s.mask.sinks = x;
      else delete s.mask.sinks;
    },
  });
  $('edit-allow').addEventListener('change', () => renderViews());
  $('clear-allow').addEventListener('click', () =>
    update(
      (s) => {
        s.mask.allow = null;
      },
      { kind: 'mask' },
    ),
  );
  numberBox('topk', {
    field: 'topK',
    min: 1,
    kept: () => `k = ${state.topK}`,
    parse: (x) => (Number.isInteger(x) && x >= 1 ? null : 'app.err.topk'),
    apply: (s, x) => {
      s.topK = x;
    },
  });
  $('row').addEventListener('change', (ev) =>
    update(
      (s) => {
        s.row = Number(ev.target.value);
      },
      { kind: 'row' },
    ),
  );
  // Heads share the tokens, so the selected row stays: heads compare like for like.
  $('head').addEventListener('change', (ev) =>
    update(
      (s) => {
        s.head = Number(ev.target.value);
      },
      { structural: true, kind: 'head' },
    ),
  );
  $('numbers').addEventListener('change', (ev) =>
    update(
      (s) => {
        s.view.numbers = ev.target.checked ? 'on' : 'off';
      },
      { kind: 'view' },
    ),
  );
  $('palette').addEventListener('change', (ev) => choosePalette(ev.target.value));
  $('lang').addEventListener('change', (ev) => chooseLang(ev.target.value));
  onLangChange(relabel);
  onPaletteChange(() => {
    if (state && results) renderViews();
  });
  for (const list of ['view-nav', 'panel-tabs', 'lab-tabs']) initTabs($(list));
  document.querySelectorAll('#panel-tabs button').forEach((b) =>
    b.addEventListener('click', () =>
      update(
        (s) => {
          s.view.panel = b.dataset.panel;
        },
        { kind: 'view' },
      ),
    ),
  );
  $('preset').addEventListener('change', (ev) => applyPreset(ev.target.value));
  $('real-head').addEventListener('change', (ev) => applyPreset(realPresetId(ev.target.dataset.dataset, ev.target.value)));
  $('undo').addEventListener('click', undo);
  document.addEventListener('keydown', (ev) => {
    if ((ev.ctrlKey || ev.metaKey) && ev.key === 'z' && !ev.target.closest?.('input, textarea')) {
      ev.preventDefault();
      undo();
    }
  });
  wireLink();
}
