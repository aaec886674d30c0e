// The analysis lab on large heads (docs/lab.md "Large heads"): every lab view opens on the 512-token preset in the
// page, computed off the main thread (web/lab/offthread.js), with the numbers of `attn lab` on the
// same state (the native CLI, an independent build of the core, compared to float32 rounding);
// Cancel stops a running view; on a 2,048-token head a view completes while the page keeps
// painting (the freeze detector: no frame gap of 1 s or more).
//
//   node --test tests/browser/lab_large.test.js   (after bash scripts/build.sh: web/wasm and build/native/attn)
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { ROOT, choosePreset, getState, near, sharedPage } from './harness.js';
import { SCHEMA } from '../../web/generated/schema.js';

const ATTN = `${ROOT}build/native/attn`;
const CLI = {}; // view -> `attn lab` on the 512-token preset (the first test)
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let page;
sharedPage('[lab-large] ', (p) => {
  page = p;
});

/** `attn lab` on a state (stdin), parsed. */
function cliLab(state) {
  return new Promise((resolve, reject) => {
    const child = spawn('nice', ['-n', '10', ATTN, 'lab'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`attn lab exited ${code}: ${err}`))));
    child.stdin.end(JSON.stringify(state));
  });
}

/** Every number of `got` within float32 rounding of `want` (same shape, same strings). */
function sameNumbers(got, want, path = '') {
  if (typeof want === 'number') {
    assert.equal(typeof got, 'number', `${path}: ${got} is not a number`);
    // float32 rounding: the native build's kernels (AVX) and the page's (SIMD128) sum the 512 keys
    // of a row in different orders (n * eps ~ 3e-5 at worst), and some fields are differences of
    // O(1) numbers (linear's outputError), so the bound is absolute below 1.
    const tol = 5e-5 * Math.max(1, Math.abs(want));
    assert.ok(Math.abs(got - want) <= tol, `${path}: page ${got} vs attn lab ${want}`);
  } else if (Array.isArray(want)) {
    assert.ok(Array.isArray(got) && got.length === want.length, `${path}: length ${got?.length} vs ${want.length}`);
    want.forEach((w, i) => sameNumbers(got[i], w, `${path}[${i}]`));
  } else if (want && typeof want === 'object') {
    assert.deepEqual(Object.keys(got ?? {}).sort(), Object.keys(want).sort(), `${path}: keys`);
    for (const k of Object.keys(want)) sameNumbers(got[k], want[k], `${path}.${k}`);
  } else {
    assert.deepEqual(got, want, path);
  }
}

/** Shows lab view `view` and waits until the page's results hold its JSON (or its error). */
async function showLab(view) {
  await page.evaluate(async (v) => {
    const s = window.attentionPlayground.getState();
    s.lab = { view: v, params: {} };
    await window.attentionPlayground.setState(s);
  }, view);
  await page.waitForFunction(
    (v) => {
      const lab = window.attentionPlayground.results()?.lab;
      return (lab && lab.view === v && !document.getElementById('lab-progress-bar')) || !document.getElementById('lab-error').hidden;
    },
    view,
    { timeout: 240_000 },
  );
  assert.equal(await page.isHidden('#lab-error'), true, `${view}: ${await page.textContent('#lab-error')}`);
  return page.evaluate(() => window.attentionPlayground.results().lab);
}

describe('lab views on the 512-token preset', { skip: !existsSync(ATTN) && 'build/native/attn is missing' }, () => {
  test('every lab view opens in the page off the main thread with the numbers of attn lab', { timeout: 900_000 }, async () => {
    await choosePreset(page, 'long512');
    const base = await getState(page);
    assert.ok(base.tokens.keys.length >= 512);
    for (const view of SCHEMA.labViews) {
      const cli = cliLab({ ...base, lab: { view, params: {} } });
      const got = await showLab(view);
      assert.equal(await page.locator('#lab-view .note', { hasText: 'Open a smaller head' }).count(), 0);
      CLI[view] = await cli;
      sameNumbers(got, CLI[view], view);
    }
  });

  test('per-row tables at 512 rows: a binned profile of every row and a window of 64 rows with a picker', async () => {
    await showLab('sink');
    const rows = CLI.sink.rows;
    const bins = await page.$$eval('#lab-sink-rows-profile .row-bin', (gs) =>
      gs.map((g) => ({ lo: +g.dataset.lo, hi: +g.dataset.hi, mean: g.dataset.meanMass, min: g.dataset.minMass, max: g.dataset.maxMass })),
    );
    assert.equal(bins.length, 128); // 512 rows, 4 a bin
    for (const b of bins) {
      assert.equal(b.hi - b.lo, 4);
      const xs = rows
        .slice(b.lo, b.hi)
        .filter((r) => !r.empty)
        .map((r) => r.sinkMass);
      near(+b.mean, xs.reduce((a, x) => a + x, 0) / xs.length, 1e-6, `bin ${b.lo} mean`);
      near(+b.min, Math.min(...xs), 1e-6, `bin ${b.lo} min`);
      near(+b.max, Math.max(...xs), 1e-6, `bin ${b.lo} max`);
    }
    const shown = () => page.$$eval('#lab-sink-rows tbody tr', (trs) => trs.map((tr) => +tr.dataset.row));
    const sel = (await getState(page)).row;
    const first = Math.floor(sel / 64) * 64;
    assert.deepEqual(
      await shown(),
      Array.from({ length: 64 }, (_, i) => Math.min(first, 448) + i),
    );
    await page.fill('#lab-sink-rows-first', '100');
    await page.dispatchEvent('#lab-sink-rows-first', 'change');
    assert.deepEqual(
      await shown(),
      Array.from({ length: 64 }, (_, i) => 100 + i),
    );
    await page.click('#lab-sink-rows-next');
    assert.deepEqual(
      await shown(),
      Array.from({ length: 64 }, (_, i) => 164 + i),
    );
    const cell = await page.getAttribute('#lab-sink-rows tbody tr[data-row="170"] td:nth-child(3)', 'data-value');
    near(+cell, rows[170].sinkMass, 1e-6, 'row 170 sink mass');
    // The profile, the picker and the window pass axe (as tests/browser/a11y.test.js checks the views).
    if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(AXE_SOURCE);
    const violations = await page.evaluate(async () => {
      const r = await window.axe.run('#lab-view', { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa'] }, resultTypes: ['violations'] });
      return r.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
    });
    assert.deepEqual(violations, []);
  });

  test('per-key lists at 512 keys show the 48 keys of largest weight, in key order, and say so', async () => {
    await showLab('normalisers');
    const sel = CLI.normalisers.selected;
    const score = sel.softmax.weights.map((w, j) => (w === null ? -1 : Math.max(w, sel.sparsemax.weights[j], sel.entmax.weights[j])));
    const want = score
      .map((s, j) => [s, j])
      .sort((a, b) => b[0] - a[0] || a[1] - b[1])
      .slice(0, 48)
      .map(([, j]) => j)
      .sort((a, b) => a - b);
    const ids = await page.$$eval('#lab-norm-softmax .bar-num', (els) => els.map((e) => +e.id.replace(/.*-k/, '')));
    if (sel.visible > 48) {
      assert.deepEqual(ids, want);
      assert.match(await page.textContent('#lab-norm-softmax-shown'), new RegExp(`48 of ${sel.visible} keys`));
    } else assert.equal(ids.length, sel.visible);
    for (const j of ids)
      near(+(await page.getAttribute(`#lab-norm-softmax-k${j}`, 'data-value')), sel.softmax.weights[j], 1e-6, `key ${j}`);

    // Saturation's dH/dz per key: the 48 of largest |dH/dz|, each with attn lab's number.
    await showLab('saturation');
    const sat = CLI.saturation;
    const top = sat.dHdz
      .map((g, i) => [Math.abs(g), i])
      .sort((a, b) => b[0] - a[0] || a[1] - b[1])
      .slice(0, 48)
      .map(([, i]) => sat.keys[i])
      .sort((a, b) => a - b);
    const rows = await page.$$eval('#lab-sat-grad tbody tr', (trs) => trs.map((tr) => +tr.dataset.key));
    assert.deepEqual(rows, sat.keys.length > 48 ? top : sat.keys);
    for (const j of rows.slice(0, 5)) {
      near(+(await page.getAttribute(`#lab-sat-dhdz-k${j}`, 'data-value')), sat.dHdz[sat.keys.indexOf(j)], 5e-5, `dH/dz of key ${j}`);
    }
  });

  test('the large-head overview has token labels on both axes, elided, in full on hover, as text', async () => {
    if ((await getState(page)).view.preset !== 'long512') await choosePreset(page, 'long512');
    const s = await getState(page);
    const long = '<b>x</b> a very long token indeed';
    s.tokens.queries[0] = long;
    s.tokens.keys[0] = long;
    delete s.lab;
    await page.evaluate((st) => window.attentionPlayground.setState(st), s);
    await page.waitForSelector('#overview-keys .axis-label');
    const n = s.tokens.keys.length;
    const { rows, cols } = await page.$eval('#overview-canvas', (c) => ({ rows: c.height, cols: c.width }));
    const labels = await page.$$eval('#overview-keys .axis-label:not(.current)', (ls) =>
      ls.map((l) => ({ cell: +l.dataset.cell, text: l.textContent, full: l.title })),
    );
    assert.ok(labels.length >= 8, `${labels.length} key labels`);
    assert.equal([...labels[0].text].length, 12);
    assert.ok(labels[0].text.endsWith('…') && labels[0].text.startsWith('<b>x</b>'), labels[0].text);
    assert.ok(labels[0].full.includes(long), labels[0].full);
    for (const l of labels.slice(1)) {
      const a = Math.ceil((l.cell * n) / cols);
      assert.ok(l.full.startsWith(`${a}`) && l.full.includes(s.tokens.keys[a]), `key label of cell ${l.cell}: ${l.full}`);
    }
    assert.equal(await page.locator('#overview-view b').count(), 0, 'a token is text, never HTML');
    const q = await page.$$eval('#overview-queries .axis-label:not(.current)', (ls) => ls.length);
    assert.ok(q >= 8 && rows > 0);
    // Hover: the labels of the pooled cell under the pointer are highlighted, with its tokens in full.
    const box = await page.locator('#overview-canvas').boundingBox();
    await page.locator('#overview-canvas').hover({ position: { x: box.width * 0.5 + 1, y: box.height * 0.5 } });
    const current = await page.$eval('#overview-keys .axis-label.current', (l) => ({
      cell: +l.dataset.cell,
      full: l.title,
      hidden: l.hidden,
    }));
    assert.equal(current.hidden, false);
    const a = Math.ceil((current.cell * n) / cols);
    assert.ok(current.full.startsWith(`${a}`), current.full);
    assert.match(await page.getAttribute('#overview-canvas', 'title'), new RegExp(s.tokens.keys[a]));
  });

  test('Cancel stops a running view and says so', async () => {
    await page.evaluate(async () => {
      const s = window.attentionPlayground.getState();
      s.lab = { view: 'sink', params: { sinkKeys: 2 } };
      window.attentionPlayground.setState(s);
    });
    // Long waits: on a loaded machine the head's worker may take a while before the lab starts.
    await page.waitForSelector('#lab-cancel', { timeout: 120_000 });
    await page.click('#lab-cancel');
    await page.waitForSelector('#lab-cancelled', { timeout: 120_000 });
  });
});

/**
 * A causal 2,048-token weights head built in the page (random rows; no lab view), as a state. The
 * state is committed through the API before any frame is watched: that is the import's pipeline,
 * not the lab's.
 */
async function showLargeHead(n) {
  await page.evaluate(async (n) => {
    let seed = 5;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const W = Array.from({ length: n }, (_, i) => {
      const row = new Array(n).fill(0);
      let z = 0;
      for (let j = 0; j <= i; j++) z += row[j] = Math.exp(3 * rand());
      for (let j = 0; j <= i; j++) row[j] = Math.fround(row[j] / z);
      return row;
    });
    const s = window.attentionPlayground.getState();
    const tokens = Array.from({ length: n }, (_, i) => `t${i}`);
    Object.assign(s, {
      mode: 'weights',
      heads: [{ name: 'big', Q: null, K: null, V: null, logits: null, weights: W }],
      head: 0,
      tokens: { queries: tokens, keys: tokens },
      mask: { causal: false, window: 0, padding: new Array(n).fill(false), allow: null },
      row: n - 1,
    });
    delete s.lab;
    await window.attentionPlayground.setState(s);
  }, n);
}

/**
 * Clicks the tab of lab view `view` (the user's path: a copy of the state, the commit, the head's
 * worker, the lab worker, the drawing) and watches the main thread until the view is drawn or its
 * error shown: the largest gap between animation frames and the longest task (PerformanceObserver
 * 'longtask'). The wait polls a DOM attribute (#lab-view data-drawn), not results(), whose copy of
 * a large head's results would itself take the main thread.
 */
async function clickAndWatch(view) {
  await page.evaluate(() => {
    const w = (window.__labWatch = { gaps: [], long: [], running: true, t0: performance.now() });
    let last = performance.now();
    const tick = (now) => {
      w.gaps.push(now - last);
      last = now;
      if (w.running) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
    w.observer = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) w.long.push(e.duration);
    });
    w.observer.observe({ entryTypes: ['longtask'] });
  });
  await page.click(`#lab-tab-${view}`);
  await page.waitForFunction(
    // The tab is selected when the page starts drawing this view (the last view's error is then
    // hidden): from then on, drawn or refused.
    (v) =>
      document.getElementById(`lab-tab-${v}`).getAttribute('aria-selected') === 'true' &&
      (document.getElementById('lab-view').dataset.drawn === v || !document.getElementById('lab-error').hidden),
    view,
    { timeout: 600_000, polling: 250 },
  );
  return page.evaluate(() => {
    const w = window.__labWatch;
    w.running = false;
    w.observer.disconnect();
    return {
      ms: performance.now() - w.t0,
      gap: Math.max(0, ...w.gaps.slice(1)),
      longest: Math.max(0, ...w.long),
      error: document.getElementById('lab-error').hidden ? null : document.getElementById('lab-error').textContent,
    };
  });
}

// Opt-in: about a minute per view on 2 loaded cores (the lab worker reads a 50 MB state), 10 in
// all; the default run checks the 512-token case of every view above. ATTN_LAB_2048=1 runs every
// view, ATTN_LAB_2048=patterns,sink those views.
describe('every lab view on a 2,048-token head', { skip: !process.env.ATTN_LAB_2048 && 'set ATTN_LAB_2048=1 to run (~10 min)' }, () => {
  test('completes off the main thread while the page keeps painting (no frame gap of 1 s or more)', { timeout: 1_800_000 }, async () => {
    await showLargeHead(2048);
    // The garbage of building that state in the page (three copies of 4M numbers) is collected
    // before the frames are watched: a major GC of it is the setup's cost, not the lab's.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('HeapProfiler.collectGarbage');
    await cdp.detach();
    const worst = [];
    // ATTN_LAB_2048=1: every view; or a comma-separated list of views.
    const only = process.env.ATTN_LAB_2048 === '1' ? null : process.env.ATTN_LAB_2048.split(',');
    for (const view of SCHEMA.labViews.filter((v) => !only || only.includes(v))) {
      const out = await clickAndWatch(view);
      console.log(
        `# 2048 tokens, ${view}: ${(out.ms / 1000).toFixed(1)} s, largest frame gap ${out.gap.toFixed(0)} ms, longest task ${out.longest.toFixed(0)} ms${out.error ? ` (${out.error})` : ''}`,
      );
      // Spectral refuses heads of more than 1,024 tokens, with a message: that is its answer.
      if (view === 'spectral') assert.match(out.error ?? '', /1024|1,024/);
      else assert.equal(out.error, null, view);
      worst.push([view, out.gap]);
    }
    for (const [view, gap] of worst) assert.ok(gap < 1000, `${view}: the main thread froze for ${gap.toFixed(0)} ms`);
  });
});
