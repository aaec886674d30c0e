// The seed lesson's three exercises ("练习"), each with a "Show solution" disclosure (<details>)
// whose solution uses the live state's numbers, and a "Try it" button that commits a state which
// shows the point (through the page's undo path).
//   1. why d_v may differ from d_k: the current head's d_k, d_v and output; try: a third value column
//   2. all-zero scores: uniform weights 1/n and the mean of the values; try: set Q to zero
//   3. deleting a low-weight token can still move the output: the core's exact deletion shift of
//      the row's lowest-weight key (lab "sensitivity"); try: open the sensitivity view
// DOM ids: #lesson-exercises, #lesson-ex-<k> (details), #lesson-ex-<k>-solution, #lesson-ex-<k>-try,
// numbers with data-value: #lesson-ex2-mean, #lesson-ex2-output, #lesson-ex2-weights, #lesson-ex3-*.
import { h } from '../views/dom.js';
import { fmtMetric, showToken } from '../views/format.js';
import { rich } from './rich.js';
import { vec } from './lesson-text.js';

const f = (x) => fmtMetric(x, 4);
/**
 * Brings the analysis lab into view once `view` is drawn in it (#lab-view's data-drawn, set by
 * page/render.js; the lab panel may be far below the lesson, on a phone thousands of pixels): a
 * button that changes nothing visible would look broken. The first lab view also loads the lab's
 * module and WebAssembly, which on a slow phone can take seconds: gives up after 15 s (it gave up
 * after 120 frames, about two seconds, and a loaded machine's test run saw it give up).
 */
function showLab(view) {
  const until = performance.now() + 15000;
  const go = () => {
    const panel = document.getElementById('lab-panel');
    const drawn = document.getElementById('lab-view')?.dataset.drawn === view;
    if (drawn && panel?.checkVisibility() && panel.getBoundingClientRect().height > 0) {
      panel.scrollIntoView({ block: 'start' });
    } else if (performance.now() < until) requestAnimationFrame(go);
  };
  requestAnimationFrame(go);
}

const num = (text, id, value) =>
  h('span', { translate: 'no', class: 'lesson-num', id, dataset: value === undefined ? {} : { value: JSON.stringify(value) } }, text);

// Which exercises are open survives the rebuilds of the panel (not state: a reader's view).
const open = new Set();

function exercise(k, t, question, solution, tryButton, mark, onOpen = null) {
  const details = h(
    'details',
    {
      id: `lesson-ex-${k}`,
      class: 'lesson-exercise',
      open: open.has(k) || null,
      // through h(): the panel is patched in place, and the element on screen may be an older one
      ontoggle: (e) => {
        if (!e.currentTarget.open) open.delete(k);
        else if (!open.has(k)) {
          open.add(k);
          onOpen?.(); // a solution computed only while it is open is computed now
        }
      },
    },
    h('summary', {}, t('lesson.ex.show')),
    h('div', { id: `lesson-ex-${k}-solution`, class: 'lesson-solution' }, solution),
  );
  return h(
    'li',
    { class: 'lesson-ex-item' },
    h('p', {}, h('strong', {}, t(`lesson.ex.kind${k}`)), t('lesson.gap'), question),
    h('div', { class: 'lesson-actions' }, tryButton, mark),
    details,
  );
}

/** The exercise's 标记完成 button (lesson.done, a toggle). */
function markButton(k, t, state, editLesson) {
  const done = (state.lesson.done ?? []).includes(k);
  return h(
    'button',
    {
      type: 'button',
      id: `lesson-ex-${k}-done`,
      class: done ? 'lesson-done on' : 'lesson-done',
      'aria-pressed': String(done),
      onclick: () =>
        editLesson((l) => {
          const set = new Set(l.done ?? []);
          if (set.has(k)) set.delete(k);
          else set.add(k);
          l.done = [...set].sort((a, b) => a - b);
        }),
    },
    t(done ? 'lesson.ex.done' : 'lesson.ex.markDone'),
  );
}

/** The exercises section for the current state and results. */
export function renderExercises({ state, results, ctx, t, editLesson }) {
  const hd = state.heads[state.head];
  const tr = state.row;
  const qkv = state.mode === 'qkv';
  const dK = qkv ? hd.Q[0].length : null;
  const dV = results.dV ?? (hd.V ? hd.V[0].length : 0);
  const out = results.output?.[tr] ?? [];

  // 1. d_v and d_k.
  const sol1 = [
    h('p', {}, t('lesson.ex1.solution')),
    h(
      'p',
      {},
      qkv ? t('lesson.ex1.live', { dk: dK, dv: dV, nk: hd.K.length }) : t('lesson.ex1.liveOther', { dv: dV }),
      t('lesson.gap'),
      num(vec(out), 'lesson-ex1-output', out),
    ),
  ];
  const try1 =
    hd.V && dV > 0 && dV < 1024 && state.mode !== 'x'
      ? h(
          'button',
          {
            type: 'button',
            id: 'lesson-ex-1-try',
            class: 'lesson-try',
            onclick: () =>
              ctx.update((s) => {
                const V = s.heads[s.head].V;
                V.forEach((row, j) => row.push(j + 1));
              }),
          },
          t('lesson.ex1.try'),
        )
      : null;

  // 2. zero scores.
  const visible = results.visible[tr];
  const n = visible.filter(Boolean).length;
  let sol2;
  if (!hd.V || n === 0 || state.mode === 'x') {
    sol2 = [h('p', {}, t('lesson.ex2.solution')), h('p', { class: 'note' }, t('lesson.ex2.noLive'))];
  } else {
    const mean = hd.V[0].map((_, c) => hd.V.reduce((acc, v, j) => acc + (visible[j] ? v[c] : 0), 0) / n);
    const zero = results.scores[tr].every((x) => x === null || x === 0);
    sol2 = [
      h('p', {}, t('lesson.ex2.solution')),
      h(
        'p',
        {},
        rich(t, zero ? 'lesson.ex2.liveZero' : 'lesson.ex2.liveNotZero', {
          query: h('span', { translate: 'no' }, showToken(state.tokens.queries[tr])),
          n: String(n),
          w: f(1 / n),
          mean: num(vec(mean), 'lesson-ex2-mean', mean),
          weights: num(vec(results.weights[tr]), 'lesson-ex2-weights', results.weights[tr]),
          output: num(vec(out), 'lesson-ex2-output', out),
        }),
      ),
    ];
  }
  const try2 = qkv
    ? h(
        'button',
        {
          type: 'button',
          id: 'lesson-ex-2-try',
          class: 'lesson-try',
          onclick: () =>
            ctx.update((s) => {
              const Q = s.heads[s.head].Q;
              s.heads[s.head].Q = Q.map((row) => row.map(() => 0));
            }),
        },
        t('lesson.ex2.try'),
      )
    : null;

  // 3. deleting a low-weight token. The core's sensitivity analysis runs only while the solution
  // is open (it cost a third of the panel's start-up at 4x CPU, docs/performance.md "Loading").
  let sens = null;
  if (hd.V && state.mode !== 'x' && open.has(3)) {
    try {
      sens = ctx.lab({ ...state, lab: { view: 'sensitivity', params: {} } });
    } catch {
      sens = null;
    }
  }
  const sol3 = [h('p', {}, t('lesson.ex3.solution'))];
  if (sens && sens.supported && !sens.empty && sens.keys.length > 1) {
    const low = sens.keys.reduce((a, b) => (b.weight < a.weight ? b : a));
    // Keys that share the smallest weight (all of them when Q is zero): "the smallest" would be false.
    const tied = sens.keys.filter((k) => Math.abs(k.weight - low.weight) <= 1e-9 * Math.max(1, Math.abs(low.weight))).length;
    sol3.push(
      h(
        'p',
        {},
        rich(t, tied === sens.keys.length ? 'lesson.ex3.liveTieAll' : tied > 1 ? 'lesson.ex3.liveTie' : 'lesson.ex3.live', {
          n: num(String(tied), 'lesson-ex3-tied', tied),
          query: h('span', { translate: 'no' }, showToken(state.tokens.queries[tr])),
          key: h('span', { translate: 'no' }, showToken(state.tokens.keys[low.key])),
          weight: num(f(low.weight), 'lesson-ex3-weight', low.weight),
          shift: num(f(low.deletion), 'lesson-ex3-deletion', low.deletion),
          distance: num(f(low.distance), 'lesson-ex3-distance', low.distance),
        }),
      ),
    );
  }
  const try3 =
    hd.V && state.mode !== 'x'
      ? h(
          'button',
          {
            type: 'button',
            id: 'lesson-ex-3-try',
            class: 'lesson-try',
            onclick: () => {
              ctx.update(
                (s) => {
                  s.lab = { view: 'sensitivity', params: {} };
                },
                { kind: 'lab' },
              );
              showLab('sensitivity');
            },
          },
          t('lesson.ex3.try'),
        )
      : null;

  return h(
    'section',
    { id: 'lesson-exercises', class: 'lesson-exercises', 'aria-labelledby': 'lesson-ex-title' },
    h('h3', { id: 'lesson-ex-title' }, t('lesson.ex.title')),
    h(
      'ol',
      {},
      exercise(1, t, t('lesson.ex1.q'), sol1, try1, markButton(1, t, state, editLesson)),
      exercise(2, t, t('lesson.ex2.q'), sol2, try2, markButton(2, t, state, editLesson)),
      exercise(3, t, t('lesson.ex3.q'), sol3, try3, markButton(3, t, state, editLesson), () => ctx.rerender()),
    ),
  );
}
