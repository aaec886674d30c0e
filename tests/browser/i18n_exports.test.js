// The exported figure (SVG, the PNG's source) and the standalone HTML page word the state's source
// line in the page's language, as the page's own source line does: in Chinese a preset's source
// is its Chinese sentence, not the English the state keeps (docs/state.md: a state is the same in
// every language). Every built-in lesson preset and one real head, in both languages.
//
//   node --test tests/browser/i18n_exports.test.js   (after the WASM build is in web/wasm)

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { choosePreset, closeQuietly, openPage, startSession } from './harness.js';

let session;
let page;
before(async () => {
  session = await startSession();
  ({ page } = await openPage(session, '#lang=zh-CN', { label: '[exports] ' }));
});
after(() => closeQuietly(session));

async function downloadOf(selector) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  return readFileSync(await dl.path(), 'utf8');
}
const unescape = (s) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&apos;/g, "'")
    .replace(/&amp;/g, '&');

const PRESETS = ['example1', 'example2', 'selfattention', 'multihead', 'lessonSweep', 'long512', 'gpt2-small_L0_nlp-sentence.0'];

for (const lang of ['zh-CN', 'en']) {
  test(`${lang}: the exported SVG and HTML page give the source line the page shows`, async () => {
    await page.selectOption('#lang', lang);
    await page.waitForFunction((want) => document.documentElement.lang === want, lang);
    for (const id of PRESETS) {
      await choosePreset(page, id);
      // The page's line: "来源：" / "Source: " and the source in the page's language.
      const shown = (await page.textContent('#source')).trim();
      const label = lang === 'zh-CN' ? '来源：' : 'Source: ';
      assert.ok(shown.startsWith(label), `${id}: ${shown}`);
      const source = shown.slice(label.length);
      const state = await page.evaluate(() => window.attentionPlayground.getState().source);
      if (lang === 'zh-CN') assert.notEqual(source, state, `${id}: the page words the source in Chinese`);

      const svg = await downloadOf('#export-svg');
      const line = unescape(/<text class="source"[^>]*>([^<]*)<\/text>/.exec(svg)?.[1] ?? '');
      const made = lang === 'zh-CN' ? '注意力实验场' : 'Attention Playground';
      assert.equal(line, `${label}${source} · ${made}`, `${id}: the SVG's source line`);

      const html = await downloadOf('#export-html');
      const sub = unescape(/<p class="sub">([^<]*)<\/p>/.exec(html)?.[1] ?? '');
      assert.ok(sub.startsWith(source), `${id}: the HTML page's subtitle starts with the source: «${sub.slice(0, 200)}»`);
      assert.doesNotMatch(sub, /\.\. /, `${id}: no doubled full stop`);
      if (lang === 'zh-CN') assert.ok(!sub.includes(state), `${id}: no English source in the Chinese page`);
    }
  });
}
