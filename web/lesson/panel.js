// The guided lesson panel (seed lesson 003 "注意力机制：从加权平均到自注意力", its interactive
// experiment; docs/lesson.md). Shown while the state has a `lesson` part: five steps, each with an
// action on the live state, a prediction the student records first (radio buttons, checkboxes),
// and a Reveal that puts the answer computed from the live state beside the prediction, marked
// right or not. The step, the predictions and the revealed steps are state, so in the link: a
// reloaded link continues where it was, and Undo takes back a step change like any other edit.
//
// API
//   initLesson(ctx) -> {render()}
//     ctx.container  the <section id="lesson-panel">
//     ctx.toggle     the header button that starts or closes the lesson (optional)
//     ctx.getState(), ctx.getResults()  the page's current state and results
//     ctx.beforeLesson()     the state before the lesson began, or null (closing returns to it)
//     ctx.update(fn, opts)   edits a copy of the state and commits it (the page's undo path)
//     ctx.commit(next, opts) commits a whole state (entering a step loads its starting state)
//     ctx.compute(state)     the core's results for another state (the references of the answers)
//     ctx.lab(state)         the core's lab analysis (sensitivity for step 4 and exercise 3)
//     ctx.core               the core itself: the answers' sums and norms, and step 5 reads the
//                            link back with core.decodeLink (the schema's one validator)
//     ctx.shareUrl()         the link of the current state (step 5 shows it and copies it itself)
//   render() is called by the page after every state change; it rebuilds the panel (keeping the
//   focused control focused), except while a key is being dragged.
//
// DOM ids (for tests): #lesson-title, #lesson-step-<n> (step buttons), #lesson-prev, #lesson-next,
// #lesson-reset, #lesson-close, #lesson-reveal, #lesson-hide, #lesson-answer (the revealed answer,
// data-correct="true|false|" per prediction on [data-prediction]), prediction inputs
// #lesson-p-<name>-<value> (rise: key index; zeros: cell t_j), #lesson-s1-table, #lesson-s2-*,
// #lesson-s3-causal, #lesson-s4-key, #lesson-s4-change, #lesson-s5-copy, #lesson-s5-status, #lesson-s5-link,
// #lesson-exercises.
//
// Parts: step-view.js (a step's nodes), live.js (what each step acts on), questions.js (the
// predictions), answers.js (the revealed answers, from steps.js and the core), format.js (numbers
// and tokens as text), progress.js (the progress kept per class link).
import { onLangChange, t } from '../i18n/i18n.js';
import { h, mount, patch, scrollToStart } from '../views/dom.js';
import { ensureKatexCss } from '../views/formulas.js';
import { createLive } from './live.js';
import { buildStep } from './step-view.js';
import { createProgress } from './progress.js';
import { statesEqual } from '../core/state-schema.js';
import { encodeLink } from '../codec/link.js';
import { stripPageOptions } from '../page/page-options.js';
import { STEP_PREDICTIONS, atStep, fitLesson, freshLesson, referenceState, setupState } from './steps.js';

const phone = () => matchMedia('(max-width: 760px)').matches;

export function initLesson(pageCtx) {
  // Every move of the lesson is the student's own work: allowed in a read-only link too
  // (web/page/store.js commit's `lesson` option; the share dialog lists what read-only locks).
  const ctx = {
    ...pageCtx,
    update: (fn, opts = {}) => pageCtx.update(fn, { ...opts, lesson: true }),
    commit: (next, opts = {}) => pageCtx.commit(next, { ...opts, lesson: true }),
    rerender: () => render(),
  };
  const { container } = ctx;
  const steps = createLive(ctx);
  let lastStep = 0;
  // Progress per class link (progress.js): keyed by the link the page was opened with.
  const progress = createProgress(location.hash);
  // Only a link that holds a lesson (a class link) takes its saved progress back on opening; a
  // lesson started later (a preset, the header button) starts as asked.
  const openedOnLesson = /(^#|&)lesson=/.test(location.hash);
  let restoreChecked = false; // the saved progress is looked at once, on the first lesson render
  let storageNoted = false; // "no storage here" is said once
  let restoredStep = 0; // the step the saved progress was restored at (a note says so), 0: none
  let closedState = null; // the state when the lesson was closed: reopening continues from it
  let beforeStartOver = null; // the state before "Start over": its undo button brings it back
  let scrolledToStep = false; // a page opened on a lesson scrolls to its step once (phones)
  let restoredShown = false; // the "welcome back" note was scrolled into view once
  ensureKatexCss(container.ownerDocument);
  onLangChange(() => {
    steps.dropPlane();
    render();
  });
  // The core for the answers' numbers: the page's own (ctx.core).
  const core = () => ctx.core;

  const state = () => ctx.getState();
  const results = () => ctx.getResults();
  const editLesson = (fn) =>
    ctx.update((s) => {
      s.lesson = atStep(s.lesson, s.lesson.step);
      fn(s.lesson, s);
    });

  /** Enters step n: its starting state, the lesson kept (and an open analysis view). */
  function goTo(n) {
    const s = state();
    const next = setupState(n);
    // Step 3 started again from its own grid: predictions made on another grid (example 2) go.
    next.lesson = n === 3 && s.lesson.step === 3 ? fitLesson(atStep(s.lesson, n), s, next) : atStep(s.lesson, n);
    if (s.lab) next.lab = structuredClone(s.lab);
    return ctx.commit(next, { structural: true });
  }

  /**
   * Closes the lesson: back to the state before it began (a real head, an edited example), else
   * (a page opened on the lesson) the lesson's state without the lesson. Its state is kept, so
   * opening it again continues where it was.
   */
  function close() {
    closedState = structuredClone(state());
    const before = ctx.beforeLesson?.();
    if (before) return ctx.commit(structuredClone(before), { structural: true });
    return ctx.update((x) => {
      delete x.lesson;
    });
  }

  /** Opens the lesson: where it was closed, else the saved progress of this class link, else step 1. */
  function open() {
    if (closedState?.lesson) return ctx.commit(structuredClone(closedState), { structural: true });
    const saved = savedState();
    if (saved) return ctx.commit(saved, { structural: true });
    return ctx.commit({ ...setupState(1), lesson: freshLesson() }, { structural: true });
  }

  /** The saved progress of this class link as a state with a lesson, or null. */
  function savedState(link = progress.load()) {
    if (!link) return null;
    try {
      const s = ctx.core.decodeLink(link);
      return s.lesson ? s : null;
    } catch {
      return null; // an older or damaged entry: ignored
    }
  }

  /** Start over: step 1 with nothing recorded; the previous state stays one button away. */
  function startOver() {
    beforeStartOver = structuredClone(state());
    closedState = null;
    ctx.commit({ ...setupState(1), lesson: freshLesson() }, { structural: true });
  }

  if (ctx.toggle) {
    ctx.toggle.addEventListener('click', () => {
      if (state()?.lesson) close();
      else open();
    });
  }
  // The progress is written 200 ms after the last change, as the page's address is (web/page/address.js),
  // not inside each change: its link encoding was a quarter of a tau change's time on a class link
  // (12 of 47 ms at 4x CPU). Leaving the tab or the page writes it at once.
  let pendingSave = null;
  let saveTimer = 0;
  function saveProgress(s) {
    if (!s?.lesson || !progress.available) return;
    pendingSave = s;
    clearTimeout(saveTimer);
    saveTimer = setTimeout(flushProgress, 200);
  }
  function flushProgress() {
    clearTimeout(saveTimer);
    const s = pendingSave;
    pendingSave = null;
    if (!s) return;
    try {
      progress.save(encodeLink(s));
    } catch {
      /* too large for a link: nothing to keep */
    }
  }
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState !== 'hidden') return;
    saveProgress(state());
    flushProgress();
  });
  window.addEventListener('pagehide', flushProgress);

  /** On the first render of a lesson: take this class link's saved progress if it differs. */
  function restoreOnce(s) {
    if (restoreChecked) return false;
    restoreChecked = true;
    if (!openedOnLesson) return false;
    // Progress saved as the link itself (nothing done yet, or a reload): nothing to decode.
    const link = progress.load();
    if (link === stripPageOptions(location.hash)) return false;
    const saved = savedState(link);
    if (!saved || statesEqual(saved, s)) return false;
    restoredStep = saved.lesson.step;
    // After the commit that is rendering now has finished.
    queueMicrotask(() => ctx.commit(saved, { structural: true, kind: 'restore' }));
    return true;
  }

  const setP = (name, value) =>
    editLesson((l) => {
      l.predictions[name] = value;
    });

  const build = (s, r) => buildStep(s, r, { ctx, steps, core, notes, goTo, startOver, close, editLesson, setP });

  // The panel's three parts: what is rebuilt above the frame, the frame's slot, what is rebuilt below.
  const topPart = h('div', { class: 'lesson-part' });
  const bottomPart = h('div', { class: 'lesson-part' });

  /**
   * Shows the panel around step 5's frame, which stays where it is (a moved iframe reloads). The
   * parts are patched in place (views/dom.js patch): a tau or key change rewrites the numbers that
   * changed, not the panel, so it is not laid out again as a whole and focus stays.
   */
  function mountPanel({ top, bottom }, s) {
    const slot = steps.frameSlot();
    const kids = container.children;
    if (kids.length !== 3 || kids[0] !== topPart || kids[1] !== slot || kids[2] !== bottomPart) {
      mount(container, topPart, slot, bottomPart);
    }
    patch(topPart, top);
    steps.syncFrame(s);
    patch(bottomPart, bottom);
  }

  /** The one-off notes at the top: progress restored, started over (with its undo), no storage. */
  function notes() {
    const out = [];
    if (restoredStep) {
      out.push(h('p', { class: 'note lesson-note', id: 'lesson-restored' }, t('lesson.restored', { n: restoredStep })));
    }
    if (beforeStartOver) {
      out.push(
        h(
          'p',
          { class: 'note lesson-note', id: 'lesson-started-over' },
          t('lesson.startedOver'),
          t('lesson.gap'),
          h(
            'button',
            {
              type: 'button',
              id: 'lesson-undo-start-over',
              onclick: () => {
                const back = beforeStartOver;
                beforeStartOver = null;
                ctx.commit(back, { structural: true });
              },
            },
            t('lesson.undoStartOver'),
          ),
        ),
      );
    }
    if (!progress.available && !storageNoted) {
      out.push(
        h(
          'p',
          { class: 'note lesson-note', id: 'lesson-no-storage', role: 'note' },
          t('lesson.noStorage'),
          t('lesson.gap'),
          h(
            'button',
            {
              type: 'button',
              id: 'lesson-no-storage-ok',
              onclick: () => {
                storageNoted = true;
                render();
              },
            },
            t('lesson.noStorageOk'),
          ),
        ),
      );
    }
    return out;
  }

  function render() {
    const s = state();
    const r = results();
    const on = Boolean(s?.lesson) && r && !r.large;
    if (ctx.toggle) {
      ctx.toggle.setAttribute('aria-pressed', String(Boolean(s?.lesson)));
    }
    container.closest('.layout')?.classList.toggle('lesson-on', Boolean(s?.lesson));
    container.hidden = !s?.lesson;
    if (!s?.lesson) {
      container.replaceChildren();
      steps.dropPlane();
      return;
    }
    if (!on) {
      mount(container, h('h2', { id: 'lesson-title' }, t('lesson.title')), h('p', { class: 'note' }, t('lesson.large')));
      return;
    }
    const plane = steps.plane();
    if (plane?.dragging()) {
      // keep the element under the pointer; redraw it and the numbers only
      plane.update(s, r);
      const table = container.querySelector('#lesson-s1-readout');
      if (table && s.mode === 'qkv')
        table.replaceWith(
          steps.step1Table(
            s,
            r,
            (() => {
              try {
                return ctx.compute(referenceState(1, s));
              } catch {
                return null;
              }
            })(),
          ),
        );
      return;
    }
    const firstRender = !restoreChecked;
    if (restoreOnce(s)) return; // the saved progress is committed next, and rendered then
    // The first render of a class link shows the link itself (or saved progress equal to it):
    // nothing new to keep, and its encoding is off the start-up's path (~20 ms at 4x CPU).
    if (!(firstRender && openedOnLesson)) saveProgress(s);
    // A started-over lesson that moved on forgets its undo; a restored one its note.
    if (beforeStartOver && (s.lesson.step !== 1 || Object.keys(s.lesson.predictions).length)) beforeStartOver = null;
    if (restoredStep && s.lesson.step !== restoredStep) restoredStep = 0;
    let focused = container.contains(document.activeElement) ? document.activeElement.id : '';
    // A new step: the focus goes to its heading (read first), unless it was on a step's own control.
    if (s.lesson.step !== lastStep && /^lesson-(prev|next|step-\d)$/.test(focused)) focused = 'lesson-step-title';
    // Another step (not the first one shown): its title comes into view, as the focus does.
    const newStep = lastStep !== 0 && s.lesson.step !== lastStep;
    lastStep = s.lesson.step;
    try {
      mountPanel(build(s, r), s);
    } catch (e) {
      // a teaching panel must never stop the page's own views
      mount(
        container,
        h('h2', { id: 'lesson-title' }, t('lesson.title')),
        h('p', { class: 'note' }, t('lesson.failed', { message: e.message })),
        h('button', { type: 'button', id: 'lesson-reset', onclick: () => goTo(s.lesson.step) }, t('lesson.reset')),
      );
      return;
    }
    steps.announceOpened(s);
    if (!scrolledToStep) {
      // A link that holds the lesson opens on its step (on a phone the panel comes first, lesson.css).
      scrolledToStep = true;
      if (phone()) scrollToStart(container.querySelector('#lesson-step-title'));
    } else if (newStep && phone()) scrollToStart(container.querySelector('#lesson-step-title'), { acrossFrames: true });
    if (restoredStep && !restoredShown) {
      // The welcome back note sits above the step title: shown, not scrolled past.
      restoredShown = true;
      if (phone()) scrollToStart(container.querySelector('#lesson-restored'));
    }
    if (focused) {
      const again = container.querySelector(`#${CSS.escape(focused)}`);
      if (again && !again.disabled) again.focus({ preventScroll: true });
      else if (focused === 'lesson-reveal') container.querySelector('#lesson-hide')?.focus({ preventScroll: true });
      else if (focused === 'lesson-hide') container.querySelector('#lesson-reveal')?.focus({ preventScroll: true });
      else container.querySelector('#lesson-step-title')?.focus({ preventScroll: true });
    }
  }

  return { render };
}

export { STEP_PREDICTIONS };
