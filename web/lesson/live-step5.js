// Step 5's live part (web/lesson/live.js): the link with its Copy button, the link opened in a
// frame below the step or in a new tab, and what the opened page reports back (whether it
// reproduces this state). Owns the frame, kept outside the part of the panel that is rebuilt.
import { t } from '../i18n/i18n.js';
import { canFrame } from '../embed/frame-messages.js';
import { h } from '../views/dom.js';
import { statesEqual } from '../core/state-schema.js';
import { encodeLink } from '../codec/link.js';
import { answerStep5 } from './steps.js';

// The message a page opened from step 5's link sends back to the page that opened it (same
// origin only): its own state's link, so the opener can confirm it reproduces the state.
const OPENED_MESSAGE = 'attention-playground:lesson-opened';

/**
 * @param {object} ctx the panel's context (web/lesson/live.js createLive)
 * @returns {{live: (s, r) => Node[], announceOpened: (s) => void, frameSlot: () => Node,
 *   syncFrame: (s) => Node}}
 */
export function createStep5(ctx) {
  const { container } = ctx;
  const state = () => ctx.getState();

  function live(s, r) {
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
    announceOpened,
    frameSlot: () => frameSlot,
    syncFrame,
  };
}
