// Page options: how the page is presented, as opposed to what it computes (the state, state.js).
// They ride in the same link fragment, before the state's keys (withPageOptions; read anywhere), and
// are ignored by decodeLink:
//   lang=en|zh-CN      interface language (web/i18n/i18n.js); any tag of either (zh, zh-TW, en-GB, a cut zh-) reads as it
//   embed=1            embed mode: minimal chrome for an <iframe> in a course page
//   readonly=1         the state cannot be edited (controls and editors disabled); choosing which
//                      query row, head, heatmap or analysis to look at is viewing and stays allowed,
//                      and so is the guided lesson's own work (READ_ONLY_LOCKS says what is locked)
//   teacher=1          embed mode shows the teacher tools (TEACHER_TOOLS) too; without it an embedded
//                      page is the student view
//   palette=<id>       colour scale of the heatmaps (PALETTES)
//   frame=<id>         a name for this page when it runs in an <iframe>: sent back with its height
//                      messages so a course page with several frames can tell them apart
//   origin=<origin>    an origin (https://course.example) whose page, as this frame's parent, may
//                      send it a state (the setState message); repeatable; none: no messages taken
//   <control>_hide=1   hides one control or panel (HIDEABLE), like TensorFlow Playground's flags
// Unknown values are refused with a message (the rest of the link still applies).
// docs/embedding.md describes all of them, the share dialog, the height message and the element.

/** Colour scales offered for the heatmaps: all perceptually uniform and colour-blind safe. */
export const PALETTES = Object.freeze(['viridis', 'cividis', 'magma', 'greys']);

/**
 * Controls and panels a link can hide, in the order the share dialog lists them, with the
 * elements each one hides (CSS selectors of index.html and of the panels web/page/ builds). Hidden
 * means not rendered (display: none), so hidden controls are also out of the keyboard order and
 * the accessibility tree. Embed mode hides none of them by itself.
 */
export const HIDE_TARGETS = Object.freeze({
  // Top bar
  preset: ['label.preset:has(#preset)', '#real-head-wrap'],
  share: ['#copy-link', '#save-state', '#share-class'],
  undo: ['#undo'],
  language: ['#language-wrap'],
  import: ['#tab-import', '.view-nav'], // with the Import tab gone, the tab bar has nothing to choose
  // Controls (the left column)
  mode: ['fieldset:has(input[name="mode"])'],
  tau: ['fieldset:has(#tau)'],
  scale: ['#scale-fieldset'],
  mask: ['fieldset:has(#causal)'],
  row: ['fieldset:has(#row)'],
  display: ['fieldset:has(#numbers)'],
  // Panels
  inputs: ['section.panel.inputs'],
  scores: ['#scores-view', '#panel-tabs'],
  output: ['#output-view'],
  formulas: ['#formulas-box'],
  export: ['#playground-export'],
  lab: ['#lab-panel'],
  lesson: ['#lesson-panel', '#lesson-toggle'],
});

/**
 * The teacher tools: hidden in embed mode (the student view) unless the link has teacher=1. CSS
 * selectors of index.html; the full page always shows them.
 */
export const TEACHER_TOOLS = Object.freeze(['#share-class', '#save-state', '#copy-link', '#playground-export']);

/**
 * What a read-only link locks and what stays usable, as the share dialog lists them (string keys
 * embed.locks.* and embed.keeps.*). The lesson's own moves are kept: store.js commit's `lesson`.
 */
export const READ_ONLY_LOCKS = Object.freeze({
  locks: ['inputs', 'mode', 'tau', 'mask', 'preset', 'undo'],
  keeps: ['row', 'views', 'lesson'],
});

/** The share dialog's groups of HIDEABLE names (each name in exactly one group). */
export const HIDE_GROUPS = Object.freeze({
  top: ['preset', 'share', 'undo', 'language', 'import'],
  controls: ['mode', 'tau', 'scale', 'mask', 'row', 'display'],
  panels: ['inputs', 'scores', 'output', 'formulas', 'export', 'lab', 'lesson'],
});

/** Controls and panels a link can hide (`<name>_hide=1`), in the share dialog's order. */
export const HIDEABLE = Object.freeze(Object.values(HIDE_GROUPS).flat());

/** The names whose elements make up the controls column: all hidden hides the column too. */
export const CONTROL_FLAGS = HIDE_GROUPS.controls;

const OPTION_KEYS = new Set(['lang', 'embed', 'readonly', 'teacher', 'palette', 'frame', 'origin']);

/**
 * Normalises a language tag ("zh", "zh-Hans", "zh-CN", "en-GB", ...) to one of the page's
 * languages (web/i18n/i18n.js LANGS: "en", "zh-CN"), or null when it names neither. A link's lang=
 * reads with it, so a link cut inside its value ("lang=zh-") still opens in Chinese.
 * @param {unknown} tag
 * @returns {'en'|'zh-CN'|null}
 */
export function normaliseLang(tag) {
  if (typeof tag !== 'string') return null;
  const lower = tag.toLowerCase();
  if (lower === 'zh' || lower.startsWith('zh-')) return 'zh-CN';
  if (lower === 'en' || lower.startsWith('en-')) return 'en';
  return null;
}
/** At most this many origin= options are taken. */
export const MAX_ORIGINS = 8;
const FRAME_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** True when a link key is a page option (state.js's decodeLink skips these). */
export function isPageOptionKey(key) {
  return OPTION_KEYS.has(key) || /^[a-z]+_hide$/.test(key);
}

/**
 * True for the last part of a link that is the start of a page option's key, cut before its "=" (a
 * link copied or pasted short: "…&readonly=1&preset_hi"). The state reader leaves it out and
 * readPageOptions reports it, so the state and the options before it still apply. Any other part
 * without "=" is refused with the link.
 */
export function isCutPageOption(part) {
  if (!/^[a-z_]+$/.test(part)) return false;
  return [...OPTION_KEYS, ...HIDEABLE.map((name) => `${name}_hide`)].some((key) => key.startsWith(part));
}

/** The default options: English, full page, editable, student view when embedded, viridis, nothing hidden, no frame name. */
export function defaultOptions() {
  return { lang: null, embed: false, readonly: false, teacher: false, palette: 'viridis', hide: [], frame: null, origin: [] };
}

/**
 * Reads the page options of a link fragment ("#v=1&...&lang=zh-CN&tau_hide=1").
 * @param {string} fragment with or without the leading "#"
 * @returns {{options: {lang: string|null, embed: boolean, readonly: boolean, teacher: boolean, palette: string,
 *   hide: string[], frame: string|null, origin: string[]}, errors: {key: string, value: string|null, cut?: true}[]}}
 *   errors: one per refused option (the option keeps its default), and {key, value: null, cut: true} for a last
 *   part cut inside an option's key (isCutPageOption); lang is null when the link does not name one
 */
export function readPageOptions(fragment) {
  const options = defaultOptions();
  const errors = [];
  const text = String(fragment ?? '').replace(/^#/, '');
  const hide = new Set();
  const parts = text.split('&');
  const last = parts.filter(Boolean).at(-1) ?? '';
  for (const part of parts) {
    const eq = part.indexOf('=');
    if (eq < 0) {
      if (part === last && isCutPageOption(part)) errors.push({ key: part, value: null, cut: true });
      continue;
    }
    let key;
    let value;
    try {
      key = decodeURIComponent(part.slice(0, eq));
      value = decodeURIComponent(part.slice(eq + 1));
    } catch {
      continue; // the state reader reports malformed parts
    }
    if (!isPageOptionKey(key)) continue;
    if (key === 'lang') {
      const lang = normaliseLang(value);
      if (lang) options.lang = lang;
      else errors.push({ key, value });
    } else if (key === 'embed' || key === 'readonly' || key === 'teacher') {
      if (value === '1' || value === '0') options[key] = value === '1';
      else errors.push({ key, value });
    } else if (key === 'palette') {
      if (PALETTES.includes(value)) options.palette = value;
      else errors.push({ key, value });
    } else if (key === 'frame') {
      if (FRAME_ID.test(value)) options.frame = value;
      else errors.push({ key, value });
    } else if (key === 'origin') {
      if (isOrigin(value) && options.origin.length < MAX_ORIGINS) {
        if (!options.origin.includes(value)) options.origin.push(value);
      } else errors.push({ key, value });
    } else {
      const name = key.slice(0, -'_hide'.length);
      if (!HIDEABLE.includes(name) || (value !== '1' && value !== '0')) errors.push({ key, value });
      else if (value === '1') hide.add(name);
    }
  }
  options.hide = HIDEABLE.filter((name) => hide.has(name));
  return { options, errors };
}

/**
 * The link keys of the options that differ from the defaults ("&lang=zh-CN&embed=1&tau_hide=1");
 * the language is always written when known so that a shared link opens in the language it was
 * made in. The page's links put them first (withPageOptions).
 */
export function formatPageOptions(options) {
  const parts = [];
  if (options.lang) parts.push(`lang=${options.lang}`);
  if (options.embed) parts.push('embed=1');
  if (options.readonly) parts.push('readonly=1');
  if (options.teacher) parts.push('teacher=1');
  if (options.palette && options.palette !== 'viridis') parts.push(`palette=${options.palette}`);
  if (options.frame && FRAME_ID.test(options.frame)) parts.push(`frame=${options.frame}`);
  for (const origin of (options.origin ?? []).filter(isOrigin).slice(0, MAX_ORIGINS)) parts.push(`origin=${encodeURIComponent(origin)}`);
  for (const name of HIDEABLE) if (options.hide?.includes(name)) parts.push(`${name}_hide=1`);
  return parts.length ? `&${parts.join('&')}` : '';
}

/**
 * A link fragment with the page options first, then the state's keys (encodeLink). A link cut short
 * (a chat app's or a course platform's length limit) loses the end of its data block, not the
 * options that say how a student sees the page (the language, read-only, the hidden controls):
 * it opens in the class's language and read-only, saying the link is unreadable. Readers take the
 * options anywhere in a fragment (readPageOptions; decodeLink skips them), so links with the
 * options at the end, as earlier pages wrote them, read the same.
 * @param {string} stateLink encodeLink(state), or '' for the options alone
 * @param {object} options as readPageOptions returns them
 * @returns {string} the fragment, without "#"
 */
export function withPageOptions(stateLink, options) {
  return [formatPageOptions(options).slice(1), stateLink].filter(Boolean).join('&');
}

/**
 * True for a web origin as the browser writes it (event.origin): "https://host[:port]" or
 * "http://…", nothing after the host. Not "null", "*", a path or another scheme.
 */
export function isOrigin(value) {
  if (typeof value !== 'string' || value.length > 200) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === value;
  } catch {
    return false;
  }
}

/** Removes the page options from a link fragment, keeping the state's keys in their order. */
export function stripPageOptions(fragment) {
  return String(fragment ?? '')
    .replace(/^#/, '')
    .split('&')
    .filter((part) => {
      if (!part) return false;
      const eq = part.indexOf('=');
      let key = eq < 0 ? part : part.slice(0, eq);
      try {
        key = decodeURIComponent(key);
      } catch {
        /* kept: the state reader reports it */
      }
      return !isPageOptionKey(key);
    })
    .join('&');
}

// ---------------------------------------------------------------------------------------------
// The page side (browser only): classes on <html>, the hide rules, read-only, height messages.

/** The CSS that hides each flag's elements when <html> has the class "ap-hide-<name>". */
export function hideCss() {
  return [
    ...Object.entries(HIDE_TARGETS).map(
      ([name, selectors]) => `html.ap-hide-${name} :is(${selectors.join(', ')}) { display: none !important; }`,
    ),
    `html.ap-embed:not(.ap-teacher) :is(${TEACHER_TOOLS.join(', ')}) { display: none !important; }`,
  ].join('\n');
}

/** The hide rules' style sheet of each document (added once). */
const hideSheets = new WeakMap();

/**
 * Shows the options on the page: html.ap-embed, html.ap-readonly, html.ap-hide-<name> per hidden
 * control and html.ap-no-controls when every control of the left column is hidden (the column
 * goes too). The hide rules are added once as a constructed style sheet (adoptedStyleSheets:
 * CSSOM, so allowed by the page's content security policy, which blocks <style> elements).
 */
export function applyPresentation(doc, options) {
  if (!hideSheets.has(doc)) {
    const sheet = new doc.defaultView.CSSStyleSheet();
    sheet.replaceSync(hideCss());
    doc.adoptedStyleSheets = [...doc.adoptedStyleSheets, sheet];
    hideSheets.set(doc, sheet);
  }
  const root = doc.documentElement;
  root.classList.toggle('ap-embed', Boolean(options.embed));
  root.classList.toggle('ap-readonly', Boolean(options.readonly));
  root.classList.toggle('ap-teacher', Boolean(options.teacher));
  for (const name of HIDEABLE) root.classList.toggle(`ap-hide-${name}`, options.hide.includes(name));
  root.classList.toggle(
    'ap-no-controls',
    CONTROL_FLAGS.every((name) => options.hide.includes(name)),
  );
  setReadOnly(doc, Boolean(options.readonly));
}

// Read-only: what changes the state is disabled (text and number boxes become readOnly, so their
// values stay readable, selectable and focusable). These controls only choose what to look at and
// stay usable: the query row, the head, numbers on cells, the palette, which heatmap, which analysis, and
// everything that copies, saves or exports. The store (web/page/store.js) also refuses every change of another kind.
// The lesson panel (#lesson-panel) and its header button stay usable: the store lets the
// lesson's own moves through (commit's `lesson` option), and the share dialog says so (READ_ONLY_LOCKS).
const EDITABLE_AREAS = '#app, .top-actions, .view-nav';
const VIEWING = [
  '#row',
  '#head',
  '#numbers',
  '#palette',
  '#panel-tabs button',
  '#lab-tabs button',
  '#tab-playground',
  '#copy-link',
  '#save-state',
  '#share-class',
  '#playground-export button',
  '#language-wrap *',
  '#lesson-toggle',
  '#lesson-panel *',
].join(', ');
const CONTROLS = 'input, select, textarea, button, [contenteditable="true"]';
const TEXT_TYPES = new Set(['text', 'number', 'search', 'email', 'url', 'tel', 'password', '']);

let readOnlyObserver = null;

function freeze(doc) {
  for (const area of doc.querySelectorAll(EDITABLE_AREAS)) {
    for (const el of area.querySelectorAll(CONTROLS)) {
      if (el.matches(VIEWING) || el.closest('dialog')) continue;
      // Marked elements are frozen again if something switched them back on.
      const mark = el.dataset.ro;
      if (mark === 'editable' || (!mark && el.isContentEditable)) {
        if (el.contentEditable !== 'false') el.contentEditable = 'false';
        el.dataset.ro = 'editable';
      } else if (
        mark === 'readonly' ||
        (!mark && ((el.tagName === 'INPUT' && TEXT_TYPES.has(el.getAttribute('type') ?? '')) || el.tagName === 'TEXTAREA'))
      ) {
        if (el.readOnly) {
          if (!mark) continue;
        } else el.readOnly = true; // already read-only by itself: not ours to undo
        el.dataset.ro = 'readonly';
      } else {
        if (el.disabled) {
          if (!mark) continue;
        } else el.disabled = true;
        el.dataset.ro = 'disabled';
      }
    }
  }
}

function thaw(doc) {
  for (const el of doc.querySelectorAll('[data-ro]')) {
    if (el.dataset.ro === 'readonly') el.readOnly = false;
    else if (el.dataset.ro === 'disabled') el.disabled = false;
    else if (el.dataset.ro === 'editable') el.contentEditable = 'true';
    delete el.dataset.ro;
  }
}

/** Read-only on or off; while on, controls the page builds later are frozen as they appear. */
export function setReadOnly(doc, on) {
  if (!on) {
    readOnlyObserver?.disconnect();
    readOnlyObserver = null;
    thaw(doc);
    return;
  }
  freeze(doc);
  if (readOnlyObserver) return;
  let queued = false;
  readOnlyObserver = new MutationObserver(() => {
    if (queued) return;
    queued = true;
    // Before the next paint (a microtask): no frame shows a re-rendered editor as editable.
    queueMicrotask(() => {
      queued = false;
      freeze(doc);
    });
  });
  // "disabled": the store (web/page/store.js) re-enables the undo button after a change; it stays off.
  readOnlyObserver.observe(doc.body, { childList: true, subtree: true, attributes: true, attributeFilter: ['disabled', 'readonly'] });
}

// The iframe messages, kept importable from here (their home is web/embed/frame-messages.js).
export {
  HEIGHT_MESSAGE,
  SET_STATE_MESSAGE,
  STATE_RESULT_MESSAGE,
  MESSAGE_PREFIX,
  isPlaygroundMessage,
  readHeightMessage,
  readSetStateMessage,
  reportHeight,
  acceptStateMessages,
} from '../embed/frame-messages.js';
