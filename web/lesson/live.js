// The live part of each lesson step (web/lesson/panel.js): what the student acts on. Step 1 the
// key plane (web/lesson/plane.js) and the table of scores and weights, step 2 the temperature
// buttons and the row's entropy and sums, step 3 the causal mask, step 4 the value editor and the
// row's output, step 5 the link with its Copy button. Owns the plane (kept across rebuilds of the
// panel while its step and key count stay) and the value chosen in step 4.
import { t } from '../i18n/i18n.js';
import { canFrame } from '../embed/frame-messages.js';
import { h } from '../views/dom.js';
import { createPlane } from './plane.js';
import { rich } from './rich.js';
import { GRID_MAX, example2Facts, fitLesson, setupState } from './steps.js';
import { LESSON_PRESETS } from '../presets/presets.js';
import { statesEqual } from '../core/state-schema.js';
import { encodeLink } from '../codec/link.js';
import { answerStep5 } from './steps.js';
import { data, exactLogit, f, fraction, qk, qtok, sp, subscript, tok, vec } from './format.js';

/** True in a read-only link (web/page/page-options.js sets the class): the page's own controls are locked. */
export const readOnly = () => document.documentElement.classList.contains('ap-readonly');

// The message a page opened from step 5's link sends back to the page that opened it (same
// origin only): its own state's link, so the opener can confirm it reproduces the state.
const OPENED_MESSAGE = 'attention-playground:lesson-opened';

/**
 * @param {object} ctx the panel's context (initLesson): getState, getResults, update, shareUrl,
 *   container
 * @returns {{live: (n, s, r, ref) => Node[], step1Table: (s, r, ref) => Node,
 *   plane: () => object|null, dropPlane: () => void}}
 */
export function createLive(ctx) {
  const { container } = ctx;
  let plane = null;
  let planeKey = '';
  const state = () => ctx.getState();
  const results = () => ctx.getResults();

  function moveKey(j, at, { final }) {
    ctx.update(
      (s) => {
        s.heads[s.head].K[j] = at;
      },
      { kind: final ? 'lesson-key' : 'lesson-drag', report: false },
    );
    if (final && plane) plane.announce(state(), results(), j);
  }

  function homeKey(j) {
    const start = setupState(1).heads[0].K[j];
    if (start) moveKey(j, [...start], { final: true });
  }

  function step1Live(s, r, ref) {
    const hd = s.heads[s.head];
    const ok = s.mode === 'qkv' && hd.Q[0].length === 2 && hd.K.length <= GRID_MAX;
    const parts = [];
    if (ok) {
      const key = `${s.lesson.step}|${hd.K.length}`;
      if (!plane || planeKey !== key) {
        plane = createPlane({ onMove: moveKey, onHome: homeKey, t });
        planeKey = key;
      }
      plane.update(s, r);
      parts.push(plane.el, h('p', { class: 'note' }, t('lesson.plane.help')));
    } else {
      parts.push(h('p', { class: 'note' }, t('lesson.plane.unavailable')));
    }
    if (s.mode === 'qkv') parts.push(step1Table(s, r, ref));
    if (s.mode === 'qkv' && hd.V?.length === 2) {
      // Worked example 1: swapping v1 and v2 moves the output, not the weights.
      parts.push(
        valueSwapBox(s, r, {
          id: 'lesson-s1-swap',
          title: 'lesson.s1.swapTitle',
          button: 'lesson.s1.swap',
          note: 'lesson.s1.swapNote',
          swap: (V) => [V[1], V[0]],
        }),
      );
    }
    return parts;
  }

  /**
   * A box that compares the row now with the row after a change of the values only (the core
   * computes both): weights equal, output moved. Its button makes the change.
   */
  function valueSwapBox(s, r, { id, title, button, note, swap }) {
    const tr = s.row;
    const other = structuredClone(s);
    delete other.lesson;
    other.heads[other.head].V = swap(structuredClone(s.heads[s.head].V));
    let alt = null;
    try {
      alt = ctx.compute(other);
    } catch {
      alt = null;
    }
    const sameWeights = alt ? statesEqual(alt.weights[tr], r.weights[tr]) : null;
    return h(
      'div',
      { class: 'lesson-box', id },
      h('h4', {}, t(title)),
      h(
        'button',
        {
          type: 'button',
          id: `${id}-do`,
          class: 'lesson-main',
          onclick: () =>
            ctx.update((x) => {
              x.heads[x.head].V = swap(x.heads[x.head].V);
            }),
        },
        t(button),
      ),
      alt
        ? h(
            'dl',
            { class: 'lesson-facts' },
            h('dt', {}, rich(t, 'lesson.swap.weightsNow', { query: qk(s, tr) })),
            h('dd', {}, data(vec(r.weights[tr]), { id: `${id}-weights`, dataset: { value: JSON.stringify(r.weights[tr]) } })),
            h('dt', {}, t('lesson.swap.weightsAfter')),
            h('dd', {}, data(vec(alt.weights[tr]), { id: `${id}-weights-after` }), sp(), sameWeights ? t('lesson.swap.same') : ''),
            h('dt', {}, rich(t, 'lesson.swap.outputNow', { query: qk(s, tr) })),
            h('dd', {}, data(vec(r.output[tr]), { id: `${id}-output`, dataset: { value: JSON.stringify(r.output[tr]) } })),
            h('dt', {}, t('lesson.swap.outputAfter')),
            h('dd', {}, data(vec(alt.output[tr]), { id: `${id}-output-after`, dataset: { value: JSON.stringify(alt.output[tr]) } })),
          )
        : null,
      h('p', { class: 'note' }, t(note)),
    );
  }

  /** The causal grid beside step 3: every weight of the head, zero cells marked (from the results). */
  function weightGrid(s, r) {
    const nQ = r.weights.length;
    const nK = r.weights[0].length;
    if (nQ > GRID_MAX || nK > GRID_MAX) return null;
    return h(
      'table',
      { class: 'lesson-table lesson-weight-grid', id: 'lesson-s3-grid' },
      h('caption', {}, t('lesson.s3.gridCaption')),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('td', {}),
          s.tokens.keys.map((_, j) => h('th', { scope: 'col', translate: 'no' }, tok(s, j))),
        ),
      ),
      h(
        'tbody',
        {},
        r.weights.map((row, i) =>
          h(
            'tr',
            { class: i === s.row ? 'selected' : null },
            h('th', { scope: 'row', translate: 'no' }, qtok(s, i)),
            row.map((w, j) =>
              // A masked cell as in the heatmaps: ×, its weight 0 in its accessible name.
              r.visible[i][j]
                ? h('td', { dataset: { value: String(w) } }, f(w))
                : h('td', { class: 'masked', dataset: { value: String(w) }, 'aria-label': t('lesson.s3.maskedCell') }, '×'),
            ),
          ),
        ),
      ),
    );
  }

  /** Worked example 2 (seed "例题二"): its exact logits, A, the outputs and both take-aways. */
  function example2Box(s, r) {
    const facts = example2Facts(s, r);
    const load = h(
      'button',
      {
        type: 'button',
        id: 'lesson-ex2-load',
        class: 'lesson-main',
        onclick: () => {
          const next = LESSON_PRESETS.example2.make();
          next.lesson = fitLesson(s.lesson, s, next);
          ctx.commit(next, { structural: true });
        },
      },
      t('lesson.e2.load'),
    );
    if (!facts)
      return h('div', { class: 'lesson-box', id: 'lesson-e2' }, h('h4', {}, t('lesson.e2.title')), h('p', {}, t('lesson.e2.intro')), load);
    const hd = s.heads[s.head];
    const matrix = (rows, fmt, id) =>
      h(
        'table',
        { class: 'lesson-table lesson-matrix', id },
        h(
          'tbody',
          {},
          rows.map((row) =>
            h(
              'tr',
              {},
              row.map((x) => h('td', { translate: 'no', dataset: { value: String(x) } }, fmt(x))),
            ),
          ),
        ),
      );
    const outputs = facts.rows.map((x) => x.output);
    return h(
      'div',
      { class: 'lesson-box', id: 'lesson-e2' },
      h('h4', {}, t('lesson.e2.title')),
      h('p', {}, t('lesson.e2.logits')),
      matrix(hd.logits, exactLogit, 'lesson-e2-logits'),
      h('p', {}, t('lesson.e2.weights')),
      matrix(
        facts.rows.map((x) => x.weights),
        fraction,
        'lesson-e2-weights',
      ),
      h(
        'p',
        {},
        rich(t, 'lesson.e2.outputs', {
          v: data(vec(hd.V.map((v) => v[0])), { id: 'lesson-e2-values' }),
          o: data(outputs.map((x) => f(x)).join(t('lesson.listSep')), {
            id: 'lesson-e2-outputs',
            dataset: { value: JSON.stringify(outputs) },
          }),
        }),
      ),
      h(
        'p',
        { id: 'lesson-e2-same', dataset: { ok: String(facts.same23 && facts.differ23) } },
        facts.same23 && facts.differ23 ? t('lesson.e2.same23') : t('lesson.e2.notSame23'),
      ),
      h(
        'p',
        { id: 'lesson-e2-row1', dataset: { value: String(outputs[0]) } },
        rich(t, 'lesson.e2.row1', { o: data(f(outputs[0])), v1: data(f(hd.V[0][0])) }),
      ),
      h(
        'button',
        {
          type: 'button',
          id: 'lesson-e2-future',
          onclick: () =>
            ctx.update((x) => {
              const V = x.heads[x.head].V;
              V[1][0] += 10;
              V[2][0] += 10;
            }),
        },
        t('lesson.e2.future'),
      ),
      // Undo is locked in a read-only link: only the button brings the values back there.
      h('p', { class: 'note', id: 'lesson-e2-back' }, t(readOnly() ? 'lesson.e2.backReadonly' : 'lesson.e2.back')),
      load,
    );
  }

  function step1Table(s, r, ref) {
    const tr = s.row;
    return h(
      'div',
      { id: 'lesson-s1-readout' },
      h(
        'table',
        { id: 'lesson-s1-table', class: 'lesson-table' },
        h('caption', {}, rich(t, 'lesson.s1.tableCaption', { query: qk(s, tr) })),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            h('th', { scope: 'col' }, t('lesson.col.key')),
            h('th', { scope: 'col' }, 'kⱼ'),
            h('th', { scope: 'col' }, t('lesson.col.score')),
            h('th', { scope: 'col' }, t('lesson.col.weight')),
          ),
        ),
        h(
          'tbody',
          {},
          s.heads[s.head].K.map((k, j) =>
            h(
              'tr',
              {},
              h('th', { scope: 'row', translate: 'no' }, tok(s, j)),
              h('td', {}, data(vec(k))),
              h(
                'td',
                {},
                data(ref ? `${f(ref.scores[tr][j])} → ${f(r.scores[tr][j])}` : f(r.scores[tr][j]), {
                  id: `lesson-s1-score-${j}`,
                  dataset: { value: String(r.scores[tr][j]) },
                }),
              ),
              h(
                'td',
                {},
                data(ref ? `${f(ref.weights[tr][j])} → ${f(r.weights[tr][j])}` : f(r.weights[tr][j]), {
                  id: `lesson-s1-weight-${j}`,
                  dataset: { value: String(r.weights[tr][j]) },
                }),
              ),
            ),
          ),
        ),
      ),
    );
  }

  function live(n, s, r, ref) {
    const tr = s.row;
    if (n === 1) return step1Live(s, r, ref);
    if (n === 2) {
      const setTau = (tau) =>
        ctx.update((x) => {
          x.tau = tau;
        });
      const setScale = (c) =>
        ctx.update((x) => {
          x.scale = c;
        });
      return [
        h(
          'div',
          { class: 'lesson-actions' },
          h('button', { type: 'button', id: 'lesson-s2-up', onclick: () => setTau(Math.min(1000, s.tau * 2)) }, t('lesson.s2.tauUp')),
          h('button', { type: 'button', id: 'lesson-s2-down', onclick: () => setTau(s.tau / 2) }, t('lesson.s2.tauDown')),
          // The scale half of the question, by the panel's own buttons (the page's scale control
          // is locked in a read-only link): c halved or doubled from the value in use (r.scale).
          h('button', { type: 'button', id: 'lesson-s2-scale-down', onclick: () => setScale(r.scale / 2) }, t('lesson.s2.scaleDown')),
          h('button', { type: 'button', id: 'lesson-s2-scale-up', onclick: () => setScale(r.scale * 2) }, t('lesson.s2.scaleUp')),
        ),
        h(
          'dl',
          { class: 'lesson-facts' },
          h('dt', {}, t('lesson.s2.tau')),
          h('dd', {}, data(String(s.tau), { id: 'lesson-s2-tau' })),
          h('dt', {}, t('lesson.s2.scale')),
          h('dd', {}, data(f(r.scale), { id: 'lesson-s2-scale' })),
          h('dt', {}, rich(t, 'lesson.s2.entropy', { query: qk(s, tr) })),
          h(
            'dd',
            {},
            data(ref ? `${f(ref.rows[tr].entropy)} → ${f(r.rows[tr].entropy)}` : f(r.rows[tr].entropy), {
              id: 'lesson-s2-entropy',
              dataset: { value: String(r.rows[tr].entropy) },
            }),
          ),
          h('dt', {}, t('lesson.s2.sums')),
          h('dd', {}, data(r.rows.map((m) => (m.empty ? '—' : f(m.rowSum))).join(', '), { id: 'lesson-s2-sums' })),
        ),
      ];
    }
    if (n === 3) {
      return [
        h(
          'label',
          { class: 'check' },
          h('input', {
            type: 'checkbox',
            id: 'lesson-s3-causal',
            checked: s.mask.causal,
            onchange: (ev) =>
              ctx.update((x) => {
                x.mask.causal = ev.target.checked;
              }),
          }),
          ` ${t('lesson.s3.causal')}`,
        ),
        h(
          'p',
          { class: 'note' },
          rich(t, 'lesson.s3.rowWeights', { query: qk(s, tr) }),
          sp(),
          data(vec(r.weights[tr]), { id: 'lesson-s3-weights' }),
        ),
        weightGrid(s, r),
        example2Box(s, r),
      ];
    }
    if (n === 4) {
      const hd = s.heads[s.head];
      if (!hd.V) return [h('p', { class: 'note' }, t('lesson.s4.noValues'))];
      if (chosenValue >= hd.V.length) chosenValue = 0;
      // Listeners through h(): the panel is patched in place, and the select on screen may be an
      // older element than this one.
      const sel = h(
        'select',
        {
          id: 'lesson-s4-key',
          value: String(chosenValue),
          onchange: (e) => {
            chosenValue = Number(e.currentTarget.value);
          },
        },
        hd.V.map((_, j) => h('option', { value: String(j), translate: 'no' }, `v${subscript(j + 1)} (${tok(s, j)})`)),
      );
      return [
        h(
          'div',
          { class: 'lesson-actions' },
          h('label', {}, `${t('lesson.s4.which')} `, sel),
          h(
            'button',
            {
              type: 'button',
              id: 'lesson-s4-change',
              onclick: () => {
                const j = chosenValue;
                ctx.update((x) => {
                  x.heads[x.head].V[j] = x.heads[x.head].V[j].map((v) => v + 1);
                });
              },
            },
            t('lesson.s4.change'),
          ),
        ),
        h(
          'dl',
          { class: 'lesson-facts' },
          h('dt', {}, rich(t, 'lesson.s4.scoresRow', { query: qk(s, tr) })),
          h('dd', {}, data(vec(r.scores[tr].map((x) => x ?? NaN)), { id: 'lesson-s4-scores' })),
          h('dt', {}, rich(t, 'lesson.s4.output', { query: qk(s, tr) })),
          h('dd', {}, data(ref ? `${vec(ref.output[tr])} → ${vec(r.output[tr])}` : vec(r.output[tr]), { id: 'lesson-s4-output' })),
        ),
        // The parameter experiment's third part: keep the weights, replace the values.
        hd.V.length > 1
          ? valueSwapBox(s, r, {
              id: 'lesson-s4-replace',
              title: 'lesson.s4.replaceTitle',
              button: 'lesson.s4.replace',
              note: 'lesson.s4.replaceNote',
              swap: (V) => [...V].reverse(),
            })
          : null,
      ];
    }
    // Step 5: the link.
    let link = '';
    try {
      link = ctx.shareUrl();
    } catch (e) {
      link = e.message;
    }
    return [
      h(
        'div',
        { class: 'lesson-actions' },
        h('button', { type: 'button', id: 'lesson-s5-copy', onclick: copyStepLink }, t('lesson.s5.copy')),
        h('span', { class: 'status', id: 'lesson-s5-status', role: 'status', 'aria-live': 'polite' }),
      ),
      h(
        'div',
        { class: 'lesson-actions' },
        // The one-file page cannot frame itself (its policy's frame-src 'none'): a new tab only.
        canFrame()
          ? h(
              'button',
              { type: 'button', id: 'lesson-s5-frame', class: 'lesson-main', onclick: () => openLink('frame') },
              t('lesson.s5.openFrame'),
            )
          : null,
        h('button', { type: 'button', id: 'lesson-s5-tab', class: 'lesson-main', onclick: () => openLink('tab') }, t('lesson.s5.openTab')),
      ),
      h('p', { class: 'status', id: 'lesson-s5-opened', role: 'status', 'aria-live': 'polite' }, openedText(s, r)),
      h(
        'label',
        { class: 'lesson-link' },
        t('lesson.s5.linkLabel'),
        h('input', {
          type: 'text',
          id: 'lesson-s5-link',
          readonly: true,
          value: link,
          translate: 'no',
          onfocus: (ev) => ev.target.select(),
        }),
      ),
    ];
  }

  let chosenValue = 1;

  /** The state without the lesson's recorded answers (its step kept): what an opened link shows. */
  function stateKey(s) {
    const c = structuredClone(s);
    if (c.lesson) c.lesson = { step: c.lesson.step };
    return JSON.stringify(c);
  }

  // The frame's holder: one element that the panel keeps outside the part it rebuilds (panel.js
  // render), so the <iframe> is never detached and attached again (that would reload the page in
  // it, whose report re-renders the panel: a reload every second or so).
  const frameSlot = h('div', { class: 'lesson-s5-slot', id: 'lesson-s5-slot' });

  /** Shows the opened frame below step 5 while it shows this state's link; else empties the slot. */
  function syncFrame(s) {
    const show = Boolean(openedFrame) && s?.lesson?.step === 5 && stateKey(s) === openedFor;
    if (show && openedFrame.parentNode !== frameSlot) frameSlot.replaceChildren(openedFrame);
    if (!show && frameSlot.firstChild) frameSlot.replaceChildren();
    frameSlot.hidden = !show;
    return frameSlot;
  }

  // Step 5: the link opened in a frame below the step or in a new tab; the opened page sends its
  // state back (OPENED_MESSAGE), and the step says whether it reproduces this one.
  let openedFrame = null; // the <iframe> showing the link, kept across rebuilds of the panel
  let openedFor = ''; // stateKey of the state whose link was opened (frame or tab)
  let opened = null; // {fragment, via} the last report of an opened page
  let announced = false;

  function openLink(via) {
    let link;
    try {
      link = ctx.shareUrl();
    } catch {
      return;
    }
    opened = null;
    openedFor = stateKey(state());
    if (via === 'tab') {
      openedWindow = window.open(link, '_blank');
    } else {
      openedFrame = h('iframe', { id: 'lesson-s5-iframe', class: 'lesson-s5-iframe', src: link, title: t('lesson.s5.frameTitle') });
    }
    ctx.rerender();
  }
  let openedWindow = null;

  window.addEventListener('message', (ev) => {
    if (ev.origin !== location.origin || ev.data?.type !== OPENED_MESSAGE || typeof ev.data.fragment !== 'string') return;
    const fromFrame = openedFrame && ev.source === openedFrame.contentWindow;
    const fromTab = openedWindow && ev.source === openedWindow;
    if (!fromFrame && !fromTab) return;
    opened = { fragment: ev.data.fragment, via: fromFrame ? 'frame' : 'tab' };
    ctx.rerender();
  });

  /** What the opened page reported: its own state read back and computed again, compared with this one. */
  function openedText(s, r) {
    if (!openedFrame && !openedWindow) return '';
    // The state changed since the link was opened (not only the answers recorded): the opened page
    // shows the older state, which says nothing about this one.
    if (stateKey(s) !== openedFor) return h('span', { id: 'lesson-s5-stale' }, t('lesson.s5.stale'));
    if (!opened) return t('lesson.s5.waiting');
    // The predictions and reveals recorded since the link was opened do not count (the step does).
    const read = (x) => {
      const d = ctx.core.decodeLink(x);
      if (d.lesson && s.lesson) d.lesson = { ...structuredClone(s.lesson), step: d.lesson.step };
      return d;
    };
    const a = answerStep5(s, r, opened.fragment, read, statesEqual, ctx.compute);
    const node = h(
      'span',
      { id: 'lesson-s5-confirm', dataset: { ok: String(a.answer === 'yes') } },
      a.error
        ? t('lesson.s5.error', { message: a.error })
        : t(a.answer === 'yes' ? 'lesson.s5.openedSame' : 'lesson.s5.openedDiffers', { via: t(`lesson.s5.via.${opened.via}`) }),
    );
    return node;
  }

  /**
   * A page opened from step 5's link (in a frame or a tab of the same origin) tells its opener
   * which state it shows. Cross-origin parents (a course page) are not told anything.
   */
  function announceOpened(s) {
    if (announced || s.lesson?.step !== 5) return;
    announced = true;
    for (const target of [window.opener, window.parent === window ? null : window.parent]) {
      if (!target) continue;
      try {
        if (target.location.origin !== location.origin) continue; // throws when cross-origin
      } catch {
        continue;
      }
      try {
        target.postMessage({ type: OPENED_MESSAGE, fragment: encodeLink(s) }, location.origin);
      } catch {
        /* closed */
      }
    }
  }

  /**
   * Step 5's Copy link: copies the link shown beside the button. Where the clipboard is refused
   * (an iframe whose course page does not allow clipboard-write, an insecure context) the link box
   * beside it is selected for Ctrl+C, so a keyboard user stays in the step; the page's header
   * button would move the focus to the top of the page (and may be hidden by share_hide=1).
   */
  async function copyStepLink() {
    const box = container.querySelector('#lesson-s5-link');
    const status = container.querySelector('#lesson-s5-status');
    if (!box || !status) return;
    const policy = document.permissionsPolicy ?? document.featurePolicy;
    try {
      // Asking while the permissions policy forbids it logs an error in Chromium: don't ask.
      if (policy?.allowsFeature && !policy.allowsFeature('clipboard-write')) throw new Error('clipboard-write not allowed');
      await navigator.clipboard.writeText(box.value);
      // No number of characters here: the answer quotes the link's length, once.
      status.textContent = t('lesson.s5.copied');
    } catch {
      box.focus();
      box.select();
      status.textContent = t('embed.copyByHand');
    }
  }

  return {
    live,
    step1Table,
    announceOpened,
    frameSlot: () => frameSlot,
    syncFrame,
    plane: () => plane,
    dropPlane: () => {
      plane = null;
    },
  };
}
