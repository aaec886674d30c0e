// How a string-table entry is filled, in one place for web/i18n/i18n.js t() and for the importer
// (web/import/messages.js), which words its messages from its own table without the page's language
// loading: an import worker has no page language, and the release (npm run dist) loads one
// language's chunk per page, so the importer's stable English message cannot come from there.

/**
 * A table entry with its {name} placeholders filled from `vars` (a function entry, for plurals,
 * is called with them); a placeholder `vars` does not hold stays as it is.
 * @param {string|((vars: object) => string)} entry
 * @param {object} [vars]
 * @returns {string}
 */
export function fillEntry(entry, vars = {}) {
  if (typeof entry === 'function') return String(entry(vars));
  return entry.replace(/\{(\w+)\}/g, (m, name) => (Object.hasOwn(vars, name) ? String(vars[name]) : m));
}
