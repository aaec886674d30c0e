// "Share for class": a <dialog> where a teacher chooses the page options of a link (embed mode,
// read-only, language, which controls to hide), sees a scaled-down live preview, and copies the
// link, an <iframe> snippet (with a few lines that size the iframe from the page's height
// messages) or the <attention-playground> element (web/embed.js; the snippets are snippets.js).
// docs/embedding.md.
import { h, mount } from '../views/dom.js';
import { HIDE_GROUPS, READ_ONLY_LOCKS, stripPageOptions, withPageOptions } from './page-options.js';
import { decodeLink, encodeLink } from '../codec/link.js';
import { LESSON_PRESETS } from '../presets/presets.js';
import { HEIGHT_MESSAGE, canFrame, readHeightMessage, servedOverHttp } from '../embed/frame-messages.js';
import { LANGS, LANG_NAMES, applyStatic, getLang, onLangChange, t } from '../i18n/i18n.js';
import { elementSnippet, iframeSnippet } from './snippets.js';

/**
 * Builds the dialog (appended to <body>) and wires the opener button.
 * @param {{opener: HTMLElement, link: (options: object) => string, options: () => object}} o
 *   link(options): the absolute link of the current state with these page options (throws when
 *   the state is too large for a link); options(): the page's current options
 * @returns {{open: () => void, dialog: HTMLDialogElement}}
 */
export function initShareDialog({ opener, link, options }) {
  const dialog = h('dialog', {
    id: 'share-dialog',
    class: 'share-dialog',
    'aria-labelledby': 'share-title',
    'aria-describedby': 'share-intro',
  });
  document.body.append(dialog);
  let choice = null; // {embed, readonly, teacher, lang, hide: Set}
  let previewTimer = 0;
  let previewHeight = 0;
  const PREVIEW_WIDTH = 1000; // CSS px of the page inside the preview, before scaling

  const field = (name) => dialog.querySelector(`[data-field="${name}"]`);

  /** The lesson part of the link's state (null without a lesson). */
  function lessonOf(url) {
    try {
      return decodeLink(stripPageOptions(url.split('#')[1] ?? '')).lesson ?? null;
    } catch {
      return null;
    }
  }

  /**
   * The link students get: with "start fresh" (the default while a lesson runs) the lesson from
   * step 1 on worked example 1 with nothing answered, so the teacher's own predictions, reveals
   * and step stay out of it; else the current state as it is.
   */
  function classLink(chosen) {
    const url = link(chosen);
    if (!choice.fresh || !lessonOf(url)) return url;
    return `${url.split('#')[0]}#${withPageOptions(encodeLink(LESSON_PRESETS.lessonGuided.make()), chosen)}`;
  }

  /** What the link carries of the lesson: step 1 fresh, or the teacher's step and answers. */
  function lessonNote(url) {
    const lesson = url ? lessonOf(link(chosenOptions())) : null;
    if (!lesson) return h('p', { id: 'share-lesson-note', class: 'note', hidden: true });
    const text = choice.fresh
      ? t('embed.lessonFreshNote')
      : t('embed.lessonAsIsNote', {
          n: lesson.step,
          p: Object.keys(lesson.predictions ?? {}).length,
          r: (lesson.revealed ?? []).length,
        });
    return h('p', { id: 'share-lesson-note', class: 'note' }, text);
  }

  function chosenOptions() {
    const base = options();
    return {
      ...base,
      lang: choice.lang,
      embed: choice.embed,
      readonly: choice.readonly,
      teacher: choice.embed && choice.teacher,
      hide: [...Object.values(HIDE_GROUPS).flat()].filter((n) => choice.hide.has(n)),
      frame: null,
      origin: [],
    };
  }

  /**
   * What a read-only link locks and keeps (READ_ONLY_LOCKS), shown under its checkbox; with the
   * lesson panel shown, it says the lesson stays usable (its own moves are not locked).
   */
  function readOnlyNote() {
    const lesson = !choice.hide.has('lesson');
    return h(
      'div',
      { id: 'share-readonly-note', class: 'note share-readonly-note', hidden: !choice.readonly },
      h('p', {}, t('embed.locks'), READ_ONLY_LOCKS.locks.map((k) => t(`embed.locks.${k}`)).join(t('embed.listSep')), t('embed.end')),
      h(
        'p',
        {},
        t('embed.keeps'),
        READ_ONLY_LOCKS.keeps
          .filter((k) => lesson || k !== 'lesson')
          .map((k) => t(`embed.keeps.${k}`))
          .join(t('embed.listSep')),
        t('embed.end'),
      ),
      lesson ? h('p', {}, t('embed.keepsLessonWhy')) : null,
    );
  }

  function build() {
    const checkbox = (key, checked, label, onchange) =>
      h('label', { class: 'check' }, h('input', { type: 'checkbox', dataset: { field: key }, checked, onchange }), ' ', label);
    const output = (key, labelKey, copyKey, noteKey) =>
      h(
        'div',
        { class: 'share-output' },
        h(
          'div',
          { class: 'share-output-head' },
          h('label', { for: `share-${key}` }, t(labelKey)),
          h('button', { type: 'button', id: `share-copy-${key}`, onclick: () => copy(key) }, t(copyKey)),
          h('span', { class: 'status', id: `share-status-${key}`, role: 'status', 'aria-live': 'polite' }),
        ),
        h('textarea', {
          id: `share-${key}`,
          class: 'share-text',
          readonly: true,
          rows: key === 'link' ? 3 : 6,
          spellcheck: 'false',
          translate: 'no',
          dataset: { field: key },
        }),
        noteKey ? h('p', { class: 'note' }, t(noteKey)) : null,
      );
    mount(
      dialog,
      h(
        'div',
        { class: 'share-head' },
        h('h2', { id: 'share-title' }, t('embed.dialogTitle')),
        h(
          'button',
          { type: 'button', class: 'share-close', 'aria-label': t('embed.close'), title: t('embed.close'), onclick: () => dialog.close() },
          '×',
        ),
      ),
      h('p', { id: 'share-intro', class: 'note share-intro' }, t('embed.dialogIntro')),
      h(
        'div',
        { class: 'share-body' },
        h(
          'div',
          { class: 'share-options' },
          h(
            'fieldset',
            {},
            h('legend', {}, t('embed.presentation')),
            checkbox('embed', choice.embed, t('embed.embedLabel'), (ev) => {
              choice.embed = ev.target.checked;
              refresh();
            }),
            checkbox('teacher', choice.teacher, t('embed.teacherLabel'), (ev) => {
              choice.teacher = ev.target.checked;
              refresh();
            }),
            checkbox('readonly', choice.readonly, t('embed.readonlyLabel'), (ev) => {
              choice.readonly = ev.target.checked;
              refresh();
            }),
            readOnlyNote(),
            checkbox('fresh', choice.fresh, t('embed.lessonFreshLabel'), (ev) => {
              choice.fresh = ev.target.checked;
              refresh();
            }),
            h('p', { id: 'share-lesson-note', class: 'note', hidden: true }),
            h(
              'label',
              { class: 'inline' },
              t('embed.langLabel'),
              ' ',
              h(
                'select',
                {
                  dataset: { field: 'lang' },
                  onchange: (ev) => {
                    choice.lang = ev.target.value;
                    refresh();
                  },
                },
                LANGS.map((lang) => h('option', { value: lang, selected: lang === choice.lang, lang }, LANG_NAMES[lang])),
              ),
            ),
          ),
          h(
            'fieldset',
            { class: 'share-hide' },
            h('legend', {}, t('embed.hideLegend')),
            Object.entries(HIDE_GROUPS).map(([group, names]) =>
              h(
                'fieldset',
                { class: 'share-group' },
                h('legend', {}, t(`embed.group.${group}`)),
                names.map((name) =>
                  checkbox(`hide-${name}`, choice.hide.has(name), t(`embed.hide.${name}`), (ev) => {
                    if (ev.target.checked) choice.hide.add(name);
                    else choice.hide.delete(name);
                    refresh();
                  }),
                ),
              ),
            ),
          ),
        ),
        // The one-file page cannot frame itself (frame-src 'none'): a note instead of the preview.
        canFrame()
          ? preview()
          : h(
              'div',
              { class: 'share-preview' },
              h('h3', {}, t('embed.preview')),
              h('p', { class: 'note', id: 'share-no-preview' }, t('embed.noPreview')),
            ),
      ),
      h('p', { class: 'error', id: 'share-error', role: 'alert', hidden: true }),
      // Opened from a file: the snippets name that file, which no course page can load.
      servedOverHttp() ? null : h('p', { class: 'warning', id: 'share-not-served', role: 'note' }, t('embed.notServed')),
      h(
        'div',
        { class: 'share-outputs' },
        output('link', 'embed.linkLabel', 'embed.copyLink'),
        output('snippet', 'embed.snippetLabel', 'embed.copySnippet', 'embed.snippetNote'),
        output('element', 'embed.elementLabel', 'embed.copyElement', 'embed.elementNote'),
      ),
    );
    applyStatic(dialog);
  }

  /** The preview: the shared page itself, scaled down in a frame (reloaded as the choices change). */
  function preview() {
    return h(
      'div',
      { class: 'share-preview' },
      h('h3', {}, t('embed.preview')),
      // Focusable: the preview scrolls, and a keyboard user must be able to scroll it (WCAG 2.1.1).
      h(
        'div',
        { class: 'share-preview-box', tabindex: '0', role: 'group', 'aria-label': t('embed.preview') },
        h(
          'div',
          { class: 'share-preview-inner' },
          h('iframe', {
            id: 'share-preview-frame',
            title: t('embed.previewTitle'),
            tabindex: '-1',
            inert: true,
            style: { width: `${PREVIEW_WIDTH}px` },
          }),
        ),
      ),
      h('p', { class: 'note' }, t('embed.previewNote')),
    );
  }

  /** Recomputes the three texts (at once) and the preview (debounced: it reloads the frame's hash). */
  function refresh({ previewNow = false } = {}) {
    const error = dialog.querySelector('#share-error');
    const chosen = chosenOptions();
    dialog.querySelector('#share-readonly-note')?.replaceWith(readOnlyNote());
    const teacher = field('teacher');
    if (teacher) teacher.disabled = !choice.embed; // the full page always shows the teacher tools
    let url;
    try {
      url = classLink(chosen);
      error.hidden = true;
    } catch (e) {
      error.textContent = t('embed.tooLarge', { message: e.message });
      error.hidden = false;
      for (const key of ['link', 'snippet', 'element']) {
        field(key).value = '';
        dialog.querySelector(`#share-copy-${key}`).disabled = true;
      }
      return;
    }
    const hasLesson = Boolean(lessonOf(link(chosen)));
    field('fresh').closest('label').hidden = !hasLesson;
    dialog.querySelector('#share-lesson-note').replaceWith(lessonNote(url));
    for (const key of ['link', 'snippet', 'element']) dialog.querySelector(`#share-copy-${key}`).disabled = false;
    field('link').value = url;
    field('snippet').value = iframeSnippet(url, { title: t('embed.frameTitle', {}, chosen.lang) });
    field('element').value = elementSnippet(new URL('embed.js', url).href, url.split('#')[1] ?? '', chosen, {
      href: url,
      text: t('embed.elementFallback', {}, chosen.lang),
    });
    for (const key of ['link', 'snippet', 'element']) dialog.querySelector(`#share-status-${key}`).textContent = '';
    clearTimeout(previewTimer);
    const frame = dialog.querySelector('#share-preview-frame');
    if (!frame) return; // no preview on the one-file page
    const load = () => {
      if (frame.src !== url) frame.src = url;
    };
    if (previewNow) load();
    else previewTimer = setTimeout(load, 250);
  }

  async function copy(key) {
    const text = field(key).value;
    const status = dialog.querySelector(`#share-status-${key}`);
    try {
      await navigator.clipboard.writeText(text);
      status.textContent = t('embed.copied', { n: text.length });
    } catch {
      field(key).focus();
      field(key).select();
      status.textContent = t('embed.copyByHand');
    }
  }

  /** The preview page reports its height like any embedded page: size the scaled box to it. */
  function sizePreview() {
    const frame = dialog.querySelector('#share-preview-frame');
    const box = dialog.querySelector('.share-preview-box');
    const inner = dialog.querySelector('.share-preview-inner');
    if (!frame || !box) return;
    const scale = Math.min(1, box.clientWidth / PREVIEW_WIDTH) || 0.45;
    const height = previewHeight || 900;
    frame.style.height = `${height}px`;
    frame.style.transform = `scale(${scale})`;
    inner.style.height = `${Math.ceil(height * scale)}px`;
  }
  window.addEventListener('message', (ev) => {
    const frame = dialog.querySelector('#share-preview-frame');
    if (!frame?.src || ev.source !== frame.contentWindow) return;
    const message = ev.origin === new URL(frame.src).origin ? readHeightMessage(ev.data) : null;
    if (!message) {
      if (ev.data?.type === HEIGHT_MESSAGE)
        console.warn('Attention Playground: message ignored (not a height message from the preview)', ev.origin, ev.data);
      return;
    }
    previewHeight = message.height;
    sizePreview();
  });

  function open() {
    const current = options();
    choice ??= {
      embed: true,
      readonly: current.readonly,
      teacher: Boolean(current.teacher),
      lang: current.lang ?? getLang(),
      hide: new Set(current.hide),
      fresh: true, // students start the lesson at step 1 with nothing answered
    };
    build();
    dialog.showModal();
    sizePreview();
    refresh({ previewNow: true });
    dialog.querySelector('[data-field="embed"]').focus();
  }

  // Escape closes a modal <dialog> by itself; focus goes back to the button that opened it.
  dialog.addEventListener('close', () => {
    clearTimeout(previewTimer);
    opener.focus();
  });
  // A click on the backdrop (outside the dialog's box) closes it too.
  dialog.addEventListener('click', (ev) => {
    if (ev.target !== dialog) return;
    const r = dialog.getBoundingClientRect();
    if (ev.clientX < r.left || ev.clientX > r.right || ev.clientY < r.top || ev.clientY > r.bottom) dialog.close();
  });
  onLangChange(() => {
    if (!choice) return;
    const focused = document.activeElement?.dataset?.field;
    build();
    if (dialog.open) {
      sizePreview();
      refresh({ previewNow: true });
      if (focused) field(focused)?.focus();
    }
  });
  window.addEventListener('resize', () => {
    if (dialog.open) sizePreview();
  });
  opener.addEventListener('click', open);
  return { open, dialog };
}
