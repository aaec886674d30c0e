// The words of the page's errors: what the reader typed is quoted as typed, the sentence is in the
// page's language, and a language change re-words what is on screen (the slots by the controls
// and the banner under the header).
//
//   node --test tests/browser/error_words.test.js   (after the WASM build is in web/wasm)

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { closeQuietly, getState, openImportTab, openPage, startSession, typeInto, waitReady, watch } from './harness.js';
import { cjkText, englishWords } from './lang_check.js';
import { stripPageOptions } from '../../web/page/page-options.js';

let session;
let page;
before(async () => {
  session = await startSession();
  ({ page } = await openPage(session, '#lang=zh-CN', { label: '[errors] ' }));
});
after(() => closeQuietly(session));

async function chooseLang(lang) {
  await page.selectOption('#lang', lang);
  await page.waitForFunction((want) => document.documentElement.lang === want, lang);
}

/** Types `text` into the tau box key by key, as a person does, and presses Enter. */
async function typeTau(text) {
  await page.click('#tau', { clickCount: 3 });
  await page.keyboard.press('Control+A');
  if (text) await page.keyboard.type(text);
  else await page.keyboard.press('Backspace');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#tau-error:not([hidden])');
  return (await page.textContent('#tau-error')).trim();
}

/** Types a good value into the tau box and waits until the state takes it. */
async function acceptTau(value) {
  await page.click('#tau', { clickCount: 3 });
  await page.keyboard.press('Control+A');
  await page.keyboard.type(String(value));
  await page.keyboard.press('Enter');
  await page.waitForFunction((v) => window.attentionPlayground.getState().tau === v, value);
}

test('tau box: "NaN" typed is quoted as NaN (not ""), an empty box is called empty, tau is kept', async () => {
  const tau = (await getState(page)).tau;
  await chooseLang('zh-CN');
  assert.equal(await typeTau('NaN'), `“NaN”不是数字。保留 τ = ${tau}。`);
  assert.equal(await page.inputValue('#tau'), 'NaN', 'the box keeps what was typed');
  // A language change re-words the message, still quoting what was typed.
  await chooseLang('en');
  assert.equal((await page.textContent('#tau-error')).trim(), `"NaN" is not a number. Keeping τ = ${tau}.`);
  assert.equal(await typeTau('abc'), `"abc" is not a number. Keeping τ = ${tau}.`);
  assert.equal(await typeTau(''), `The box is empty: type a number. Keeping τ = ${tau}.`);
  await chooseLang('zh-CN');
  assert.equal((await page.textContent('#tau-error')).trim(), `输入框为空：请输入一个数。保留 τ = ${tau}。`);
  assert.equal((await getState(page)).tau, tau, 'tau unchanged');
  // A good value clears the error and is taken.
  await acceptTau(2);
  assert.equal(await page.isHidden('#tau-error'), true);
});

test('tau box: beyond the schema\'s 1000 it says τ as its other messages, and 1e400 is too large, not "not a number"', async () => {
  const tau = (await getState(page)).tau;
  await chooseLang('zh-CN');
  assert.equal(await typeTau('2000'), `τ 不能超过 1000。保留 τ = ${tau}。`);
  assert.equal(await typeTau('1e400'), `“1e400”太大。保留 τ = ${tau}。`);
  await chooseLang('en');
  assert.equal((await page.textContent('#tau-error')).trim(), `"1e400" is too large. Keeping τ = ${tau}.`);
  assert.equal(await typeTau('2000'), `τ must be at most 1000. Keeping τ = ${tau}.`);
  assert.equal(await typeTau('0x10'), `"0x10" is not a number. Keeping τ = ${tau}.`);
  assert.equal((await getState(page)).tau, tau, 'tau unchanged');
  await acceptTau(1000);
  assert.equal(await page.isHidden('#tau-error'), true, 'the limit itself is taken');
});

test('window, stride, sinks and top-k boxes: letters typed are quoted as typed, in both languages', async () => {
  const s = await getState(page);
  const boxes = [
    ['window', 'mask-error', `w = ${s.mask.window}`],
    ['stride', 'mask-error', `s = ${s.mask.stride ?? 0}`],
    ['sinks', 'mask-error', null],
    ['topk', 'row-error', `k = ${s.topK}`],
  ];
  for (const [id, slot, kept] of boxes) {
    await chooseLang('zh-CN');
    await page.click(`#${id}`, { clickCount: 3 });
    await page.keyboard.press('Control+A');
    await page.keyboard.type('abc');
    await page.keyboard.press('Enter');
    await page.waitForSelector(`#${slot}:not([hidden])`);
    const zh = (await page.textContent(`#${slot}`)).trim();
    assert.equal(zh, `“abc”不是数字。保留 ${kept ?? `${s.mask.sinks ?? 0} 个注意力汇键`}。`, id);
    assert.equal(await page.inputValue(`#${id}`), 'abc', `${id}: the box keeps what was typed`);
    await chooseLang('en');
    assert.equal(
      (await page.textContent(`#${slot}`)).trim(),
      `"abc" is not a number. Keeping ${kept ?? `${s.mask.sinks ?? 0} sink keys`}.`,
      id,
    );
    // The arrow keys still step a whole number, and a good value clears the error.
    await page.click(`#${id}`, { clickCount: 3 });
    await page.keyboard.press('Control+A');
    await page.keyboard.type('2');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('Enter');
    await page.waitForFunction(
      ([box, field]) => {
        const st = window.attentionPlayground.getState();
        return (field === 'topk' ? st.topK : st.mask[box]) === 3;
      },
      [id, id],
    );
    assert.equal(await page.isHidden(`#${slot}`), true, `${id}: error cleared`);
  }
  await page.evaluate((st) => window.attentionPlayground.setState(st), s);
  assert.deepEqual(await getState(page), s);
});

/** Opens `fragment` in a fresh page (its own context) and returns it once the page is ready. */
async function fresh(fragment) {
  const context = await session.browser.newContext({ viewport: { width: 1200, height: 900 } });
  const p = await context.newPage();
  watch(p, session.events, '[errors fresh] ');
  await p.goto(`${session.url}${fragment}`);
  await waitReady(p);
  return { p, context };
}
const bannerText = async (p) => (await p.textContent('#banner span')).trim();
async function switchLang(p, lang) {
  await p.selectOption('#lang', lang);
  await p.waitForFunction((want) => document.documentElement.lang === want, lang);
}

test('a refused link: the banner follows a language change, also after an edit', async () => {
  const { p, context } = await fresh('#v=1&tau=abc&lang=zh-CN');
  await p.waitForSelector('#banner', { state: 'visible' });
  assert.match(await bannerText(p), /^无法读取此链接：.*"abc".*。改为显示默认状态。$/);
  assert.equal((await p.textContent('#banner button')).trim(), '关闭');
  await switchLang(p, 'en');
  assert.match(await bannerText(p), /^This link could not be read: .*"abc".*\. Showing the default state instead\.$/);
  assert.deepEqual(await cjkText(p, '#banner', { minTexts: 1 }), []);
  assert.equal((await p.textContent('#banner button')).trim(), 'Dismiss');
  await switchLang(p, 'zh-CN');
  assert.match(await bannerText(p), /^无法读取此链接：/);
  // An edit does not take the banner away, and it still follows the language afterwards.
  await typeInto(p, '#tau', '2');
  await p.waitForFunction(() => window.attentionPlayground.getState().tau === 2);
  await switchLang(p, 'en');
  assert.match(await bannerText(p), /^This link could not be read: /);
  await context.close();
});

test('a refused link in Chinese: the reason is worded in Chinese too, the key and the value as data', async () => {
  const base = await page.evaluate(() => window.attentionPlayground.shareUrl().split('#')[1]);
  const cases = [
    ['v=1&tau=abc', '无法读取此链接：链接中的 tau（温度 τ）必须是数字，实际为 "abc"。改为显示默认状态。'],
    [base.replace(/(^|&)tau=[^&]*/, '$1tau=0'), '无法读取此链接：tau（温度 τ）必须大于 0 且不超过 1000，实际为 0。改为显示默认状态。'],
    [
      base.replace(/(^|&)causal=[^&]*/, '$1causal=2'),
      '无法读取此链接：链接中的 causal（因果掩码）必须是 0 或 1，实际为 "2"。改为显示默认状态。',
    ],
    [
      base.replace(/(^|&)row=[^&]*/, '$1row=7'),
      '无法读取此链接：row（选中的查询行）必须是 0 到 0 之间的整数，实际为 7。改为显示默认状态。',
    ],
    ['v=1&tau=2&scale=auto', '无法读取此链接：链接缺少 mode=（输入模式）。改为显示默认状态。'],
    ['v=1&mode=zzz', '无法读取此链接：链接中的 mode（输入模式）必须是 qkv, logits, weights, x 之一，实际为 "zzz"。改为显示默认状态。'],
  ];
  for (const [fragment, want] of cases) {
    const { p, context } = await fresh(`#${fragment}&lang=zh-CN`);
    await p.waitForSelector('#banner', { state: 'visible' });
    assert.equal(await bannerText(p), want, fragment.slice(0, 60));
    assert.deepEqual(await englishWords(p, '#banner', { minTexts: 1 }), [], `${fragment.slice(0, 40)}: English outside data`);
    assert.ok((await p.$$eval('#banner [translate="no"]', (els) => els.length)) >= 1, 'the key and the value are data');
    await switchLang(p, 'en');
    assert.deepEqual(await cjkText(p, '#banner', { minTexts: 1 }), [], 'the English banner');
    await context.close();
  }
});

test("a class link cut short, in Chinese: the data block's reason worded in Chinese; cut inside its last option, the state is kept", async () => {
  // The state's keys only: the page writes its options (lang=en by now) first.
  const base = stripPageOptions(await page.evaluate(() => window.attentionPlayground.shareUrl().split('#')[1]));
  const d = /(?:^|&)d=([^&]*)/.exec(base)[1];
  const at = base.indexOf(`d=${d}`) + 2;
  // Cut inside d: a length no whole bytes give (4k + 1), and a length that gives whole bytes.
  const cut1 = d.length - ((d.length - 1) % 4) - 4;
  const cut4 = d.length - (d.length % 4) - 4;
  const cases = [
    [
      base.slice(0, at + cut1),
      `无法读取此链接：数据块 d 不是有效的 base64url：长度 ${cut1} 不可能由完整的字节得到（链接是否被截断了？）。改为显示默认状态。`,
    ],
    [
      base.slice(0, at + cut4),
      /^无法读取此链接：数据块 d 已损坏(：其压缩数据无法解压（链接是否被截断了？）|：校验和不符（链接是否被改动或截断了？）|或被截断：.*)。改为显示默认状态。$/,
    ],
  ];
  for (const [fragment, want] of cases) {
    const { p, context } = await fresh(`#lang=zh-CN&${fragment}`);
    await p.waitForSelector('#banner', { state: 'visible' });
    if (typeof want === 'string') assert.equal(await bannerText(p), want);
    else assert.match(await bannerText(p), want);
    assert.deepEqual(await englishWords(p, '#banner', { minTexts: 1 }), [], `${fragment.slice(-20)}: English outside data`);
    await context.close();
  }
  // Cut inside the last page option: the state and the options before the cut apply, a warning says so.
  const { p, context } = await fresh(`#${base}&lang=zh-CN&readonly=1&preset_hi`);
  await p.waitForSelector('#banner', { state: 'visible' });
  assert.equal(
    await bannerText(p),
    '链接以“preset_hi”结尾，这是某个页面选项的开头：链接似乎被截断了。链接中的状态已应用；截断处之后的选项缺失（请索取完整的链接）。',
  );
  assert.equal(await p.evaluate(() => document.documentElement.lang), 'zh-CN');
  assert.ok(await p.evaluate(() => document.documentElement.classList.contains('ap-readonly')), 'read-only kept');
  const back = await p.evaluate(() => window.attentionPlayground.shareUrl().split('#')[1]);
  assert.equal(stripPageOptions(back), stripPageOptions(base), "the state is the link's");
  await context.close();
});

test('a class link writes its page options first: cut inside its data, it still opens in Chinese, read-only, controls hidden', async () => {
  const { p: maker, context: c1 } = await fresh('#lang=zh-CN&readonly=1&tau_hide=1');
  const link = await maker.evaluate(() => window.attentionPlayground.shareUrl());
  await c1.close();
  const fragment = link.split('#')[1];
  assert.match(fragment, /^lang=zh-CN&readonly=1&tau_hide=1&v=1&/, fragment);
  assert.ok(fragment.lastIndexOf('&d=') > fragment.indexOf('tau_hide'), 'the data block last');
  // A chat app's length limit: the link cut 40 characters into its data block.
  const cut = fragment.slice(0, fragment.indexOf('&d=') + 3 + 40);
  const { p, context } = await fresh(`#${cut}`);
  await p.waitForSelector('#banner', { state: 'visible' });
  assert.match(await bannerText(p), /^无法读取此链接：数据块 d 已损坏.*截断.*。改为显示默认状态。$/);
  assert.doesNotMatch(await bannerText(p), /？。/, 'one mark ends the question');
  assert.deepEqual(await englishWords(p, '#banner', { minTexts: 1 }), []);
  assert.equal(await p.evaluate(() => document.documentElement.lang), 'zh-CN');
  assert.ok(await p.evaluate(() => document.documentElement.classList.contains('ap-readonly')), 'read-only kept');
  assert.equal(await p.isVisible('#tau'), false, 'the hidden control stays hidden');
  await context.close();
});

test('a lab parameter refused by its box in Chinese: worded in Chinese, the typed text and the range as data', async () => {
  const { p, context } = await fresh('#lang=zh-CN');
  await p.click('#lab-tab-spectral');
  await p.waitForFunction(() => document.getElementById('lab-view').dataset.drawn === 'spectral');
  await typeInto(p, '#lab-param-epsilon', '2');
  await p.waitForSelector('#lab-error:not([hidden])');
  assert.equal((await p.textContent('#lab-error')).trim(), '阈值秩 ε必须在 (0, 1) 之内，2 超出了这个范围。保留 阈值秩 ε = 0.01。');
  assert.deepEqual(await englishWords(p, '#lab-error', { minTexts: 1 }), []);
  await switchLang(p, 'en');
  await typeInto(p, '#lab-param-epsilon', '3');
  await p.waitForFunction(() => document.getElementById('lab-error').textContent.includes('3 is outside'));
  assert.equal(
    (await p.textContent('#lab-error')).trim(),
    'threshold rank ε must be in (0, 1); 3 is outside it. Keeping threshold rank ε = 0.01.',
  );
  await context.close();
});

test('a lab parameter refused by the core in Chinese: worded in Chinese, the parameter and the value as data', async () => {
  // compareTau's box has no upper limit of its own: the core's (1000) refuses 2000.
  const { p, context } = await fresh('#lang=zh-CN');
  await p.click('#lab-tab-sink');
  await p.waitForFunction(() => document.getElementById('lab-view').dataset.drawn === 'sink');
  await typeInto(p, '#lab-param-compareTau', '2000');
  await p.waitForSelector('#lab-error:not([hidden])');
  assert.equal(
    (await p.textContent('#lab-error')).trim(),
    '输入未被接受：lab.params.compareTau（分析视图的参数）必须在 0.0 到 1000.0 之间，实际为 2000。下面的数字对应上一次被接受的参数。',
  );
  assert.deepEqual(await englishWords(p, '#lab-error', { minTexts: 1 }), []);
  await switchLang(p, 'en');
  await typeInto(p, '#lab-param-compareTau', '3000');
  await p.waitForFunction(() => document.getElementById('lab-error').textContent.includes('(got 3000)'));
  assert.match(
    (await p.textContent('#lab-error')).trim(),
    /must be between 0\.0 and 1000\.0 \(got 3000\)\. The numbers below are for the last accepted values\.$/,
  );
  await context.close();
});

test('a matrix entry beyond float32 in Chinese: worded in Chinese by the editor, the cell and the value as data', async () => {
  const { p, context } = await fresh('#lang=zh-CN');
  await p.selectOption('#preset', 'selfattention');
  await p.waitForFunction(() => window.attentionPlayground.getState().view.preset === 'selfattention');
  await typeInto(p, '#edit-Q-r0-c0', '1e39');
  await p.waitForSelector('#edit-Q-error:not([hidden])');
  const text = (await p.textContent('#edit-Q-error')).trim();
  assert.match(
    text,
    /heads\[0\]\.Q\[0\]\[0\]（头 0 的 Q 第 0 行第 0 列）= 1e\+39 超出了计算核心使用的单精度浮点范围（绝对值 ≤ 3\.4e38）/,
    text,
  );
  assert.deepEqual(await englishWords(p, '#edit-Q-error', { minTexts: 1 }), []);
  await context.close();
});

/** A little-endian float32 .npy of `shape`, all zeros. */
function npy(shape, count = shape.reduce((a, b) => a * b, 1)) {
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': (${shape.join(', ')}${shape.length === 1 ? ',' : ''}), }`;
  header += `${' '.repeat((64 - ((11 + header.length) % 64)) % 64)}\n`;
  const magic = Buffer.alloc(10);
  magic.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]);
  magic.writeUInt16LE(header.length, 8);
  return Buffer.concat([magic, Buffer.from(header, 'latin1'), Buffer.alloc(count * 4)]);
}

test('rarer refusals in Chinese: a state file of the wrong shapes, an attention file the import cannot read', async () => {
  const { p, context } = await fresh('#lang=zh-CN');
  const base = await getState(p);
  const stateFile = (edit) => {
    const s = structuredClone(base);
    edit(s.heads[0], s);
    return Buffer.from(JSON.stringify(s));
  };
  await openImportTab(p);
  const cases = [
    [
      'q-d.state.json',
      stateFile((hd) => {
        hd.Q = hd.Q.map((r) => [...r, 1]);
      }),
      'q-d.state.json 是实验场的状态文件，但内容无效：heads[0].K（头 0 的 K）有 2 列，但 heads[0].Q（头 0 的 Q）有 3 列；Q 和 K 的列数 d_k 必须相同',
    ],
    [
      'v-rows.state.json',
      stateFile((hd) => {
        hd.V = hd.V.slice(1);
      }),
      'v-rows.state.json 是实验场的状态文件，但内容无效：heads[0].V（头 0 的 V）有 1 行，但 n_k = 2（heads[0].K 的行数）要求 2 行',
    ],
    [
      'ragged.state.json',
      stateFile((hd) => {
        hd.K[1] = [1];
      }),
      /^ragged\.state\.json 是实验场的状态文件，但内容无效：heads\[0\]\.K\[1\]（头 0 的 K 第 1 项）有 1 个值，但 heads\[0\]\.K\[0\]（头 0 的 K 第 0 项）有 2 个；/,
    ],
    [
      'labels.state.json',
      stateFile((hd, s) => {
        s.tokens.keys.push('k3');
      }),
      /^labels\.state\.json 是实验场的状态文件，但内容无效：tokens\.keys 有 3 个标签，但有 n_k = 2 个键（来自 heads\[0\]\.K）/,
    ],
    [
      'one-axis.npy',
      npy([5]),
      '无法读取 one-axis.npy：形状 [5] 有 1 个轴：注意力张量的形状应为 [n_q, n_k]、[heads, n_q, n_k]、[layers, heads, n_q, n_k] 或 [1, layers, heads, n_q, n_k]',
    ],
    ['batch.npy', npy([2, 1, 1, 2, 2]), /^无法读取 batch\.npy：形状 \[2, 1, 1, 2, 2\]：请只保留一个样本，批次轴有 2 项/],
    // Over the size limits: more tokens on an axis, more heads than the import reads.
    ['long.npy', npy([1, 131073]), /^无法读取 long\.npy：形状 \[1, 131073\] 的一个轴上有 131073 个词元；上限为 131072 个/],
    ['heads.npy', npy([4097, 1, 1]), /^无法读取 heads\.npy：形状 \[4097, 1, 1\] 包含超过 4096 个注意力头；上限为 4096 个/],
    ['other.json', Buffer.from('{"foo": 1}'), /^无法读取 other\.json：不是注意力文件：其中的键为 "foo"；应为 /],
    ['broken.json', Buffer.from('{"attention": '), '无法读取 broken.json：不是注意力文件：文本不是有效的 JSON（位于第 15 字节）'],
    ['rows.json', Buffer.from('{"attention": [[1, 0], [1]]}'), '无法读取 rows.json：attention[1] 有 1 项，应为 2 项'],
  ];
  for (const [name, buffer, want] of cases) {
    await p.setInputFiles('#import-file', { name, mimeType: 'application/octet-stream', buffer });
    await p.waitForFunction((n) => document.getElementById('import-errors').textContent.includes(n), name);
    const text = (await p.textContent('#import-errors')).trim();
    if (typeof want === 'string') assert.equal(text, want, name);
    else assert.match(text, want, name);
    assert.deepEqual(await englishWords(p, '#import-errors', { minTexts: 1 }), [], `${name}: English outside data`);
  }
  // The same refusal in English is the core's message (the CLI's words).
  await switchLang(p, 'en');
  assert.match((await p.textContent('#import-errors')).trim(), /^Could not read rows\.json: attention\[1\] has 1 entries, expected 2/);
  await context.close();
});

test("the sweep's temperatures: a list the core refuses is worded in Chinese", async () => {
  const { p, context } = await fresh('#lang=zh-CN');
  await p.click('#lab-tab-sweep');
  await p.waitForFunction(() => document.getElementById('lab-view').dataset.drawn === 'sweep');
  await typeInto(p, '#lab-param-taus', '1, 2000');
  await p.waitForSelector('#lab-error:not([hidden])');
  assert.equal(
    (await p.textContent('#lab-error')).trim(),
    '输入未被接受：lab.params.taus（分析视图的参数）中的每个温度都必须大于 0 且不超过 1000，实际为 [1,2000]。下面的数字对应上一次被接受的参数。',
  );
  assert.deepEqual(await englishWords(p, '#lab-error', { minTexts: 1 }), []);
  await context.close();
});

test('a lab parameter refused in a lab view stays on a language change, worded in the new language', async () => {
  const { p, context } = await fresh('#lang=zh-CN');
  await p.click('#lab-tab-sweep');
  await p.waitForFunction(() => document.getElementById('lab-view').dataset.drawn === 'sweep');
  const before = await getState(p);
  await typeInto(p, '#lab-param-taus', '1, abc');
  const error = async () => (await p.textContent('#lab-sweep-param-error')).trim();
  assert.equal(await error(), '请给出 1 到 4 个大于 0 的温度，例如 0.5, 1, 2');
  await switchLang(p, 'en');
  await p.waitForFunction(() => document.getElementById('lab-view').dataset.drawn === 'sweep');
  assert.equal(await error(), 'Give 1 to 4 temperatures > 0, e.g. 0.5, 1, 2');
  assert.equal(await p.inputValue('#lab-param-taus'), '1, abc', 'the box keeps what was typed');
  await switchLang(p, 'zh-CN');
  await p.waitForFunction(() => document.getElementById('lab-view').dataset.drawn === 'sweep');
  assert.equal(await error(), '请给出 1 到 4 个大于 0 的温度，例如 0.5, 1, 2');
  assert.deepEqual((await getState(p)).lab, before.lab, 'the refused list was not taken');
  // A new state (here a good list) forgets the refusal.
  await typeInto(p, '#lab-param-taus', '1, 3');
  await p.waitForFunction(() => JSON.stringify(window.attentionPlayground.getState().lab.params.taus) === '[1,3]');
  await p.waitForFunction(() => document.getElementById('lab-view').dataset.drawn === 'sweep');
  assert.equal(await error(), '');
  await switchLang(p, 'en');
  await p.waitForFunction(() => document.getElementById('lab-view').dataset.drawn === 'sweep');
  assert.equal(await error(), '');
  assert.equal(await p.inputValue('#lab-param-taus'), '1, 3');
  await context.close();
});

test('a layer from X in Chinese: an output width the residual cannot add is worded in Chinese by the editors', async () => {
  const { p, context } = await fresh('#lang=zh-CN');
  await p.click('input[name="mode"][value="x"]');
  await p.waitForFunction(() => window.attentionPlayground.getState().mode === 'x');
  if (!(await getState(p)).x.residual) await p.check('#x-residual');
  await p.waitForFunction(() => window.attentionPlayground.getState().x.residual && window.attentionPlayground.getState().x.WO);
  const before = await getState(p);
  const d = before.x.X[0].length;
  // One more output column of W_O: the output is wider than X, so X + output is refused.
  await p.click('#editor-WO .buttons button:text-is("+ 列")');
  await p.waitForSelector('#x-error:not([hidden])');
  assert.equal(
    (await p.textContent('#x-error')).trim(),
    `输入未被接受：残差连接 X + 输出要求输出宽度（${d + 1}，x.WO 的列数）等于 d_model = ${d}（x.X 的列数）`,
  );
  assert.deepEqual(await englishWords(p, '#x-error', { minTexts: 1 }), []);
  assert.deepEqual(await getState(p), before, 'the state is kept');
  await context.close();
});
