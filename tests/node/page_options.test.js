// Page options of the link (web/page/page-options.js): reading and writing them beside the state, the
// hide flags' names, groups, elements and strings, and the share dialog's iframe snippet
// (web/page/share-dialog.js), whose resize listener is run here against fake frames.
//
//   node --test tests/node/page_options.test.js

import { test } from 'node:test';
import assert from 'node:assert/strict';
import vm from 'node:vm';
import { readFileSync } from 'node:fs';
import {
  TEACHER_TOOLS,
  READ_ONLY_LOCKS,
  CONTROL_FLAGS,
  HIDEABLE,
  HIDE_GROUPS,
  HIDE_TARGETS,
  defaultOptions,
  formatPageOptions,
  hideCss,
  MAX_ORIGINS,
  isOrigin,
  isPageOptionKey,
  isPlaygroundMessage,
  readHeightMessage,
  readPageOptions,
  readSetStateMessage,
  stripPageOptions,
} from '../../web/page/page-options.js';
import { decodeLink, encodeLink, statesEqual } from './schema.js';
import { LESSON_PRESETS } from '../../web/presets/presets.js';
import embedTable from '../../web/i18n/embedding.js';
import { SNIPPET_SCRIPT, elementSnippet, iframeSnippet } from '../../web/page/snippets.js';

test('options round-trip through the link, after the state, and decodeLink ignores them', () => {
  const state = LESSON_PRESETS.example2.make();
  const options = {
    lang: 'zh-CN',
    embed: true,
    readonly: true,
    teacher: true,
    palette: 'cividis',
    hide: ['tau', 'mask', 'lab'],
    frame: 'week-3_a',
    origin: [],
  };
  const fragment = encodeLink(state) + formatPageOptions(options);
  assert.match(fragment, /&lang=zh-CN&embed=1&readonly=1&teacher=1&palette=cividis&frame=week-3_a&tau_hide=1&mask_hide=1&lab_hide=1$/);
  const { options: read, errors } = readPageOptions(`#${fragment}`);
  assert.deepEqual(errors, []);
  assert.deepEqual(read, options);
  assert.ok(statesEqual(decodeLink(fragment), state), 'the state is unchanged by the options');
  assert.equal(stripPageOptions(`#${fragment}`), encodeLink(state));
});

test('every hide flag round-trips alone, in the dialog order', () => {
  for (const name of HIDEABLE) {
    const { options, errors } = readPageOptions(`v=1${formatPageOptions({ ...defaultOptions(), hide: [name] })}`);
    assert.deepEqual(errors, [], name);
    assert.deepEqual(options.hide, [name]);
  }
  const all = readPageOptions(
    HIDEABLE.slice()
      .reverse()
      .map((n) => `${n}_hide=1`)
      .join('&'),
  ).options.hide;
  assert.deepEqual(all, HIDEABLE, 'read back in the order of HIDEABLE');
  assert.equal(readPageOptions('tau_hide=0').options.hide.length, 0, '0 shows the control');
});

test('refused values are reported and keep their defaults', () => {
  const { options, errors } = readPageOptions('lang=fr&embed=yes&frame=a b&frame2=x&temperature_hide=1&tau_hide=2&palette=jet');
  assert.deepEqual(
    errors.map((e) => e.key),
    ['lang', 'embed', 'frame', 'temperature_hide', 'tau_hide', 'palette'],
  );
  assert.deepEqual(options, defaultOptions());
  assert.equal(readPageOptions(`frame=${'x'.repeat(65)}`).errors.length, 1, 'a frame name is at most 64 characters');
  assert.equal(isPageOptionKey('frame'), true);
  assert.equal(isPageOptionKey('frame2'), false, 'not an option: left to the state reader');
  assert.equal(formatPageOptions({ ...defaultOptions(), frame: 'bad name' }), '', 'an invalid frame name is not written');
});

test('stripPageOptions keeps the state keys in order', () => {
  assert.equal(stripPageOptions('#v=1&mode=qkv&lang=en&tau=2&tau_hide=1&embed=1&d=AB'), 'v=1&mode=qkv&tau=2&d=AB');
  assert.equal(stripPageOptions('lang=zh-CN&embed=1'), '');
});

test('hide flags: groups partition the names; each has elements, a CSS rule and strings in both languages', () => {
  const grouped = Object.values(HIDE_GROUPS).flat();
  assert.deepEqual(grouped.slice().sort(), HIDEABLE.slice().sort());
  assert.equal(new Set(grouped).size, grouped.length, 'each name in one group');
  assert.deepEqual(Object.keys(HIDE_TARGETS).sort(), HIDEABLE.slice().sort());
  const css = hideCss();
  for (const name of HIDEABLE) {
    assert.ok(HIDE_TARGETS[name].length > 0, `${name} hides something`);
    assert.match(css, new RegExp(`html\\.ap-hide-${name} :is\\(.*\\) \\{ display: none !important; \\}`), name);
    for (const lang of ['en', 'zh-CN']) assert.equal(typeof embedTable[lang][`embed.hide.${name}`], 'string', `${lang} embed.hide.${name}`);
  }
  for (const name of CONTROL_FLAGS) assert.ok(HIDE_GROUPS.controls.includes(name));
  for (const group of Object.keys(HIDE_GROUPS)) {
    for (const lang of ['en', 'zh-CN']) assert.equal(typeof embedTable[lang][`embed.group.${group}`], 'string');
  }
  assert.deepEqual(Object.keys(embedTable.en).sort(), Object.keys(embedTable['zh-CN']).sort(), 'the same keys in both languages');
  assert.ok(Object.keys(embedTable.en).every((k) => k.startsWith('embed.')));
});

/** Runs the snippet's script in a fake page with two iframes; returns a function to post messages. */
function runSnippet(html) {
  const script = html.match(/<script>([\s\S]*)<\/script>/)[1];
  const frames = [
    { src: 'https://playground.example/index.html#v=1', contentWindow: { name: 'ours' }, style: {} },
    { src: 'https://other.example/page.html', contentWindow: { name: 'other' }, style: {} },
  ];
  const listeners = [];
  const warnings = [];
  const window = {
    addEventListener: (type, fn) => {
      if (type === 'message') listeners.push(fn);
    },
  };
  const context = {
    window,
    URL,
    console: { warn: (...args) => warnings.push(args.map(String).join(' ')) },
    location: { href: 'https://course.example/week3.html' },
    document: { querySelectorAll: (sel) => (sel === 'iframe[data-attention-playground]' ? frames : []) },
  };
  vm.runInNewContext(script, context);
  vm.runInNewContext(script, context); // pasted twice: one listener
  assert.equal(listeners.length, 1, 'the listener is installed once');
  return { frames, warnings, post: (event) => listeners.forEach((fn) => fn(event)) };
}

test('the iframe snippet: attributes, escaping, and a listener that trusts only its own frame', () => {
  const url = 'https://playground.example/index.html#v=1&mode=qkv&embed=1&note="x"';
  const html = iframeSnippet(url, { title: 'Attention "demo"', height: 640 });
  assert.match(html, /^<iframe src="https:\/\/playground\.example\/index\.html#v=1&amp;mode=qkv&amp;embed=1&amp;note=&quot;x&quot;"/);
  assert.match(html, /title="Attention &quot;demo&quot;" width="100%" height="640"/);
  assert.match(html, /loading="lazy"/);
  const { frames, warnings, post } = runSnippet(html);
  const ours = frames[0].contentWindow;
  const msg = (height, extra = {}) => ({ type: 'attention-playground:height', height, id: '', ...extra });
  post({ source: ours, origin: 'https://playground.example', data: msg(1234.2) });
  assert.equal(frames[0].style.height, '1235px');
  assert.equal(frames[1].style.height, undefined, 'the other frame is untouched');
  post({ source: { name: 'stranger' }, origin: 'https://playground.example', data: msg(50) });
  post({ source: ours, origin: 'https://evil.example', data: msg(60) });
  post({ source: ours, origin: 'https://playground.example', data: { type: 'something-else', height: 70 } });
  post({ source: ours, origin: 'https://playground.example', data: msg('80') });
  post({ source: ours, origin: 'https://playground.example', data: msg(-5) });
  post({ source: ours, origin: 'https://playground.example', data: msg(1e9) });
  post({ source: ours, origin: 'https://playground.example', data: null });
  post({ source: ours, origin: 'https://playground.example', data: msg(NaN) });
  post({ source: ours, origin: 'https://playground.example', data: msg(Infinity) });
  post({ source: ours, origin: 'https://playground.example', data: msg(90, { id: 7 }) });
  post({ source: ours, origin: 'https://playground.example', data: msg(90, { id: 'x'.repeat(101) }) });
  post({ source: ours, origin: 'https://playground.example', data: [msg(90)] });
  assert.equal(frames[0].style.height, '1235px', 'messages of another source, origin or shape are ignored');
  // Each message from its own frame that fails a check leaves a warning; other windows' messages
  // (another embed's, say) are none of its business.
  assert.equal(warnings.length, 11, warnings.join('\n'));
  post({ source: { name: 'stranger' }, origin: 'https://video.example', data: { event: 'ready' } });
  post({ source: ours, origin: 'https://playground.example', data: { type: 'attention-playground:stateResult', id: 'a', ok: true } });
  assert.equal(warnings.length, 11, 'no warning for messages that are not its own');
});

test("web/embed-frames.js is the snippet's script as a file", () => {
  const file = readFileSync(new URL('../../web/embed-frames.js', import.meta.url), 'utf8');
  assert.ok(file.includes(SNIPPET_SCRIPT), 'web/embed-frames.js holds SNIPPET_SCRIPT unchanged');
  assert.ok(iframeSnippet('https://p.example/', { title: 't' }).includes(SNIPPET_SCRIPT));
});

test('origin= options: web origins only, several, written back, never a path or "null"', () => {
  const { options, errors } = readPageOptions(
    `v=1&origin=${encodeURIComponent('https://course.example')}&origin=http%3A%2F%2Flocalhost%3A8080&origin=https%3A%2F%2Fcourse.example`,
  );
  assert.deepEqual(errors, []);
  assert.deepEqual(options.origin, ['https://course.example', 'http://localhost:8080'], 'repeated origins count once');
  assert.equal(
    formatPageOptions({ ...defaultOptions(), origin: options.origin }),
    '&origin=https%3A%2F%2Fcourse.example&origin=http%3A%2F%2Flocalhost%3A8080',
  );
  for (const bad of [
    'null',
    '*',
    'https://course.example/',
    'https://course.example/week3',
    'javascript:alert(1)',
    'file:///x',
    'course.example',
    'https://a@b.example',
    `https://${'a'.repeat(300)}.example`,
  ]) {
    assert.equal(isOrigin(bad), false, bad);
    const read = readPageOptions(`origin=${encodeURIComponent(bad)}`);
    assert.deepEqual(read.options.origin, [], bad);
    assert.equal(read.errors.length, 1, bad);
  }
  const many = Array.from({ length: MAX_ORIGINS + 2 }, (_, i) => `origin=${encodeURIComponent(`https://s${i}.example`)}`).join('&');
  assert.equal(readPageOptions(many).options.origin.length, MAX_ORIGINS);
  assert.equal(isPageOptionKey('origin'), true);
  assert.equal(stripPageOptions('v=1&origin=https%3A%2F%2Fa.example&d=AB'), 'v=1&d=AB');
});

test('message shapes: height and setState messages are checked strictly', () => {
  const h = (extra) => ({ type: 'attention-playground:height', height: 500, id: 'f1', ...extra });
  assert.deepEqual(readHeightMessage(h()), { height: 500, id: 'f1' });
  for (const bad of [
    null,
    'x',
    [],
    h({ type: 'other' }),
    h({ height: '500' }),
    h({ height: 0 }),
    h({ height: 1e5 }),
    h({ height: NaN }),
    h({ height: -Infinity }),
    h({ id: undefined }),
    h({ id: 3 }),
    h({ id: 'x'.repeat(101) }),
    Object.assign(Object.create({ polluted: 1 }), h()),
  ]) {
    assert.equal(readHeightMessage(bad), null, JSON.stringify(bad));
  }
  const st = (extra) => ({ type: 'attention-playground:setState', state: { version: 1 }, ...extra });
  assert.deepEqual(readSetStateMessage(st()), { state: { version: 1 }, id: '' });
  assert.deepEqual(readSetStateMessage(st({ id: 'r1' })), { state: { version: 1 }, id: 'r1' });
  for (const bad of [
    null,
    st({ state: null }),
    st({ state: [] }),
    st({ state: 'v=1' }),
    st({ id: 5 }),
    st({ id: 'x'.repeat(101) }),
    st({ type: 'attention-playground:setstate' }),
  ]) {
    assert.equal(readSetStateMessage(bad), null, JSON.stringify(bad));
  }
  assert.equal(isPlaygroundMessage({ type: 'attention-playground:anything' }), true);
  assert.equal(isPlaygroundMessage({ type: 'other' }), false);
  assert.equal(isPlaygroundMessage('attention-playground:height'), false);
});

test('the element snippet carries the bare state and the options as attributes', () => {
  const html = elementSnippet('https://p.example/embed.js', 'v=1&mode=qkv&lang=en&embed=1&tau_hide=1&d=AB', {
    lang: 'zh-CN',
    embed: true,
    readonly: true,
    hide: ['tau', 'mask'],
  });
  assert.equal(
    html,
    '<script type="module" src="https://p.example/embed.js"></script>\n' +
      '<attention-playground state="v=1&amp;mode=qkv&amp;d=AB" lang="zh-CN" hide="tau,mask" readonly embed></attention-playground>',
  );
  // With a fallback: a link to the page inside the element, for a course page where embed.js
  // cannot load (the element then stays an unknown element, and shows its content).
  const withLink = elementSnippet(
    'https://p.example/embed.js',
    'v=1&d=AB',
    { lang: null, hide: [] },
    {
      href: 'https://p.example/#v=1&d=AB&embed=1',
      text: 'Open <the> "playground" & more',
    },
  );
  assert.match(
    withLink,
    /<attention-playground state="v=1&amp;d=AB"><a href="https:\/\/p\.example\/#v=1&amp;d=AB&amp;embed=1">Open &lt;the&gt; &quot;playground&quot; &amp; more<\/a><\/attention-playground>$/,
  );
});

test('a page option appended to a copied link that already has it: the last one wins, the state is read', () => {
  const link = `${encodeLink(LESSON_PRESETS.example2.make())}&lang=en`; // what Copy link gives
  const edited = `${link}&lang=zh-CN`; // a teacher adds the language by hand
  assert.ok(statesEqual(decodeLink(edited), LESSON_PRESETS.example2.make()));
  assert.equal(readPageOptions(edited).options.lang, 'zh-CN');
  // State keys given twice are still refused.
  assert.throws(() => decodeLink(`${link}&tau=2`), /gives "tau" twice/);
});

test('embed mode is the student view: the teacher tools are hidden unless teacher=1', () => {
  assert.equal(defaultOptions().teacher, false);
  assert.equal(readPageOptions('embed=1').options.teacher, false);
  assert.equal(readPageOptions('embed=1&teacher=1').options.teacher, true);
  assert.deepEqual(readPageOptions('teacher=yes').errors, [{ key: 'teacher', value: 'yes' }]);
  const css = hideCss();
  for (const sel of ['#share-class', '#save-state']) assert.ok(TEACHER_TOOLS.includes(sel), sel);
  assert.match(css, /html\.ap-embed:not\(\.ap-teacher\) :is\(#share-class, #save-state/);
  // The share dialog's read-only note: each locked and kept item has its words in both languages.
  for (const lang of ['en', 'zh-CN']) {
    for (const k of READ_ONLY_LOCKS.locks) assert.ok(embedTable[lang][`embed.locks.${k}`], `${lang} embed.locks.${k}`);
    for (const k of READ_ONLY_LOCKS.keeps) assert.ok(embedTable[lang][`embed.keeps.${k}`], `${lang} embed.keeps.${k}`);
  }
  assert.ok(READ_ONLY_LOCKS.keeps.includes('lesson'), 'read-only keeps the lesson');
});

test('lang= takes any tag of either language, so a link cut inside its value still opens in Chinese', () => {
  assert.equal(readPageOptions('v=1&d=x&lang=zh-').options.lang, 'zh-CN');
  assert.equal(readPageOptions('lang=zh').options.lang, 'zh-CN');
  assert.equal(readPageOptions('lang=zh-TW').options.lang, 'zh-CN');
  assert.equal(readPageOptions('lang=en-GB').options.lang, 'en');
  for (const bad of ['fr', 'z', 'zhx', '']) {
    const { options, errors } = readPageOptions(`lang=${bad}`);
    assert.equal(options.lang, null, bad);
    assert.deepEqual(errors, [{ key: 'lang', value: bad }], bad);
  }
});
