// The link: the address bar, the share URL and the page options it carries (web/page/page-options.js),
// and the loader options of the query string. This is the only module that touches the URL: a
// state comes in through loadFromHash (committed like any other change), and the current state
// goes out through writeHash / flushHash after each apply, and through shareUrl on demand.
import { StateError, statesEqual } from '../core/state-schema.js';
import { h, mount } from '../views/dom.js';
import { fmtBytes } from '../views/format.js';
import { embeddedOptions } from '../embed/embedded.js';
import { decodeLink as readLinkText, encodeLink } from '../codec/link.js';
import { applyPresentation, isPageOptionKey, readPageOptions, withPageOptions } from './page-options.js';
import { initShareDialog } from './share-dialog.js';
import { getLang, normaliseLang, setLang, t } from '../i18n/i18n.js';
import { PALETTE_IDS, setPalette } from '../views/palette.js';
import { fmtInt } from '../views/format.js';
import { commit, core, flushBoxes, importView, pageOptions, scheduleHash, setPageOptions, state } from './store.js';
import { rejected, showBanner } from './errors.js';
import { showView } from './exports.js';

const $ = (id) => document.getElementById(id);

/** Encodes the current state, or returns null (with a note) when it is too large for a link. */
function currentLink() {
  try {
    return encodeLink(state);
  } catch (e) {
    if (!(e instanceof StateError)) throw e;
    mount($('copy-status'), rejected(e.message, 'app.noLink'));
    return null;
  }
}

// Writing the address bar is slow in Chromium even for a few KB (replaceState: ~12 ms for the
// GPT-2 preset's 3.9 KB link, ~50 ms at 4x CPU, besides the encoding), so a burst of changes (a
// slider drag, a run of tau edits) writes it once, after the last one: 200 ms for a short link
// (the lesson's: ~400 characters), 1 s for a longer one, whose write would otherwise land in the
// middle of the next change. The page writes a pending link when it is left (pagehide); shareUrl()
// never waits.
const LONG_LINK_CHARS = 1024;
let lastLinkChars = 0;
export function writeHash() {
  scheduleHash(flushHash, lastLinkChars > LONG_LINK_CHARS ? 1000 : 200);
}

// Above this many matrix numbers the address bar stops following every change: encoding
// (deflate + base64) a multi-megabyte link took about a second per change. Copy link still builds
// the link on demand.
const ADDRESS_BAR_MAX_NUMBERS = 250_000;

function matrixNumbers(s) {
  let n = 0;
  for (const hd of s.heads) {
    for (const key of ['Q', 'K', 'V', 'logits', 'weights', 'WQ', 'WK', 'WV']) {
      const m = hd[key];
      if (m) n += m.length * (m[0]?.length ?? 0);
    }
    if (hd.gate) n += hd.gate.length;
  }
  for (const m of [s.x?.X, s.x?.WO]) if (m) n += m.length * (m[0]?.length ?? 0);
  return n;
}

// The fragment the page last read or wrote. A different one in the address bar is a link the
// reader just followed, whose hashchange event is still queued: a pending write must not overwrite
// it with the state it replaces (that left the followed link's options unread).
let ownFragment = null;

function replaceFragment(url) {
  try {
    // Resolved against the document's own address: a srcdoc frame's (the one-file page in a
    // notebook) base URL is its parent's, another origin.
    history.replaceState(null, '', new URL(url, location.href).href);
  } catch {
    /* an address that cannot be rewritten: the link is still given on demand */
  }
  ownFragment = location.hash;
}

/** Writes the state on screen to the address bar now (`force`: also over a link not yet read). */
export function flushHash({ force = false } = {}) {
  scheduleHash(null);
  if (!state) return;
  if (!force && ownFragment !== null && location.hash !== ownFragment) return;
  if (matrixNumbers(state) > ADDRESS_BAR_MAX_NUMBERS) {
    // No stale link of an earlier state in the address bar: a reload must not silently show
    // something else.
    if (location.hash) replaceFragment(location.pathname + location.search);
    $('copy-status').textContent = t('app.tooManyForBar', { n: fmtInt(matrixNumbers(state)) });
    return;
  }
  const link = currentLink();
  lastLinkChars = link?.length ?? 0;
  const full = link === null ? null : withPageOptions(link, pageOptions);
  if (full !== null && location.hash.slice(1) !== full) replaceFragment(`#${full}`);
  if (link === null && location.hash) replaceFragment(location.pathname + location.search);
  ownFragment = location.hash;
  if (pageOptions.embed && link !== null) updateFullPageLink(link);
}

/** The link to the current state; throws StateError when the state is too large for a link. */
export function shareUrl(options = pageOptions) {
  return `${location.href.split('#')[0]}#${withPageOptions(encodeLink(state), options)}`;
}

/** Loader options from the page's query string: ?core=scalar|simd, ?selftest=fail (testing). */
export function coreOptions() {
  const q = new URLSearchParams(location.search);
  const options = {};
  if (['scalar', 'simd', 'auto'].includes(q.get('core'))) options.variant = q.get('core');
  if (q.get('selftest') === 'fail') options.failSelfTest = true;
  return options;
}

/**
 * The language to start in: the link's (its fragment's lang=, else the query string's ?lang=, as
 * many sites write it), else the one chosen before, else the browser's. web/early.js reads the
 * same order before the page is painted.
 */
export function startLang(options) {
  if (options.lang) return options.lang;
  const query = normaliseLang(new URLSearchParams(location.search).get('lang') ?? '');
  if (query) return query;
  try {
    const saved = normaliseLang(localStorage.getItem('attention-playground.lang'));
    if (saved) return saved;
  } catch {
    /* storage may be blocked (sandboxed iframe) */
  }
  return normaliseLang(navigator.language) ?? 'en';
}

/** Takes the page options of a link fragment; refused options are reported in the banner. */
function applyPageOptions(fragment, { initial = false } = {}) {
  const { options, errors } = readPageOptions(fragment);
  const lang = initial ? startLang(options) : (options.lang ?? getLang());
  // The palette is a reader's preference: a link without one keeps the one chosen before.
  let palette = options.palette;
  if (!/(^|[#&])palette=/.test(fragment)) {
    try {
      palette = initial
        ? (PALETTE_IDS.find((id) => id === localStorage.getItem('attention-playground.palette')) ?? palette)
        : pageOptions.palette;
    } catch {
      /* blocked storage */
    }
  }
  setPageOptions({ ...options, lang, palette });
  setLang(lang); // also fills the static markup on the first call
  $('lang').value = getLang();
  presentPageOptions();
  const refused = errors.filter((e) => !e.cut);
  const cut = errors.find((e) => e.cut);
  if (errors.length) {
    showBanner(
      () =>
        [
          refused.length ? t('app.optionRefused', { list: refused.map((e) => `${e.key}=${e.value}`).join(', ') }) : '',
          cut ? t('app.optionCut', { part: cut.key }) : '',
        ]
          .filter(Boolean)
          .join(' '),
      'warning',
    );
  }
  return errors.length > 0;
}

/** Embed mode, read-only and hide flags on the page (classes on <html>, web/page/page-options.js). */
function presentPageOptions() {
  applyPresentation(document, pageOptions);
  $('palette').value = pageOptions.palette;
  setPalette(pageOptions.palette);
  $('readonly-badge').hidden = !pageOptions.readonly;
  if (!pageOptions.readonly && $('copy-status').textContent === t('embed.readOnlyRefused')) $('copy-status').textContent = '';
  const importGone = pageOptions.embed || pageOptions.hide.includes('import');
  if (importGone && document.body.dataset.view === 'import') showView('playground');
  updateFullPageLink();
}

/**
 * Embed mode's "Open in full page": the same state and options, without embed mode.
 * @param {string|null} link encodeLink(state) when the caller has it (flushHash), else encoded here
 */
function updateFullPageLink(link = null) {
  const a = $('open-full');
  if (!state) return;
  const base = location.href.split('#')[0];
  try {
    a.href = `${base}#${withPageOptions(link ?? encodeLink(state), { ...pageOptions, embed: false, frame: null, origin: [] })}`;
  } catch {
    a.href = base; // too large for a link: the page itself
  }
}

/** True when a fragment holds page options only ("#lang=zh-CN&embed=1"): no state to read. */
function onlyPageOptions(fragment) {
  return fragment.split('&').every((part) => part === '' || isPageOptionKey(decodeURIComponentSafe(part.split('=')[0])));
}

function decodeURIComponentSafe(text) {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Switches the interface language (the language control), remembered in the link and locally. */
export function chooseLang(lang) {
  setPageOptions({ ...pageOptions, lang });
  try {
    localStorage.setItem('attention-playground.lang', lang);
  } catch {
    /* blocked storage */
  }
  setLang(lang);
  flushHash({ force: true });
}

/** Switches the heatmaps' palette (the Palette select), remembered in the link and locally. */
export function choosePalette(id) {
  setPageOptions({ ...pageOptions, palette: id });
  try {
    localStorage.setItem('attention-playground.palette', id);
  } catch {
    /* blocked storage */
  }
  setPalette(id);
  flushHash({ force: true });
}

/** Takes the state of the link in the address bar; resolves to true when it was taken. */
export async function loadFromHash({ initial = false } = {}) {
  ownFragment = location.hash;
  // At start, an address without a fragment takes the page options the one-file page carries.
  const fragment = location.hash.slice(1) || (initial ? embeddedOptions() : '');
  const optionsRefused = applyPageOptions(fragment, { initial });
  if (!fragment || onlyPageOptions(fragment)) return false;
  const unreadable = (message) => {
    showBanner(() => [...rejected(message, 'app.linkUnreadable'), t(initial ? 'app.linkShowingDefault' : 'app.linkKeepingCurrent')]);
    if (state) flushHash({ force: true }); // the address bar shows the state on screen, not the rejected link
    return false;
  };
  let decoded;
  try {
    // With no state yet there is nothing to compare the link's with: the link is only read here,
    // and commit validates it, once (validating it here too cost ~20 ms at 4x CPU on a class link).
    decoded = state ? core.decodeLink(fragment) : readLinkText(fragment);
  } catch (e) {
    if (!(e instanceof StateError)) throw e;
    return unreadable(e.message);
  }
  if (state && statesEqual(state, decoded)) return true;
  let refused = null;
  const err = await commit(decoded, { structural: 'auto', fromHash: true, report: false, kind: 'link', refused: (e) => (refused = e) });
  // A state that is not of the schema is an unreadable link, as core.decodeLink says it; numbers the
  // core refuses, or a head beyond the page's limits (worded), a rejected one.
  if (err && refused instanceof StateError && !refused.worded) return unreadable(err);
  if (err) {
    showBanner(() => [...rejected(err, 'app.linkRejected'), t(initial ? 'app.linkShowingDefault' : 'app.linkKeepingCurrent')]);
    if (state) flushHash({ force: true });
    return false;
  }
  // An earlier complaint about a link no longer applies (but this link's refused options do).
  if (!optionsRefused) $('banner').hidden = true;
  return true;
}

/**
 * The link of the Import tab: the inspected head as a state ({url, copied, vars}), or null after
 * saying in `status` why there is none (no head inspected: a whole file cannot travel in a link;
 * a head too large or not probabilities) with a button that saves the head as a state file.
 */
async function screenLink(status) {
  const got = await importView.screenState();
  if (got.state) {
    try {
      const url = `${location.href.split('#')[0]}#${withPageOptions(encodeLink(got.state), pageOptions)}`;
      return { url, copied: 'views.link.headCopied', vars: { head: got.head } };
    } catch (e) {
      if (!(e instanceof StateError)) throw e;
      mount(status, t('views.link.headTooLong', { head: got.head, detail: e.message }), ' ', saveHeadButton(got));
      return null;
    }
  }
  const key = { noFile: 'views.link.noFile', noHead: 'views.link.noHead', values: 'views.link.values' }[got.why] ?? 'views.link.notState';
  // The one-file page with the file in it is made by the CLI (a visitor has no repository).
  const page = `attn html ${got.name ?? ''}`.trim();
  mount(
    status,
    t(key, { file: got.name ?? '', size: got.bytes ? fmtBytes(got.bytes) : '?', page, head: got.head ?? '', detail: got.detail ?? '' }),
  );
  return null;
}

/** A button that downloads the inspected head's state (to open again under Import). */
function saveHeadButton(got) {
  return h(
    'button',
    {
      type: 'button',
      id: 'save-head-state',
      onclick: () => {
        const blob = new Blob([`${JSON.stringify(got.state, null, 1)}\n`], { type: 'application/json' });
        const a = h('a', { href: URL.createObjectURL(blob), download: `${got.head.replace(/\W+/g, '_')}.state.json` });
        document.body.append(a);
        a.click();
        a.remove();
      },
    },
    t('views.link.saveHead'),
  );
}

/** The link's controls: Copy link, the share dialog, Open in full page, and the address bar. */
export function wireLink() {
  $('copy-link').addEventListener('click', async () => {
    const status = $('copy-status');
    let url;
    let copied = 'app.linkCopied';
    let vars = {};
    if (document.body.dataset.view === 'import' && importView?.screenState) {
      // On the Import tab the link is for what is on screen: the inspected head (docs/import.md).
      const got = await screenLink(status);
      if (!got) return;
      ({ url, copied, vars } = got);
    } else {
      try {
        url = shareUrl();
      } catch (e) {
        mount(status, rejected(e.message, 'app.noLink'), t('app.noLinkSave'));
        return;
      }
    }
    try {
      await navigator.clipboard.writeText(url);
      status.textContent = t(copied, { n: url.length, ...vars });
    } catch {
      // Clipboard refused (permissions, insecure context): show the link to copy by hand.
      const box = h('input', { type: 'text', value: url, readonly: true, class: 'link-box', 'aria-label': t('app.linkBoxAria') });
      mount(status, t('app.copyThisLink'), box);
      box.select();
    }
  });
  window.addEventListener('hashchange', () => {
    loadFromHash();
  });
  window.addEventListener('pagehide', () => flushHash());
  initShareDialog({
    opener: $('share-class'),
    link: (options) => {
      flushBoxes();
      return shareUrl(options);
    },
    options: () => pageOptions,
  });
  // The link is rebuilt as it is used, so it always carries the state on screen.
  for (const type of ['pointerdown', 'focus', 'contextmenu']) $('open-full').addEventListener(type, () => updateFullPageLink());
}
