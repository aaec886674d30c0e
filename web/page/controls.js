// The control column and the header's controls: their wiring to the store (each control's change
// is an update or a pure edit of edits.js, committed by the store), and syncControls, which puts
// every control back to the current state after each apply. To add a control: its markup in
// index.html, its listener in wireControls, its value in syncControls, its error slot in errors.js.
import { AttentionError } from '../core.js';
import { LESSON_PRESETS, REAL_DATASETS, realPresetId } from '../presets.js';
import { h, mount } from '../views/dom.js';
import { clipTyped, fmtInt, showToken } from '../views/format.js';
import { sourceNodes } from '../views/source.js';
import { arrowSteps, readBox } from '../views/number-box.js';
import { LARGE_KEYS } from '../large.js';
import { LIMITS } from '../state.js';
import { onLangChange, t } from '../i18n.js';
import { onPaletteChange } from '../views/palette.js';
import { initTabs } from '../views/tabs.js';
import { commit, core, pendingBoxes, randomSeed, results, scaleCustom, setScaleCustom, state, undo, update, updateWith } from './store.js';
import { enterLayerMode, leaveLayerMode, nK, nQ, switchMode as switchedMode } from './edits.js';
import { rejected, showError } from './errors.js';
import { choosePalette, chooseLang, wireLink } from './link.js';
import { applyPreset } from './presets-ui.js';
import { renderViews, showNumbers } from './render.js';
import { syncLayerControls } from './editors.js';

const $ = (id) => document.getElementById(id);
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
