// The findings of a fresh student/teacher trial of the guided lesson (docs/lesson.md), each checked on a
// phone (390 x 844, touch, Chinese) where the trial found it there: step 5's frame loads once, a
// class link's progress stays keyed by the class link after a reload, worked example 2 clears
// predictions of another grid, "下一步" scrolls the step title into view, the share dialog leaves
// the teacher's answers out by default, and the smaller wording and layout findings. Numbers come
// from the seed article or plain arithmetic here. One phone page for the whole file.
//
//   node --test --test-concurrency=1 tests/browser/lesson_trial.test.js   (after the build)

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { closeQuietly, startSession, waitReady, watch } from './harness.js';
import { decodeLink } from '../../web/codec/link.js';
import { stripPageOptions } from '../../web/page/page-options.js';

const PHONE = { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, deviceScaleFactor: 1, locale: 'zh-CN' };

let session;
let page;
before(async () => {
  session = await startSession();
  const context = await session.browser.newContext(PHONE);
  page = await context.newPage();
  watch(page, session.events, '[trial] ');
});
after(() => closeQuietly(session));

const state = () => page.evaluate(() => window.attentionPlayground.getState());
const until = (fn, arg) => page.waitForFunction(fn, arg, { timeout: 10000 });
const text = (sel) => page.$eval(sel, (el) => el.textContent);

/** Opens the page afresh at `fragment` (a real load, not a hash change). */
async function open(fragment) {
  await page.goto('about:blank');
  await page.goto(`${session.url}${fragment}`);
  await waitReady(page);
}

/** Starts the lesson in Chinese and goes to step n by its step button. */
async function lessonAt(n) {
  await open('#lang=zh-CN');
  await page.evaluate(() => localStorage.clear()); // no progress of an earlier test
  await page.tap('#lesson-toggle');
  await until(() => window.attentionPlayground.getState().lesson?.step === 1);
  if (n !== 1) {
    await page.tap(`#lesson-step-${n}`);
    await until((k) => window.attentionPlayground.getState().lesson.step === k, n);
  }
}

test('step 5: the frame opened below loads its page once and keeps it (no reload loop)', async () => {
  await lessonAt(5);
  await page.tap('#lesson-s5-frame');
  await until(() => document.getElementById('lesson-s5-confirm')?.dataset.ok === 'true');
  const first = await page.$eval('#lesson-s5-iframe', (f) => {
    window.__frameLoads = 0;
    f.addEventListener('load', () => window.__frameLoads++);
    return f.contentWindow.performance.timeOrigin;
  });
  await page.waitForTimeout(2500);
  const after2 = await page.$eval('#lesson-s5-iframe', (f) => ({
    loads: window.__frameLoads,
    origin: f.contentWindow.performance.timeOrigin,
  }));
  assert.deepEqual(after2, { loads: 0, origin: first }, 'the frame did not load again in 2.5 s');
  assert.equal(await page.$eval('#lesson-s5-confirm', (el) => el.dataset.ok), 'true');
});

test('a class link reopened after a reload of the page restores the latest progress, and the welcome note is on screen', async () => {
  await lessonAt(1);
  const classLink = await page.evaluate(() => window.attentionPlayground.shareUrl());
  await page.goto('about:blank');
  await page.goto(classLink);
  await waitReady(page);
  await page.waitForSelector('#lesson-step-title');
  await page.evaluate(() => localStorage.clear());
  await page.tap('#lesson-next');
  await until(() => window.attentionPlayground.getState().lesson.step === 2);
  // A reload opens the page from its own address (step 2 in it), not from the class link.
  await until(() => /"step":2/.test(decodeURIComponent(location.hash)));
  await page.reload();
  await waitReady(page);
  await page.waitForSelector('#lesson-step-title');
  assert.equal((await state()).lesson.step, 2, 'the reload continues at step 2');
  for (const k of [3, 4]) {
    await page.tap('#lesson-next');
    await until((n) => window.attentionPlayground.getState().lesson.step === n, k);
  }
  assert.equal(await page.evaluate(() => Object.keys(localStorage).filter((k) => k.includes('.lesson.')).length), 1, 'one saved progress');
  // The teacher's class link again: the latest progress (step 4) comes back, and says so on screen.
  await page.goto('about:blank');
  await page.goto(classLink);
  await waitReady(page);
  await until(() => window.attentionPlayground.getState().lesson.step === 4);
  await page.waitForSelector('#lesson-restored');
  assert.match(await text('#lesson-restored'), /第 4 步/);
  const box = await page.$eval('#lesson-restored', (el) => el.getBoundingClientRect().toJSON());
  assert.ok(box.top >= -1 && box.bottom <= 845, `the welcome note on screen: ${JSON.stringify(box)}`);
});

test('worked example 2 (3 × 3) clears step 3’s cell predictions made on the 4 × 4 grid; no cell outside the grid', async () => {
  await lessonAt(3);
  await page.tap('#lesson-s3-causal');
  await until(() => window.attentionPlayground.getState().mask.causal);
  // The future cells of four tokens: (t, j) with j > t, i.e. t·4 + j = 1, 2, 3, 6, 7, 11.
  for (const [i, j] of [
    [0, 1],
    [0, 2],
    [0, 3],
    [1, 2],
    [1, 3],
    [2, 3],
  ])
    await page.tap(`#lesson-p-zeros-${i}_${j}`);
  await page.tap('#lesson-p-renorm-renormalised');
  await until(() => window.attentionPlayground.getState().lesson.predictions.zeros?.length === 6);
  await page.tap('#lesson-reveal');
  await until(() => window.attentionPlayground.getState().lesson.revealed.includes(3));
  await page.tap('#lesson-ex2-load');
  await until(() => window.attentionPlayground.getState().tokens.keys.length === 3);
  const lesson = (await state()).lesson;
  assert.equal(lesson.predictions.zeros, undefined, 'the 4 × 4 cells are gone');
  assert.equal(lesson.predictions.renorm, 'renormalised', 'the row’s prediction stays');
  assert.ok(lesson.revealed.includes(3), 'the step stays revealed');
  assert.equal(
    await page.$eval('#lesson-answer .lesson-verdict[data-prediction="zeros"]', (el) => el.dataset.correct),
    '',
    'no ✗ for cells of another grid',
  );
  const grid = await page.$$eval('#lesson-zeros-grid input', (els) => els.map((el) => el.checked));
  assert.deepEqual(grid, Array(9).fill(false), 'nine cells, none ticked');
  assert.doesNotMatch(await text('#lesson-panel'), /∅/);
});

test('share for class: the teacher’s own answers stay out of the class link unless asked for, and the dialog says which', async () => {
  await lessonAt(2);
  await page.tap('#lesson-p-entropy-down');
  await page.tap('#lesson-p-sums-yes');
  await until(() => window.attentionPlayground.getState().lesson.predictions.sums === 'yes');
  await page.tap('#lesson-reveal');
  await until(() => window.attentionPlayground.getState().lesson.revealed.includes(2));
  await page.tap('#share-class');
  await until(() => document.getElementById('share-dialog')?.open);
  const lessonIn = async () => decodeLink(stripPageOptions((await page.inputValue('#share-link')).split('#')[1])).lesson;
  assert.equal(await page.isChecked('#share-dialog [data-field="fresh"]'), true, 'fresh start by default');
  assert.deepEqual(await lessonIn(), { step: 1, predictions: {}, revealed: [] }, 'students start at step 1 with nothing answered');
  assert.match(await text('#share-lesson-note'), /第 1 步/);
  await page.tap('#share-dialog [data-field="fresh"]');
  const asIs = await lessonIn();
  assert.equal(asIs.step, 2);
  assert.deepEqual(asIs.revealed, [2]);
  assert.deepEqual(asIs.predictions, { entropy: 'down', sums: 'yes' });
  assert.match(await text('#share-lesson-note'), /第 2 步、2 个预测和 1 个已查看的答案/);
  await page.keyboard.press('Escape');
});

test('“下一步” on the phone brings the new step’s title into view', async () => {
  await lessonAt(1);
  for (const k of [2, 3]) {
    await page.tap('#lesson-next'); // far below the title: the tap scrolls down to the button first
    await until((n) => window.attentionPlayground.getState().lesson.step === n, k);
    await until(() => document.activeElement?.id === 'lesson-step-title');
    const box = await page.$eval('#lesson-step-title', (el) => el.getBoundingClientRect().toJSON());
    assert.ok(box.top >= -1 && box.bottom <= 845, `step ${k}'s title on screen: ${JSON.stringify(box)}`);
  }
});

test('embedded on a phone: “在完整页面中打开” is a 24 px target, the lesson head’s buttons keep one line, loading does not scroll the course page', async () => {
  await lessonAt(1);
  const link =
    (await page.evaluate(() => window.attentionPlayground.shareUrl())).replace(/&lang=[^&]*/, '') + '&lang=zh-CN&embed=1&readonly=1';
  const courseUrl = `${session.url}trial-course.html`;
  await page.route(courseUrl, (route) =>
    route.fulfill({
      contentType: 'text/html',
      body: `<!doctype html><meta name="viewport" content="width=device-width, initial-scale=1"><h1>第三周：注意力</h1><iframe src="${link.replace(/&/g, '&amp;')}" style="width:100%;height:3000px;border:0" data-attention-playground></iframe>`,
    }),
  );
  await page.goto(courseUrl);
  const frame = await (await page.waitForSelector('iframe')).contentFrame();
  await waitReady(frame);
  await frame.waitForSelector('#lesson-step-title');
  await page.waitForTimeout(300);
  assert.equal(await page.evaluate(() => window.scrollY), 0, 'the course page did not scroll (its heading stays in view)');
  const open = await frame.$eval('#open-full', (el) => el.getBoundingClientRect().toJSON());
  assert.ok(open.width >= 24 && open.height >= 24, `#open-full ${open.width} × ${open.height}`);
  for (const id of ['lesson-start-over', 'lesson-close']) {
    const lines = await frame.$eval(`#${id}`, (el) => {
      const range = document.createRange();
      range.selectNodeContents(el);
      return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
    });
    assert.equal(lines, 1, `#${id} on one line`);
  }
  await page.unroute(courseUrl);
});

test('step 5: answers recorded after opening the link keep the frame and its ✓; a changed state says “open it again”, never ✗ beside ✓', async () => {
  await lessonAt(5);
  await page.tap('#lesson-s5-frame');
  await until(() => document.getElementById('lesson-s5-confirm')?.dataset.ok === 'true');
  await page.tap('#lesson-p-reproduce-yes');
  await page.tap('#lesson-reveal');
  await until(() => window.attentionPlayground.getState().lesson.revealed.includes(5));
  assert.equal(await page.$eval('#lesson-s5-confirm', (el) => el.dataset.ok), 'true', 'the frame still confirms the state');
  assert.equal(await page.isVisible('#lesson-s5-iframe'), true, 'the frame stays');
  await page.tap('#lesson-s5-copy');
  await until(() => document.getElementById('lesson-s5-status').textContent !== '');
  assert.doesNotMatch(await text('#lesson-s5-status'), /\d/, 'one link length: the answer’s, not the copy status');
  // Another state (the causal mask off): the opened page shows the old one.
  await page.tap('#causal');
  await until(() => !window.attentionPlayground.getState().mask.causal);
  await page.waitForSelector('#lesson-s5-stale');
  assert.equal(await page.$('#lesson-s5-confirm'), null, 'no ✗ about an older state');
  assert.equal(await page.isVisible('#lesson-s5-iframe'), false);
  assert.match(await text('#lesson-s5-stale'), /重新打开/);
});

test('the wording follows the numbers: myth 2 counts the visible keys, tied weights are called tied, “为 1”, × on masked cells, myth answers lock', async () => {
  await lessonAt(1);
  await page.tap('#lesson-p-rise-1');
  await page.tap('#lesson-p-redistribute-others-fall');
  await until(() => window.attentionPlayground.getState().lesson.predictions.redistribute === 'others-fall');
  // k2 moved (as a drag would): the answer compares the row with the start.
  await page.evaluate(async () => {
    const s = window.attentionPlayground.getState();
    s.heads[0].K[1] = [s.heads[0].K[1][0] + 0.5, s.heads[0].K[1][1] + 0.5];
    await window.attentionPlayground.setState(s);
  });
  await page.tap('#lesson-reveal');
  await page.waitForSelector('#lesson-a1-sum');
  assert.match(await text('#lesson-answer'), /整行之和为 1[。 ]/, 'a space between 为 and the number');
  // Step 3 with the causal mask: the future cells of four tokens (j > t: 3 + 2 + 1 = 6) show ×.
  await page.tap('#lesson-step-3');
  await until(() => window.attentionPlayground.getState().lesson.step === 3);
  await page.tap('#lesson-s3-causal');
  await until(() => window.attentionPlayground.getState().mask.causal);
  assert.deepEqual(await page.$$eval('#lesson-s3-grid td.masked', (els) => els.map((el) => el.textContent)), Array(6).fill('×'));
  // Step 5 (causal, row 3 of 4 tokens): the row sees 3 of the 4 keys.
  await page.tap('#lesson-step-5');
  await until(() => window.attentionPlayground.getState().lesson.step === 5);
  const s = await state();
  assert.deepEqual([s.mask.causal, s.row, s.tokens.keys.length], [true, 2, 4]);
  await page.tap('#lesson-p-myth2-wrong');
  await page.waitForSelector('#lesson-myth-2-why');
  assert.equal(await text('#lesson-myth2-visible'), '3');
  assert.match(await text('#lesson-myth-2-why'), /4 个键中掩码留给它的 3 个/);
  // The answer shows: the choice is locked until "重新作答".
  assert.equal(await page.isDisabled('#lesson-p-myth2-right'), true);
  await page.tap('#lesson-myth-2-again');
  await until(() => window.attentionPlayground.getState().lesson.predictions.myth2 === undefined);
  assert.equal(await page.isDisabled('#lesson-p-myth2-right'), false);
  // Exercise 2's "set Q to zero": the row's three visible weights all tie at 1/3, none is "the smallest".
  await page.tap('#lesson-ex-2-try');
  await until(() => window.attentionPlayground.getState().heads[0].Q.every((q) => q.every((x) => x === 0)));
  await page.$eval('#lesson-ex-3', (el) => {
    el.open = true; // the live part of the solution is computed while it is open
  });
  await page.waitForSelector('#lesson-ex3-tied');
  const ex3 = await page.$eval('#lesson-ex-3-solution', (el) => el.textContent);
  assert.doesNotMatch(ex3, /权重最小的是/);
  assert.match(ex3, /3 个权重相同，都是 0\.3333/);
});

test('read-only on the phone: step 2 names no control on the left and has its own scale buttons; example 2 does not offer the locked Undo', async () => {
  await lessonAt(2);
  const link = (await page.evaluate(() => window.attentionPlayground.shareUrl())).replace(/&lang=[^&]*/, '') + '&lang=zh-CN&readonly=1';
  await page.goto('about:blank');
  await page.goto(link);
  await waitReady(page);
  await page.waitForSelector('#lesson-s2-scale-down');
  const doText = await text('#lesson-step-do');
  assert.doesNotMatch(doText, /左侧|控制区/, 'the page’s controls are locked: not offered');
  assert.match(doText, /用这里的按钮/);
  assert.equal(await page.isDisabled('#undo'), true, 'read-only');
  const before = Number(await page.$eval('#lesson-s2-entropy', (el) => el.dataset.value));
  await page.tap('#lesson-s2-scale-down');
  // The four tokens have dₖ = 2: c = 1/√2, halved 1/(2√2) = 0.35355…
  await until(() => Math.abs(window.attentionPlayground.getState().scale - 1 / (2 * Math.SQRT2)) < 1e-12);
  const afterH = Number(await page.$eval('#lesson-s2-entropy', (el) => el.dataset.value));
  assert.ok(afterH > before, `a smaller scale flattens the row: entropy ${before} -> ${afterH}`);
  await page.tap('#lesson-step-3');
  await until(() => window.attentionPlayground.getState().lesson.step === 3);
  await page.tap('#lesson-ex2-load');
  await page.waitForSelector('#lesson-e2-back');
  const back = await text('#lesson-e2-back');
  assert.doesNotMatch(back, /撤销/);
  assert.match(back, /载入例题二/);
});

test('“动手试试：打开敏感度视图” on the phone brings the view it opened into view', async () => {
  await lessonAt(4);
  await page.$eval('#lesson-ex-3', (el) => {
    el.open = true;
  });
  await page.tap('#lesson-ex-3-try');
  await until(() => window.attentionPlayground.getState().lab?.view === 'sensitivity');
  await until(() => {
    const r = document.getElementById('lab-panel').getBoundingClientRect();
    return r.top >= -1 && r.top < 844;
  });
});

test('step 1: the predictions come before the key plane, so recording one does not scroll the plane away', async () => {
  await lessonAt(1);
  const order = await page.evaluate(() => {
    const p = document.querySelector('.lesson-predict');
    const plane = document.querySelector('#lesson-live');
    return Boolean(p.compareDocumentPosition(plane) & Node.DOCUMENT_POSITION_FOLLOWING);
  });
  assert.equal(order, true, 'predictions first');
  const y = await page.evaluate(() => document.querySelector('#lesson-p-rise-1').getBoundingClientRect().top);
  const plane = await page.evaluate(() => document.querySelector('#lesson-live').getBoundingClientRect().top);
  assert.ok(y < plane, `the prediction (${y}) above the plane (${plane})`);
});
