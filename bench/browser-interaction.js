// Input-to-next-paint of the playground (docs/performance.md "Scenario timings"), run by
// bench/scenarios.js: for each state a tau change in the number box (a `change` event, what
// pressing Enter or leaving the box does) is timed from the event to the first frame painted after
// the views show the new tau: the views' mutation, then requestAnimationFrame (style, layout and
// paint of that frame follow it), then a MessageChannel message (runs after that frame is done).
// Mean of `changes` changes, each after a settled frame; unthrottled on a desktop viewport and at
// 4x CPU slowdown (CDP Emulation.setCPUThrottlingRate) on a 390 x 844 phone viewport.

/** The three states of the interaction targets, as #preset values, with the targets (ms). */
export const INTERACTION_STATES = [
  { name: 'lesson worked example 1 (2 keys)', preset: 'example1', targetMs: 16, throttledTargetMs: 50 },
  { name: 'GPT-2 layer 0 preset (33 tokens, 12 heads)', preset: 'gpt2-small_L0_nlp-sentence.0', targetMs: 33, throttledTargetMs: 100 },
  { name: '512-token preset', preset: 'long512', targetMs: 50, throttledTargetMs: 150 },
];

/** In the page: dispatch a tau change and resolve to the ms until the frame after the update. */
function timeTauChange(tau) {
  return new Promise((resolve) => {
    const box = document.getElementById('tau');
    const watched = document.getElementById('row-view');
    const t0 = performance.now();
    const observer = new MutationObserver(() => {
      observer.disconnect();
      requestAnimationFrame(() => {
        const ch = new MessageChannel();
        ch.port1.onmessage = () => resolve(performance.now() - t0);
        ch.port2.postMessage(0);
      });
    });
    observer.observe(watched, { childList: true, subtree: true, characterData: true, attributes: true });
    box.focus();
    box.value = String(tau);
    box.dispatchEvent(new Event('change', { bubbles: true }));
  });
}

async function settle(page) {
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve, 50)))));
}

/**
 * Times `changes` tau changes in each state, unthrottled and at 4x CPU on a phone viewport.
 * @param {import('playwright-core').Browser} browser
 * @param {string} url  the served web/ root
 * @returns {Promise<object[]>} one scenario row per (state, condition): {name, medianMs (the
 *   mean, the target's measure), runsMs, targetMs}
 */
export async function interactionScenarios(browser, url, { changes = 5 } = {}) {
  const out = [];
  for (const throttled of [false, true]) {
    const context = await browser.newContext({ viewport: throttled ? { width: 390, height: 844 } : { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${url}index.html`);
    await page.evaluate(() => window.attentionPlayground.ready);
    const cdp = await context.newCDPSession(page);
    for (const s of INTERACTION_STATES) {
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
      await page.selectOption('#preset', s.preset);
      await page.waitForFunction((id) => window.attentionPlayground.getState().view.preset === id, s.preset);
      await page.waitForFunction(() => document.getElementById('busy')?.hidden !== false);
      await settle(page);
      // The kernel's share of the work: the visible cells of the head on screen.
      const cells = await page.evaluate(() => window.attentionPlayground.results().rows.reduce((a, r) => a + r.visible, 0));
      // One change not counted: first-use costs (KaTeX fonts, the worker's caches) are not a step.
      await page.evaluate(timeTauChange, 0.9);
      await settle(page);
      if (throttled) await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
      const runs = [];
      for (let i = 0; i < changes; i++) {
        runs.push(await page.evaluate(timeTauChange, Number((0.6 + 0.1 * i + (throttled ? 0.05 : 0)).toFixed(2))));
        await settle(page);
      }
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
      const mean = runs.reduce((a, b) => a + b, 0) / runs.length;
      out.push({
        name: `tau change -> next paint, ${s.name}, ${throttled ? '4x CPU, 390x844' : 'unthrottled'} (mean of ${changes})`,
        medianMs: mean,
        runsMs: runs,
        targetMs: throttled ? s.throttledTargetMs : s.targetMs,
        stat: 'mean',
        cells,
      });
    }
    await context.close();
  }
  return out;
}
