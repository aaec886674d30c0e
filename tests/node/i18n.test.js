// The string tables (web/i18n/*.js): both languages have the same keys, no key is defined by two
// tables, function entries give strings, the Chinese strings hold no English words beyond a short
// list of technical terms, the English strings hold no Chinese, and every key the page's code and
// markup use (t('...'), data-i18n, data-i18n-attr) is in the tables.
//
//   node --test tests/node/i18n.test.js

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TABLES } from '../../web/i18n/index.js';
import { t, setLang, template } from '../../web/i18n/i18n.js';
import { LESSON_PRESETS, REAL_DATASETS } from '../../web/presets/presets.js';
import { DATASET_KEYS } from '../../web/views/source.js';
import { CJK, englishWords } from './i18n_words.js';

const WEB = fileURLToPath(new URL('../../web/', import.meta.url));
const LANGS = ['en', 'zh-CN'];

// Sample placeholder values: numbers (every placeholder is a number or a short piece of text made
// elsewhere), once 1 and once 2 so that both branches of the plural functions run.
const sample = (n) => new Proxy({}, { get: (_, name) => (typeof name === 'string' ? n : undefined), has: () => true });

/** The entry's text: a function evaluated with sample values, a string with placeholders as 1. */
function texts(entry) {
  if (typeof entry === 'function') return [entry(sample(1)), entry(sample(2))];
  return [entry.replace(/\{\w+\}/g, '1')];
}

test('every table has the same keys in English and Chinese, and its own key prefix', () => {
  for (const table of TABLES) {
    assert.deepEqual(Object.keys(table), LANGS);
    const en = Object.keys(table.en).sort();
    const zh = Object.keys(table['zh-CN']).sort();
    assert.deepEqual(
      zh.filter((k) => !en.includes(k)),
      [],
      'keys only in zh-CN',
    );
    assert.deepEqual(
      en.filter((k) => !zh.includes(k)),
      [],
      'keys only in en',
    );
    const prefixes = new Set(en.map((k) => k.split('.')[0]));
    assert.ok(prefixes.size <= 1, `one prefix per table, got ${[...prefixes]}`);
  }
});

test('no key is defined by two tables', () => {
  const seen = new Map();
  for (const [i, table] of TABLES.entries()) {
    for (const key of Object.keys(table.en)) {
      assert.ok(!seen.has(key), `${key} is in tables ${seen.get(key)} and ${i}`);
      seen.set(key, i);
    }
  }
});

test('every entry is a string or a function that gives a string for sample values', () => {
  for (const table of TABLES) {
    for (const lang of LANGS) {
      for (const [key, entry] of Object.entries(table[lang])) {
        assert.ok(typeof entry === 'string' || typeof entry === 'function', `${lang} ${key}`);
        for (const text of texts(entry)) {
          assert.equal(typeof text, 'string', `${lang} ${key}`);
          // A placeholder the function does not get, or misuses, reads "undefined", "NaN" or
          // "[object ...]" (unless the entry itself says so: "NaN/Inf values", "undefined").
          for (const bad of ['undefined', 'NaN', '[object ']) {
            if (text.includes(bad) && !String(entry).includes(bad)) assert.fail(`${lang} ${key}: ${text}`);
          }
        }
      }
    }
  }
});

test('the Chinese strings hold no English words beyond the allowed technical terms', () => {
  const found = [];
  for (const table of TABLES) {
    for (const [key, entry] of Object.entries(table['zh-CN'])) {
      for (const text of texts(entry)) {
        const words = englishWords(text);
        if (words.length) found.push(`${key}: ${words.join(', ')}`);
      }
    }
  }
  assert.deepEqual(found, []);
});

test('the English strings hold no Chinese characters', () => {
  const found = [];
  for (const table of TABLES) {
    for (const [key, entry] of Object.entries(table.en)) {
      for (const text of texts(entry)) if (CJK.test(text)) found.push(`${key}: ${text}`);
    }
  }
  assert.deepEqual(found, []);
});

// A repository path means nothing to a reader of the page (the release serves none of docs/ or
// web/): the strings, the names filled into them, the page's markup and early.js's start-up
// message word the documents instead (found by a new-user trial).
const REPO_PATH = /\b(?:docs|web|python|scripts|cpp)\/[\w./-]+|\b[\w-]+\.md\b/;

test('no text the page shows points at a repository path', async () => {
  const found = [];
  for (const table of TABLES) {
    for (const lang of LANGS) {
      for (const [key, entry] of Object.entries(table[lang])) {
        for (const text of texts(entry)) if (REPO_PATH.test(text)) found.push(`${lang} ${key}: ${text}`);
      }
    }
  }
  for (const file of ['lab/lab-controls.js', 'import/text.js']) {
    const { NAMES } = await import(new URL(`../../web/${file}`, import.meta.url));
    for (const [name, value] of Object.entries(NAMES)) if (REPO_PATH.test(value)) found.push(`${file} NAMES.${name}: ${value}`);
  }
  const html = readFileSync(join(WEB, 'index.html'), 'utf8').replace(/<!--[\s\S]*?-->/g, '');
  const shown = html
    .replace(/<(script|style)[\s\S]*?<\/\1>/g, '')
    .replace(/<[^>]*\b(?:title|aria-label|content)="([^"]*)"[^>]*>|<[^>]+>/g, ' $1 ');
  if (REPO_PATH.test(shown)) found.push(`index.html: ${REPO_PATH.exec(shown)[0]}`);
  const early = readFileSync(join(WEB, 'early.js'), 'utf8');
  for (const [, text] of early.matchAll(/^\s+(?:en|zh): '([^']*)'/gm)) if (REPO_PATH.test(text)) found.push(`early.js: ${text}`);
  assert.ok(/^\s+en: '/m.test(early), "early.js's message was found");
  assert.deepEqual(found, []);
});

test('the word check itself: it flags English and passes technical names', () => {
  assert.deepEqual(englishWords('在 3 个可见键上计算 softmax，N_eff = exp(H)，top-k 质量'), []);
  assert.deepEqual(englishWords('输出 Y0 = A V，W_O，d_k = 2，L5H5'), []);
  assert.deepEqual(englishWords('选中的 query row'), ['query', 'row']);
  assert.ok(CJK.test('语言') && !CJK.test('Language τ ≤ 0 — “x”'));
});

/** Files under `dir` (recursively) with one of the extensions, except vendor, wasm, data, the
 * tables and i18n.js itself (whose comments show the markup with placeholder keys). */
function sourceFiles(dir, exts) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const rel = relative(WEB, path);
    if (/^(vendor|wasm|i18n|data)(\/|$)/.test(rel) || /\.min\.js$/.test(name)) continue;
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path, exts));
    else if (exts.some((e) => name.endsWith(e))) out.push(path);
  }
  return out;
}

/** The string-table keys a file uses literally: t('key'), hasKey('key'), data-i18n="key", data-i18n-attr. */
export function usedKeys(text) {
  const keys = [];
  for (const m of text.matchAll(/(?<![\w.$])t\(\s*(['"`])([\w.-]+)\1/g)) keys.push(m[2]);
  for (const m of text.matchAll(/data-i18n['"]?\s*[=:]\s*['"]([\w.-]+)['"]/g)) keys.push(m[1]);
  for (const m of text.matchAll(/data-i18n-attr['"]?\s*[=:]\s*['"]([^'"]+)['"]/g)) {
    for (const pair of m[1].split(';')) {
      const key = pair.split(':')[1]?.trim();
      if (key) keys.push(key);
    }
  }
  return keys;
}

test('every key the page uses literally is in the tables (static coverage of web/)', () => {
  const known = new Set(TABLES.flatMap((table) => Object.keys(table.en)));
  const missing = [];
  let used = 0;
  for (const file of sourceFiles(WEB, ['.js', '.html'])) {
    for (const key of usedKeys(readFileSync(file, 'utf8'))) {
      used += 1;
      if (!known.has(key)) missing.push(`${relative(WEB, file)}: ${key}`);
    }
  }
  assert.ok(used > 200, `the scan finds the keys in use (${used})`);
  assert.deepEqual(missing, []);
});

test('the scan finds keys in each form it looks for', () => {
  assert.deepEqual(
    usedKeys(`t('app.a'); t("app.b", {n}); x.t('no'); h('p', {'data-i18n': 'app.c'});
    <b data-i18n="app.d" data-i18n-attr="title:app.e;aria-label:app.f">`),
    ['app.a', 'app.b', 'app.c', 'app.d', 'app.e', 'app.f'],
  );
});

test("the built-in states' sources are the English of their table entries (the page words them)", () => {
  for (const id of ['example1', 'example2', 'selfattention', 'multihead']) {
    assert.equal(LESSON_PRESETS[id].make().source, t(`app.src.${id}`, {}, 'en'), id);
  }
  for (const id of Object.keys(REAL_DATASETS)) {
    const key = DATASET_KEYS[id];
    assert.ok(key, `${id} has a table key`);
    const input = / on (".*")$/.exec(REAL_DATASETS[id].text)?.[1];
    assert.equal(t(`app.src.text.${key}`, input ? { input } : {}, 'en'), REAL_DATASETS[id].text, id);
    assert.equal(t(`app.dataset.${key}`, {}, 'en'), REAL_DATASETS[id].label, id);
  }
  for (const [id, p] of Object.entries(LESSON_PRESETS)) {
    const key = `app.preset.${id}`;
    if (t(key, {}, 'en') !== key) assert.equal(t(key, {}, 'en'), p.label, id);
  }
});

test('t() fills placeholders, follows setLang and falls back to English', () => {
  setLang('zh-CN');
  assert.equal(t('app.linkCopied', { n: 12 }), '链接已复制（12 个字符）。');
  assert.equal(t('app.linkCopied', { n: 12 }, 'en'), 'Link copied (12 characters).');
  setLang('en');
  assert.equal(t('app.row.softmaxOver', { n: 1, tau: 0.5 }), 'Softmax over the 1 visible key at temperature τ = 0.5.');
});

test('template(key) fills as t(key) does, for every string with placeholders, in both languages', () => {
  let checked = 0;
  for (const lang of LANGS) {
    setLang(lang);
    for (const table of TABLES) {
      for (const [key, entry] of Object.entries(table[lang])) {
        const names = typeof entry === 'string' ? [...new Set([...entry.matchAll(/\{(\w+)\}/g)].map((m) => m[1]))] : ['n'];
        // Values that look like placeholders or hold the template's own separator stay as given.
        const vars = Object.fromEntries(names.map((n, i) => [n, i % 2 ? `{${n}}` : `v${i}\u0001'x'`]));
        assert.equal(template(key, names)(vars), t(key, vars), `${lang} ${key}`);
        checked++;
      }
    }
  }
  setLang('en');
  assert.ok(checked > 500, `${checked} entries`);
  // The heatmap's cell name, as the page fills it.
  assert.equal(
    template('a11y.cellName', ['query', 'key', 'value'])({ query: "'q'", key: "'k1'", value: '0.62' }),
    "query 'q', key 'k1': 0.62",
  );
});
