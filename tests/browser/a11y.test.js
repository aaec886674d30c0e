// Accessibility: axe-core (the engine behind Lighthouse's accessibility audit) on every view of the
// page, with the WCAG 2.0/2.1 A and AA rules, must report zero violations. One page for the whole
// file; each case brings the page into one view and runs axe on the whole document.
//
// A case is one line in CASES: {name, setup(page)}. Add a view by adding a line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { choosePreset, sharedPage, trySetState, getState } from './harness.js';
import { SCHEMA } from '../../web/generated/schema.js';

const require = createRequire(import.meta.url);
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
const REAL = new URL('../../web/data/real/', import.meta.url);

let page;
sharedPage('[a11y] ', (p) => {
  page = p;
});

/** Runs axe on the document; resolves to the violations, each with its nodes. */
async function axe() {
  // Not addScriptTag: the page's CSP blocks inline scripts. DevTools evaluation is not subject to it.
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(AXE_SOURCE);
  return page.evaluate(async (tags) => {
    const result = await window.axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target.join(' '), html: n.html.slice(0, 160), summary: n.failureSummary })),
    }));
  }, TAGS);
}

/** The violations as text a person can act on. */
function describe(violations) {
  return violations
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help}\n${v.nodes
          .slice(0, 6)
          .map((n) => `    ${n.target}\n      ${n.html}\n      ${(n.summary ?? '').replace(/\n/g, '\n      ')}`)
          .join('\n')}` + (v.nodes.length > 6 ? `\n    … and ${v.nodes.length - 6} more` : ''),
    )
    .join('\n');
}

/** The state with `patch` merged (setState through the API) — for views the cases only select. */
async function patchState(patch) {
  const s = await getState(page);
  const err = await trySetState(page, { ...s, ...patch });
  assert.equal(err, null, `setState: ${err?.message}`);
}

async function labView(view) {
  await patchState({ lab: { view, params: {} } });
  await page.waitForSelector(`#lab-tab-${view}[aria-selected="true"]`);
  await page.waitForFunction(() => !document.querySelector('#lab-view')?.textContent.startsWith('Pick an analysis'));
}

async function setLang(lang) {
  if (await page.$('#lang')) {
    await page.selectOption('#lang', lang);
  } else {
    await page.evaluate((l) => {
      location.hash = `${location.hash.replace(/&lang=[^&]*/g, '')}&lang=${l}`;
    }, lang);
  }
  await page.waitForFunction((l) => document.documentElement.lang === l, lang);
}

/** Appends page options to the link in the address bar and waits for the page to take them. */
async function addOptions(options) {
  await page.evaluate((o) => {
    location.hash = `${location.hash}${o}`;
  }, options);
  await page.waitForTimeout(300);
}

/** Goes one step on in the guided lesson (its "next" button). */
async function nextLessonStep() {
  const before = JSON.stringify((await getState(page)).lesson);
  await page.click('#lesson-next');
  await page.waitForFunction((b) => JSON.stringify(window.attentionPlayground.getState().lesson) !== b, before);
}

async function showPlayground() {
  if (await page.isHidden('#app')) await page.click('#tab-playground');
}

async function importRealNpy() {
  await page.click('#tab-import');
  const set = 'gpt2-small_L0_nlp-sentence';
  await page.setInputFiles('#import-file', new URL(`${set}/attention.npy`, REAL).pathname);
  await page.waitForFunction(() => {
    const s = window.attentionPlayground.imported();
    return s.source && !s.running && s.heads.length === 12;
  });
  await page.setInputFiles('#import-tokens', new URL(`${set}/tokens.json`, REAL).pathname);
  // Tokens after the file: the heads are analysed again; wait for that run to end.
  await page.waitForFunction(() => {
    const s = window.attentionPlayground.imported();
    return s.source.keyTokens.length === 33 && !s.running && s.heads.length === 12;
  });
  await page.click('.head-card >> nth=0'); // the detail of one head
}

const CASES = [
  {
    name: 'playground, mode qkv (default preset)',
    setup: async () => {
      await choosePreset(page, 'example1');
    },
  },
  {
    name: 'playground, mode logits (worked example 2)',
    setup: async () => {
      await choosePreset(page, 'example2');
    },
  },
  {
    name: 'playground, mode weights (a real GPT-2 head)',
    setup: async () => {
      await choosePreset(page, 'gpt2-small_L0_nlp-sentence.0');
    },
  },
  {
    name: 'playground, heatmap tabs (more than 16 keys)',
    setup: async () => {
      await patchState({ view: { ...(await getState(page)).view, panel: 'scores' } });
    },
  },
  {
    name: 'playground, mode x (multi-head preset)',
    setup: async () => {
      await choosePreset(page, 'multihead');
    },
  },
  {
    name: 'playground, large head (overview canvas)',
    setup: async () => {
      await choosePreset(page, 'long512');
      await page.waitForSelector('#overview-canvas');
    },
  },
  {
    name: 'playground, mask-edit mode',
    setup: async () => {
      await choosePreset(page, 'selfattention');
      await page.check('#edit-allow');
      await page.click('#weights-r0-c1');
      await page.waitForFunction(() => window.attentionPlayground.getState().mask.allow !== null);
    },
  },
  {
    name: 'playground, palette magma, numbers off',
    setup: async () => {
      await page.selectOption('#palette', 'magma');
      await page.uncheck('#numbers');
    },
  },
  {
    name: 'playground, palette greys, numbers on',
    setup: async () => {
      await page.selectOption('#palette', 'greys');
      await page.check('#numbers');
    },
  },
  {
    name: 'playground, palette cividis',
    setup: async () => {
      await page.selectOption('#palette', 'cividis');
      await choosePreset(page, 'example1');
    },
  },
  ...SCHEMA.labViews.map((view) => ({
    name: `lab view ${view}`,
    setup: () => labView(view),
  })),
  { name: 'import view with a real .npy', setup: importRealNpy },
  { name: 'import view, Chinese', setup: () => setLang('zh-CN') },
  {
    name: 'playground, Chinese, mode logits',
    setup: async () => {
      await showPlayground();
      await choosePreset(page, 'example2');
    },
  },
  { name: 'playground, Chinese, lab view sweep', setup: () => labView('sweep') },
  { name: 'playground, Chinese, lab view saturation', setup: () => labView('saturation') },
  {
    name: 'playground, Chinese, mode x',
    setup: async () => {
      await choosePreset(page, 'multihead');
    },
  },
  { name: 'playground, English again', setup: () => setLang('en') },
  // The course features: the guided lesson, the share dialog, embed mode and read-only.
  {
    name: 'guided lesson open',
    setup: async () => {
      await showPlayground();
      await page.click('#lesson-toggle');
      await page.waitForSelector('#lesson-panel:not([hidden])');
    },
  },
  {
    name: 'guided lesson, Chinese',
    setup: async () => {
      await setLang('zh-CN');
    },
  },
  {
    name: 'guided lesson, English, next step',
    setup: async () => {
      await setLang('en');
      await nextLessonStep();
    },
  },
  {
    name: 'share dialog open',
    setup: async () => {
      await page.click('#share-class');
      await page.waitForSelector('#share-dialog[open]');
    },
  },
  {
    name: 'embed mode, read-only',
    setup: async () => {
      await page.keyboard.press('Escape');
      await addOptions('&embed=1&readonly=1');
      await page.waitForSelector('html.ap-embed.ap-readonly');
    },
  },
  {
    name: 'embed mode, Chinese',
    setup: async () => {
      await addOptions('&readonly=0');
      await setLang('zh-CN');
    },
  },
];

for (const c of CASES) {
  test(`axe: ${c.name}`, async () => {
    await c.setup(page);
    await page.waitForTimeout(50); // the views paint after the state
    const violations = await axe();
    assert.equal(violations.length, 0, `axe found ${violations.length} kinds of violation in "${c.name}":\n${describe(violations)}`);
  });
}

test('the playground keeps its keyboard landmarks: one tab stop per heatmap grid, tabs with roving tabindex', async () => {
  await patchState({ lab: { view: 'none', params: {} } });
  await choosePreset(page, 'example2');
  const grids = await page.evaluate(() =>
    [...document.querySelectorAll('table[role="grid"]')]
      .filter((t) => t.offsetParent)
      .map((t) => ({ id: t.id, label: t.getAttribute('aria-label'), stops: t.querySelectorAll('[tabindex="0"]').length })),
  );
  assert.deepEqual(grids.map((g) => g.id).sort(), ['scores', 'weights']);
  for (const g of grids) {
    assert.equal(g.stops, 1, `${g.id}: one tab stop`);
    assert.ok(g.label, `${g.id}: named`);
  }
  for (const list of ['#view-nav', '#lab-tabs']) {
    const tabs = await page.evaluate(
      (sel) =>
        [...document.querySelectorAll(`${sel} [role="tab"]`)].map((b) => ({
          selected: b.getAttribute('aria-selected'),
          tabindex: b.getAttribute('tabindex'),
          controls: b.getAttribute('aria-controls'),
          panel: !!document.getElementById(b.getAttribute('aria-controls')),
        })),
      list,
    );
    assert.ok(tabs.length >= 2, list);
    for (const tab of tabs) {
      assert.equal(tab.tabindex, tab.selected === 'true' ? '0' : '-1', `${list}: roving tabindex`);
      assert.ok(tab.panel, `${list}: aria-controls ${tab.controls} names an element`);
    }
  }
});
