// Errors on the page: each goes to the slot next to the control that caused it (by the field the
// validator or the core names), else to the banner under the header. The messages on screen are
// kept as functions that word them (store.js shownErrors), so a language change re-words them.
import { h, mount } from '../views/dom.js';
import { wordDetail } from './details.js';
import { t } from '../i18n/i18n.js';
import { shownErrors, state } from './store.js';

const $ = (id) => document.getElementById(id);
const ERROR_SLOTS = ['mode-error', 'tau-error', 'scale-error', 'mask-error', 'row-error'];

function slotFor(field = '') {
  if (field === 'tau') return 'tau-error';
  if (field === 'scale') return 'scale-error';
  if (field.startsWith('mask')) return 'mask-error';
  if (field === 'row' || field === 'topK' || field === 'head') return 'row-error';
  if (field === 'mode') return 'mode-error';
  if (field === 'scores') return state?.mode === 'x' ? 'edit-X-error' : 'edit-Q-error'; // Q K^T overflows
  if (field === 'x.X') return 'edit-X-error';
  if (field === 'x' || field.startsWith('x.') || field === 'heads') return 'x-error';
  if (/^heads\[\d+\]\.gate/.test(field)) return 'gate-error';
  const w = /^heads\[(\d+)\]\.(WQ|WK|WV)/.exec(field);
  if (w) return `edit-h${w[1]}-${w[2]}-error`;
  if (state?.mode === 'x' && /^(Q|K|V)$/.test(field)) return 'x-error'; // a derived matrix
  const m = /^heads\[\d+\]\.(Q|K|V|logits|weights)/.exec(field) ?? /^(Q|K|V|logits|weights)$/.exec(field);
  if (m) return `edit-${m[1]}-error`;
  return null;
}

/**
 * @param {string} field
 * @param {string|Array|(() => (string|Array))} message  a string, nodes (a sentence with
 *   technical detail in translate="no"), or a function giving either in the current language
 */
export function showError(field, message) {
  const id = slotFor(field);
  const el = id && $(id);
  const word = typeof message === 'function' ? message : () => message;
  if (el) {
    el.hidden = false;
    mount(el, word());
    shownErrors.set(id, word);
  } else {
    showBanner(word);
  }
}

export function clearErrors() {
  shownErrors.clear();
  // Only slots that show something are written: this runs on every change (a tau slider step),
  // and writing an empty hidden slot still costs a DOM mutation and a style recalculation.
  const clear = (el) => {
    if (!el) return;
    if (!el.hidden) el.hidden = true;
    if (el.firstChild) el.textContent = '';
  };
  for (const id of ERROR_SLOTS) clear($(id));
  document.querySelectorAll('#editors .error').forEach(clear);
  // The control boxes show the state again (syncControls), so none stays marked as refused.
  document.querySelectorAll('#editors input.invalid, .controls input.invalid').forEach((el) => el.classList.remove('invalid'));
}

/** After a language change: the errors on screen (the banner too) in the new language. */
export function rewordErrors() {
  for (const [id, word] of shownErrors) {
    const el = $(id);
    if (el && !el.hidden) mount(el, word());
  }
  if (banner && !$('banner').hidden) drawBanner();
}

// The banner's message as a function that words it, like the slots' (a link refused at start-up
// stays on screen across edits, and a language change must re-word it).
let banner = null;

/**
 * @param {string|Array|(() => (string|Array))} message  as showError's
 * @param {'error'|'warning'} [kind]
 */
export function showBanner(message, kind = 'error') {
  banner = { word: typeof message === 'function' ? message : () => message, kind };
  drawBanner();
}

function drawBanner() {
  const b = $('banner');
  b.className = `banner ${banner.kind}`;
  mount(
    b,
    h('span', {}, banner.word()),
    h(
      'button',
      {
        type: 'button',
        class: 'small',
        onclick: () => {
          b.hidden = true;
        },
      },
      t('app.dismiss'),
    ),
  );
  b.hidden = false;
}

/**
 * A message of the validator, the core or the link codec after a sentence in the page's language:
 * worded in that language when it is a known form (page/details.js), else as English technical
 * detail (translate="no"). Call it when the message is drawn (inside a word function), so that a
 * language change re-words it.
 */
export function rejected(detail, key = 'app.err.rejected') {
  return [t(key), wordDetail(detail)];
}
