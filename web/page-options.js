// Page options: how the page is presented, as opposed to what it computes (the state, state.js).
// They ride in the same link fragment after the state's keys and are ignored by decodeLink:
//   lang=en|zh-CN      interface language (web/i18n.js)
//   embed=1            embed mode: minimal chrome for an <iframe> in a course page
//   readonly=1         the state cannot be edited (controls and editors disabled)
//   palette=<id>       colour scale of the heatmaps (PALETTES)
//   <control>_hide=1   hides one control or panel (HIDEABLE), like TensorFlow Playground's flags
// Unknown values are refused with a message (the rest of the link still applies).

/** Colour scales offered for the heatmaps: all perceptually uniform and colour-blind safe. */
export const PALETTES = Object.freeze(['viridis', 'cividis', 'magma', 'greys']);

/**
 * Controls and panels a link can hide, in the order the share dialog lists them. The page maps
 * each name to its elements (app.js); embed mode hides none of them by itself.
 */
export const HIDEABLE = Object.freeze([
  'preset', 'mode', 'tau', 'scale', 'mask', 'row', 'display', 'inputs', 'scores', 'formulas',
  'lab', 'lesson', 'share', 'import', 'export', 'language',
]);

const OPTION_KEYS = new Set(['lang', 'embed', 'readonly', 'palette']);

/** True when a link key is a page option (state.js's decodeLink skips these). */
export function isPageOptionKey(key) {
  return OPTION_KEYS.has(key) || /^[a-z]+_hide$/.test(key);
}

/** The default options: English, full page, editable, viridis, nothing hidden. */
export function defaultOptions() {
  return { lang: null, embed: false, readonly: false, palette: 'viridis', hide: [] };
}

/**
 * Reads the page options of a link fragment ("#v=1&...&lang=zh-CN&tau_hide=1").
 * @param {string} fragment with or without the leading "#"
 * @returns {{options: {lang: string|null, embed: boolean, readonly: boolean, palette: string,
 *   hide: string[]}, errors: {key: string, value: string}[]}} errors: one per refused option
 *   (the option keeps its default); lang is null when the link does not name a language
 */
export function readPageOptions(fragment) {
  const options = defaultOptions();
  const errors = [];
  const text = String(fragment ?? '').replace(/^#/, '');
  const hide = new Set();
  for (const part of text.split('&')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
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
      if (value === 'en' || value === 'zh-CN') options.lang = value;
      else errors.push({ key, value });
    } else if (key === 'embed' || key === 'readonly') {
      if (value === '1' || value === '0') options[key] = value === '1';
      else errors.push({ key, value });
    } else if (key === 'palette') {
      if (PALETTES.includes(value)) options.palette = value;
      else errors.push({ key, value });
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
 * The link keys of the options that differ from the defaults ("&lang=zh-CN&embed=1&tau_hide=1"),
 * to append to encodeLink(state); the language is always written when known so that a shared
 * link opens in the language it was made in.
 */
export function formatPageOptions(options) {
  const parts = [];
  if (options.lang) parts.push(`lang=${options.lang}`);
  if (options.embed) parts.push('embed=1');
  if (options.readonly) parts.push('readonly=1');
  if (options.palette && options.palette !== 'viridis') parts.push(`palette=${options.palette}`);
  for (const name of HIDEABLE) if (options.hide?.includes(name)) parts.push(`${name}_hide=1`);
  return parts.length ? `&${parts.join('&')}` : '';
}
