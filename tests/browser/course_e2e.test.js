// End to end, the course workflow: a teacher builds a class link in the "Share for class" dialog
// (guided lesson started, language, embed mode, two controls hidden), the <iframe> snippet is
// pasted as it is into a plain course page served from another origin (no CSP), the frame shows
// the page in that language, in embed mode, without the hidden controls, at lesson step 1, and
// grows to its content; then a student does all five lesson steps with the keyboard alone inside
// the frame (Tab, Shift+Tab, Space, Enter, arrow keys; the only non-key action is one focus on the
// course page's link before the frame): each prediction, each step's action, Reveal, Next. Every
// revealed answer is checked against numbers computed here with plain JS from the state (never the
// page's results) and for its language (tests/browser/lang_check.js). Run once in Simplified
// Chinese and once in English.
//
//   node --test --test-concurrency=1 tests/browser/course_e2e.test.js   (after the build)

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { statesEqual } from '../../web/core/state-schema.js';
import { decodeLink } from '../../web/codec/link.js';
import { near, openPage, screenshotPath, softmax, startCourseSite, startSession, waitReady, watch, closeQuietly } from './harness.js';
import { cjkText, englishWords } from './lang_check.js';

let session;
let course; // the course site: another origin, serves whatever page the test puts in course.html

before(async () => {
  session = await startSession();
  course = await startCourseSite();
});

after(async () => {
  await new Promise((done) => course?.close(done));
  await closeQuietly(session, { requests: true });
});

// ---- independent arithmetic --------------------------------------------------------------------
const dot = (a, b) => a.reduce((acc, x, i) => acc + x * b[i], 0);
const entropy = (w) => -w.reduce((acc, a) => acc + (a > 0 ? a * Math.log(a) : 0), 0);
const mix = (w, V) => V[0].map((_, c) => V.reduce((acc, v, j) => acc + w[j] * v[c], 0));
const four = (x) => String(Number(x.toPrecision(4))); // the panel's 4 significant digits
/** The ways the panel may write x: 4 significant digits alone, or in a vector whose entries share
 * a number of decimals, at least those 4 significant digits need (web/lesson/lesson-text.js vec). */
const writings = (x) => {
  const own = Math.max(0, 3 - Math.floor(Math.log10(Math.abs(x) || 1)));
  return [four(x), ...Array.from({ length: 7 - own }, (_, k) => x.toFixed(own + k))];
};
/** The scale c of a qkv state (docs/state.md: "auto" = 1/sqrt(d_k)). */
const scaleOf = (s) => (s.scale === 'auto' ? 1 / Math.sqrt(s.heads[s.head].K[0].length) : s.scale);
/** Row i's scores c q_i . k_j from the state; null where the causal mask hides key j. */
function rowScores(s, i = s.row, { causal = s.mask.causal } = {}) {
  const hd = s.heads[s.head];
  return hd.K.map((k, j) => (causal && j > i ? null : scaleOf(s) * dot(hd.Q[i], k)));
}
const V4 = [
  [1, 0],
  [0, 1],
  [1, 1],
  [2, -1],
]; // the four-token state's values (docs/lesson.md)

// ---- the runs ----------------------------------------------------------------------------------
const LANGS = {
  'zh-CN': { title: '交互实验：从加权平均到自注意力', check: (frame) => englishWords(frame, '#lesson-answer', { minTexts: 3 }) },
  // The English course page's editor drops the iframe's allow="clipboard-write" (or the snippet is
  // older than it): step 5's Copy then selects the link for Ctrl+C, without a console error.
  en: { title: null, check: (frame) => cjkText(frame, '#lesson-answer', { minTexts: 3 }), noClipboard: true },
};
const HIDE = ['import', 'lab'];

for (const [lang, spec] of Object.entries(LANGS)) {
  describe(`course page, ${lang}`, () => {
    let snippet;
    let link;
    let host;
    let frame;
    let hostContext;

    test('teacher: the guided lesson shared for class as an iframe snippet', async () => {
      const { page, context } = await openPage(session, '', { label: `[teacher ${lang}] ` });
      await page.click('#lesson-toggle');
      await page.waitForFunction(() => window.attentionPlayground.getState().lesson?.step === 1);
      await page.focus('#share-class');
      await page.keyboard.press('Enter');
      await page.waitForFunction(() => document.getElementById('share-dialog')?.open);
      const field = (name) => `#share-dialog [data-field="${name}"]`;
      assert.equal(await page.isChecked(field('embed')), true, "embed mode is the dialog's default");
      await page.selectOption(field('lang'), lang);
      for (const name of HIDE) await page.check(field(`hide-${name}`));
      link = await page.inputValue('#share-link');
      snippet = await page.inputValue('#share-snippet');
      const params = new URLSearchParams(link.split('#')[1]);
      assert.deepEqual(Object.fromEntries([...params].filter(([k]) => ['lang', 'embed'].includes(k) || k.endsWith('_hide'))), {
        lang,
        embed: '1',
        import_hide: '1',
        lab_hide: '1',
      });
      assert.deepEqual(JSON.parse(params.get('lesson')), { step: 1, predictions: {}, revealed: [] }, 'the lesson is in the link');
      assert.ok(snippet.includes(`src="${link.replace(/&/g, '&amp;')}"`), 'the snippet frames the link');
      await page.keyboard.press('Escape');
      await context.close();
    });

    test('host: the snippet pasted into a course page of another origin', async () => {
      assert.ok(snippet, 'the teacher test ran first');
      course.html = `<!doctype html><html lang="en"><meta charset="utf-8"><title>Week 3</title>
<h1>Week 3: attention</h1><p><a id="before" href="#notes">Notes for this week</a></p>
${spec.noClipboard ? snippet.replace(' allow="clipboard-write"', '') : snippet}
<p id="notes">Do the five steps, then the exercises.</p>`;
      hostContext = await session.browser.newContext({ viewport: { width: 1100, height: 900 } });
      host = await hostContext.newPage();
      watch(host, session.events, `[course ${lang}] `);
      await host.goto(`http://127.0.0.1:${course.address().port}/course.html`);
      frame = await (await host.waitForSelector('iframe[data-attention-playground]')).contentFrame();
      await waitReady(frame);
      assert.notEqual(new URL(frame.url()).origin, new URL(host.url()).origin, 'the frame is cross-origin');
      const seen = await frame.evaluate(() => ({
        lang: document.documentElement.lang,
        embed: document.documentElement.classList.contains('ap-embed'),
        hidden: ['#lab-panel', '#tab-import', '#tab-playground'].map((s) => document.querySelector(s)?.checkVisibility() ?? false),
        lesson: document.getElementById('lesson-panel').checkVisibility(),
        current: document.querySelector('#lesson-panel [aria-current="step"]')?.id,
        title: document.getElementById('lesson-title').textContent,
        tabs: document.getElementById('view-nav')?.checkVisibility() ?? false,
      }));
      assert.deepEqual(
        { ...seen, title: undefined },
        { lang, embed: true, hidden: [false, false, false], lesson: true, current: 'lesson-step-1', title: undefined, tabs: false },
      );
      if (spec.title) assert.equal(seen.title, spec.title);
      assert.deepEqual((await getState(frame)).lesson, { step: 1, predictions: {}, revealed: [] });
      await fitted('at load');
      await host.screenshot({ path: screenshotPath(`course-e2e-${lang}-step1`) });
    });

    /** Waits until the iframe on the course page is as tall as the page inside it (height messages). */
    async function fitted(what) {
      const deadline = Date.now() + 20000;
      let last;
      for (;;) {
        const inner = await frame.evaluate(() => Math.ceil(document.documentElement.getBoundingClientRect().height));
        const outer = await host.evaluate(() => document.querySelector('iframe[data-attention-playground]').getBoundingClientRect().height);
        last = { inner, outer };
        if (inner > 300 && Math.abs(outer - inner) <= 1) return outer;
        if (Date.now() > deadline) throw new Error(`${what}: the iframe never took its content's height (${JSON.stringify(last)})`);
        await host
          .waitForFunction(
            (h) => Math.abs(document.querySelector('iframe[data-attention-playground]').getBoundingClientRect().height - h) > 1,
            outer,
            { timeout: 2000 },
          )
          .catch(() => {});
      }
    }

    // ---- keyboard helpers (inside the frame) ----
    const focused = () => frame.evaluate(() => (document.hasFocus() ? (document.activeElement?.id ?? '') : ''));
    const press = (key) => host.keyboard.press(key);
    async function tabTo(id, { back = false, max = 160 } = {}) {
      for (let i = 0; i < max; i++) {
        if ((await focused()) === id) return;
        await press(back ? 'Shift+Tab' : 'Tab');
      }
      assert.equal(await focused(), id, `${back ? 'Shift+Tab' : 'Tab'} did not reach #${id}`);
    }
    /**
     * Records a radio prediction by keyboard: Tab (or Shift+Tab) into the group, the arrow keys to
     * the choice (they check as they move, as radio groups do), Space if it is not checked yet.
     */
    async function chooseRadio(name, value, choices, { back = false } = {}) {
      for (let i = 0; i < 160 && !(await focused()).startsWith(`lesson-p-${name}-`); i++) await press(back ? 'Shift+Tab' : 'Tab');
      const at = (await focused()).slice(`lesson-p-${name}-`.length);
      assert.ok(choices.includes(at), `Tab reached the ${name} radios (${at})`);
      const steps = choices.indexOf(value) - choices.indexOf(at);
      for (let k = 0; k < Math.abs(steps); k++) await press(steps > 0 ? 'ArrowDown' : 'ArrowUp');
      assert.equal(await focused(), `lesson-p-${name}-${value}`);
      if (!(await frame.isChecked(`#lesson-p-${name}-${value}`))) await press('Space');
      await until(([n, v]) => window.attentionPlayground.getState().lesson.predictions[n] === v, [name, value]);
    }
    const state = () => getState(frame);
    const until = (fn, arg) => frame.waitForFunction(fn, arg);
    const answerText = () => frame.$eval('#lesson-answer', (el) => el.textContent);
    const verdicts = () =>
      frame.$$eval('#lesson-answer .lesson-verdict', (els) =>
        Object.fromEntries(els.map((el) => [el.dataset.prediction, el.dataset.correct])),
      );
    const includesAll = (text, numbers, what) => {
      for (const x of numbers)
        assert.ok(
          writings(x).some((w) => text.includes(w)),
          `${what}: ${four(x)} in «${text}»`,
        );
    };
    async function reveal(step) {
      await tabTo('lesson-reveal');
      await press('Enter');
      await until((n) => window.attentionPlayground.getState().lesson.revealed.includes(n), step);
      assert.equal(await focused(), 'lesson-hide', 'the focus stays on the Reveal/Predict again button');
      assert.deepEqual(await spec.check(frame), [], `step ${step}: the answer is all in ${lang}`);
    }
    async function next(step) {
      await tabTo('lesson-next');
      await press('Enter');
      await until((n) => window.attentionPlayground.getState().lesson.step === n, step + 1);
      assert.equal(await focused(), 'lesson-step-title', "the new step's heading has the focus");
    }

    test('student: all five steps by keyboard only', async () => {
      assert.ok(frame, 'the host test ran first');
      // Into the frame: the course page's link before it, then Tab.
      await host.focus('#before');
      await press('Tab');
      assert.notEqual(await focused(), '', 'Tab moves the focus into the frame');

      // Step 1: predict that k2's weight rises, move k2 right with the arrow keys, reveal.
      await tabTo('lesson-p-rise-1');
      await press('Space');
      await until(() => window.attentionPlayground.getState().lesson.predictions.rise?.[0] === 1);
      await tabTo('lesson-key-1', { back: true });
      for (let i = 0; i < 5; i++) await press('ArrowRight');
      await until(() => window.attentionPlayground.getState().heads[0].K[1][0] === 0.5);
      let s = await state();
      assert.deepEqual(s.heads[0].K, [
        [1, 0],
        [0.5, 1],
      ]);
      const a1 = softmax(rowScores(s));
      const start1 = softmax(
        rowScores({
          ...s,
          heads: [
            {
              ...s.heads[0],
              K: [
                [1, 0],
                [0, 1],
              ],
            },
          ],
        }),
      );
      near(a1[1], 1 / (1 + Math.exp(0.5)), 1e-12, 'independent check of the arithmetic');
      await chooseRadio('redistribute', 'others-fall', ['others-fall', 'others-same', 'sum-grows']);
      await reveal(1);
      includesAll(await answerText(), [a1[0], a1[1], start1[0], start1[1], 0.5], 'step 1');
      assert.deepEqual(await verdicts(), { rise: 'true', redistribute: 'true' });
      await next(1);

      // Step 2: predict entropy up and sums yes, double τ with the panel's button, reveal.
      s = await state();
      assert.equal(s.tau, 1);
      await chooseRadio('entropy', 'up', ['up', 'down', 'same']);
      await chooseRadio('sums', 'yes', ['yes', 'no']);
      await tabTo('lesson-s2-up', { back: true });
      await press('Enter');
      await until(() => window.attentionPlayground.getState().tau === 2);
      s = await state();
      const z2 = rowScores(s);
      const h1 = entropy(softmax(z2, 1));
      const h2 = entropy(softmax(z2, 2));
      assert.ok(h2 > h1);
      await reveal(2);
      includesAll(await answerText(), [h1, h2, scaleOf(s), scaleOf(s) / 2], 'step 2');
      assert.deepEqual(await verdicts(), { entropy: 'true', sums: 'true' });
      await next(2);

      // Step 3: predict the six future cells and "renormalised",
      // switch the causal mask on with Space, reveal.
      s = await state();
      assert.equal(s.mask.causal, false);
      const n = s.tokens.queries.length;
      const future = [];
      for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) future.push([i, j]);
      for (const [i, j] of future) {
        await tabTo(`lesson-p-zeros-${i}_${j}`);
        await press('Space');
      }
      await until((k) => window.attentionPlayground.getState().lesson.predictions.zeros?.length === k, future.length);
      await chooseRadio('renorm', 'renormalised', ['same', 'renormalised', 'less']);
      await tabTo('lesson-s3-causal', { back: true });
      await press('Space');
      await until(() => window.attentionPlayground.getState().mask.causal === true);
      s = await state();
      const full = softmax(rowScores(s, s.row, { causal: false }));
      const masked = softmax(rowScores(s));
      const kept = full.slice(0, s.row + 1).reduce((x, y) => x + y, 0);
      await reveal(3);
      const after3 = JSON.parse(`[${(await frame.$eval('#lesson-a3-after', (el) => el.textContent)).replace(/[()]/g, '')}]`);
      masked.forEach((w, j) => near(after3[j], w, 5e-4, `step 3: shown weight ${j} with the mask`));
      includesAll(await answerText(), [kept, ...full.filter((w) => w > 0)], 'step 3');
      assert.deepEqual(await verdicts(), { zeros: 'true', renorm: 'true' });
      await next(3);

      // Step 4: predict "scores same" and "largest yes", choose v_3 in the select with
      // an arrow key, add 1 to it with Enter, reveal.
      await tabTo('lesson-s4-key');
      await press('ArrowDown');
      assert.equal(await frame.inputValue('#lesson-s4-key'), '2');
      await press('Tab');
      assert.equal(await focused(), 'lesson-s4-change');
      await press('Enter');
      await until(() => window.attentionPlayground.getState().heads[0].V[2][0] === 2);
      await chooseRadio('scores', 'same', ['change', 'same']);
      await chooseRadio('largest', 'yes', ['yes', 'no']);
      s = await state();
      assert.deepEqual(
        s.heads[0].V,
        V4.map((v, j) => (j === 2 ? v.map((x) => x + 1) : v)),
        'one value changed',
      );
      const a4 = softmax(rowScores(s));
      const o0 = mix(a4, V4);
      const o1 = mix(a4, s.heads[0].V);
      const ratio = Math.hypot(o1[0] - o0[0], o1[1] - o0[1]) / Math.SQRT2;
      near(ratio, a4[2], 1e-12, 'independent: |Δo| / |Δv| = a_t2');
      await reveal(4);
      includesAll(await answerText(), [...o0, ...o1, ratio, Math.max(...a4)], 'step 4');
      assert.deepEqual(await verdicts(), { scores: 'true', largest: 'true' });
      await next(4);

      // Step 5: reset the step, copy the link, predict "reproduces", reveal; the link checked here.
      await tabTo('lesson-reset');
      await press('Enter');
      await until(() => window.attentionPlayground.getState().mask.causal === true);
      await tabTo('lesson-s5-copy', { back: true });
      await press('Enter');
      // Copied, or (the clipboard refused) the link beside the button selected for Ctrl+C: either
      // way the focus stays in the step and a status says which.
      await until(() => document.getElementById('lesson-s5-status')?.textContent !== '');
      assert.equal(await focused(), spec.noClipboard ? 'lesson-s5-link' : 'lesson-s5-copy', 'the focus stays in step 5');
      await chooseRadio('reproduce', 'yes', ['yes', 'no']);
      await reveal(5);
      s = await state();
      const fragment = (await frame.inputValue('#lesson-s5-link')).split('#')[1];
      assert.ok(statesEqual(decodeLink(fragment), s), "the step's link holds the state on screen");
      const whole = await frame.inputValue('#lesson-s5-link');
      assert.ok((await answerText()).includes(String(whole.length)), "the answer names the link's length (the whole link's, as Copy does)");
      assert.deepEqual(await frame.$$eval('#lesson-a5-checks li', (lis) => lis.map((li) => li.dataset.ok)), [
        'true',
        'true',
        'true',
        'true',
      ]);
      assert.deepEqual(await verdicts(), { reproduce: 'true' });
      // The matrix the link reproduces: every row of the weights heatmap against plain JS.
      const shown = await frame.evaluate(
        (nq) =>
          [...Array(nq)].map((_, i) =>
            [...Array(nq)].map((__, j) => {
              const v = document.getElementById(`weights-r${i}-c${j}`).dataset.value;
              return v === '' ? 0 : Number(v);
            }),
          ),
        n,
      );
      const linked = decodeLink(fragment);
      for (let i = 0; i < n; i++) softmax(rowScores(linked, i)).forEach((w, j) => near(shown[i][j], w, 1e-6, `weight ${i},${j}`));

      // The end: step 5, every prediction recorded, every step revealed.
      s = await state();
      assert.equal(s.lesson.step, 5);
      assert.deepEqual(s.lesson.revealed, [1, 2, 3, 4, 5]);
      assert.deepEqual(s.lesson.predictions, {
        rise: [1],
        redistribute: 'others-fall',
        entropy: 'up',
        sums: 'yes',
        zeros: future.map(([i, j]) => i * n + j),
        renorm: 'renormalised',
        scores: 'same',
        largest: 'yes',
        reproduce: 'yes',
      });
      assert.equal(await frame.evaluate(() => document.documentElement.lang), lang, 'still in the chosen language');
      await fitted('after the lesson');
      await host.screenshot({ path: screenshotPath(`course-e2e-${lang}-step5`), fullPage: true });
      await hostContext.close();
    });
  });
}

const getState = (frame) => frame.evaluate(() => window.attentionPlayground.getState());
