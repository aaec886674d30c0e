// Interface language: English and Simplified Chinese. Every string the page shows comes from a
// string table (web/i18n/*.js, one per part of the page, each {en: {...}, 'zh-CN': {...}} with the
// same keys); tests/node/i18n.test.js checks that both languages cover every key and that the
// Chinese table holds no English words outside the allowed technical terms.
//
// A table entry is a string with {name} placeholders, or a function of the placeholder object
// (for plurals and number-dependent wording). Numbers and formulas are identical in both languages:
// placeholders are filled with the numbers already formatted by the caller.
//
// Loading: from web/ every table is imported up front (i18n/index.js). In the release (npm run
// dist) i18n/index.js is replaced by one chunk per language, loaded by loadLang on first use, so
// a page reads only its own language's strings; setLang loads a language before switching to it.
import { LOADERS, TABLES } from './index.js';
import { fillEntry } from './fill.js';
import { normaliseLang } from '../page/page-options.js';

export const LANGS = Object.freeze(['en', 'zh-CN']);
export const LANG_NAMES = Object.freeze({ en: 'English', 'zh-CN': '简体中文' });

const merged = {}; // lang -> its strings, once loaded
const loading = {};
function addTables(lang, tables) {
  merged[lang] = Object.assign(Object.create(null), ...tables);
}
if (TABLES.length)
  for (const lang of LANGS)
    addTables(
      lang,
      TABLES.map((table) => table[lang]),
    );

/**
 * Loads a language's strings (at once from web/, a chunk in the release).
 * @param {string} lang one of LANGS
 * @returns {Promise<void>}
 */
export function loadLang(lang) {
  if (merged[lang]) return Promise.resolve();
  loading[lang] ??= LOADERS[lang]().then((mod) => addTables(lang, mod.default));
  return loading[lang];
}

let current = 'en';
const listeners = new Set();

/** The current language: "en" or "zh-CN". */
export function getLang() {
  return current;
}

// The language tag rule is page-options.js's (the link's lang= reads with it); here for the
// modules that set the language.
export { normaliseLang };

/**
 * Switches the language, updates <html lang> and every [data-i18n] element, tells listeners. A
 * language whose strings are not loaded yet is loaded first (the switch happens when it is here).
 * @returns {Promise<void>} resolves once the page is in that language
 */
export function setLang(lang) {
  const next = normaliseLang(lang) ?? 'en';
  if (!merged[next]) return loadLang(next).then(() => setLang(next));
  const changed = next !== current;
  current = next;
  if (typeof document !== 'undefined') {
    document.documentElement.lang = next;
    applyStatic(document);
  }
  if (changed) for (const fn of listeners) fn(next);
  return Promise.resolve();
}

/** Calls fn(lang) after every language change; returns a function that removes it. */
export function onLangChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/**
 * The string `key` in the current language with {name} placeholders filled from `vars`.
 * A key missing from the current language falls back to English; a key missing everywhere
 * returns the key itself and warns once (the coverage test makes that a failure).
 * @param {string} key
 * @param {object} [vars]
 * @param {string} [lang] another language than the current one
 * @returns {string}
 */
export function t(key, vars = {}, lang = current) {
  let entry = merged[lang]?.[key];
  if (entry === undefined) entry = (merged.en ?? merged[current])?.[key];
  if (entry === undefined) {
    warnMissing(key);
    return key;
  }
  return fillEntry(entry, vars);
}

/**
 * `key` compiled once for many fills: (vars) => t(key, vars), in the current language, for code
 * that words thousands of strings per frame (a heatmap's cell names). The string is split once at
 * its placeholders; a plural entry (a function) is called as t() calls it.
 * @param {string} key
 * @param {string[]} names the placeholders the caller fills
 * @returns {(vars: object) => string}
 */
export function template(key, names) {
  const marks = Object.fromEntries(names.map((n) => [n, `\u0000${n}\u0000`]));
  const filled = t(key, marks);
  if (typeof (merged[current]?.[key] ?? merged.en?.[key]) === 'function' || !filled.includes('\u0000')) return (vars) => t(key, vars);
  const parts = filled.split('\u0000'); // even: text, odd: a placeholder's name
  return (vars) => {
    let out = parts[0];
    for (let i = 1; i < parts.length; i += 2) out += String(vars[parts[i]]) + parts[i + 1];
    return out;
  };
}

/** True when `key` is in the English table (for code that builds keys from ids). */
export function hasKey(key) {
  return (merged.en ?? merged[current])?.[key] !== undefined;
}

const warned = new Set();
function warnMissing(key) {
  if (warned.has(key)) return;
  warned.add(key);
  console.warn(`i18n: no string for ${JSON.stringify(key)}`);
}

/**
 * Fills static markup from the tables: `data-i18n="key"` sets the text, and
 * `data-i18n-attr="aria-label:key1;title:key2"` sets attributes. Run by setLang on the document;
 * call it on markup built later if it uses these attributes.
 * @param {ParentNode} root
 */
export function applyStatic(root) {
  for (const el of root.querySelectorAll('[data-i18n]')) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll('[data-i18n-attr]')) {
    for (const pair of el.dataset.i18nAttr.split(';')) {
      const [attr, key] = pair.split(':').map((s) => s.trim());
      if (attr && key) el.setAttribute(attr, t(key));
    }
  }
}
