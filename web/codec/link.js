// The link: a state as a URL fragment, scalars readable as key=value pairs (a teacher can edit
// tau=2 by hand), everything else in the data block d (web/codec/block.js). docs/state.md "The link".

import { isCutPageOption, isPageOptionKey } from '../page/page-options.js';
import { LIMITS, MODES, SCHEMA_VERSION, StateError } from '../core/state-schema.js';
import { describe } from './values.js';
import { encodeBlock, readBlock } from './block.js';

const LINK_KEYS = ['v', 'mode', 'tau', 'scale', 'k', 'row', 'causal', 'window', 'head', 'panel', 'preset', 'numbers', 'd'];
const OPTIONAL_LINK_KEYS = ['stride', 'sinks', 'lab', 'lesson'];
const LINK_FIELD = {
  stride: 'mask.stride',
  sinks: 'mask.sinks',
  lab: 'lab',
  lesson: 'lesson',
  v: 'version',
  mode: 'mode',
  tau: 'tau',
  scale: 'scale',
  k: 'topK',
  row: 'row',
  causal: 'mask.causal',
  window: 'mask.window',
  head: 'head',
  panel: 'view.panel',
  preset: 'view.preset',
  numbers: 'view.numbers',
  d: 'd',
};

/**
 * Writes a state as a URL fragment (without the leading "#"), format of docs/state.md "The link":
 * `v=1&mode=qkv&tau=1&scale=1&k=2&row=0&causal=0&window=0&head=0&panel=weights&preset=example1&d=...`.
 * Numbers are written with String(x), the shortest text that reads back to the same double, and
 * `d` holds the matrices, tokens, padding, allow-matrix, head names and source bit-exactly.
 *
 * @param {State} state a valid state (as core.validateState returns it; web/core/core.js)
 * @returns {string} the fragment, at most LIMITS.maxLinkLength characters
 * @throws {StateError} field "link" if it is too large for a link
 */
export function encodeLink(state) {
  const s = state;
  const scalars = {
    v: s.version,
    mode: s.mode,
    tau: s.tau,
    scale: s.scale,
    k: s.topK,
    row: s.row,
    causal: s.mask.causal ? 1 : 0,
    window: s.mask.window,
    head: s.head,
    panel: s.view.panel,
    preset: s.view.preset,
    numbers: s.view.numbers,
  };
  if (s.mask.stride) scalars.stride = s.mask.stride;
  if (s.mask.sinks) scalars.sinks = s.mask.sinks;
  if (s.lab) scalars.lab = JSON.stringify(s.lab);
  if (s.lesson) scalars.lesson = JSON.stringify(s.lesson);
  const parts = Object.entries(scalars).map(([key, value]) => `${key}=${encodeURIComponent(String(value))}`);
  parts.push(`d=${encodeBlock(s)}`);
  const link = parts.join('&');
  if (link.length > LIMITS.maxLinkLength) {
    throw new StateError('link', `the state is too large for a link (${link.length} characters, at most ${LIMITS.maxLinkLength})`);
  }
  return link;
}

// Decimal numbers as a person would type them; no hex, no "Infinity", no spaces. Number() alone
// would accept "" (0), " 1" and "0x10".
const NUMBER_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

function parseNumber(text, key) {
  if (!NUMBER_TEXT.test(text)) {
    throw new StateError(LINK_FIELD[key], `${key} in the link must be a number (got ${describe(text)})`);
  }
  return Number(text); // out-of-range values (e.g. 1e999 -> Infinity) are refused by the schema
}

function parseFlag(text, key) {
  if (text === '0') return false;
  if (text === '1') return true;
  throw new StateError(LINK_FIELD[key], `${key} in the link must be 0 or 1 (got ${describe(text)})`);
}

function decodeComponent(text) {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new StateError('link', `the link has a broken %-escape in ${describe(text)}`);
  }
}

/**
 * Reads a URL fragment written by encodeLink (with or without the leading "#"). Scalars may have
 * been edited by hand (e.g. tau=2) and take effect; every value is validated.
 *
 * @param {string} fragment the link fragment
 * @returns {object} the candidate state the link spells, not yet checked against the schema:
 *   core.decodeLink() (web/core/core.js) decodes and validates in one call, as the page does
 * @throws {StateError} for a link that is not of the link format, whatever the input: unknown
 *   version, missing or unknown key, bad number, bad base64, corrupt deflate, a block whose
 *   shapes do not add up. `field` names the state field ("tau", "window", ...), or "d" / "link"
 *   for the block and the link itself.
 */
export function decodeLink(fragment) {
  try {
    return readLink(fragment);
  } catch (error) {
    if (error instanceof StateError) throw error;
    // Out-of-memory and other engine errors on hostile input still surface as a StateError.
    throw new StateError('link', `the link could not be read (${error && error.message})`);
  }
}

function readLink(fragment) {
  if (typeof fragment !== 'string') throw new StateError('link', `the link must be a string (got ${describe(fragment)})`);
  const text = fragment.startsWith('#') ? fragment.slice(1) : fragment;
  if (text === '') throw new StateError('link', 'the link is empty (expected v=1&mode=...&d=...)');
  if (text.length > LIMITS.maxLinkLength) {
    throw new StateError('link', `the link is too long (${text.length} characters, at most ${LIMITS.maxLinkLength})`);
  }

  // A Map, not an object: keys from the link must never reach a prototype.
  const params = new Map();
  const parts = text.split('&');
  const last = parts.filter(Boolean).at(-1);
  for (const part of parts) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    // A link cut inside its last page option ("…&preset_hi") keeps its state; the page reports
    // the cut option (web/page/page-options.js readPageOptions).
    if (eq < 0 && part === last && isCutPageOption(part)) continue;
    if (eq < 0) throw new StateError('link', `the link part ${describe(part)} is not of the form key=value`);
    const key = decodeComponent(part.slice(0, eq));
    // Page options are read by web/page/page-options.js (the last one given wins), so "&lang=zh-CN"
    // appended to a copied link that already ends in "&lang=en" is not an error.
    if (isPageOptionKey(key)) continue;
    if (params.has(key)) throw new StateError('link', `the link gives ${describe(key)} twice`);
    params.set(key, decodeComponent(part.slice(eq + 1)));
  }

  // The version first: a newer link may have keys this page does not know.
  if (!params.has('v')) throw new StateError('version', 'the link has no version (expected it to start with v=1)');
  const v = params.get('v');
  if (v !== String(SCHEMA_VERSION)) {
    throw new StateError('version', `unknown link version ${describe(v)}: this page reads version ${SCHEMA_VERSION} links`);
  }
  for (const key of params.keys()) {
    if (!LINK_KEYS.includes(key) && !OPTIONAL_LINK_KEYS.includes(key)) {
      throw new StateError(
        'link',
        `the link has an unknown key ${describe(key)} (known keys: ${[...LINK_KEYS, ...OPTIONAL_LINK_KEYS].join(', ')})`,
      );
    }
  }
  // The values given are read before any missing key is named: a link cut short (or written by
  // hand) with a bad value is refused for that value, which the reader can fix, not only for
  // what is missing.
  const get = (key) => params.get(key);
  const given = (key, read) => (params.has(key) ? read(get(key), key) : undefined);
  const scale = given('scale', (text, key) => (text === 'auto' ? 'auto' : parseNumber(text, key)));
  const tau = given('tau', parseNumber);
  const topK = given('k', parseNumber);
  const row = given('row', parseNumber);
  const window = given('window', parseNumber);
  const head = given('head', parseNumber);
  const causal = given('causal', parseFlag);
  const stride = given('stride', parseNumber);
  const sinks = given('sinks', parseNumber);
  if (params.has('mode') && !MODES.includes(get('mode'))) {
    throw new StateError('mode', `mode in the link must be one of ${MODES.join(', ')} (got ${describe(get('mode'))})`);
  }
  for (const key of LINK_KEYS) {
    if (!params.has(key)) throw new StateError(LINK_FIELD[key], `the link is missing ${key}= (${LINK_FIELD[key]})`);
  }
  const block = readBlock(get('d'));
  let lab;
  if (params.has('lab')) {
    try {
      lab = JSON.parse(get('lab'));
    } catch {
      throw new StateError('lab', `lab in the link is not JSON (got ${describe(get('lab'))})`);
    }
  }
  let lesson;
  if (params.has('lesson')) {
    try {
      lesson = JSON.parse(get('lesson'));
    } catch {
      throw new StateError('lesson', `lesson in the link is not JSON (got ${describe(get('lesson'))})`);
    }
  }

  return {
    version: SCHEMA_VERSION,
    mode: get('mode'),
    heads: block.heads,
    head,
    tokens: block.tokens,
    mask: {
      causal,
      window,
      padding: block.padding,
      allow: block.allow,
      ...(stride === undefined ? {} : { stride }),
      ...(sinks === undefined ? {} : { sinks }),
    },
    tau,
    scale,
    topK,
    row,
    view: { panel: get('panel'), preset: get('preset'), numbers: get('numbers') },
    source: block.source,
    ...(lab === undefined ? {} : { lab }),
    ...(lesson === undefined ? {} : { lesson }),
    ...(block.x ? { x: block.x } : {}),
  };
}
