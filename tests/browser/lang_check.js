// Language check of one part of the page, for the browser tests of the views (import, lab,
// formulas, ...): the interface text under a root element in the wrong language. Data is skipped:
// elements marked translate="no" (tokens, head names, file names, the core's English detail),
// KaTeX output, code, scripts and styles; the state's tokens and head names are also cut out of
// attribute values (an attribute cannot mark part of itself as data). What counts as an English
// word, and which technical names may stand in Chinese text, is tests/node/i18n_words.js (the same
// rule as the string-table test).
//
//   const bad = await englishWords(page, '#lab-view');   // [] when the view is all Chinese
//   const bad = await cjkText(page, '#import-view');     // [] when the view is all English
//   await setLanguage(page, 'zh-CN');                    // through the #lang control
import { CJK, englishWords as nodeWords } from '../node/i18n_words.js';

// Beyond i18n_words.js: names the tooltips write as they are (people cited, functions, NaN/Inf).
// Attributes cannot mark a part of themselves translate="no", so these are allowed by name.
const NAMES = new Set([
  'Martins',
  'Astudillo',
  'Peters',
  'Katharopoulos',
  'Roy',
  'Vetterli',
  'Aitchison',
  'Shapley',
  'Frobenius',
  'Performer',
  'ReLU',
  'relu',
  'elu',
  'softplus',
  'NaN',
  'Inf',
]);
const wordsOf = (text) => nodeWords(text).filter((w) => !NAMES.has(w));

/**
 * In the page: [{text, where}] of the visible interface text under `rootSelector` (with the
 * document's title and description when `withDocument`). `where` names the nearest ancestor with
 * an id, for the report. Options count as visible when their select is.
 */
function collect({ rootSelector, withDocument }) {
  const s = window.attentionPlayground?.getState?.();
  const data = s
    ? [...new Set([...s.tokens.queries, ...s.tokens.keys, ...s.heads.map((hd) => hd.name)])]
        .flatMap((d) => [d, d.replace(/^ /, '␣').replace(/\n/g, '⏎')])
        .filter((d) => /[A-Za-z]{2,}/.test(d))
        .sort((a, b) => b.length - a.length)
    : [];
  const withoutData = (text) => data.reduce((acc, d) => acc.split(d).join(' '), text);
  const SKIP = 'script, style, template, noscript, pre, code, .katex, [translate="no"]';
  const ATTRS = ['aria-label', 'title', 'placeholder', 'alt'];
  const out = [];
  const where = (el) => {
    const owner = el.closest('[id]');
    return `${owner ? `#${owner.id}` : 'document'} ${el.tagName.toLowerCase()}`;
  };
  const shown = (el) => (el.closest('select') ?? el).checkVisibility({ visibilityProperty: true });
  const visit = (el) => {
    if (el.matches(SKIP) || !shown(el)) return;
    for (const attr of ATTRS) {
      const v = el.getAttribute(attr);
      if (v) out.push({ text: withoutData(v), where: `${where(el)}[${attr}]` });
    }
    if (el.tagName === 'OPTGROUP' && el.label) out.push({ text: el.label, where: `${where(el)}[label]` });
    for (const child of el.childNodes) {
      if (child.nodeType === Node.TEXT_NODE && child.textContent.trim()) out.push({ text: child.textContent.trim(), where: where(el) });
      else if (child.nodeType === Node.ELEMENT_NODE) visit(child);
    }
  };
  const root = document.querySelector(rootSelector);
  if (!root) throw new Error(`no element ${rootSelector}`);
  visit(root);
  if (withDocument) {
    out.push({ text: document.title, where: 'title' });
    out.push({ text: document.querySelector('meta[name="description"]').content, where: 'meta description' });
  }
  return out;
}

/** The interface texts under `rootSelector` as [{text, where}] (see collect). */
export function interfaceTexts(page, rootSelector, { withDocument = false } = {}) {
  return page.evaluate(collect, { rootSelector, withDocument });
}

/** The English words of a text beyond the allowed technical terms and cited names. */
export { wordsOf as englishWordsOf };

/**
 * The interface texts under `rootSelector` that hold English words (beyond the allowed technical
 * names), as "where: [words] text" lines; [] when all is Chinese. Throws when the root holds
 * almost no text (a check of nothing must not pass).
 */
export async function englishWords(page, rootSelector, { minTexts = 5 } = {}) {
  const items = await interfaceTexts(page, rootSelector);
  if (items.length < minTexts) throw new Error(`only ${items.length} texts under ${rootSelector}`);
  return [
    ...new Set(
      items
        .map((it) => ({ ...it, words: wordsOf(it.text) }))
        .filter((it) => it.words.length)
        .map((it) => `${it.where}: [${it.words.join(', ')}] ${it.text.slice(0, 160)}`),
    ),
  ];
}

/** The interface texts under `rootSelector` that hold Chinese characters; [] when all is English. */
export async function cjkText(page, rootSelector, { minTexts = 5 } = {}) {
  const items = await interfaceTexts(page, rootSelector);
  if (items.length < minTexts) throw new Error(`only ${items.length} texts under ${rootSelector}`);
  return [...new Set(items.filter((it) => CJK.test(it.text)).map((it) => `${it.where}: ${it.text.slice(0, 160)}`))];
}

/** The share of the worded texts under `rootSelector` (numbers and symbols alone left out) that
 *  hold Chinese characters (0 … 1). */
export async function cjkShare(page, rootSelector) {
  const items = (await interfaceTexts(page, rootSelector)).filter((it) => CJK.test(it.text) || /[A-Za-z]/.test(it.text));
  return items.length ? items.filter((it) => CJK.test(it.text)).length / items.length : 0;
}

/** Switches the interface language through the header's language control, as a reader does. */
export async function setLanguage(page, lang) {
  await page.selectOption('#lang', lang);
  await page.waitForFunction((want) => document.documentElement.lang === want, lang);
}

/** Waits until the text under `rootSelector` is drawn in `lang` (Chinese characters or none). */
export async function waitForLanguage(page, rootSelector, lang) {
  await page.waitForFunction(
    ({ root, zh }) => {
      const el = document.querySelector(root);
      const has = /[\u4e00-\u9fff]/.test(el?.textContent ?? '');
      return el && (zh ? has : !has);
    },
    { root: rootSelector, zh: lang === 'zh-CN' },
  );
}

/**
 * A lab view in Chinese: shows `view` (after choosing `preset`, if given) in English, switches the
 * page to Chinese, waits for the view to be drawn again and returns its English words (see
 * englishWords) and the share of its texts that are Chinese. Leaves the page in English.
 */
export async function labViewInChinese(page, { view, preset = null, screenshot = null, text = null }) {
  await setLanguage(page, 'en');
  if (preset) {
    await page.selectOption('#preset', preset);
    await page.waitForFunction((want) => window.attentionPlayground.getState()?.view?.preset === want, preset);
  }
  await page.click(`#lab-tab-${view}`);
  await page.waitForFunction((v) => window.attentionPlayground.results()?.lab?.view === v, view);
  await waitForLanguage(page, '#lab-view', 'en');
  await setLanguage(page, 'zh-CN');
  await waitForLanguage(page, '#lab-view', 'zh-CN');
  await page.waitForFunction(() => !document.querySelector('#lab-view').classList.contains('stale'));
  const bad = await englishWords(page, '#lab-panel');
  const share = await cjkShare(page, '#lab-view');
  const shown = text ? await page.textContent(text) : null; // `text`: a selector whose text is returned
  if (screenshot) await page.locator('#lab-panel').screenshot({ path: screenshot });
  await setLanguage(page, 'en');
  await waitForLanguage(page, '#lab-view', 'en');
  return { bad, share, text: shown };
}
