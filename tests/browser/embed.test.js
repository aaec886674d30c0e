// Browser tests of embedding (docs/embedding.md): embed mode and every <control>_hide flag hide
// exactly what they say and nothing else; read-only refuses edits but keeps row selection and
// window.attentionPlayground.setState; the "Share for class" dialog builds a link whose page options
// round-trip and an <iframe> snippet that works pasted into a host page (dev/embed-demo.html) and
// grows to its content through the height messages; the <attention-playground> element renders,
// sizes itself, follows its attributes and shows an error for a bad state.
//
// The elements each flag hides are written out here from the page's markup (the spec of the flags),
// not taken from web/page/page-options.js.
//
//   node --test --test-concurrency=1 tests/browser/embed.test.js   (after the build)

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { statesEqual } from '../../web/core/state-schema.js';
import { decodeLink } from '../../web/codec/link.js';
import { TEACHER_TOOLS } from '../../web/page/page-options.js';
import { getState, listenOnTestPort, openPage, screenshotPath, startSession, trySetState, watch, closeQuietly } from './harness.js';

/** What each flag hides: CSS selectors of the page (from index.html and web/page/). */
const FLAGS = {
  preset: ['#preset'],
  share: ['#copy-link', '#save-state', '#share-class'],
  undo: ['#undo'],
  language: ['#language-wrap'],
  import: ['#tab-import', '#tab-playground'],
  mode: ['#mode-note'],
  tau: ['#tau', '#tau-slider'],
  scale: ['#scale-fieldset'],
  mask: ['#causal', '#window', '#padding'],
  row: ['#row', '#topk'],
  display: ['#numbers'],
  inputs: ['#editors'],
  scores: ['#scores-view'],
  output: ['#output-view'],
  formulas: ['#formulas-box'],
  export: ['#playground-export'],
  lab: ['#lab-panel'],
  lesson: ['#lesson-panel'],
};
/** The box around a flag's elements that goes with them (its fieldset, label or panel). */
const BOX = {
  preset: 'label',
  mode: 'fieldset',
  tau: 'fieldset',
  mask: 'fieldset',
  row: 'fieldset',
  display: 'fieldset',
  inputs: 'section',
  import: 'nav',
};

let session;
let page; // the playground, shared by the tests that change only the hash
let baseLink; // the default state's link fragment, without page options
let host; // dev/embed-demo.html
let sharedSnippet = null;

before(async () => {
  session = await startSession();
  ({ page } = await openPage(session, '', { label: '[embed] ' }));
  baseLink = (await page.evaluate(() => window.attentionPlayground.shareUrl())).split('#')[1];
});

after(async () => {
  await closeQuietly(session);
});

/** Shows the same state with these page options (a hash change, as a link clicked in the page). */
async function withOptions(options) {
  await page.evaluate((hash) => {
    location.hash = hash;
  }, `${baseLink}${options}`);
  const classes = options
    .split('&')
    .filter(Boolean)
    .map((kv) => {
      const [key, value] = kv.split('=');
      if (key.endsWith('_hide')) return value === '1' ? `ap-hide-${key.slice(0, -5)}` : null;
      if (key === 'embed') return value === '1' ? 'ap-embed' : null;
      if (key === 'readonly') return value === '1' ? 'ap-readonly' : null;
      return null;
    })
    .filter(Boolean);
  await page.waitForFunction((want) => {
    const have = [...document.documentElement.classList].filter((c) => c.startsWith('ap-hide-') || c === 'ap-embed' || c === 'ap-readonly');
    return have.length === want.length && want.every((c) => have.includes(c));
  }, classes);
}

/** The ids of every element on screen (rendered, not display:none anywhere up the tree). */
const visibleIds = () =>
  page.evaluate(() =>
    [...document.querySelectorAll('[id]')].filter((el) => el.checkVisibility() && !el.closest('dialog')).map((el) => el.id),
  );

/**
 * Which of the flag's own elements exist on this page, and whether they are shown; null also for
 * an element the page itself leaves out in this state (the `hidden` attribute: the lesson panel
 * without a lesson).
 */
const shown = (selectors) =>
  page.evaluate(
    (sels) =>
      sels.map((s) => {
        const el = document.querySelector(s);
        return el && !el.hidden ? el.checkVisibility() : null;
      }),
    selectors,
  );

describe('hide flags and embed mode', () => {
  test('each <control>_hide flag hides its control and nothing else', async () => {
    await withOptions('');
    const baseline = await visibleIds();
    const missing = [];
    for (const [name, roots] of Object.entries(FLAGS)) {
      const before = await shown(roots);
      if (before.every((v) => v === null)) {
        missing.push(name);
        continue;
      }
      assert.ok(
        before.every((v) => v !== false),
        `${name}: its controls are shown before the flag (${roots})`,
      );
      await withOptions(`&${name}_hide=1`);
      assert.ok(
        (await shown(roots)).every((v) => v !== true),
        `${name}_hide=1 hides ${roots.join(', ')}`,
      );
      // Nothing else: every id that disappeared is inside one of the flag's elements (or is the
      // fieldset/label/section around them), and nothing appeared.
      const now = await visibleIds();
      const gone = baseline.filter((id) => !now.includes(id));
      const appeared = now.filter((id) => !baseline.includes(id));
      assert.deepEqual(appeared, [], `${name}_hide=1 shows nothing new`);
      const outside = await page.evaluate(
        ({ gone, roots, box }) =>
          gone.filter((id) => {
            const el = document.getElementById(id);
            return !roots.some((s) => {
              const root = document.querySelector(s);
              if (!root) return false;
              const container = box ? root.closest(box) : root;
              return container.contains(el) || root.contains(el);
            });
          }),
        { gone, roots, box: BOX[name] ?? null },
      );
      assert.deepEqual(outside, [], `${name}_hide=1 hides only its own elements`);
      // Not rendered: out of the keyboard order too.
      const focusable = await page.evaluate(
        (sels) =>
          sels.some((s) => {
            const el = document.querySelector(s);
            if (!el) return false;
            el.focus?.();
            return document.activeElement === el;
          }),
        roots,
      );
      assert.equal(focusable, false, `${name}_hide=1: its controls cannot take the focus`);
    }
    await withOptions('');
    assert.deepEqual(await visibleIds(), baseline, 'without flags the page is as before');
    // Elements of the other course features; each flag above is checked once they exist.
    assert.ok(
      missing.every((n) => ['language', 'lesson'].includes(n)),
      `flags without elements: ${missing}`,
    );
    // The lesson panel shows only with a lesson: lesson_hide=1 hides it then.
    await page.click('#lesson-toggle');
    await page.waitForFunction(() => document.getElementById('lesson-panel').checkVisibility());
    await withOptions('&lesson_hide=1');
    assert.equal(
      await page.evaluate(() => document.getElementById('lesson-panel').checkVisibility()),
      false,
      'lesson_hide=1 hides the lesson panel',
    );
    await withOptions(''); // the link's state, without a lesson: the panel goes
    await page.waitForFunction(() => !document.getElementById('lesson-panel').checkVisibility());
  });

  test('hiding panels closes up the layout (no empty column, no overflow)', async () => {
    const combos = [
      ['inputs'],
      ['mode', 'tau', 'scale', 'mask', 'row', 'display'],
      ['mode', 'tau', 'scale', 'mask', 'row', 'display', 'inputs', 'lab'],
      ['tau', 'mask', 'scores', 'formulas', 'export', 'share', 'preset'],
    ];
    for (const width of [1400, 900]) {
      await page.setViewportSize({ width, height: 1000 });
      for (const combo of combos) {
        await withOptions(`&embed=1${combo.map((n) => `&${n}_hide=1`).join('')}`);
        const layout = await page.evaluate(() => {
          const box = (s) => {
            const el = document.querySelector(s);
            return el.checkVisibility() ? el.getBoundingClientRect() : null;
          };
          return {
            overflow: document.documentElement.scrollWidth - window.innerWidth,
            controls: box('.layout > .controls'),
            inputs: box('.layout > .inputs'),
            views: box('.layout > .views'),
            padding: parseFloat(getComputedStyle(document.querySelector('.layout')).paddingLeft),
          };
        });
        const what = `${combo.join('+')} at ${width}px`;
        assert.ok(layout.overflow <= 0, `${what}: no horizontal overflow`);
        const first = [layout.controls, layout.inputs, layout.views].find(Boolean);
        near(first.left, layout.padding, 1, `${what}: the first panel starts at the left edge`);
        if (combo.includes('mode') && combo.includes('display'))
          assert.equal(layout.controls, null, `${what}: the empty controls column goes`);
        if (combo.includes('inputs') && layout.controls) {
          // The results sit beside the controls, not below an empty cell.
          near(layout.views.top, layout.controls.top, 1, `${what}: results beside the controls`);
        }
        if (width === 900) await page.screenshot({ path: screenshotPath(`embed-hide-${combo.length}-${width}`), fullPage: true });
      }
    }
    await page.setViewportSize({ width: 1400, height: 1000 });
    await withOptions('');
  });

  test('embed mode removes the header brand, footer and view tabs, and links to the full page', async () => {
    await withOptions('');
    const baseline = await visibleIds();
    await withOptions('&embed=1');
    const now = await visibleIds();
    const gone = baseline.filter((id) => !now.includes(id));
    // The teacher tools (TEACHER_TOOLS): hidden in embed mode, the student view, unless teacher=1.
    const teacher = await page.evaluate(
      (sels) => [...document.querySelectorAll(sels.join(', '))].flatMap((el) => [el, ...el.querySelectorAll('[id]')]).map((el) => el.id),
      TEACHER_TOOLS,
    );
    const footer = await page.evaluate(() => [...document.querySelectorAll('.foot [id]')].map((el) => el.id));
    const expected = ['core-variant', 'tab-import', 'tab-playground', 'view-nav', ...footer, ...teacher].filter((id) =>
      baseline.includes(id),
    );
    assert.deepEqual(gone.sort(), [...new Set(expected)].sort(), 'embed mode hides the view tabs, the core line and the teacher tools');
    await withOptions('&embed=1&teacher=1');
    await page.waitForFunction(() => document.documentElement.classList.contains('ap-teacher'));
    const withTeacher = await visibleIds();
    assert.deepEqual(
      teacher.filter((id) => baseline.includes(id) && !withTeacher.includes(id)),
      [],
      'teacher=1 shows the teacher tools again',
    );
    await withOptions('&embed=1');
    await page.waitForFunction(() => !document.documentElement.classList.contains('ap-teacher'));
    assert.deepEqual(
      now.filter((id) => !baseline.includes(id)),
      ['open-full'],
      'embed mode adds the full-page link only',
    );
    const chrome = await page.evaluate(() => ({
      brand: document.querySelector('.top .brand').checkVisibility(),
      foot: document.querySelector('.foot').checkVisibility(),
      nav: document.querySelector('.view-nav').checkVisibility(),
      padding: parseFloat(getComputedStyle(document.querySelector('.layout')).paddingTop),
    }));
    assert.deepEqual({ ...chrome, padding: undefined }, { brand: false, foot: false, nav: false, padding: undefined });
    assert.ok(chrome.padding < 12, `compact spacing (layout padding ${chrome.padding}px)`);
    const link = await page.evaluate(() => {
      const a = document.getElementById('open-full');
      a.dispatchEvent(new Event('pointerdown'));
      return { href: a.href, target: a.target, rel: a.rel };
    });
    assert.equal(link.target, '_blank');
    assert.match(link.rel, /noopener/);
    const fragment = link.href.split('#')[1];
    assert.ok(!/(^|&)embed=1/.test(fragment), 'the full page is not in embed mode');
    assert.ok(statesEqual(decodeLink(fragment), await getState(page)), 'the full page shows the same state');
    await page.screenshot({ path: screenshotPath('embed-mode'), fullPage: true });
    await withOptions('');
  });
});

describe('read-only', () => {
  test('editing is refused, row selection and setState still work', async () => {
    await withOptions('&readonly=1');
    const before = await getState(page);
    const controls = await page.evaluate(() => {
      const q = (s) => document.querySelector(s);
      return {
        tau: q('#tau-slider').disabled,
        tauBox: q('#tau').readOnly,
        causal: q('#causal').disabled,
        mode: [...document.querySelectorAll('input[name="mode"]')].every((r) => r.disabled),
        preset: q('#preset').disabled,
        cell: q('#edit-Q-r0-c0').readOnly,
        addRow: [...document.querySelectorAll('#editors button')].every((b) => b.disabled),
        row: q('#row').disabled,
        copy: q('#copy-link').disabled,
        badge: q('#readonly-badge').checkVisibility(),
        palette: q('#palette') ? q('#palette').disabled : false,
      };
    });
    assert.deepEqual(controls, {
      tau: true,
      tauBox: true,
      causal: true,
      mode: true,
      preset: true,
      cell: true,
      addRow: true,
      row: false,
      copy: false,
      badge: true,
      palette: false,
    });
    // Typing into a Q cell changes nothing.
    await page.click('#edit-Q-r0-c0');
    await page.keyboard.press('End');
    await page.keyboard.type('9');
    await page.keyboard.press('Tab');
    assert.equal(await page.inputValue('#edit-Q-r0-c0'), String(before.heads[0].Q[0][0]), 'the cell keeps its value');
    // Past the disabled controls (a script, a shortcut): the change is refused and shown.
    await page.evaluate(() => {
      const box = document.getElementById('tau');
      box.readOnly = false;
      box.value = '3';
      box.dispatchEvent(new Event('input', { bubbles: true }));
      box.dispatchEvent(new Event('change', { bubbles: true }));
      const causal = document.getElementById('causal');
      causal.disabled = false;
      causal.click();
    });
    await page.evaluate(() => document.activeElement?.blur());
    await page.keyboard.press('Control+z');
    await page.waitForTimeout(450);
    assert.ok(statesEqual(await getState(page), before), 'the state is unchanged');
    assert.equal(
      await page
        .evaluate(() => [
          document.getElementById('tau').readOnly,
          document.getElementById('causal').disabled,
          document.getElementById('causal').checked,
        ])
        .then(String),
      String([true, true, before.mask.causal]),
      'the controls are frozen again and show the state',
    );
    // Selecting a query row is viewing: allowed.
    const rows = before.tokens.queries.length;
    if (rows > 1) {
      await page.selectOption('#row', String(rows - 1));
      await page.waitForFunction((r) => window.attentionPlayground.getState().row === r, rows - 1);
    }
    // The embedding page's API still sets the state.
    const next = structuredClone(before);
    next.tau = 2;
    next.row = 0;
    assert.equal(await trySetState(page, next), null);
    assert.equal((await getState(page)).tau, 2);
    assert.equal(await page.inputValue('#tau'), '2', 'the read-only page shows the new state');
    assert.equal(await page.evaluate(() => document.getElementById('tau').readOnly), true);
    await page.screenshot({ path: screenshotPath('embed-readonly'), fullPage: true });
    // Off again: editing works.
    await withOptions('&readonly=0');
    assert.equal(
      await page.evaluate(() => document.getElementById('causal').disabled || document.getElementById('edit-Q-r0-c0').readOnly),
      false,
    );
    await page.fill('#edit-Q-r0-c0', '0.25');
    await page.waitForFunction(() => window.attentionPlayground.getState().heads[0].Q[0][0] === 0.25);
    assert.equal(await trySetState(page, before), null);
    await withOptions('');
  });
});

describe('share for class', () => {
  test('the dialog builds a link whose options round-trip, and closes with Escape', async () => {
    await withOptions('');
    await page.focus('#share-class');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.getElementById('share-dialog')?.open);
    assert.equal(
      await page.evaluate(() => document.activeElement.closest('dialog')?.id),
      'share-dialog',
      'the focus moves into the dialog',
    );
    const field = (name) => `#share-dialog [data-field="${name}"]`;
    await page.check(field('readonly'));
    await page.check(field('hide-tau'));
    await page.check(field('hide-mask'));
    await page.check(field('hide-lab'));
    await page.selectOption(field('lang'), 'zh-CN');
    const link = await page.inputValue('#share-link');
    const snippet = await page.inputValue('#share-snippet');
    const element = await page.inputValue('#share-element');
    const fragment = link.split('#')[1];
    const params = new URLSearchParams(fragment);
    assert.deepEqual(Object.fromEntries([...params].filter(([k]) => ['lang', 'embed', 'readonly'].includes(k) || k.endsWith('_hide'))), {
      lang: 'zh-CN',
      embed: '1',
      readonly: '1',
      tau_hide: '1',
      mask_hide: '1',
      lab_hide: '1',
    });
    assert.ok(statesEqual(decodeLink(fragment), await getState(page)), 'the link holds the state on screen');
    assert.match(snippet, /^<iframe src="[^"]+" title="[^"]+" width="100%" height="\d+"/);
    assert.match(snippet, /loading="lazy"/);
    assert.match(snippet, /event\.source/);
    assert.match(snippet, /attention-playground:height/);
    assert.match(element, /<script type="module" src="[^"]+\/embed\.js"><\/script>/);
    assert.match(element, /hide="tau,mask,lab" readonly embed/);
    // The preview shows the link (the frame follows its options).
    await page.waitForFunction((l) => document.getElementById('share-preview-frame').src === l, link);
    const preview = page.frames().find((f) => f.url() === link);
    await preview.waitForFunction(
      () => document.documentElement.classList.contains('ap-hide-tau') && document.documentElement.lang === 'zh-CN',
    );
    assert.equal(await preview.evaluate(() => document.getElementById('tau').checkVisibility()), false);
    await page.screenshot({ path: screenshotPath('embed-share-dialog-en') });
    // Escape closes it; the focus returns to the button.
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => !document.getElementById('share-dialog').open);
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'share-class');
    sharedSnippet = { link, snippet, element };

    // The link opened: same state, same options; the dialog there is in Chinese.
    const { page: other, context } = await openPage(session, link.replace(/^https?:\/\/[^/]+\//, ''), { label: '[embed link] ' });
    assert.ok(statesEqual(await getState(other), await getState(page)));
    const seen = await other.evaluate(() => ({
      lang: document.documentElement.lang,
      classes: ['ap-embed', 'ap-readonly', 'ap-hide-tau', 'ap-hide-mask', 'ap-hide-lab'].every((c) =>
        document.documentElement.classList.contains(c),
      ),
      tau: document.getElementById('tau').checkVisibility(),
      lab: document.getElementById('lab-panel').checkVisibility(),
    }));
    assert.deepEqual(seen, { lang: 'zh-CN', classes: true, tau: false, lab: false });
    // Embedded, the page is the student view (no teacher tools) unless the link says teacher=1.
    assert.equal(await other.isVisible('#share-class'), false, 'the student view hides Share for class');
    await other.evaluate(() => {
      location.hash += '&teacher=1';
    });
    await other.waitForFunction(() => document.documentElement.classList.contains('ap-teacher'));
    await other.click('#share-class');
    await other.waitForFunction(() => document.getElementById('share-dialog')?.open);
    assert.equal(await other.textContent('#share-title'), '分享到课堂');
    await other.screenshot({ path: screenshotPath('embed-share-dialog-zh-CN') });
    await context.close();
  });
});

describe('the element snippet on a course page', () => {
  /** A plain course page of this origin with `html` pasted in (its scripts re-created so they run). */
  async function paste(html) {
    const context = await session.browser.newContext({ viewport: { width: 1000, height: 900 } });
    const course = await context.newPage();
    watch(course, session.events, '[element course] ');
    await course.route('**/element-course-page.html', (route) =>
      route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>A course page</title><h1>Week 3</h1>' }),
    );
    await course.goto(`${session.url}element-course-page.html`);
    await course.evaluate((markup) => {
      const tpl = document.createElement('template');
      tpl.innerHTML = markup;
      for (const old of tpl.content.querySelectorAll('script')) {
        const s = document.createElement('script');
        for (const a of old.attributes) s.setAttribute(a.name, a.value);
        old.replaceWith(s);
      }
      document.body.append(tpl.content);
    }, html);
    return { context, course };
  }

  test('the element holds a link to the page: hidden when it runs, shown when its script is missing', async () => {
    assert.ok(sharedSnippet, 'the share dialog test ran first');
    const { link, element } = sharedSnippet;
    const fallback = /<attention-playground [^>]*><a href="([^"]+)">([^<]+)<\/a><\/attention-playground>$/.exec(element);
    assert.ok(fallback, element);
    assert.equal(fallback[1].replace(/&amp;/g, '&'), link, "the link is the dialog's");
    assert.equal(fallback[2], '打开注意力实验场', "in the link's language");
    // As pasted: the element runs; its frame shows, the link does not.
    const ok = await paste(element);
    await ok.course.waitForFunction(() => document.querySelector('attention-playground')?.shadowRoot?.querySelector('iframe'));
    assert.equal(await ok.course.evaluate(() => document.querySelector('attention-playground a').checkVisibility()), false);
    await ok.context.close();
    // A platform that strips <script> from pasted HTML: the element never starts; the link shows.
    const bare = await paste(element.replace(/<script[^>]*><\/script>\n?/, ''));
    const shown = await bare.course.evaluate(() => {
      const a = document.querySelector('attention-playground a');
      return { visible: a.checkVisibility(), href: a.href };
    });
    assert.deepEqual(shown, { visible: true, href: link });
    await bare.context.close();
  });
});

describe('host page (dev/embed-demo.html)', () => {
  before(async () => {
    const context = await session.browser.newContext({ viewport: { width: 1000, height: 900 } });
    host = await context.newPage();
    watch(host, session.events, '[embed host] ');
    await host.goto(`${session.url}dev/embed-demo.html`);
  });

  /**
   * Waits until an iframe is as tall as the page inside it. `locate`: a CSS selector of the host,
   * or "selector >>> selector" for an iframe in an element's shadow root (no `new Function`: the
   * host page's content security policy forbids it, in the test's own code too).
   */
  async function fitted(locate, what) {
    await host
      .waitForFunction(
        (spec) => {
          const [css, inShadow] = spec.split(' >>> ');
          const el = document.querySelector(css);
          const frame = inShadow ? el?.shadowRoot?.querySelector(inShadow) : el;
          const doc = frame?.contentDocument;
          if (!doc?.documentElement || !frame.contentWindow.attentionPlayground) return false;
          // Formulas waiting for KaTeX will grow the page once typeset; web/views/tex.js loads it for
          // the ones near the top window's viewport only (the others stay pending until scrolled to).
          const top = frame.getBoundingClientRect().top;
          const near = (el) => el.checkVisibility() && top + el.getBoundingClientRect().top < innerHeight + 100;
          if ([...doc.querySelectorAll('.tex-pending')].some(near)) return false;
          const inner = Math.ceil(doc.documentElement.getBoundingClientRect().height);
          return inner > 300 && Math.abs(frame.getBoundingClientRect().height - inner) <= 1;
        },
        locate,
        { timeout: 20000 },
      )
      .catch((e) => {
        throw new Error(`${what}: the iframe never took its content's height (${e.message.split('\n')[0]})`);
      });
    return host.evaluate((spec) => {
      const [css, inShadow] = spec.split(' >>> ');
      const el = document.querySelector(css);
      return (inShadow ? el.shadowRoot.querySelector(inShadow) : el).getBoundingClientRect().height;
    }, locate);
  }

  test('the pasted iframe snippet grows to its content', async () => {
    assert.ok(sharedSnippet, 'the share dialog test ran first');
    // embed-demo.html has a strict content security policy (no inline scripts: it loads the
    // snippet's script as embed-frames.js), so the pasted snippet goes into a plain course page
    // of the same origin, as many course platforms allow.
    await host.route('**/plain-course-page.html', (route) =>
      route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>A course page</title><h1>Week 3</h1>' }),
    );
    await host.goto(`${session.url}plain-course-page.html`);
    // As a course page's editor pastes HTML: markup in, scripts re-created so they run.
    await host.evaluate((html) => {
      const slot = document.createElement('section');
      slot.id = 'pasted';
      const tpl = document.createElement('template');
      tpl.innerHTML = html;
      for (const old of tpl.content.querySelectorAll('script')) {
        const s = document.createElement('script');
        s.textContent = old.textContent;
        old.replaceWith(s);
      }
      slot.append(tpl.content);
      document.body.prepend(slot);
    }, sharedSnippet.snippet);
    const initial = await host.evaluate(() => document.querySelector('#pasted iframe').getAttribute('height'));
    const height = await fitted('#pasted iframe', 'pasted snippet');
    assert.notEqual(Math.round(height), Number(initial), 'the height came from the page, not the snippet');
    const inner = await host.evaluate(() => {
      const w = document.querySelector('#pasted iframe').contentWindow;
      return { embed: w.document.documentElement.classList.contains('ap-embed'), tau: w.document.getElementById('tau').checkVisibility() };
    });
    assert.deepEqual(inner, { embed: true, tau: false });
    // A taller page inside: the frame follows (the message is sent on every change of height).
    await host.evaluate(() => {
      const d = document.querySelector('#pasted iframe').contentDocument;
      d.body.append(Object.assign(d.createElement('div'), { id: 'spacer', style: 'height: 400px' }));
    });
    const taller = await fitted('#pasted iframe', 'pasted snippet after growing');
    near(taller - height, 400, 2, 'the frame grew with its content');
    // Messages that fail a check change nothing and are ignored with a warning: from the frame's
    // window but another origin, or of another shape; messages of other windows are ignored
    // silently (they may be another embed's).
    const warnings = [];
    const onConsole = (msg) => {
      if (msg.type() === 'warning' && /Attention Playground: message ignored/.test(msg.text())) warnings.push(msg.text());
    };
    host.on('console', onConsole);
    const fake = (data, origin) =>
      host.evaluate(
        ({ data, origin }) => {
          const frame = document.querySelector('#pasted iframe');
          window.dispatchEvent(new MessageEvent('message', { data, origin: origin ?? location.origin, source: frame.contentWindow }));
        },
        { data, origin },
      );
    const good = { type: 'attention-playground:height', height: 321, id: '' };
    await fake(good, 'https://evil.example');
    for (const bad of [
      { ...good, height: '321' },
      { ...good, height: 0 },
      { ...good, height: 1e6 },
      { ...good, height: null },
      { ...good, id: 5 },
      { ...good, id: 'x'.repeat(101) },
      { height: 321 },
      'attention-playground:height',
      null,
    ])
      await fake(bad);
    await host.evaluate(
      (data) => window.dispatchEvent(new MessageEvent('message', { data, origin: location.origin, source: window })),
      good,
    );
    await host.waitForTimeout(100);
    near(
      await host.evaluate(() => document.querySelector('#pasted iframe').getBoundingClientRect().height),
      taller,
      1,
      'no bad message resized the frame',
    );
    assert.equal(warnings.length, 10, `one warning per bad message from the frame:\n${warnings.join('\n')}`);
    // The same message from the frame's window and origin works.
    await fake(good);
    await host.waitForFunction(() => document.querySelector('#pasted iframe').style.height === '321px');
    host.off('console', onConsole);
    await host.goto(`${session.url}dev/embed-demo.html`);
  });

  test('the demo page: its iframe and its <attention-playground> size themselves', async () => {
    const frameHeight = await fitted('#example-frame', 'demo iframe');
    assert.ok(frameHeight > 300);
    await host.evaluate(() => document.getElementById('example-element').scrollIntoView());
    const elHeight = await fitted('#example-element >>> iframe', 'demo element');
    assert.ok(elHeight > 300);
    const inner = await host.evaluate(() => {
      const frame = document.getElementById('example-element').shadowRoot.querySelector('iframe');
      const w = frame.contentWindow;
      return {
        title: frame.title,
        lang: w.document.documentElement.lang,
        embed: w.document.documentElement.classList.contains('ap-embed'),
        lab: w.document.getElementById('lab-panel').checkVisibility(),
        tokens: w.attentionPlayground.getState().tokens.queries,
      };
    });
    assert.deepEqual(
      { ...inner, title: Boolean(inner.title) },
      { title: true, lang: 'zh-CN', embed: true, lab: false, tokens: ['The', 'cat', 'sat', 'down'] },
    );
    await host.screenshot({ path: screenshotPath('embed-demo'), fullPage: true });
  });

  test('<attention-playground>: height messages of another origin or shape are ignored with a warning', async () => {
    await host.evaluate(() => document.getElementById('example-element').scrollIntoView());
    await fitted('#example-element >>> iframe', 'demo element');
    const warnings = [];
    const onConsole = (msg) => {
      if (msg.type() === 'warning' && /Attention Playground: message ignored/.test(msg.text())) warnings.push(msg.text());
    };
    host.on('console', onConsole);
    const before = await host.evaluate(() => document.getElementById('example-element').shadowRoot.querySelector('iframe').style.height);
    const fake = (data, origin) =>
      host.evaluate(
        ({ data, origin }) => {
          const el = document.getElementById('example-element');
          const frame = el.shadowRoot.querySelector('iframe');
          window.dispatchEvent(new MessageEvent('message', { data, origin: origin ?? location.origin, source: frame.contentWindow }));
        },
        { data, origin },
      );
    const id = await host.evaluate(() => document.getElementById('example-element').shadowRoot.querySelector('iframe').name);
    const good = { type: 'attention-playground:height', height: 432, id };
    await fake(good, 'https://evil.example');
    for (const bad of [
      { ...good, height: Infinity },
      { ...good, height: -1 },
      { ...good, id: 'another-frame' },
      { ...good, type: 'attention-playground:stateResult', id: 'nope', ok: true },
      [good],
    ])
      await fake(bad);
    await host.waitForTimeout(100);
    assert.equal(
      await host.evaluate(() => document.getElementById('example-element').shadowRoot.querySelector('iframe').style.height),
      before,
      'nothing changed',
    );
    assert.equal(warnings.length, 6, warnings.join('\n'));
    host.off('console', onConsole);
  });

  test('<attention-playground>.setState: the page takes a state from its parent (its origin= option) and answers', async () => {
    const src = await host.evaluate(() => document.getElementById('example-element').shadowRoot.querySelector('iframe').src);
    assert.match(
      src,
      new RegExp(`&origin=${encodeURIComponent(new URL(session.url).origin).replace(/[.]/g, '\\.')}(&|$)`),
      "the frame link names the course page's origin",
    );
    const frame = host.frames().find((f) => f.url() === src);
    const next = await frame.evaluate(() => {
      const s = window.attentionPlayground.getState();
      s.tau = 2.5;
      s.heads[0].Q[0][0] = 0.75;
      return s;
    });
    await host.evaluate(async (s) => document.getElementById('example-element').setState(s), next);
    assert.deepEqual(
      await frame.evaluate(() => [window.attentionPlayground.getState().tau, window.attentionPlayground.getState().heads[0].Q[0][0]]),
      [2.5, 0.75],
    );
    // A state the page refuses: the promise rejects with its message; the page keeps its state.
    const refused = await host.evaluate(async (s) => {
      try {
        await document.getElementById('example-element').setState({ ...s, tau: -1 });
        return null;
      } catch (e) {
        return e.message;
      }
    }, next);
    assert.match(refused, /tau/);
    assert.equal(await frame.evaluate(() => window.attentionPlayground.getState().tau), 2.5);
  });

  test('the page takes setState messages only from its parent, from an origin= of its link, of the right shape', async () => {
    // Two course sites, each a server of its own on another port (so another origin than the
    // playground's, and still on this machine); the link accepts the first one only.
    const sites = await Promise.all(
      [0, 1].map(() => {
        const server = createServer((req, res) => {
          res.writeHead(200, { 'Content-Type': 'text/html' });
          res.end(server.html);
        });
        return listenOnTestPort(server);
      }),
    );
    const [courseOrigin, evilOrigin] = sites.map((server) => `http://127.0.0.1:${server.address().port}`);
    const ctx = await session.browser.newContext({ viewport: { width: 1000, height: 900 } });
    const course = await ctx.newPage();
    watch(course, session.events, '[embed origins] ');
    const warnings = [];
    course.on('console', (msg) => {
      if (msg.type() === 'warning' && /Attention Playground: message ignored/.test(msg.text())) warnings.push(msg.text());
    });
    const link = `${session.url}index.html#${baseLink}&embed=1&origin=${encodeURIComponent(courseOrigin)}`;
    for (const server of sites)
      server.html = `<!doctype html><title>course</title><iframe id="f" src="${link.replace(/&/g, '&amp;')}" width="900" height="700"></iframe>`;
    const frameOf = async (p) => {
      await p.waitForFunction(() => document.getElementById('f').contentWindow && window.frames.length === 1);
      const f = p.frames().find((x) => x !== p.mainFrame());
      await f.waitForFunction(() => window.attentionPlayground !== undefined);
      await f.evaluate(() => window.attentionPlayground.ready);
      return f;
    };
    await course.goto(`${courseOrigin}/week3.html`);
    const inner = await frameOf(course);
    const start = await inner.evaluate(() => window.attentionPlayground.getState());
    const answers = () => course.evaluate(() => window.__answers ?? []);
    await course.evaluate(() => {
      window.__answers = [];
      window.addEventListener('message', (e) => {
        if (e.data?.type === 'attention-playground:stateResult') window.__answers.push(e.data);
      });
    });
    const send = (data) => course.evaluate((d) => document.getElementById('f').contentWindow.postMessage(d, '*'), data);
    // Wrong shapes from the accepted parent: ignored with a warning, nothing changes, no answer.
    for (const bad of [
      { type: 'attention-playground:setState' },
      { type: 'attention-playground:setState', state: 'v=1&mode=qkv' },
      { type: 'attention-playground:setState', state: { ...start, tau: 3 }, id: 42 },
      { type: 'attention-playground:setstate', state: { ...start, tau: 3 } },
      { state: { ...start, tau: 3 } },
    ])
      await send(bad);
    // A message from another window of the page (not the parent) is ignored with a warning too.
    await inner.evaluate(
      ({ s, origin }) =>
        window.dispatchEvent(
          new MessageEvent('message', { data: { type: 'attention-playground:setState', state: s }, origin, source: window }),
        ),
      { s: { ...start, tau: 3 }, origin: courseOrigin },
    );
    await course.waitForTimeout(200);
    assert.equal(await inner.evaluate(() => window.attentionPlayground.getState().tau), start.tau, 'nothing changed');
    assert.equal(warnings.length, 6, warnings.join('\n'));
    assert.deepEqual(await answers(), []);
    // The right message: the state is shown and the answer comes back to the parent only.
    await send({ type: 'attention-playground:setState', state: { ...start, tau: 3 }, id: 'r1' });
    await inner.waitForFunction(() => window.attentionPlayground.getState().tau === 3);
    await course.waitForFunction(() => window.__answers.length === 1);
    assert.deepEqual(await answers(), [{ type: 'attention-playground:stateResult', id: 'r1', ok: true }]);
    // A refused state: the answer says why, the state stays.
    await send({ type: 'attention-playground:setState', state: { ...start, tau: 0 }, id: 'r2' });
    await course.waitForFunction(() => window.__answers.length === 2);
    const [, refused] = await answers();
    assert.equal(refused.ok, false);
    assert.match(refused.error, /tau/);
    assert.equal(await inner.evaluate(() => window.attentionPlayground.getState().tau), 3);

    // The same frame in a page of another origin: its messages are ignored with a warning.
    const evil = await ctx.newPage();
    watch(evil, session.events, '[embed origins] ');
    const evilWarnings = [];
    evil.on('console', (msg) => {
      if (msg.type() === 'warning' && /Attention Playground: message ignored/.test(msg.text())) evilWarnings.push(msg.text());
    });
    await evil.goto(`${evilOrigin}/page.html`);
    const evilInner = await frameOf(evil);
    await evil.evaluate(
      (s) => document.getElementById('f').contentWindow.postMessage({ type: 'attention-playground:setState', state: s, id: 'x' }, '*'),
      { ...start, tau: 7 },
    );
    await evil.waitForTimeout(300);
    assert.equal(
      await evilInner.evaluate(() => window.attentionPlayground.getState().tau),
      start.tau,
      'another origin cannot set the state',
    );
    assert.equal(evilWarnings.length, 1, evilWarnings.join('\n'));
    assert.ok(evilWarnings[0].includes(`origin ${evilOrigin} is not in the link's origin= options`), evilWarnings[0]);
    // Without origin= the page takes no state message at all.
    await evil.evaluate(
      (src) => {
        document.getElementById('f').src = src;
      },
      link.replace(/&origin=[^&]*/, '') + '&tau_hide=1',
    );
    await evil.waitForTimeout(300);
    const plainInner = await frameOf(evil);
    await plainInner.waitForFunction(() => document.documentElement.classList.contains('ap-hide-tau'));
    await evil.evaluate(
      (s) => document.getElementById('f').contentWindow.postMessage({ type: 'attention-playground:setState', state: s }, '*'),
      { ...start, tau: 7 },
    );
    await evil.waitForTimeout(300);
    assert.equal(await plainInner.evaluate(() => window.attentionPlayground.getState().tau), start.tau);
    assert.match(evilWarnings.at(-1), /the link has no origin= option/);
    await ctx.close();
    await Promise.all(sites.map((server) => new Promise((done) => server.close(done))));
  });

  test('<attention-playground>: a bad state shows an error; new attributes update the frame', async () => {
    await host.evaluate(() => {
      const el = document.createElement('attention-playground');
      el.id = 'probe';
      el.setAttribute('state', '{"version": 1, oops');
      el.setAttribute('embed', '');
      document.body.prepend(el);
      window.scrollTo(0, 0);
    });
    const read = () =>
      host.evaluate(() => {
        const root = document.getElementById('probe').shadowRoot;
        const error = root.querySelector('.error');
        const frame = root.querySelector('iframe');
        return {
          error: error.checkVisibility() ? error.textContent : null,
          frame: frame.checkVisibility(),
          src: frame.getAttribute('src'),
        };
      });
    await host.waitForFunction(() => document.getElementById('probe').shadowRoot.querySelector('.error').checkVisibility());
    let seen = await read();
    assert.match(seen.error, /JSON/);
    assert.equal(seen.frame, false, 'no empty frame beside the error');
    // A state that is JSON but not a state.
    await host.evaluate(() => document.getElementById('probe').setAttribute('state', '{"version": 1, "mode": "qkv"}'));
    await host.waitForFunction(() => /valid state/.test(document.getElementById('probe').shadowRoot.querySelector('.error').textContent));
    // A broken link fragment.
    await host.evaluate(() => document.getElementById('probe').setAttribute('state', 'v=1&mode=qkv&d=AAAA'));
    await host.waitForFunction(() => /valid state/.test(document.getElementById('probe').shadowRoot.querySelector('.error').textContent));
    await host.screenshot({ path: screenshotPath('embed-element-error'), clip: { x: 0, y: 0, width: 1000, height: 200 } });
    // A good fragment: the error goes, the frame shows that state and sizes itself.
    await host.evaluate((fragment) => document.getElementById('probe').setAttribute('state', fragment), baseLink);
    await host.waitForFunction(() => !document.getElementById('probe').shadowRoot.querySelector('.error').checkVisibility());
    await fitted('#probe >>> iframe', 'element with a link');
    seen = await read();
    assert.equal(seen.frame, true);
    const state = await host.evaluate(() =>
      document.getElementById('probe').shadowRoot.querySelector('iframe').contentWindow.attentionPlayground.getState(),
    );
    assert.ok(statesEqual(state, decodeLink(baseLink)));
    // hide and readonly follow the attributes (attributeChangedCallback).
    await host.evaluate(() => {
      const el = document.getElementById('probe');
      el.setAttribute('hide', 'tau, inputs');
      el.setAttribute('readonly', '');
    });
    await host.waitForFunction(() => {
      const d = document.getElementById('probe').shadowRoot.querySelector('iframe').contentDocument;
      return ['ap-hide-tau', 'ap-hide-inputs', 'ap-readonly'].every((c) => d.documentElement.classList.contains(c));
    });
    seen = await read();
    assert.match(seen.src, /tau_hide=1&inputs_hide=1/);
    // An unknown name in hide is reported, the rest still applies.
    await host.evaluate(() => document.getElementById('probe').setAttribute('hide', 'tau,temperature'));
    await host.waitForFunction(() => /temperature/.test(document.getElementById('probe').shadowRoot.querySelector('.error').textContent));
    assert.equal((await read()).frame, true);
    await host.evaluate(() => document.getElementById('probe').remove());
  });
});

function near(actual, expected, tol, what) {
  assert.ok(Math.abs(actual - expected) <= tol, `${what}: expected ${expected} ± ${tol}, got ${actual}`);
}
