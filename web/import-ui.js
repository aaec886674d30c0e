// The "Import & overview" view now lives in web/import/ (index.js and its parts). This module only
// forwards its API, so that the page's import of './import-ui.js' keeps working.
export { initImportView, SORT_KEYS, patternLabel } from './import/index.js';
