// The lesson on a phone, end to end: a student completes the whole guided lesson by touch (tap,
// one touch drag) at 390 x 844 in Chinese, inside a course page of another origin, from a
// read-only class link; the course page is reloaded halfway and the lesson continues where it
// was. Every number the article states is checked against plain arithmetic done here (worked
// example 1: 0.7311, 0.2689, the swapped output (0.5379, 2.924); worked example 2: ln 3, ln 2,
// outputs 2, 5, 5). Then: every interactive element measured at 390 x 844 and 768 x 1024 (none
// under 24 x 24 CSS px, no lesson control under 44 x 44, nothing wider than the screen), and the
// key plane's labels never overlapping.
//
//   node --test --test-concurrency=1 tests/browser/lesson_phone.test.js   (after the build)

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { closeQuietly, startCourseSite, near, screenshotPath, softmax, startSession, waitReady, watch } from './harness.js';

let session;
let course; // the course site: another origin
before(async () => {
  session = await startSession();
  course = await startCourseSite();
});
after(async () => {
  await new Promise((done) => course?.close(done));
  await closeQuietly(session);
});

// ---- independent arithmetic --------------------------------------------------------------------
const dot = (a, b) => a.reduce((acc, x, i) => acc + x * b[i], 0);
const mix = (w, V) => V[0].map((_, c) => V.reduce((acc, v, j) => acc + w[j] * v[c], 0));
const entropy = (w) => -w.reduce((acc, a) => acc + (a > 0 ? a * Math.log(a) : 0), 0);
const scaleOf = (s) => (s.scale === 'auto' ? 1 / Math.sqrt(s.heads[s.head].K[0].length) : s.scale);
const rowScores = (s, i = s.row, causal = s.mask.causal) =>
  s.heads[s.head].K.map((k, j) => (causal && j > i ? null : scaleOf(s) * dot(s.heads[s.head].Q[i], k)));
const nums = (text) => (text.match(/-?\d+(\.\d+)?(e-?\d+)?/g) ?? []).map(Number);

const PHONE = { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, deviceScaleFactor: 1, locale: 'zh-CN' };

test('student on a phone: the whole lesson by touch, in Chinese, in a read-only class link on a course page of another origin', async () => {
  // The teacher: the lesson started, the share dialog with read-only, in Chinese.
  const teacherContext = await session.browser.newContext({ viewport: { width: 1200, height: 900 } });
  const teacher = await teacherContext.newPage();
  watch(teacher, session.events, '[teacher] ');
  await teacher.goto(`${session.url}#lang=zh-CN`);
  await waitReady(teacher);
  await teacher.click('#lesson-toggle');
  await teacher.waitForFunction(() => window.attentionPlayground.getState().lesson?.step === 1);
  await teacher.click('#share-class');
  await teacher.waitForFunction(() => document.getElementById('share-dialog')?.open);
  await teacher.selectOption('#share-dialog [data-field="lang"]', 'zh-CN');
  await teacher.check('#share-dialog [data-field="readonly"]');
  // The dialog says what read-only locks and that the lesson stays usable.
  const note = await teacher.$eval('#share-readonly-note', (el) => (el.hidden ? '' : el.textContent));
  for (const word of ['输入矩阵', '温度与缩放', '掩码', '撤销', '整个交互实验'])
    assert.ok(note.includes(word), `read-only note: ${word} in «${note}»`);
  const link = await teacher.inputValue('#share-link');
  const snippet = await teacher.inputValue('#share-snippet');
  assert.match(link, /#lang=zh-CN&embed=1&readonly=1&v=1&/, 'the page options first: a cut link keeps them');
  assert.doesNotMatch(link, /teacher=1/, 'the student view by default');
  await teacherContext.close();

  course.html = `<!doctype html><html lang="zh-CN"><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>第三周</title><body style="margin:0"><h1 style="font-size:1.1rem">第三周：注意力</h1>${snippet}</body>`;
  const context = await session.browser.newContext(PHONE);
  const host = await context.newPage();
  watch(host, session.events, '[phone] ');
  const courseUrl = `http://127.0.0.1:${course.address().port}/course.html`;
  let frame;
  async function openCourse() {
    await host.goto(courseUrl);
    frame = await (await host.waitForSelector('iframe[data-attention-playground]')).contentFrame();
    await waitReady(frame);
    await frame.waitForSelector('#lesson-step-title');
  }
  await openCourse();
  assert.notEqual(new URL(frame.url()).origin, new URL(host.url()).origin, 'the frame is cross-origin');
  const seen = await frame.evaluate(() => ({
    readonly: document.documentElement.classList.contains('ap-readonly'),
    teacherTools: ['#share-class', '#save-state'].map((s) => document.querySelector(s).checkVisibility()),
    tauLocked: document.getElementById('tau-slider')?.disabled ?? null,
    lessonFirst:
      document.getElementById('lesson-panel').getBoundingClientRect().top <
      document.querySelector('.panel.controls').getBoundingClientRect().top,
  }));
  assert.deepEqual(seen, { readonly: true, teacherTools: [false, false], tauLocked: true, lessonFirst: true });

  const state = () => frame.evaluate(() => window.attentionPlayground.getState());
  const until = (fn, arg) => frame.waitForFunction(fn, arg, { timeout: 10000 });
  const tap = (sel) => frame.tap(sel);
  const text = (sel) => frame.$eval(sel, (el) => el.textContent);
  const data = (sel) => frame.$eval(sel, (el) => JSON.parse(el.dataset.value));
  const predict = async (name, value) => {
    await tap(`#lesson-p-${name}-${value}`);
    await until(([n, v]) => window.attentionPlayground.getState().lesson.predictions[n] === v, [name, value]);
  };
  const verdicts = () =>
    frame.$$eval('#lesson-answer .lesson-verdict', (els) =>
      Object.fromEntries(els.map((el) => [el.dataset.prediction, el.dataset.correct])),
    );
  async function reveal(n) {
    await tap('#lesson-reveal');
    await until((k) => window.attentionPlayground.getState().lesson.revealed.includes(k), n);
  }
  async function next(n) {
    await tap('#lesson-next');
    await until((k) => window.attentionPlayground.getState().lesson.step === k, n + 1);
  }
  /**
   * The result a step talks about is on screen beside it (the phone's 844 px), right after the
   * step's action was tapped: no scrolling in between.
   */
  async function onScreen(sel, what) {
    const box = await frame.$eval(sel, (el) => {
      const r = el.getBoundingClientRect();
      return { top: r.top, bottom: r.bottom };
    });
    const offset = await host.$eval('iframe[data-attention-playground]', (f) => f.getBoundingClientRect().top);
    assert.ok(box.top + offset >= 0 && box.bottom + offset <= 844 + 1, `${what} on screen (${JSON.stringify(box)}, frame at ${offset})`);
  }

  // Step 1 (worked example 1): the swap of v1 and v2 first, on the article's numbers.
  const a0 = [Math.E / (Math.E + 1), 1 / (Math.E + 1)];
  near((await data('#lesson-s1-swap-weights'))[0], a0[0], 1e-6, 'worked example 1: α₁ = e/(e+1)');
  const o0 = mix(a0, [
    [2, 0],
    [0, 4],
  ]);
  const oSwap = mix(a0, [
    [0, 4],
    [2, 0],
  ]);
  (await data('#lesson-s1-swap-output')).forEach((x, i) => near(x, o0[i], 1e-6, `output (1.462, 1.076)[${i}]`));
  (await data('#lesson-s1-swap-output-after')).forEach((x, i) => near(x, oSwap[i], 1e-6, `swapped output[${i}]`));
  await tap('#lesson-s1-swap-do');
  await until(() => window.attentionPlayground.getState().heads[0].V[0][1] === 4);
  (await data('#lesson-s1-swap-weights')).forEach((x, i) => near(x, a0[i], 1e-6, 'the weights did not move'));
  await tap('#lesson-s1-swap-do'); // and back
  await until(() => window.attentionPlayground.getState().heads[0].V[0][0] === 2);
  await tap('#lesson-p-rise-1');
  await until(() => window.attentionPlayground.getState().lesson.predictions.rise?.[0] === 1);
  await predict('redistribute', 'others-fall');
  // Drag k2 by touch to the right (0.5 or more along x₁).
  const key = await frame.$eval('#lesson-key-1', (el) => {
    el.scrollIntoView({ block: 'center' });
    const r = el.querySelector('.lesson-key-dot').getBoundingClientRect();
    return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
  });
  const fr = await host.$eval('iframe[data-attention-playground]', (f) => {
    const r = f.getBoundingClientRect();
    return { x: r.left, y: r.top };
  });
  const cdp = await context.newCDPSession(host);
  const at = (dx) => [{ x: fr.x + key.x + dx, y: fr.y + key.y }];
  // A quick flick (10 ms between moves, the event times given), then 查看答案 tapped with no pause:
  // the browser must not turn the release into a fling that swallows that tap (plane.js).
  const t0 = Date.now() / 1000;
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: at(0), timestamp: t0 });
  for (const [i, dx] of [10, 25, 40, 60].entries())
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: at(dx), timestamp: t0 + 0.01 * (i + 1) });
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [], timestamp: t0 + 0.05 });
  await until(() => window.attentionPlayground.getState().heads[0].K[1][0] >= 0.5);
  let s = await state();
  const a1 = softmax(rowScores(s));
  assert.ok(a1[1] > a0[1] && a1[0] < a0[0], 'k2 gained, k1 lost');
  await onScreen('#lesson-s1-table', 'step 1: the row’s scores and weights');
  await reveal(1);
  assert.deepEqual(await verdicts(), { rise: 'true', redistribute: 'true' });
  assert.ok((await text('#lesson-answer')).includes(String(Number(a1[1].toPrecision(4)))), 'step 1 answer quotes k2’s weight');
  await next(1);

  // Step 2: τ doubled by the panel's button, entropy up, rows sum to one.
  await predict('entropy', 'up');
  await predict('sums', 'yes');
  await tap('#lesson-s2-up');
  await until(() => window.attentionPlayground.getState().tau === 2);
  s = await state();
  const h2 = entropy(softmax(rowScores(s), 2));
  near(await frame.$eval('#lesson-s2-entropy', (el) => Number(el.dataset.value)), h2, 1e-5, 'step 2: entropy at τ = 2');
  await onScreen('#lesson-s2-entropy', 'step 2: the row’s entropy');
  await reveal(2);
  assert.deepEqual(await verdicts(), { entropy: 'true', sums: 'true' });
  await next(2);

  // Step 3: the six future cells tapped in the grid (touch targets of at least 44 px), the mask on.
  s = await state();
  const n = s.tokens.queries.length;
  const cellSize = await frame.$eval('#lesson-p-zeros-0_1', (el) => {
    const r = el.getBoundingClientRect();
    return Math.min(r.width, r.height);
  });
  assert.ok(cellSize >= 44, `the grid's cells are touch targets (${cellSize} px)`);
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) await tap(`#lesson-p-zeros-${i}_${j}`);
  await until((k) => window.attentionPlayground.getState().lesson.predictions.zeros?.length === k, (n * (n - 1)) / 2);
  await predict('renorm', 'renormalised');
  await tap('#lesson-s3-causal');
  await until(() => window.attentionPlayground.getState().mask.causal === true);
  await onScreen('#lesson-s3-grid', 'step 3: the causal grid');
  await reveal(3);
  assert.deepEqual(await verdicts(), { zeros: 'true', renorm: 'true' });

  // Halfway: the course page is reloaded; the lesson continues at step 3 with its work.
  const before3 = (await state()).lesson;
  await openCourse();
  await until(() => window.attentionPlayground.getState().lesson?.revealed.includes(3));
  const after3 = (await state()).lesson;
  assert.deepEqual(after3, before3, 'step, predictions and reveals survived the reload');
  assert.ok(await frame.$('#lesson-restored'), 'the page says the progress was restored');
  assert.equal((await state()).mask.causal, true, 'and the move the step asked for');

  // Worked example 2 in step 3: exact logits, A, the outputs 2, 5, 5 and both take-aways.
  await tap('#lesson-ex2-load');
  await frame.waitForSelector('#lesson-e2-logits');
  const logits = await frame.$$eval('#lesson-e2-logits tr', (trs) => trs.map((tr) => [...tr.cells].map((td) => td.textContent)));
  assert.deepEqual(logits, [
    ['0', '−∞', '−∞'],
    ['0', 'ln 3', '−∞'],
    ['ln 2', '0', '0'],
  ]);
  const V2 = [2, 6, 10];
  const A = [softmax([0, null, null]), softmax([0, Math.log(3), null]), softmax([Math.log(2), 0, 0])];
  const outs = A.map((w) => dot(w, V2));
  assert.deepEqual(
    outs.map((x) => Math.round(x * 1e9) / 1e9),
    [2, 5, 5],
    'independent: A V = 2, 5, 5',
  );
  (await data('#lesson-e2-outputs')).forEach((x, i) => near(x, outs[i], 1e-5, `worked example 2 output ${i + 1}`));
  const shownA = await frame.$$eval('#lesson-e2-weights tr', (trs) => trs.map((tr) => [...tr.cells].map((td) => td.textContent)));
  assert.deepEqual(shownA, [
    ['1', '0', '0'],
    ['1/4', '3/4', '0'],
    ['1/2', '1/4', '1/4'],
  ]);
  assert.equal(await frame.$eval('#lesson-e2-same', (el) => el.dataset.ok), 'true', 'rows 2 and 3: same output, other weights');
  await tap('#lesson-e2-future');
  await until(() => window.attentionPlayground.getState().heads[0].V[2][0] === 20);
  near(await frame.$eval('#lesson-e2-row1', (el) => Number(el.dataset.value)), 2, 1e-6, 'row 1 stays 2 whatever the future values');
  const outsFuture = A.map((w) => dot(w, [2, 16, 20]));
  (await data('#lesson-e2-outputs')).forEach((x, i) => near(x, outsFuture[i], 1e-5, `output ${i + 1} with the future values changed`));
  await next(3);

  // Step 4: one value changed; then the parameter experiment's third part (values replaced).
  await predict('scores', 'same');
  await predict('largest', 'yes');
  await tap('#lesson-s4-change');
  await until(() => window.attentionPlayground.getState().heads[0].V[1][0] === 1);
  await onScreen('#lesson-s4-output', 'step 4: the row’s output');
  await reveal(4);
  assert.deepEqual(await verdicts(), { scores: 'true', largest: 'true' });
  const answer4 = await text('#lesson-answer');
  assert.ok(answer4.includes('在这一个头内') && answer4.includes('常见误区一'), `step 4's two-level answer: «${answer4}»`);
  s = await state();
  const w4 = softmax(rowScores(s));
  const reversed = [...s.heads[0].V].reverse();
  (await data('#lesson-s4-replace-output-after')).forEach((x, i) => near(x, mix(w4, reversed)[i], 1e-5, `replaced values: output[${i}]`));
  await tap('#lesson-s4-replace-do');
  await until((v) => JSON.stringify(window.attentionPlayground.getState().heads[0].V) === v, JSON.stringify(reversed));
  (await data('#lesson-s4-replace-weights')).forEach((x, i) => near(x, w4[i], 1e-6, 'the weights stay when the values are replaced'));
  await next(4);

  // Step 5: the link opened in a frame below; the page opened from it confirms the state.
  await predict('reproduce', 'yes');
  await tap('#lesson-s5-frame');
  await until(() => document.getElementById('lesson-s5-confirm')?.dataset.ok === 'true');
  await reveal(5);
  assert.deepEqual(await verdicts(), { reproduce: 'true' });
  const lengths = nums(await text('#lesson-a5-checks')).filter((x) => x > 100);
  const copyLength = (await frame.inputValue('#lesson-s5-link')).length;
  assert.deepEqual(lengths, [copyLength], 'step 5 quotes one link length, the link’s');

  // The three 常见误区, each answered "wrong" and explained on the current numbers.
  s = await state();
  for (const k of [1, 2, 3]) {
    await tap(`#lesson-p-myth${k}-wrong`);
    await frame.waitForSelector(`#lesson-myth-${k}-why[data-correct="true"]`);
  }
  const w5 = softmax(rowScores(s));
  near(Number(await frame.$eval('#lesson-myth3-max', (el) => el.dataset.value)), Math.max(...w5), 1e-6, 'myth 3: the row’s largest weight');
  assert.ok(Math.max(...w5) < 0.9, 'and it is far from one');
  assert.equal(await text('#lesson-myth2-n'), String(s.tokens.keys.length), 'myth 2: the keys of this input only');

  // The exercises marked done.
  for (const k of [1, 2, 3]) {
    await tap(`#lesson-ex-${k}-done`);
    await until((j) => window.attentionPlayground.getState().lesson.done.includes(j), k);
  }
  const final = (await state()).lesson;
  assert.deepEqual(final.revealed, [1, 2, 3, 4, 5]);
  assert.deepEqual(final.done, [1, 2, 3]);
  assert.deepEqual(
    ['myth1', 'myth2', 'myth3'].map((m) => final.predictions[m]),
    ['wrong', 'wrong', 'wrong'],
  );
  // Free edits stay locked all along: the matrix editors are read-only, Undo is off.
  const locked = await frame.evaluate(() => ({
    editor: document.querySelector('#app input.num')?.readOnly ?? null,
    undo: document.getElementById('undo').disabled,
  }));
  assert.deepEqual(locked, { editor: true, undo: true });
  await host.screenshot({ path: screenshotPath('lesson-phone-zh-end') });
  await context.close();
});

test('a key dragged by touch, then 查看答案 tapped at once: the tap is a click on the button and the answer appears', async () => {
  const context = await session.browser.newContext(PHONE);
  const page = await context.newPage();
  watch(page, session.events, '[drag-tap] ');
  await page.goto(`${session.url}#lang=zh-CN`);
  await waitReady(page);
  await page.tap('#lesson-toggle');
  await page.tap('#lesson-p-rise-1');
  await page.tap('#lesson-p-redistribute-others-fall');
  await page.waitForFunction(() => window.attentionPlayground.getState().lesson?.predictions.redistribute === 'others-fall');
  // What the button receives, and whether it is still the node the finger came down on.
  await page.evaluate(() => {
    const ids = new WeakMap();
    const log = (window.__taps = []);
    for (const type of ['pointerdown', 'click'])
      window.addEventListener(
        type,
        (ev) => {
          if (ev.target.id !== 'lesson-reveal') return;
          if (!ids.has(ev.target)) ids.set(ev.target, log.length);
          log.push(`${type} #${ids.get(ev.target)}${ev.target.isConnected ? '' : ' (detached)'}`);
        },
        true,
      );
  });
  const key = await page.$eval('#lesson-key-1 .lesson-key-dot', (el) => {
    el.scrollIntoView({ block: 'center' });
    const r = el.getBoundingClientRect();
    return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
  });
  const cdp = await context.newCDPSession(page);
  const touch = (type, points = [], timestamp = undefined) =>
    cdp.send('Input.dispatchTouchEvent', { type, touchPoints: points, timestamp });
  // A quick flick: 10 ms between the moves (the event times given, whatever the machine's load).
  // Without plane.js's cancelled touchstart, Chromium turns the release into a fling that scrolls
  // nothing but swallows the next tap: 查看答案 got its pointerdown and never its click.
  const t0 = Date.now() / 1000;
  await touch('touchStart', [key], t0);
  for (const [i, dx] of [10, 25, 40, 60].entries()) await touch('touchMove', [{ x: key.x + dx, y: key.y }], t0 + 0.01 * (i + 1));
  await touch('touchEnd', [], t0 + 0.05);
  // At once: the button scrolled to (it is below the plane on a phone) and touched, no waiting.
  const button = await page.$eval('#lesson-reveal', (el) => {
    el.scrollIntoView({ block: 'center' });
    const r = el.getBoundingClientRect();
    return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
  });
  await touch('touchStart', [button]);
  await touch('touchEnd');
  const shown = await page
    .waitForSelector('#lesson-answer .lesson-verdict', { timeout: 5000 })
    .then(() => true)
    .catch(() => false);
  const taps = await page.evaluate(() => window.__taps);
  assert.ok(shown, `the answer appears after one tap (events on 查看答案: ${taps.join(', ') || 'none'})`);
  assert.deepEqual(taps, ['pointerdown #0', 'click #0'], 'the click reaches the button the finger came down on');
  const s = await page.evaluate(() => window.attentionPlayground.getState());
  assert.ok(s.heads[0].K[1][0] >= 0.5 && s.lesson.revealed.includes(1), 'the drag moved k2 and step 1 is revealed');
  await context.close();
});

// ---- touch targets and layout ------------------------------------------------------------------

/** Every visible interactive element's box; lesson controls flagged (their label's box for inputs). */
function measure() {
  const out = [];
  const sel = 'button, a[href], input:not([type=hidden]), select, textarea, summary, [tabindex]:not([tabindex="-1"]), [role=slider]';
  for (const el of document.querySelectorAll(sel)) {
    if (el.closest('dialog:not([open]), .katex-mathml') || !el.checkVisibility({ visibilityProperty: true })) continue;
    // A link inside a sentence is exempt (WCAG 2.5.8 "inline").
    if (
      el.tagName === 'A' &&
      /^(P|LI|SPAN|SMALL|TD|DD)$/.test(el.parentElement.tagName) &&
      el.parentElement.textContent.trim() !== el.textContent.trim()
    )
      continue;
    let target = el;
    if ((el.type === 'checkbox' || el.type === 'radio') && el.closest('label')) target = el.closest('label');
    const r = target.getBoundingClientRect();
    if (!r.width && !r.height) continue;
    const name = `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.className && typeof el.className === 'string' ? `.${el.className.split(' ')[0]}` : ''}`;
    out.push({ name, w: Math.round(r.width * 10) / 10, h: Math.round(r.height * 10) / 10, lesson: Boolean(el.closest('#lesson-panel')) });
  }
  return { targets: out, width: document.documentElement.scrollWidth, inner: innerWidth };
}

test('touch targets: none under 24 × 24 CSS px, no lesson control under 44 × 44, nothing wider than the screen (390 × 844, 768 × 1024; all five steps, an answer revealed)', async () => {
  for (const viewport of [
    { width: 390, height: 844 },
    { width: 768, height: 1024 },
  ]) {
    const context = await session.browser.newContext({ viewport, hasTouch: true, isMobile: viewport.width < 500 });
    const page = await context.newPage();
    watch(page, session.events, `[targets ${viewport.width}] `);
    await page.goto(`${session.url}#lang=zh-CN`);
    await waitReady(page);
    await page.click('#lesson-toggle');
    const small = new Set();
    const overflow = [];
    const check = async (where) => {
      // Every exercise solution open (its controls count too).
      await page.$$eval('#lesson-exercises details', (ds) => ds.forEach((d) => (d.open = true)));
      const { targets, width, inner } = await page.evaluate(measure);
      for (const x of targets) {
        if (x.w < 24 || x.h < 24) small.add(`${where}: ${x.name} ${x.w}×${x.h}`);
        else if (x.lesson && (x.w < 44 || x.h < 44)) small.add(`${where}: lesson control ${x.name} ${x.w}×${x.h}`);
      }
      if (width > inner) overflow.push(`${where}: page ${width} px wide at ${inner}`);
    };
    for (const step of [1, 2, 3, 4, 5]) {
      if (step !== 1) {
        await page.click(`#lesson-step-${step}`);
        await page.waitForFunction((n) => window.attentionPlayground.getState().lesson.step === n, step);
      }
      await page.waitForSelector('#lesson-exercises');
      await check(`step ${step}`);
      if (step === 3 && viewport.width === 390) await page.screenshot({ path: screenshotPath('lesson-phone-zh-step3'), fullPage: false });
    }
    // A revealed answer too (step 5's, with its checks and the Hide button), set through the API.
    await page.evaluate(async () => {
      const s = window.attentionPlayground.getState();
      s.lesson.predictions.reproduce = 'yes';
      s.lesson.revealed = [5];
      await window.attentionPlayground.setState(s);
    });
    await page.waitForSelector('#lesson-hide');
    await check('step 5 revealed');
    assert.deepEqual([...small], [], `targets too small at ${viewport.width} × ${viewport.height}`);
    assert.deepEqual(overflow, [], 'no horizontal overflow');
    await context.close();
  }
});

test('key plane: no label overlaps another (axis names, ticks, the query, every key), wherever the keys are; close, reopen, start over', async () => {
  const context = await session.browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  const page = await context.newPage();
  watch(page, session.events, '[plane] ');
  await page.goto(`${session.url}#lang=zh-CN`);
  await waitReady(page);
  await page.click('#lesson-toggle');
  await page.waitForSelector('#lesson-plane');
  const overlaps = () =>
    page.evaluate(() => {
      const texts = [...document.querySelectorAll('#lesson-plane text')].map((el) => ({
        t: el.textContent,
        r: el.getBoundingClientRect(),
      }));
      const dots = [...document.querySelectorAll('#lesson-plane .lesson-key-dot')].map((el) => ({
        t: 'dot',
        r: el.getBoundingClientRect(),
      }));
      const hit = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
      const bad = [];
      texts.forEach((a, i) => {
        texts.forEach((b, j) => {
          if (j > i && hit(a.r, b.r)) bad.push(`${a.t} / ${b.t}`);
        });
        // A tick number under a key's dot hides it.
        if (/^-?\d+$/.test(a.t)) for (const d of dots) if (hit(a.r, d.r)) bad.push(`tick ${a.t} under a key`);
      });
      return bad;
    });
  // The start (k1 on the x₁ axis at 1, the reported overlap), then keys moved around.
  assert.deepEqual(await overlaps(), [], 'worked example 1');
  for (const K of [
    [
      [1.45, 0.05],
      [1.3, 0.15],
    ],
    [
      [0, 1],
      [0.1, 1.05],
    ],
    [
      [-1, -1],
      [1.5, -0.05],
    ],
  ]) {
    await page.evaluate(async (k) => {
      const s = window.attentionPlayground.getState();
      s.heads[0].K = k;
      await window.attentionPlayground.setState(s);
    }, K);
    await page.waitForFunction((x) => document.getElementById('lesson-key-0')?.dataset.x === String(x), K[0][0]);
    assert.deepEqual(await overlaps(), [], `keys at ${JSON.stringify(K)}`);
  }

  // Closing and opening the lesson again continues where it was; Start over is undone by its button.
  const lessonNow = () => page.evaluate(() => window.attentionPlayground.getState().lesson ?? null);
  await page.tap('#lesson-p-rise-1');
  await page.waitForFunction(() => window.attentionPlayground.getState().lesson.predictions.rise?.length === 1);
  const kept = await lessonNow();
  await page.tap('#lesson-close');
  await page.waitForFunction(() => !window.attentionPlayground.getState().lesson);
  await page.tap('#lesson-toggle');
  await page.waitForFunction(() => Boolean(window.attentionPlayground.getState().lesson));
  assert.deepEqual(await lessonNow(), kept, 'reopened with its predictions');
  await page.tap('#lesson-start-over');
  await page.waitForFunction(() => window.attentionPlayground.getState().lesson.predictions.rise === undefined);
  await page.tap('#lesson-undo-start-over');
  await page.waitForFunction(() => window.attentionPlayground.getState().lesson.predictions.rise?.length === 1);
  assert.deepEqual(await lessonNow(), kept, 'start over undone');
  await context.close();
});
