// Browser tests of the lab view "sensitivity" (web/lab/sensitivity.js over the core's
// lab_sensitivity.cpp): "does the largest weight mark the value whose change moves the output
// most?" Expected numbers are computed in this file from the state (double-precision softmax of
// the harness; o = Σ a_j v_j; ‖∂o/∂v_j‖ = a_j; ‖∂o/∂s_j‖ = a_j ‖v_j − o‖ / τ; ‖∂o/∂k_j‖ = that ×
// ‖q‖ × scale; deletion by renormalising the softmax without key j, brute force), and by hand for
// seed example 2 row 2 (weights 1/2, 1/4, 1/4; output 5; deletions 8 − 5, 14/3 − 5, 10/3 − 5),
// never from the code under test. Also: first places marked, the sentence's numbers, an empty
// row, a 1-token state, a head without V; one screenshot per case.
//
//   node --test tests/browser/lab_sensitivity.test.js        (after the WASM build is in web/wasm)

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { choosePreset, getResults, getState, near, screenshotPath, softmax, trySetState, sharedPage } from './harness.js';
import { labViewInChinese } from './lang_check.js';

let page;
sharedPage('[sensitivity] ', (p) => {
  page = p;
});

const norm = (x) => Math.sqrt(x.reduce((s, v) => s + v * v, 0));
const mix = (a, V) => V[0].map((_, c) => a.reduce((s, w, j) => s + w * V[j][c], 0));

/** Every measure per key, from scores s (null = masked), V, tau and (qkv) ‖q‖ × scale. */
function measures(s, V, tau, qScale = null) {
  const a = softmax(s, tau);
  const o = mix(a, V);
  const out = {};
  s.forEach((x, j) => {
    if (x === null) return;
    const dist = norm(V[j].map((v, c) => v - o[c]));
    const rest = s.map((y, i) => (i === j ? null : y));
    const live = rest.some((y) => y !== null);
    out[j] = {
      weight: a[j],
      value: a[j],
      distance: dist,
      score: (a[j] * dist) / tau,
      key: qScale === null ? null : (a[j] * dist * qScale) / tau,
      deletion: live ? norm(mix(softmax(rest, tau), V).map((v, c) => v - o[c])) : null,
    };
  });
  return { a, o, out };
}

/** Keys tied (1e-9 relative) for the largest value of `m` among the keys of `out`. */
function firsts(out, m) {
  const keys = Object.keys(out)
    .map(Number)
    .filter((j) => out[j][m] !== null);
  if (!keys.length) return [];
  const best = Math.max(...keys.map((j) => out[j][m]));
  return keys.filter((j) => out[j][m] >= best - 1e-9 * Math.abs(best));
}

/** The cell of measure m and key j: {value (null when undefined), lead, text} or null. */
function cell(m, j) {
  return page.evaluate((id) => {
    const el = document.getElementById(id);
    return el
      ? { value: el.dataset.value === '' ? null : Number(el.dataset.value), lead: el.classList.contains('lead'), text: el.textContent }
      : null;
  }, `lab-sens-${m}-${j}`);
}

/** Waits until the shown sensitivity document is the one of the current state and drawn. */
function waitSens() {
  return page.waitForFunction(() => {
    const lab = window.attentionPlayground.results()?.lab;
    const state = window.attentionPlayground.getState();
    if (!lab || lab.view !== 'sensitivity' || lab.row !== state.row) return false;
    if (!lab.supported) return !!document.getElementById('lab-sens-unsupported');
    if (lab.empty) return !!document.getElementById('lab-sens-empty');
    const k = lab.keys[0];
    const el = document.getElementById(`lab-sens-weight-${k.key}`);
    return !!el && Number(el.dataset.value) === k.weight && !!document.getElementById('lab-sens-answer');
  });
}

async function checkTable(expected, measuresShown) {
  for (const [j, want] of Object.entries(expected.out)) {
    for (const m of measuresShown) {
      const c = await cell(m, j);
      assert.ok(c, `no cell ${m} for key ${j}`);
      if (want[m] === null) assert.equal(c.value, null, `${m} of key ${j} should be undefined`);
      else near(c.value, want[m], 1e-6 * Math.max(1, Math.abs(want[m])), `${m} of key ${j}`);
    }
  }
  for (const m of measuresShown.filter((x) => x !== 'distance')) {
    const lead = firsts(expected.out, m);
    for (const j of Object.keys(expected.out)) {
      assert.equal((await cell(m, j)).lead, lead.includes(Number(j)), `first place of ${m} at key ${j} (want ${lead})`);
    }
  }
}

const noNaNOnScreen = async (what) => {
  const text = await page.textContent('#lab-view');
  assert.ok(!/NaN|Infinity/.test(text), `${what}: the view shows NaN or Infinity`);
};

describe('lab sensitivity', () => {
  test('lesson example 1: a_j, ‖∂o/∂k_j‖ and deletions computed here; the sentence gives the numbers', async () => {
    await choosePreset(page, 'example1');
    await page.click('#lab-tab-sensitivity');
    await waitSens();
    const e = measures(
      [1, 0],
      [
        [2, 0],
        [0, 4],
      ],
      1,
      1,
    );
    near(e.out[0].weight, 0.7310585786, 1e-9, 'hand weight'); // the test's own softmax against MATH.md
    near(e.out[0].deletion, Math.hypot(1.462117157, 2.924234315), 1e-8, 'hand deletion of key 0 (o becomes v_1)');
    await checkTable(e, ['weight', 'value', 'distance', 'score', 'key', 'deletion']);
    const text = await page.textContent('#lab-sens-answer');
    assert.match(text, /key 0 “k1” has the largest weight \(a = 0\.7311\)/);
    assert.match(text, /a_j Δ/);
    assert.match(text, /0\.8793/, 'the key derivative (tied for both keys) is not in the sentence');
    assert.match(text, /3\.269/, 'the deletion shift of key 0 is not in the sentence');
    await noNaNOnScreen('example 1');
    await page.locator('#lab-view').screenshot({ path: screenshotPath('lab-sensitivity-example1') });
  });

  test('self-attention row 2: the largest weight (key 2) is not the key whose key vector moves o most (key 3)', async () => {
    await choosePreset(page, 'selfattention');
    const s = await getState(page);
    s.lab = { view: 'sensitivity', params: {} };
    assert.equal(await trySetState(page, s), null);
    await waitSens();
    const { Q, K, V } = s.heads[0];
    const scale = 1 / Math.sqrt(2);
    const q = Q[s.row];
    const scores = K.map((k) => scale * (q[0] * k[0] + q[1] * k[1]));
    const e = measures(scores, V, s.tau, norm(q) * scale);
    assert.deepEqual(firsts(e.out, 'weight'), [2], 'the preset changed: key 2 no longer has the largest weight');
    assert.deepEqual(firsts(e.out, 'key'), [3], 'the preset changed: key 3 no longer leads the key derivative');
    await checkTable(e, ['weight', 'value', 'distance', 'score', 'key', 'deletion']);
    const text = await page.textContent('#lab-sens-answer');
    assert.match(text, /But moving its key vector is another matter: key 3 “down” moves the output most/);
    assert.ok(text.includes(e.out[3].key.toFixed(4)), `sentence lacks ${e.out[3].key.toFixed(4)}: ${text}`);
    await noNaNOnScreen('self-attention');
    await page.locator('#lab-view').screenshot({ path: screenshotPath('lab-sensitivity-selfattention') });
  });

  test('seed example 2 row 2 by hand (logits): score derivatives and deletions, no key column', async () => {
    await choosePreset(page, 'example2');
    const s = await getState(page);
    s.row = 2;
    s.lab = { view: 'sensitivity', params: {} };
    assert.equal(await trySetState(page, s), null);
    await waitSens();
    const hand = { weight: [0.5, 0.25, 0.25], score: [1.5, 0.25, 1.25], deletion: [3, 1 / 3, 5 / 3] };
    for (const m of Object.keys(hand)) {
      for (let j = 0; j < 3; j++) near((await cell(m, j)).value, hand[m][j], 1e-6, `${m} of key ${j}`);
    }
    assert.equal(await cell('key', 0), null, 'a logits head shows a key-derivative column');
    assert.equal((await cell('deletion', 0)).lead, true);
    assert.match(await page.textContent('#lab-sens-answer'), /score/);
    await noNaNOnScreen('example 2');
    await page.locator('#lab-view').screenshot({ path: screenshotPath('lab-sensitivity-example2') });
  });

  test('an empty row, one visible key and a head without V say so', async () => {
    await choosePreset(page, 'example2');
    let s = await getState(page);
    s.row = 0; // causal row 0: key 0 only
    s.lab = { view: 'sensitivity', params: {} };
    assert.equal(await trySetState(page, s), null);
    await waitSens();
    assert.match(await page.textContent('#lab-sens-answer'), /Only key 0/);
    assert.equal((await cell('deletion', 0)).value, null);
    assert.match((await cell('deletion', 0)).text, /undefined/);
    await noNaNOnScreen('one key');
    await page.locator('#lab-view').screenshot({ path: screenshotPath('lab-sensitivity-one-key') });

    s = await getState(page);
    s.mask.padding = s.mask.padding.map(() => true);
    assert.equal(await trySetState(page, s), null);
    await waitSens();
    assert.match(await page.textContent('#lab-sens-empty'), /undefined/);
    await noNaNOnScreen('empty row');

    await choosePreset(page, 'gpt2-small_L0_nlp-sentence.0');
    await waitSens();
    const lab = (await getResults(page)).lab;
    if (lab.supported) {
      // A real head that carries values: the table must agree with the weights of results().
      const r = await getResults(page);
      const st = await getState(page);
      near((await cell('weight', lab.keys[0].key)).value, r.weights[st.row][lab.keys[0].key], 1e-6, 'real head weight');
    } else {
      assert.match(await page.textContent('#lab-sens-unsupported'), /needs values V/);
    }
    await page.locator('#lab-view').screenshot({ path: screenshotPath('lab-sensitivity-gpt2') });
  });
});

describe('in Chinese (#lang control): sensitivity on the lesson preset', () => {
  test('no English word outside data (tokens, head names) and formulas; most texts Chinese', async () => {
    const { bad, share } = await labViewInChinese(page, {
      view: 'sensitivity',
      preset: 'lessonSensitivity',
      screenshot: screenshotPath('lab_sensitivity_zh'),
    });
    assert.deepEqual(bad, [], 'English words in the Chinese view');
    assert.ok(share > 0.3, `only ${(100 * share).toFixed(0)}% of the texts are Chinese`);
  });
});
