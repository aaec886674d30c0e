// What bench/load.js and bench/trace-load.js share: the links they open, made by the page itself,
// the first visit that installs the service worker before the offline one, and the in-page steps
// from the navigation to "usable" (docs/performance.md "Loading").

/** The network of bench/load.js's throttled runs (Network.emulateNetworkConditions): Lighthouse's
 * mobile profile, 1.6 Mbps down, 750 Kbps up, 150 ms round trip. */
export const NETWORK = { offline: false, latency: 150, downloadThroughput: (1600 * 1000) / 8, uploadThroughput: (750 * 1000) / 8 };

/** A link fragment without its lang= option (the class link names its own). */
const withoutLang = (fragment) => fragment.replace(/(^|&)lang=[^&]*/g, '').replace(/^&/, '');

/**
 * The links, made by the page itself (unthrottled): the default page, the Chinese class link (the
 * guided lesson at step 1, the import view, the lab, the mode and the scale controls hidden) and
 * the GPT-2 small layer 0 preset's.
 * @returns {Promise<{default: string, 'class-zh': string, 'gpt2-l0': string}>}
 */
export async function makeLinks(browser, base) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const fragment = async () => (await page.evaluate(() => window.attentionPlayground.shareUrl())).split('#')[1];
  await page.goto(base);
  await page.evaluate(() => window.attentionPlayground.ready);
  await page.click('#lesson-toggle');
  await page.waitForFunction(() => window.attentionPlayground.getState().lesson?.step === 1);
  const lesson = await fragment();
  await page.selectOption('#preset', 'gpt2-small_L0_nlp-sentence.0');
  await page.waitForFunction(() => window.attentionPlayground.getState().view.preset.startsWith('gpt2'));
  const gpt2 = await fragment();
  await context.close();
  return {
    default: base,
    'class-zh': `${base}#${withoutLang(lesson)}&lang=zh-CN&import_hide=1&lab_hide=1&mode_hide=1&scale_hide=1`,
    'gpt2-l0': `${base}#${gpt2}`,
  };
}

/** Opens `link` once in `context` until the service worker controls it, then cuts the network. */
export async function visitThenGoOffline(context, link) {
  const first = await context.newPage();
  await first.goto(link);
  await first.evaluate(async () => {
    await window.attentionPlayground.ready;
    await navigator.serviceWorker.ready;
  });
  await first.waitForFunction(() => navigator.serviceWorker.controller);
  await first.close();
  await context.setOffline(true);
}

/**
 * In the page (page.evaluate), from the navigation on: the core ready (attentionPlayground.ready),
 * the view drawn (the weights heatmap in the DOM, the next frame painted) and an input accepted (a
 * state change, another temperature, applied and drawn: between the marks input-start and
 * input-end). Resolves to ms since the navigation: {drawn, usable, firstPaint, fcp}.
 */
export async function usableInPage() {
  while (!window.attentionPlayground) await new Promise((r) => setTimeout(r, 10));
  await window.attentionPlayground.ready;
  while (!document.querySelector('#weights-view .cell, #weights-view canvas, #weights-view [role="gridcell"]')) {
    await new Promise((r) => setTimeout(r, 10));
  }
  await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  const drawn = performance.now();
  performance.mark('input-start');
  const s = window.attentionPlayground.getState();
  s.tau = s.tau === 2 ? 1 : 2;
  await window.attentionPlayground.setState(s);
  performance.mark('input-end');
  await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  const usable = performance.now();
  // The paint timing entries arrive a frame or more after their paint: wait for the first
  // contentful one (a page that boots hidden paints its first content with its first state).
  await new Promise((resolve) => {
    const seen = () => performance.getEntriesByName('first-contentful-paint').length > 0;
    if (seen()) return resolve();
    const observer = new PerformanceObserver(() => seen() && (observer.disconnect(), resolve()));
    observer.observe({ type: 'paint', buffered: true });
    setTimeout(resolve, 2000);
  });
  const paints = Object.fromEntries(performance.getEntriesByType('paint').map((p) => [p.name, p.startTime]));
  return { drawn, usable, firstPaint: paints['first-paint'] ?? null, fcp: paints['first-contentful-paint'] ?? null };
}
