// The import view's status: the error and warning boxes, the progress line and the file line.
// Each message is a function drawing it in the current language (or a list-valued function), so
// that a change of language redraws them from the same facts (redraw()).
import { h, mount } from '../views/dom.js';
import { t } from '../i18n/i18n.js';

/** @param {(id: string) => HTMLElement} $ */
export function createStatus($) {
  // By origin, so that a new analysis does not wipe a token-file error and fixing the tokens
  // clears exactly their message.
  const messages = { file: [], tokens: [], layers: [], analysis: [], warnings: [], notes: [] };
  const items = (k) => (typeof messages[k] === 'function' ? messages[k]() : messages[k]);
  const draw = (m) => h('p', {}, typeof m === 'function' ? m() : m);
  function showMessages() {
    const errors = [...items('file'), ...items('tokens'), ...items('layers'), ...items('analysis')];
    const box = $('import-errors');
    box.hidden = !errors.length;
    mount(box, errors.map(draw));
    const warnings = items('warnings');
    const warn = $('import-warnings');
    warn.hidden = !warnings.length;
    mount(warn, warnings.map(draw));
    // What the checks found by themselves (the structure, mask fills): said, not warned.
    const notes = items('notes');
    const box2 = $('import-notes');
    if (box2) {
      box2.hidden = !notes.length;
      mount(box2, notes.map(draw));
    }
  }
  function setMessages(kind, list) {
    messages[kind] = list;
    showMessages();
  }
  /** An error's text: the importer's own message translated, else the core's English detail
   *  (translate="no"). */
  // The status line (progress) and the file line (info) as functions too.
  let progressText = () => '';
  let infoText = () => '';
  function showProgressText(fn) {
    progressText = fn;
    $('import-progress-text').textContent = fn();
  }
  function showInfo(fn) {
    infoText = fn ?? (() => '');
    mount($('import-info'), infoText());
  }
  function setProgress(done, total) {
    const p = $('import-progress');
    p.hidden = total === 0;
    $('import-progress-bar').max = Math.max(1, total);
    $('import-progress-bar').value = done;
    showProgressText(() => (done < total ? t('import.progress.running', { n: done + 1, total }) : t('import.progress.done', { total })));
  }

  function redraw() {
    showMessages();
    if (!$('import-progress').hidden) $('import-progress-text').textContent = progressText();
    mount($('import-info'), infoText());
  }

  return { messages, showMessages, setMessages, showProgressText, showInfo, setProgress, progressText: () => progressText, redraw };
}
