// Browser tests of web/views/formulas.js on its demo page (dev/formulas-demo.html): the selected
// row's formulas rendered by KaTeX with the row's numbers. Expected numbers are computed in this
// file (e/(e+1) etc.) or taken from docs/MATH.md "Golden values" (seed example 1: weights
// (0.7310585786, 0.2689414214), H = 0.5822031089, output (1.462117157, 1.075765685); seed example 2
// row 1: (1/4, 3/4), H = 0.5623351446, output 5), then rounded to the 6 significant digits the
// module prints. Also: masked keys listed, an empty row says "undefined", more than 8 keys are
// elided, KaTeX's CSS and fonts come from this server only (no other request), screenshots.
//
//   node --test tests/browser/formulas.test.js        (after the build: web/wasm, web/vendor)

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { WEB, screenshotPath, startSession, watch, closeQuietly } from './harness.js';
import { englishWords } from './lang_check.js';

let session;
let page;
const requests = [];

before(async () => {
  assert.ok(existsSync(join(WEB, 'vendor/katex/katex.min.css')), 'web/vendor/katex is missing: run `bash scripts/build.sh`');
  session = await startSession();
  const context = await session.browser.newContext({ viewport: { width: 1100, height: 900 } });
  page = await context.newPage();
  watch(page, session.events, '[formulas] ');
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(`${session.url}dev/formulas-demo.html`);
  await page.waitForFunction(() => window.formulasDemo !== undefined);
  await page.evaluate(() => window.formulasDemo.ready);
  // KaTeX loads on first use (web/views/tex.js): the first formulas are typeset once it is here.
  await page.waitForFunction(() => document.querySelector('#formula-softmax .katex'));
});

after(async () => {
  await closeQuietly(session, { requests: true });
});

/** 6 significant digits, as the module prints them. */
const six = (x) => String(Number(x.toPrecision(6)));
const text = (id) => page.textContent(`#${id}`);

/** Computes and renders `state` in the demo page. */
const show = (state) => page.evaluate((s) => window.formulasDemo.show(s).then(() => null), state);

/** A logits state of one query row over n keys. */
function logitsState(logits, { padding, V } = {}) {
  const n = logits[0].length;
  return {
    version: 1,
    mode: 'logits',
    heads: [{ name: 't', Q: null, K: null, V: V ?? null, logits, weights: null }],
    head: 0,
    tokens: { queries: logits.map((_, i) => `q${i}`), keys: Array.from({ length: n }, (_, j) => `k${j}`) },
    mask: { causal: false, window: 0, padding: padding ?? Array(n).fill(false), allow: null },
    tau: 1,
    scale: 'auto',
    topK: 2,
    row: 0,
    view: { panel: 'weights', preset: 'custom', numbers: 'auto' },
    source: '',
  };
}

describe('formulas', () => {
  test("default state (lesson example 1): scores, softmax, entropy and output carry the row's numbers", async () => {
    const e = Math.E;
    const a1 = e / (e + 1),
      a2 = 1 / (e + 1);
    const H = -(a1 * Math.log(a1) + a2 * Math.log(a2));
    assert.ok(Math.abs(a1 - 0.7310585786) < 1e-10 && Math.abs(H - 0.5822031089) < 1e-10, 'independent values disagree with MATH.md');
    const soft = await text('formula-softmax');
    assert.ok(soft.includes(six(a1)) && six(a1) === '0.731059', `softmax lacks ${six(a1)}: ${soft}`);
    assert.ok(soft.includes(six(a2)), `softmax lacks ${six(a2)}`);
    assert.ok(soft.includes('e^{1/1}') && soft.includes('e^{0/1}'), 'softmax lacks the exponentials with the scores');
    const ent = await text('formula-entropy');
    assert.ok(ent.includes(six(H)), `entropy lacks ${six(H)}: ${ent}`);
    assert.ok(ent.includes('nats'));
    const out = await text('formula-output');
    for (const x of [2 * a1, 4 * a2]) assert.ok(out.includes(six(x)), `output lacks ${six(x)}: ${out}`);
    assert.ok(out.includes('(2,\\ 0)') && out.includes('(0,\\ 4)'), 'output lacks the value vectors');
    const sc = await text('formula-scores');
    assert.ok(sc.includes('1\\cdot1 + 0\\cdot0'), `scores lack q·k_0 written out: ${sc}`);
    // KaTeX rendered (not raw TeX): its HTML and MathML are there.
    assert.ok((await page.locator('#formula-softmax .katex-html').count()) > 0, 'KaTeX did not render');
    assert.ok((await page.locator('#formula-softmax math').count()) > 0, 'no MathML for screen readers');
    assert.equal(await page.locator('.katex-error').count(), 0, 'a formula failed to parse');
    // Stylesheet and fonts from this server only.
    assert.ok(await page.evaluate(() => document.fonts.check('16px KaTeX_Main')), 'the KaTeX_Main font is not loaded');
    const foreign = requests.filter((u) => !u.startsWith(session.url));
    assert.deepEqual(foreign, [], 'requests to other hosts');
    assert.ok(requests.some((u) => u.endsWith('vendor/katex/katex.min.css')));
    assert.ok(requests.some((u) => /vendor\/katex\/fonts\/KaTeX_Main-Regular\.woff2$/.test(u)));
    await page.locator('#formulas').screenshot({ path: screenshotPath('formulas-example1') });
  });

  test('seed example 2, row 1: the masked key is left out and said so; weights 1/4, 3/4', async () => {
    const state = await page.evaluate(async () => {
      const { LESSON_PRESETS } = await import('../presets/presets.js');
      const s = LESSON_PRESETS.example2.make();
      s.row = 1;
      return s;
    });
    await show(state);
    assert.match(await text('formula-masked'), /left out of every sum: 2\./);
    const soft = await text('formula-softmax');
    assert.ok(soft.includes('0.25') && soft.includes('0.75'), `softmax lacks 0.25, 0.75: ${soft}`);
    assert.ok(!soft.includes('a_{2}'), 'the masked key has a softmax term');
    assert.ok((await text('formula-entropy')).includes(six(0.5623351446)));
    assert.ok((await text('formula-output')).includes('= (5)'), 'output 5 missing');
    await page.locator('#formulas').screenshot({ path: screenshotPath('formulas-example2-row1') });
  });

  test('an empty row says undefined; more than 8 keys are elided with the count', async () => {
    await show(logitsState([[1, 2, 3]], { padding: [true, true, true] }));
    assert.match(await text('formula-undefined'), /undefined/);
    assert.match(await text('formula-masked'), /left out of every sum: 0–2\./, 'masked keys 0, 1, 2 not listed as a run');
    const all = await page.textContent('#formulas');
    assert.ok(!/NaN|Infinity/.test(all), 'NaN on screen');
    await page.locator('#formulas').screenshot({ path: screenshotPath('formulas-empty') });

    const z = Array.from({ length: 10 }, (_, j) => j / 10);
    const V = z.map((_, j) => [j]);
    await show(logitsState([z], { V }));
    const soft = await text('formula-softmax');
    assert.ok(soft.includes('\\cdots') && soft.includes('(10 terms)'), 'the sum of 10 terms is not elided');
    assert.ok(soft.includes('a_{7}') && !soft.includes('a_{8} &'), 'keys beyond 8 are written out');
    // a_0 = e^0 / sum e^{j/10}, computed here.
    const Z = z.reduce((s, x) => s + Math.exp(x), 0);
    assert.ok(soft.includes(six(1 / Z)), `softmax lacks a_0 = ${six(1 / Z)}`);
    await page.locator('#formulas').screenshot({ path: screenshotPath('formulas-ten-keys') });
  });
});

describe('formulas in Chinese', () => {
  test('the words around and inside the formulas are Chinese; the math and the numbers are the same', async () => {
    const z = Array.from({ length: 10 }, (_, j) => j / 10);
    const state = logitsState([z], { V: z.map((_, j) => [j]), padding: z.map((_, j) => j === 9) });
    await show(state);
    const enTex = await page.$$eval('[data-tex]', (els) => els.map((el) => el.dataset.tex));
    // The page's i18n module (the one formulas.js uses) switched to Chinese.
    await page.evaluate(() => import('../i18n/i18n.js').then((m) => m.setLang('zh-CN')));
    await show(state);
    const zhTex = await page.$$eval('[data-tex]', (els) => els.map((el) => el.dataset.tex));
    assert.deepEqual(await englishWords(page, '#formulas > .formulas'), [], 'English words around the formulas');
    assert.match(await text('formula-masked'), /不参与任何求和：9。/);
    assert.match(await page.textContent('#formulas'), /查询行 0“q0”，τ = 1/);
    assert.ok(zhTex[1].includes('\\text{（共 9 项）}'), `the count of terms is not in Chinese: ${zhTex[1].slice(0, 200)}`);
    // Only the \text{...} words differ: the same TeX once they are taken out.
    const math = (tex) => tex.map((x) => x.replace(/\\text\{[^}]*\}/g, '\\text{}'));
    assert.deepEqual(math(zhTex), math(enTex));
    await page.locator('#formulas').screenshot({ path: screenshotPath('formulas-zh') });
    await show(logitsState([[1, 2, 3]], { padding: [true, true, true] }));
    assert.match(await text('formula-undefined'), /第 0 行没有可见键/);
    assert.deepEqual(await englishWords(page, '#formulas > .formulas', { minTexts: 2 }), []);
    await page.evaluate(() => import('../i18n/i18n.js').then((m) => m.setLang('en')));
  });
});

describe('formulas typeset at build time', () => {
  test("the lesson's formulas from web/generated/tex.js are the DOM KaTeX itself makes, under the page's CSP", async () => {
    const out = await page.evaluate(async () => {
      const { STEP_TEX } = await import('../lesson/step-tex.js');
      const { renderTex, texReady } = await import('../views/tex.js');
      const { TEX_OPTIONS } = await import('../views/tex-options.js');
      await texReady();
      const { katexRender } = await import('../vendor/katex.js');
      return Object.values(STEP_TEX)
        .filter(Boolean)
        .map((tex) => {
          const built = document.createElement('span');
          document.body.append(built);
          renderTex(built, tex); // the prerendered table has it: no KaTeX call
          const direct = document.createElement('span');
          katexRender(tex, direct, { ...TEX_OPTIONS, displayMode: false });
          const styled = built.querySelectorAll('[style]').length;
          let at = 0;
          while (at < built.innerHTML.length && built.innerHTML[at] === direct.innerHTML[at]) at++;
          const res = {
            tex,
            same: built.innerHTML === direct.innerHTML,
            diff: [built.innerHTML.slice(at - 80, at + 80), direct.innerHTML.slice(at - 80, at + 80)],
            styled,
            width: built.getBoundingClientRect().width,
          };
          built.remove();
          return res;
        });
    });
    assert.equal(out.length, 4);
    for (const r of out) {
      assert.ok(r.same, `prerendered and KaTeX's DOM differ for ${r.tex}: ${r.diff.join('\n vs \n')}`);
      assert.ok(r.styled > 0 && r.width > 50, `${r.tex}: styles applied (${r.styled}), laid out (${r.width} px)`);
    }
  });
});
