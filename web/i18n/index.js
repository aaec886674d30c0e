// All string tables of the page. Each module exports {en: {...}, 'zh-CN': {...}} with the same
// keys; keys are namespaced by the part of the page that owns them ("app.", "import.", "lab.",
// "lesson.", "embed.", "a11y."), so two tables never define the same key.
import app from './app.js';
import importTable from './import.js';
import lab from './lab.js';
import lesson from './lesson.js';
import embed from './embedding.js';
import a11y from './a11y.js';
import views from './views.js';

export const TABLES = [app, importTable, lab, lesson, embed, a11y, views];
// The release (scripts/dist.js) replaces this module: TABLES empty, LOADERS[lang]() importing one
// chunk per language (web/i18n/i18n.js loadLang). Here every table is already loaded.
export const LOADERS = null;
