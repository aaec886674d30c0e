// Browser tests of the guided lesson (web/lesson/, docs/lesson.md): the five steps of the seed
// lesson's interactive experiment walked with predictions, each reveal's numbers checked against
// values computed in this file from Q, K, V with plain JS (never read from the page's core), the
// link reloaded mid-lesson and continued, step 1 done by keyboard only (Tab, Space, Enter,
// arrows), a key dragged with the mouse, the exercises' live solutions, Undo, Close, the lesson
// presets and both languages. One page for the whole file.
//
//   node --test --test-concurrency=1 tests/browser/lesson.test.js

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { choosePreset, getResults, getState, near, readMatrix, screenshotPath, sharedPage, softmax, waitReady } from './harness.js';
import { CJK, englishWords } from '../node/i18n_words.js';

let page;
sharedPage('[lesson] ', (p) => {
  page = p;
});

// ---- independent arithmetic --------------------------------------------------------------------
const dot = (a, b) => a.reduce((acc, x, i) => acc + x * b[i], 0);
const entropy = (w) => -w.reduce((acc, a) => acc + (a > 0 ? a * Math.log(a) : 0), 0);
const mix = (w, V) => V[0].map((_, c) => V.reduce((acc, v, j) => acc + w[j] * v[c], 0));
const four = (x) => String(Number(x.toPrecision(4))); // the panel's 4 significant digits
// The four-token state of steps 2 to 5 (the preset "selfattention").
const Q4 = [
  [1, 0],
  [0.5, 1],
  [1, 1],
  [0, 1.5],
];
const K4 = [
  [1, 0.2],
  [0.2, 1],
  [1, 1],
  [-0.5, 1],
];
const V4 = [
  [1, 0],
  [0, 1],
  [1, 1],
  [2, -1],
];
const row2Scores = K4.map((k) => dot(Q4[2], k) / Math.sqrt(2));

// ---- page helpers ------------------------------------------------------------------------------
const lesson = async () => (await getState(page)).lesson;
const text = (sel) => page.$eval(sel, (el) => el.textContent);
const attr = (sel, name) => page.$eval(sel, (el, n) => el.getAttribute(n), name);
const focused = () => page.evaluate(() => document.activeElement?.id ?? '');
const verdict = (name) => attr(`#lesson-answer .lesson-verdict[data-prediction="${name}"]`, 'data-correct');
const dataValue = async (sel) => Number(await attr(sel, 'data-value'));

/** Presses Tab (or Shift+Tab) until the element with `id` has the focus. */
async function tabTo(id, { back = false, max = 60 } = {}) {
  for (let i = 0; i < max; i++) {
    if ((await focused()) === id) return;
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
  }
  assert.equal(await focused(), id, `Tab did not reach #${id}`);
}

async function shot(name) {
  await page.screenshot({ path: screenshotPath(`lesson-${name}`), fullPage: true });
}

/** Opens `url` afresh (not a hash change: a real reload of the page). */
async function reload(url) {
  await page.goto('about:blank');
  await page.goto(url);
  await waitReady(page);
}

describe('guided lesson', () => {
  test('the guided preset starts the lesson at step 1 on worked example 1; the panel shows scores beside weights', async () => {
    assert.equal(await page.isVisible('#lesson-panel'), false, 'no lesson in the default state');
    await choosePreset(page, 'lessonGuided');
    assert.deepEqual(await lesson(), { step: 1, predictions: {}, revealed: [] });
    // The lesson's modules load on first use (web/main.js): the panel follows the state.
    await page.waitForSelector('#lesson-panel #lesson-step-1');
    assert.ok(await page.isVisible('#lesson-panel'));
    assert.equal(await attr('#lesson-step-1', 'aria-current'), 'step');
    assert.equal(await attr('#lesson-toggle', 'aria-pressed'), 'true');
    // Worked example 1 without scaling: s = (1, 0), a = (e/(e+1), 1/(e+1)).
    near(await dataValue('#lesson-s1-score-0'), 1, 1e-7, 's_1');
    near(await dataValue('#lesson-s1-score-1'), 0, 1e-7, 's_2');
    near(await dataValue('#lesson-s1-weight-0'), Math.E / (Math.E + 1), 1e-6, 'a_1');
    near(await dataValue('#lesson-s1-weight-1'), 1 / (Math.E + 1), 1e-6, 'a_2');
    assert.equal(await page.isDisabled('#lesson-reveal'), true, 'no reveal before a prediction');
    assert.match(await attr('#lesson-key-1', 'aria-valuetext'), /\(0, 1\)/);
    await shot('step1-en');
  });

  test('step 1 entirely by keyboard: predict with Space, move k2 with the arrow keys, reveal with Enter', async () => {
    await page.focus('#lesson-step-title'); // where the focus lands when a step opens
    await tabTo('lesson-p-rise-1');
    await page.keyboard.press('Space');
    assert.deepEqual((await lesson()).predictions, { rise: [1] });
    assert.equal(await focused(), 'lesson-p-rise-1', 'the focus stays on the checkbox after the commit');
    await tabTo('lesson-key-1'); // the plane comes after the predictions
    for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowRight');
    const s = await getState(page);
    assert.deepEqual(
      s.heads[0].K,
      [
        [1, 0],
        [0.5, 1],
      ],
      'five presses of 0.1',
    );
    assert.equal(await focused(), 'lesson-key-1');
    assert.match(await attr('#lesson-key-1', 'aria-valuetext'), /\(0\.5, 1\)/);
    assert.match(await text('#lesson-plane-status'), /0\.5, 1/);
    // How the whole row redistributes (the article's question): a radio, by keyboard too.
    // The predictions are above the plane: Shift+Tab enters the radio group (at its last radio,
    // or at the one the focus passed through on its way down: the panel is patched in place, so
    // it is the same element), and the arrow keys choose within it.
    for (let i = 0; i < 10 && !(await focused()).startsWith('lesson-p-redistribute-'); i++) await page.keyboard.press('Shift+Tab');
    assert.match(await focused(), /^lesson-p-redistribute-/, 'Shift+Tab reached the radio group');
    for (let i = 0; i < 3 && (await focused()) !== 'lesson-p-redistribute-others-fall'; i++) await page.keyboard.press('ArrowUp');
    assert.equal(await focused(), 'lesson-p-redistribute-others-fall');
    await page.keyboard.press('Space'); // checks it when the arrows did not (the focus started there)
    await page.waitForFunction(() => window.attentionPlayground.getState().lesson.predictions.redistribute === 'others-fall');
    await tabTo('lesson-reveal');
    await page.keyboard.press('Enter');
    assert.deepEqual((await lesson()).revealed, [1]);
    // q = (1, 0), k1 = (1, 0), k2 = (0.5, 1), no scaling: s = (1, 0.5).
    const a = softmax([dot([1, 0], [1, 0]), dot([1, 0], [0.5, 1])]);
    const shown = await text('#lesson-answer');
    assert.ok(shown.includes(four(a[1])) && shown.includes(four(a[0])), shown);
    assert.ok(shown.includes(four(1 / (Math.E + 1))), 'the weight at the start beside the new one');
    assert.equal(await verdict('rise'), 'true');
    assert.equal(await verdict('redistribute'), 'true');
    near(await dataValue('#lesson-s1-weight-1'), a[1], 1e-6, 'a_2 after the move');
    near(await dataValue('#lesson-s1-score-1'), 0.5, 1e-7, 's_2 after the move');
    assert.equal(await page.isDisabled('#lesson-p-rise-0'), true, 'the prediction is locked after the reveal');
    await shot('step1-revealed');
  });

  test('a key dragged with the mouse moves in one undo step; Home puts it back', async () => {
    const before = (await getState(page)).heads[0].K;
    const box = await page.$eval('#lesson-key-0 .lesson-key-dot', (el) => {
      el.scrollIntoView({ block: 'center' }); // the panel is taller than the screen
      const r = el.getBoundingClientRect();
      return { x: r.x + r.width / 2, y: r.y + r.height / 2 };
    });
    await page.mouse.move(box.x, box.y);
    await page.mouse.down();
    for (let i = 1; i <= 5; i++) await page.mouse.move(box.x - 8 * i, box.y - 8 * i);
    await page.mouse.up();
    const after = (await getState(page)).heads[0].K;
    assert.notDeepEqual(after[0], before[0], 'k1 moved');
    assert.ok(after[0][0] < 1 && after[0][1] > 0, `k1 moved up and left: ${after[0]}`);
    for (const x of after[0]) near(Math.round(x * 20) / 20, x, 1e-12, 'snapped to 0.05');
    assert.deepEqual(after[1], before[1], 'k2 did not move');
    await page.click('#undo');
    assert.deepEqual((await getState(page)).heads[0].K, before, 'one undo takes back the whole drag');
    await page.focus('#lesson-key-1');
    await page.keyboard.press('Home');
    assert.deepEqual((await getState(page)).heads[0].K[1], [0, 1], 'Home: k2 back where the step started');
    assert.equal(await attr('#lesson-answer .lesson-verdict', 'data-correct'), '', 'no key moved: no mark');
  });

  test('step 2: entropy with τ doubled and every row summing to one, checked against plain JS', async () => {
    await page.click('#lesson-next');
    const s = await getState(page);
    assert.equal(s.lesson.step, 2);
    assert.equal(s.tau, 1);
    assert.equal(s.scale, 'auto');
    assert.deepEqual(s.heads[0].Q, Q4, 'step 2 starts from the four-token state');
    assert.equal(await focused(), 'lesson-step-title', "the new step's heading has the focus");
    await page.click('#lesson-p-entropy-down'); // a wrong prediction
    await page.click('#lesson-p-sums-yes');
    await page.click('#lesson-s2-up');
    assert.equal((await getState(page)).tau, 2);
    await page.click('#lesson-reveal');
    const h1 = entropy(softmax(row2Scores, 1));
    const h2 = entropy(softmax(row2Scores, 2));
    assert.ok(h2 > h1);
    near(await dataValue('#lesson-s2-entropy'), h2, 1e-6, 'entropy of row 2 at τ = 2');
    const shown = await text('#lesson-answer');
    assert.ok(shown.includes(four(h1)) && shown.includes(four(h2)), shown);
    assert.ok(shown.includes(four(1 / Math.sqrt(2))) && shown.includes(four(1 / Math.sqrt(2) / 2)), 'c/τ before and after');
    assert.equal(await verdict('entropy'), 'false', 'predicted "falls", it rises');
    assert.equal(await verdict('sums'), 'true');
    for (const sum of (await getResults(page)).rows.map((r) => r.rowSum)) near(sum, 1, 1e-6, 'row sum');
    await shot('step2-revealed');
  });

  test('reloading the link mid-lesson continues at step 2 with the predictions and the answer', async () => {
    const url = await page.evaluate(() => window.attentionPlayground.shareUrl());
    assert.ok(url.includes('lesson='), url);
    const before = await getState(page);
    await reload(url);
    assert.deepEqual(await getState(page), before);
    assert.equal(await attr('#lesson-step-2', 'aria-current'), 'step');
    assert.equal(await page.isChecked('#lesson-p-entropy-down'), true);
    assert.equal(await page.isChecked('#lesson-p-sums-yes'), true);
    assert.equal(await verdict('entropy'), 'false');
    near(await dataValue('#lesson-s2-entropy'), entropy(softmax(row2Scores, 2)), 1e-6, 'entropy after the reload');
  });

  test('step 3: the causal mask zeroes the future cells and renormalises the allowed ones', async () => {
    await page.click('#lesson-next');
    assert.equal((await getState(page)).mask.causal, false);
    const future = [];
    for (let i = 0; i < 4; i++) for (let j = i + 1; j < 4; j++) future.push(`${i}_${j}`);
    for (const c of future.slice(0, -1)) await page.click(`#lesson-p-zeros-${c}`); // one cell forgotten
    await page.click('#lesson-p-renorm-renormalised');
    await page.click('#lesson-s3-causal');
    assert.equal((await getState(page)).mask.causal, true);
    await page.click('#lesson-reveal');
    assert.equal(await verdict('zeros'), 'false', 'one zero cell was not predicted');
    assert.equal(await verdict('renorm'), 'true');
    // Row 2 with the mask: softmax over keys 0..2, key 3 exactly zero; the same as the unmasked
    // weights of keys 0..2 divided by their sum.
    const full = softmax(row2Scores);
    const masked = softmax([...row2Scores.slice(0, 3), null]);
    const kept = full[0] + full[1] + full[2];
    for (let j = 0; j < 3; j++) near(masked[j], full[j] / kept, 1e-12, 'renormalisation identity');
    const after = JSON.parse(`[${(await text('#lesson-a3-after')).replace(/[()]/g, '')}]`);
    for (let j = 0; j < 4; j++) near(after[j], masked[j], 5e-4, `shown weight ${j} with the mask`);
    assert.ok((await text('#lesson-answer')).includes(four(kept)), 'the sum the allowed weights are divided by');
    const { values } = await readMatrix(page, 'weights', 4, 4);
    for (let i = 0; i < 4; i++) for (let j = 0; j < 4; j++) if (j > i) assert.equal(values[i][j] ?? 0, 0, `cell ${i},${j}`);
    // Predict again with the forgotten cell: now right.
    await page.click('#lesson-hide');
    await page.click(`#lesson-p-zeros-${future[future.length - 1]}`);
    await page.click('#lesson-reveal');
    assert.equal(await verdict('zeros'), 'true');
    assert.deepEqual((await lesson()).predictions.zeros, [1, 2, 3, 6, 7, 11]);
    await shot('step3-revealed');
  });

  test('a box question left untouched is the answer "none": step 3 reveals with no cell ticked, recorded as [] and marked', async () => {
    const s = await getState(page);
    delete s.lesson.predictions.zeros; // never touched (as a student who ticks nothing)
    s.lesson.revealed = s.lesson.revealed.filter((k) => k !== 3);
    await page.evaluate((x) => window.attentionPlayground.setState(x), s);
    assert.equal((await getState(page)).mask.causal, true);
    assert.equal(await page.isChecked('#lesson-p-zeros-0_1'), false);
    assert.equal(await page.isDisabled('#lesson-reveal'), false, 'the radio question answered: revealable');
    await page.click('#lesson-reveal');
    assert.deepEqual((await lesson()).predictions.zeros, [], 'recorded as "none"');
    assert.equal(await verdict('zeros'), 'false', 'the mask zeroes 6 cells');
    assert.ok((await text('#lesson-answer')).includes('none'), await text('#lesson-answer'));
  });

  test('step 4: one value changed, the scores stay, the output moves by a_tj times the change', async () => {
    await page.click('#lesson-next');
    await page.click('#lesson-p-scores-change'); // wrong
    await page.click('#lesson-p-largest-yes');
    await page.selectOption('#lesson-s4-key', '1');
    await page.click('#lesson-s4-change');
    assert.deepEqual((await getState(page)).heads[0].V[1], [1, 2]);
    await page.click('#lesson-reveal');
    assert.equal(await verdict('scores'), 'false');
    assert.equal(await verdict('largest'), 'true');
    const a = softmax(row2Scores);
    const before = mix(a, V4);
    const after = mix(
      a,
      V4.map((v, j) => (j === 1 ? v.map((x) => x + 1) : v)),
    );
    const shown = await text('#lesson-answer');
    for (const x of [...before, ...after]) assert.ok(shown.includes(four(x)), `${four(x)} in ${shown}`);
    // |Δo| / |Δv_1| = a_21: the ratio and the weight are both written.
    assert.ok(shown.includes(four(Math.hypot(after[0] - before[0], after[1] - before[1]) / Math.SQRT2)));
    assert.ok(shown.includes(four(a[1])));
    // The largest weight of row 2 is key 2 ("sat").
    assert.ok(shown.includes(`sat, ${four(a[2])}`), shown);
  });

  test('step 5: the link reproduces the matrix, the mask and the step', async () => {
    await page.click('#lesson-next');
    const s = await getState(page);
    assert.equal(s.lesson.step, 5);
    assert.equal(s.mask.causal, true, 'step 5 starts with the causal mask on');
    await page.click('#lesson-p-reproduce-yes');
    await page.click('#lesson-reveal');
    assert.equal(await verdict('reproduce'), 'true');
    const oks = await page.$$eval('#lesson-a5-checks li', (lis) => lis.map((li) => li.dataset.ok));
    assert.deepEqual(oks, ['true', 'true', 'true', 'true']);
    const url = await page.$eval('#lesson-s5-link', (el) => el.value);
    const before = await getState(page);
    const weights = (await getResults(page)).weights;
    await reload(url);
    const again = await getState(page);
    assert.deepEqual(again, before);
    assert.deepEqual((await getResults(page)).weights, weights);
    assert.equal(again.lesson.step, 5);
    await shot('step5-revealed');
  });

  test('exercises: solutions with the live numbers; "set Q to zero" gives uniform weights and the mean of V', async () => {
    await page.click('#lesson-prev'); // step 4: no mask, the four-token state
    await page.click('#lesson-ex-2 summary');
    assert.equal(await page.isVisible('#lesson-ex-2-solution'), true);
    await page.click('#lesson-ex-2-try');
    const s = await getState(page);
    assert.deepEqual(
      s.heads[0].Q,
      Q4.map((r) => r.map(() => 0)),
    );
    const mean = [0, 1].map((c) => V4.reduce((acc, v) => acc + v[c], 0) / 4);
    const out = JSON.parse(await attr('#lesson-ex2-output', 'data-value'));
    const shownMean = JSON.parse(await attr('#lesson-ex2-mean', 'data-value'));
    for (let c = 0; c < 2; c++) {
      near(out[c], mean[c], 1e-6, `output ${c}`);
      near(shownMean[c], mean[c], 1e-12, `mean ${c}`);
    }
    for (const w of JSON.parse(await attr('#lesson-ex2-weights', 'data-value'))) near(w, 0.25, 1e-7, 'uniform weight');
    assert.equal(await page.isVisible('#lesson-ex-2-solution'), true, 'the solution stays open across the commit');
    await page.click('#undo');
    assert.deepEqual((await getState(page)).heads[0].Q, Q4, 'undo restores Q');

    // Exercise 3: the lowest weight of row 2 and the exact output shift when it is deleted.
    await page.click('#lesson-ex-3 summary');
    await page.waitForSelector('#lesson-ex3-weight'); // computed once the solution is open
    const a = softmax(row2Scores);
    const low = a.indexOf(Math.min(...a));
    const o = mix(a, V4);
    const rest = mix(
      a.map((w, j) => (j === low ? 0 : w / (1 - a[low]))),
      V4,
    );
    near(await dataValue('#lesson-ex3-weight'), a[low], 1e-6, 'lowest weight');
    near(await dataValue('#lesson-ex3-deletion'), Math.hypot(rest[0] - o[0], rest[1] - o[1]), 1e-6, 'deletion shift');
    near(await dataValue('#lesson-ex3-distance'), Math.hypot(V4[low][0] - o[0], V4[low][1] - o[1]), 1e-6, 'distance of its value');

    // Exercise 1: one more value column; d_v = 3 while d_k stays 2; scores unchanged.
    const scores = (await getResults(page)).scores;
    await page.click('#lesson-ex-1-try');
    const r = await getResults(page);
    assert.equal(r.dV, 3);
    assert.deepEqual(r.scores, scores);
    await page.click('#undo');
    await shot('exercises');
  });

  test('Chinese: the panel in Chinese with the same numbers; Close and Undo; other presets keep the lesson', async () => {
    const enAnswer = await text('#lesson-s4-output');
    const url = await page.evaluate(() => window.attentionPlayground.shareUrl());
    await reload(`${url.replace(/&lang=[^&]*/, '')}&lang=zh-CN`);
    assert.equal(await text('#lesson-title'), '交互实验：从加权平均到自注意力');
    assert.equal(await text('#lesson-s4-output'), enAnswer, 'numbers identical in both languages');
    const panelText = await text('#lesson-panel');
    assert.ok(!/lesson\.[a-z]/.test(panelText), 'no missing string key shown');
    assert.ok(panelText.includes('练习') && panelText.includes('查看解答'));
    await page.click('#lesson-step-1');
    await shot('step1-zh');
    await reload(url.replace(/#.*/, '#lang=en'));
    // Other presets keep the lesson open; the lab presets open their views.
    await choosePreset(page, 'lessonGuided');
    await choosePreset(page, 'lessonSweep');
    let s = await getState(page);
    assert.equal(s.lab.view, 'sweep');
    assert.deepEqual(s.lab.params.taus, [0.5, 1, 2]);
    assert.equal(s.lesson.step, 1, 'the lesson stays open across presets');
    await choosePreset(page, 'lessonSensitivity');
    assert.equal((await getState(page)).lab.view, 'sensitivity');
    // Any state with the lesson open: given logits, multi-head from X, a real head (no error on the
    // page; the file's hooks assert that none was thrown).
    for (const id of ['example2', 'multihead', 'gpt2-small_L5H5_induction_random-repeated.0']) {
      await choosePreset(page, id);
      assert.equal((await getState(page)).lesson.step, 1, id);
      assert.ok(await page.isVisible('#lesson-panel'), id);
      await page.click('#lesson-p-rise-0');
      await page.click('#lesson-p-redistribute-others-fall');
      await page.click('#lesson-reveal');
      assert.ok((await text('#lesson-answer')).length > 0, id);
      await page.click('#lesson-hide');
    }
    await page.click('#lesson-close');
    s = await getState(page);
    assert.equal('lesson' in s, false);
    assert.equal(await page.isVisible('#lesson-panel'), false);
    assert.ok(!(await page.evaluate(() => window.attentionPlayground.shareUrl())).includes('lesson='));
    await page.click('#undo');
    assert.equal((await getState(page)).lesson.step, 1, 'undo brings the lesson back');
    await page.click('#lesson-toggle');
    assert.equal('lesson' in (await getState(page)), false, 'the header button closes it too');
  });

  test('language coverage: every step, answer and solution in Chinese holds no English word, in English no Chinese', async () => {
    // The panel's text as a reader meets it: visible text and labels, without data (translate="no")
    // and KaTeX; an attribute cannot mark part of itself as data, so tokens are cut out of it.
    const panelTexts = () =>
      page.evaluate(() => {
        const st = window.attentionPlayground.getState();
        const tokens = [...st.tokens.queries, ...st.tokens.keys].sort((x, y) => y.length - x.length);
        const strip = (v) => tokens.reduce((acc, tk) => acc.split(tk).join(' '), v);
        const out = [];
        const visit = (el) => {
          if (el.matches('.katex, [translate="no"], script, style') || !el.checkVisibility()) return;
          for (const a of ['aria-label', 'title', 'aria-roledescription', 'aria-valuetext'])
            if (el.getAttribute(a)) out.push(strip(el.getAttribute(a)));
          for (const c of el.childNodes) {
            if (c.nodeType === Node.TEXT_NODE && c.textContent.trim()) out.push(c.textContent.trim());
            else if (c.nodeType === Node.ELEMENT_NODE) visit(c);
          }
        };
        visit(document.getElementById('lesson-panel'));
        return out;
      });
    const act = {
      1: async () => {
        await page.focus('#lesson-key-1');
        await page.keyboard.press('ArrowLeft');
      },
      2: () => page.click('#lesson-s2-up'),
      3: () => page.click('#lesson-s3-causal'),
      4: () => page.click('#lesson-s4-change'),
      5: async () => {},
    };
    const all = {
      rise: [0],
      redistribute: 'others-fall',
      entropy: 'up',
      sums: 'yes',
      zeros: [1],
      renorm: 'same',
      scores: 'change',
      largest: 'no',
      reproduce: 'yes',
    };
    for (const lang of ['zh-CN', 'en']) {
      await choosePreset(page, 'lessonGuided');
      const start = {
        ...(await page.evaluate(() => window.attentionPlayground.getState())),
        lesson: { step: 1, predictions: all, revealed: [1, 2, 3, 4, 5] },
      };
      await page.evaluate((st) => window.attentionPlayground.setState(st), start);
      const url = await page.evaluate(() => window.attentionPlayground.shareUrl());
      await reload(`${url.replace(/&lang=[^&]*/, '')}&lang=${lang}`);
      const bad = [];
      for (const step of [1, 2, 3, 4, 5]) {
        await page.click(`#lesson-step-${step}`);
        await act[step]();
        await page.evaluate(() => {
          for (const d of document.querySelectorAll('#lesson-exercises details')) d.open = true;
        });
        assert.ok(await page.isVisible('#lesson-answer .lesson-verdict'), `step ${step}: the answer is shown`);
        for (const text of await panelTexts()) {
          if (lang === 'en' ? CJK.test(text) : englishWords(text).length) bad.push(`step ${step}: ${text}`);
        }
      }
      assert.deepEqual([...new Set(bad)], [], `${lang}: text in the other language`);
    }
  });

  test('a lesson started from a real head: closing it returns to that head, opening it again continues the lesson', async () => {
    if ((await getState(page)).lesson) await page.click('#lesson-close');
    await page.waitForFunction(() => !window.attentionPlayground.getState().lesson);
    const real = 'gpt2-small_L5H5_induction_random-repeated.0';
    await choosePreset(page, real);
    await page.fill('#tau', '1.5');
    await page.dispatchEvent('#tau', 'change');
    await page.waitForFunction(() => window.attentionPlayground.getState().tau === 1.5);
    const before = await getState(page);
    const opened = async () => {
      await page.click('#lesson-toggle');
      await page.waitForFunction(() => Boolean(window.attentionPlayground.getState().lesson));
    };
    await opened();
    assert.notEqual((await getState(page)).view.preset, real, "the lesson's own state");
    await page.click('#lesson-step-2');
    await page.waitForFunction(() => window.attentionPlayground.getState().lesson.step === 2);
    const during = await lesson();
    await page.click('#lesson-close');
    await page.waitForFunction(() => !window.attentionPlayground.getState().lesson);
    assert.deepEqual(await getState(page), before, 'closed: the real head as it was, tau included');
    assert.equal(await page.isVisible('#lesson-panel'), false);
    await opened();
    assert.deepEqual(await lesson(), during, 'opened again: where the lesson was');
    // The header button closes it too, back to the same state.
    await page.click('#lesson-toggle');
    await page.waitForFunction(() => !window.attentionPlayground.getState().lesson);
    assert.deepEqual(await getState(page), before);
    // Undo brings the lesson back.
    await page.click('#undo');
    await page.waitForFunction(() => Boolean(window.attentionPlayground.getState().lesson));
    assert.deepEqual(await lesson(), during);
    await page.click('#lesson-close');
    await page.waitForFunction(() => !window.attentionPlayground.getState().lesson);
    assert.deepEqual(await getState(page), before);
  });
});
