// The importer's messages (web/import/readers.js, web/import/summary.js): its errors and its
// summary's sentences. They come from its own string table (web/i18n/import.js), read here
// directly rather than through web/i18n/i18n.js: the error's message is the English text whatever language a
// page has loaded (the same words as the CLI's, what the node tests read; in the release a
// Chinese page loads only the Chinese strings), and `i18n` = {key, vars, data} lets the page word
// it again in its language (data: the vars that hold file names and other data, shown with
// translate="no"). The import worker's bundle then holds this table only, not the page's others.
// Format, command and value names the messages write as they are, in every language (shown as
// data, translate="no").
import { AttentionError } from '../core/core.js';
import IMPORT_STRINGS from '../i18n/import.js';
import { fillEntry } from '../i18n/fill.js';

export const MiB = 1024 * 1024;
export const fmtMiB = (bytes) => `${(bytes / MiB).toFixed(bytes < 10 * MiB ? 1 : 0)} MiB`;

export const TECH = Object.freeze({
  npy: '.npy',
  npz: '.npz',
  zip: 'zip',
  cli: 'attn analyze',
  npyMagic: '\\x93NUMPY',
  zipMagic: 'PK',
  nanInf: 'NaN/Inf',
  f16: 'float16',
});
export const TECH_NAMES = Object.keys(TECH);

/** The importer's string `key` in `lang` (English when that language lacks it). */
export function word(key, vars, lang = 'en') {
  const entry = IMPORT_STRINGS[lang]?.[key] ?? IMPORT_STRINGS.en[key];
  return entry === undefined ? key : fillEntry(entry, vars);
}

export function importError(code, field, key, vars = {}, data = []) {
  const all = { ...TECH, ...vars };
  const e = new AttentionError(code, field, word(key, all));
  e.i18n = { key, vars: all, data: [...data, ...TECH_NAMES] };
  return e;
}

export function badFile(key, vars, data = ['name'], field = 'file') {
  return importError('bad_file', field, key, vars, data);
}

export function tooLarge(name, size, limit, key = 'import.err.tooLarge') {
  return importError('too_large', 'file', key, { name, size: fmtMiB(size), limit: fmtMiB(limit) }, ['name']);
}
