// The "Bad-input table" (docs/security.md "Bad inputs"): the rows that enter through the page. Each bad
// link, API call, file, page option and message must show its message (the banner, the import's
// error box, the rejection) and lose nothing: the state, the results and the previous import stay.
// One Chromium session, one playground page and one host page for the embed element.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { getResults, getState, openPage, shareUrl, startSession, trySetState, watch } from './harness.js';
import { makeD, float64Bytes, DEFAULT_SCALARS } from '../node/helpers.js';
import { npy, npyHeader, uniformCausal } from '../node/npy.js';

const XSS = '"><img src=x onerror=alert(1)>';
const MiB = 1024 * 1024;
let session;
let page;

before(async () => {
  session = await startSession();
  ({ page } = await openPage(session, '', { label: '[bad inputs] ' }));
});
after(async () => {
  await session?.close();
  assert.deepEqual(session.events.pageErrors, [], 'uncaught page errors');
  assert.deepEqual(session.events.consoleErrors, [], 'console errors');
  assert.deepEqual(session.events.dialogs, [], 'dialogs (no input may open one)');
});

/** A link of worked example 1 whose d holds the given header and float64 numbers (then padding). */
function craftedLink(heads, numbers, { scalars = DEFAULT_SCALARS, headerText } = {}) {
  const header = { tokens: { queries: ['q'], keys: ['k1', 'k2'] }, source: 's', allow: false, heads };
  return `${scalars}&d=${makeD(header, Buffer.concat([float64Bytes(numbers), Uint8Array.of(0, 0)]), { headerText })}`;
}
const QKV = [{ name: 'h', Q: [1, 2, 8], K: [2, 2, 8], V: [2, 2, 8] }];
const qkvNumbers = ({ q = [1, 0], k = [1, 0, 0, 1], v = [2, 0, 0, 4] } = {}) => [...q, ...k, ...v];

/** Puts the current state's own link in the address bar (the page writes it there lazily). */
async function settleHash() {
  const good = (await shareUrl(page)).split('#')[1];
  await page.evaluate((f) => {
    if (location.hash.slice(1) !== f) location.hash = f;
  }, good);
  await page.waitForFunction((f) => location.hash.slice(1) === f, good);
  await page.waitForTimeout(100);
  await page.waitForFunction((f) => location.hash.slice(1) === f, good);
  return good;
}

/** What the page shows now: state, results, address bar. */
const snapshot = async () => ({
  state: await getState(page),
  results: await getResults(page),
  hash: await page.evaluate(() => location.hash.slice(1)),
});

/** Goes to `fragment` through hashchange; returns the banner's text once it shows. */
async function bannerFor(fragment) {
  await page.evaluate(() => {
    document.getElementById('banner').hidden = true;
  });
  await page.evaluate((f) => {
    location.hash = f;
  }, fragment);
  await page.waitForSelector('#banner', { state: 'visible', timeout: 5000 });
  return (await page.textContent('#banner')).trim();
}

describe('links (through hashchange: the current state is kept)', () => {
  test('each bad link shows its message in the banner and loses nothing', async () => {
    await settleHash();
    const before = await snapshot();
    assert.equal(before.state.view.preset, 'example1');
    const good = before.hash;
    const tau = (v) => good.replace(/(^|&)tau=1(?=&)/, `$1tau=${v}`);
    const cases = [
      ['tau=NaN', tau('NaN'), 'tau in the link must be a number (got "NaN")'],
      ['tau=1e999', tau('1e999'), 'tau must be a number > 0 and <= 1000 (got Infinity)'],
      ['tau=0', tau('0'), 'tau must be a number > 0 and <= 1000 (got 0)'],
      ['tau=-1', tau('-1'), 'tau must be a number > 0 and <= 1000 (got -1)'],
      ['Inf in Q', craftedLink(QKV, qkvNumbers({ q: [Infinity, 0] })), 'heads[0].Q[0][0] must be a finite number (got Infinity)'],
      ['NaN in K', craftedLink(QKV, qkvNumbers({ k: [1, NaN, 0, 1] })), 'heads[0].K[0][1] must be a finite number (got null)'],
      ['-Inf in V', craftedLink(QKV, qkvNumbers({ v: [2, 0, -Infinity, 4] })), 'heads[0].V[1][0] must be a finite number (got -Infinity)'],
      [
        'Inf in logits',
        craftedLink([{ name: 'h', logits: [1, 2, 8] }], [Infinity, 0], { scalars: DEFAULT_SCALARS.replace('mode=qkv', 'mode=logits') }),
        'heads[0].logits[0][0] must be a finite number or null (masked) (got Infinity)',
      ],
      [
        'NaN in weights',
        craftedLink([{ name: 'h', weights: [1, 2, 8] }], [0.5, NaN], { scalars: DEFAULT_SCALARS.replace('mode=qkv', 'mode=weights') }),
        'heads[0].weights[0][1] must be a finite number >= 0 (got null)',
      ],
      [
        '10^6 x 10^6 Q',
        craftedLink([{ ...QKV[0], Q: [1_000_000, 1_000_000, 8] }], qkvNumbers()),
        'd is corrupt: the row count of heads[0].Q must be an integer from 0 to 4096 (got 1000000)',
      ],
      [
        'negative shape',
        craftedLink([{ ...QKV[0], Q: [1, -2, 8] }], qkvNumbers()),
        'd is corrupt: the column count of heads[0].Q must be an integer from 0 to 4096 (got -2)',
      ],
      [
        '__proto__ in the header of d',
        craftedLink(null, qkvNumbers(), {
          headerText:
            '{"__proto__":{"polluted":1},"tokens":{"queries":["q"],"keys":["k1","k2"]},"source":"s","allow":false,"heads":[{"name":"h","Q":[1,2,8],"K":[2,2,8],"V":[2,2,8]}]}',
        }),
        'd is corrupt: its header has an unknown field "__proto__"',
      ],
      ['__proto__ key', `${good}&__proto__=1`, 'the link has an unknown key "__proto__"'],
      [
        '__proto__ in lesson',
        `${good}&lesson=${encodeURIComponent('{"__proto__":{"step":2},"step":1}')}`,
        'lesson has an unknown field "__proto__"',
      ],
      ['unknown version', good.replace(/(^|&)v=1(?=&)/, '$1v=2'), 'unknown link version "2": this page reads version 1 links'],
      ['duplicate key', `${good}&tau=2`, 'the link gives "tau" twice'],
      ['malformed part', `${good}&oops`, 'the link part "oops" is not of the form key=value'],
      ['broken escape', tau('%E0%A4%A'), 'the link has a broken %-escape in "%E0%A4%A"'],
      ['cut d', good.replace(/(^|&)d=([^&]*)/, (m, a, d) => `${a}d=${d.slice(0, -6)}`), 'd is '],
      ['garbage', 'garbage', 'the link part "garbage" is not of the form key=value'],
    ];
    for (const [what, fragment, message] of cases) {
      const text = await bannerFor(fragment).catch((e) => {
        throw new Error(`${what}: no banner (${e.message.split('\n')[0]})`);
      });
      assert.ok(
        text.startsWith('This link could not be read: ') || text.startsWith('This link holds a state the core rejects: '),
        `${what}: ${text}`,
      );
      assert.ok(text.includes(message), `${what}: banner "${text}" should contain "${message}"`);
      assert.ok(text.includes('Keeping the current state.'), `${what}: ${text}`);
      const now = await snapshot();
      assert.deepStrictEqual(now.state, before.state, `${what}: the state changed`);
      assert.deepStrictEqual(now.results, before.results, `${what}: the results changed`);
      assert.equal(now.hash, good, `${what}: the address bar keeps the rejected link`);
    }
    assert.equal(await page.evaluate(() => ({}).polluted), undefined);
  });

  test('a link of more than 4,000,000 characters: refused without a freeze, the state kept', async () => {
    await settleHash();
    const before = await snapshot();
    // Built in the page (no 4 MB round trip through the test driver). Chromium may refuse a URL
    // that long itself (its limit is 2 MB); either way nothing may change and the page must answer.
    const outcome = await page.evaluate(async (good) => {
      document.getElementById('banner').hidden = true;
      const long = `${good}&x=${'A'.repeat(4_000_001)}`;
      const t0 = performance.now();
      location.hash = long;
      await new Promise((r) => setTimeout(r, 300));
      const banner = document.getElementById('banner');
      return { ms: performance.now() - t0, hashLength: location.hash.length, banner: banner.hidden ? null : banner.textContent };
    }, before.hash);
    if (outcome.banner !== null) assert.match(outcome.banner, /the link is too long \(\d+ characters, at most 4000000\)/);
    assert.ok(outcome.ms < 3000, `the page answered after ${outcome.ms} ms`);
    const now = await snapshot();
    assert.deepStrictEqual(now.state, before.state);
    assert.deepStrictEqual(now.results, before.results);
    // The page still works: a good link is taken.
    await page.evaluate(
      (f) => {
        location.hash = f;
      },
      before.hash.replace(/(^|&)tau=1(?=&)/, '$1tau=2'),
    );
    await page.waitForFunction(() => window.attentionPlayground.getState().tau === 2);
    await page.evaluate((f) => {
      location.hash = f;
    }, before.hash);
    await page.waitForFunction(() => window.attentionPlayground.getState().tau === 1);
  });

  test('tokens with HTML in a link are shown as text and create no element', async () => {
    const state = await getState(page);
    const imgs = await page.locator('img').count();
    const fragment = await page.evaluate(async (xss) => {
      const { encodeLink } = await import('./codec/link.js');
      const s = window.attentionPlayground.getState();
      s.tokens.keys[0] = xss;
      s.tokens.queries[0] = '<script>alert(2)</script>';
      return encodeLink(s);
    }, XSS);
    await page.evaluate((f) => {
      location.hash = f;
    }, fragment);
    await page.waitForFunction((x) => window.attentionPlayground.getState().tokens.keys[0] === x, XSS);
    await page.waitForTimeout(200); // an onerror would have fired by now
    assert.equal(await page.locator('img').count(), imgs, 'an <img> appeared');
    assert.equal(await page.locator('#app script').count(), 0, 'a <script> appeared');
    assert.ok((await page.textContent('#weights thead th:nth-child(2)')).includes(XSS), 'the key label is shown as text');
    assert.ok((await page.textContent('#weights tbody tr[data-row="0"] th')).includes('<script>alert(2)</script>'));
    assert.equal(await trySetState(page, state), null);
  });

  test('a page option with a bad value (lang=xx): a warning, the default kept, the state still read', async () => {
    const good = await settleHash();
    // The page writes its language into the link (lang=en): the bad value takes its place.
    const withLang = /(^|&)lang=/.test(good) ? good.replace(/(^|&)lang=[^&]*/, '$1lang=xx') : `${good}&lang=xx`;
    const text = await bannerFor(withLang.replace(/(^|&)tau=1(?=&)/, '$1tau=3'));
    assert.equal(
      text.replace(/Dismiss$/, '').trim(),
      "The link's page options lang=xx are not understood and were left at their defaults.",
    );
    assert.equal(await page.getAttribute('#banner', 'class'), 'banner warning');
    await page.waitForFunction(() => window.attentionPlayground.getState().tau === 3);
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'en');
    await page.evaluate((f) => {
      location.hash = f;
    }, good);
    await page.waitForFunction(() => window.attentionPlayground.getState().tau === 1);
    // The same link opened in a new page (a teacher's link): the warning stays after the state loads.
    const fresh = await openPage(session, `#${withLang.replace(/(^|&)tau=1(?=&)/, '$1tau=3')}`, { label: '[lang=xx] ' });
    try {
      assert.equal(await fresh.page.isVisible('#banner'), true, 'the refused option is not reported');
      assert.match(await fresh.page.textContent('#banner'), /The link's page options lang=xx are not understood/);
      assert.equal((await getState(fresh.page)).tau, 3);
    } finally {
      await fresh.context.close();
    }
  });
});

describe('API calls (setState rejects; the current state is kept)', () => {
  test('NaN and Inf in every matrix, tau <= 0 or NaN, negative sizes, non-objects, prototype keys, page limits', async () => {
    const state = await getState(page);
    const results = await getResults(page);
    const edit = (fn) => {
      const s = structuredClone(state);
      fn(s);
      return s;
    };
    const cases = [
      [
        'NaN in Q',
        edit((s) => {
          s.heads[0].Q[0][0] = NaN;
        }),
        'heads[0].Q[0][0] must be a finite number (got NaN)',
      ],
      [
        'Inf in K',
        edit((s) => {
          s.heads[0].K[1][0] = Infinity;
        }),
        'heads[0].K[1][0] must be a finite number (got Infinity)',
      ],
      [
        '-Inf in V',
        edit((s) => {
          s.heads[0].V[0][0] = -Infinity;
        }),
        'heads[0].V[0][0] must be a finite number (got -Infinity)',
      ],
      [
        'NaN in logits',
        edit((s) => {
          s.mode = 'logits';
          s.heads[0].logits = [[NaN, 0]];
        }),
        'heads[0].logits[0][0] must be a finite number or null (masked) (got NaN)',
      ],
      [
        'Inf in weights',
        edit((s) => {
          s.mode = 'weights';
          s.heads[0].weights = [[Infinity, 0]];
        }),
        'heads[0].weights[0][0] must be a finite number >= 0 (got Infinity)',
      ],
      [
        'NaN gate',
        edit((s) => {
          s.heads[0].gate = [NaN];
        }),
        'heads[0].gate[0] must be a finite number (got NaN)',
      ],
      [
        'tau 0',
        edit((s) => {
          s.tau = 0;
        }),
        'tau must be a number > 0 and <= 1000 (got 0)',
      ],
      [
        'tau -1',
        edit((s) => {
          s.tau = -1;
        }),
        'tau must be a number > 0 and <= 1000 (got -1)',
      ],
      [
        'tau NaN',
        edit((s) => {
          s.tau = NaN;
        }),
        'tau must be a number > 0 and <= 1000 (got NaN)',
      ],
      [
        'row -1',
        edit((s) => {
          s.row = -1;
        }),
        'row must be an integer from 0 to 0 (got -1)',
      ],
      [
        'window -1',
        edit((s) => {
          s.mask.window = -1;
        }),
        'mask.window must be an integer from 0 to 4096 (got -1)',
      ],
      [
        '4097 queries',
        edit((s) => {
          s.heads[0].Q = new Array(4097).fill([1, 0]);
        }),
        'heads[0].Q must have 1 to 4096 rows (got 4097)',
      ],
      [
        '65 heads',
        edit((s) => {
          s.heads = new Array(65).fill(s.heads[0]);
        }),
        'heads must be an array of 1 to 64 heads (got an array of length 65)',
      ],
      [
        'version 2',
        edit((s) => {
          s.version = 2;
        }),
        'version must be 1 (got 2); this page reads version 1 states',
      ],
      [
        'unknown field',
        edit((s) => {
          s.temperature = 2;
        }),
        'the state has an unknown field "temperature" (known fields: version, mode, heads, head, tokens, mask, tau, scale, topK, row, view, source, lab, lesson, x)',
      ],
      ['null', null, 'the state must be an object (got null)'],
      ['a number', 42, 'the state must be an object (got 42)'],
      ['a string', 'v=1&tau=1', 'the state must be an object (got "v=1&tau=1")'],
      ['an array', [], 'the state must be an object (got an array of length 0)'],
    ];
    for (const [what, next, message] of cases) {
      const err = await trySetState(page, next);
      assert.ok(err, `${what}: setState resolved`);
      assert.equal(err.isError, true, `${what}: not an Error`);
      assert.equal(err.message, message, what);
      assert.deepStrictEqual(await getState(page), state, `${what}: the state changed`);
    }
    assert.deepStrictEqual(await getResults(page), results);

    // Built in the page: JSON with prototype keys, a 200 MB token, a function, page limits.
    const inPage = await page.evaluate(async () => {
      const api = window.attentionPlayground;
      const s = api.getState();
      const attempt = async (next) => {
        const t0 = performance.now();
        try {
          await api.setState(next);
          return { ok: true };
        } catch (e) {
          return { message: e.message, isError: e instanceof Error, ms: performance.now() - t0 };
        }
      };
      const text = JSON.stringify(s);
      const out = {
        proto: await attempt(JSON.parse(text.replace('{"version"', '{"__proto__":{"polluted":1,"tau":5},"version"'))),
        ctor: await attempt(JSON.parse(text.replace('{"version"', '{"constructor":{"prototype":{"polluted":1}},"version"'))),
        huge: await (async () => {
          // Refused by its length, not copied into the core: bounded by one plain pass over the same
          // string, timed in the same run (each the fastest of three, interleaved), not by a wall-clock
          // time a loaded machine exceeds.
          const huge = 'x'.repeat(200_000_000);
          const onePass = () => {
            let n = 0;
            for (let i = 0; i < huge.length; i++) n += huge.charCodeAt(i) & 1;
            return n;
          };
          onePass(); // flattens the string (a repeat is built as a rope), outside the timings
          let passMs = Infinity;
          let last = null;
          for (let round = 0; round < 3; round++) {
            const t0 = performance.now();
            onePass();
            passMs = Math.min(passMs, performance.now() - t0);
            const got = await attempt({ ...s, tokens: { ...s.tokens, keys: [huge, s.tokens.keys[1]] } });
            last = { ...got, ms: Math.min(last?.ms ?? Infinity, got.ms ?? Infinity) };
          }
          return { ...last, passMs };
        })(),
        fn: await attempt({ ...s, tau: () => 1 }),
      };
      // Mode x with 49 tokens: valid for the schema, beyond what the page shows.
      const n = 49;
      const X = Array.from({ length: n }, (_, i) => [Math.sin(i), Math.cos(i)]);
      out.bigX = await attempt({
        ...s,
        mode: 'x',
        x: { X, WO: null, residual: false },
        heads: [
          {
            name: 'h',
            Q: null,
            K: null,
            V: null,
            logits: null,
            weights: null,
            WQ: [
              [1, 0],
              [0, 1],
            ],
            WK: [
              [1, 0],
              [0, 1],
            ],
            WV: [
              [1, 0],
              [0, 1],
            ],
          },
        ],
        tokens: { queries: X.map((_, i) => `t${i}`), keys: X.map((_, i) => `t${i}`) },
        mask: { causal: false, window: 0, padding: new Array(n).fill(false), allow: null },
        row: 0,
        topK: 2,
      });
      // A gate on a head the worker computes (more than 48 keys).
      const m = 64;
      out.bigGate = await attempt({
        ...s,
        mode: 'weights',
        heads: [
          {
            name: 'h',
            Q: null,
            K: null,
            V: null,
            logits: null,
            weights: Array.from({ length: m }, () => new Array(m).fill(1)),
            gate: new Array(m).fill(0),
          },
        ],
        tokens: { queries: new Array(m).fill('t'), keys: new Array(m).fill('t') },
        mask: { causal: false, window: 0, padding: new Array(m).fill(false), allow: null },
        row: 0,
        topK: 2,
      });
      out.polluted = {}.polluted;
      return out;
    });
    assert.equal(
      inPage.proto.message,
      'the state has an unknown field "__proto__" (known fields: version, mode, heads, head, tokens, mask, tau, scale, topK, row, view, source, lab, lesson, x)',
    );
    assert.match(inPage.ctor.message, /^the state has an unknown field "constructor"/);
    assert.equal(inPage.huge.message, 'tokens.keys[0] must be at most 200 characters (got 200000000)');
    assert.ok(
      inPage.huge.ms < 3 * inPage.huge.passMs + 250,
      `a 200 MB token refused without a freeze: ${inPage.huge.ms.toFixed(0)} ms, one pass over it ${inPage.huge.passMs.toFixed(0)} ms`,
    );
    assert.equal(inPage.fn.isError, true);
    assert.match(inPage.fn.message, /could not be cloned/);
    assert.equal(
      inPage.bigX.message,
      'x.X has 49 tokens; the page shows mode "x" (multi-head from X) for up to 48 tokens (the node module and attn compute take any size)',
    );
    assert.equal(
      inPage.bigGate.message,
      'heads[0].gate: the page computes heads this large in a worker, which has no gate yet; remove the gate (the node module and attn compute apply it)',
    );
    assert.equal(inPage.polluted, undefined);
    assert.deepStrictEqual(await getState(page), state, 'the state changed');
    assert.deepStrictEqual(await getResults(page), results);
    assert.equal((await shareUrl(page)).split('#')[1], (await snapshot()).hash);
  });
});

describe('files (the Import tab: the previous import and the playground state are kept)', () => {
  test('bad .npy, JSON and token files each say why; nothing is lost', async () => {
    await page.click('#tab-import');
    const file = (name, bytes) => ({ name, mimeType: 'application/octet-stream', buffer: Buffer.from(bytes) });
    // A good import first: what every refusal below must keep.
    await page.setInputFiles('#import-file', file('good.npy', npy([4, 4], uniformCausal(4))));
    // (Also every worker started: workersReady turning true later is not a change of the import.)
    await page.waitForFunction(() => {
      const s = window.attentionPlayground.imported();
      return s.source?.name === 'good.npy' && !s.running && s.heads.length === 1 && s.workersReady;
    });
    const imported = await page.evaluate(() => window.attentionPlayground.imported());
    const state = await getState(page);
    const headerOnly = (shape, descr = '<f4') =>
      npyHeader([1], { dict: `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }` });
    const ok = npy([2, 2], [1, 0, 0.5, 0.5]);
    const cases = [
      ['empty.npy', new Uint8Array(0), 'empty.npy is empty'],
      [
        'random.bin',
        Uint8Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 251),
        'random.bin is not an attention file: expected .npy, .npz or JSON',
      ],
      ['truncated.npy', ok.subarray(0, 30), 'the .npy header needs 128 bytes but the file has 30: it is truncated'],
      ['short.npy', ok.subarray(0, 9), 'truncated .npy header: the file has 9 bytes, a header needs at least 12'],
      [
        'fortran.npy',
        npy([2, 2], [1, 0, 0.5, 0.5], { fortran: true }),
        'Fortran-order arrays are not supported: save with np.ascontiguousarray',
      ],
      ['bigendian.npy', npy([2, 2], [1, 0, 0.5, 0.5], { descr: '>f8' }), "big-endian float64 ('>f8'): convert with arr.astype('<f8')"],
      ['object.npy', npy([2, 2], [0, 0, 0, 0], { descr: '|O' }), "object arrays ('|O') cannot be read"],
      ['million.npy', headerOnly('(1000000, 1000000)'), 'shape [1000000, 1000000] has 1000000 tokens on one axis; the limit is 131072'],
      ['negative.npy', headerOnly('(-1, 4)'), 'the .npy shape has a negative extent (-1)'],
      ['vector.npy', npy([5], [1, 0, 0, 0, 0]), 'shape [5] has 1 axis: an attention tensor is [n_q, n_k]'],
      ['nan.json', new TextEncoder().encode('{"attention": [[NaN, 0], [0.5, 0.5]]}'), 'the text is not valid JSON (at byte 17)'],
    ];
    for (const [name, bytes, message] of cases) {
      await page.setInputFiles('#import-file', file(name, bytes));
      await page
        .waitForFunction((n) => document.getElementById('import-errors').textContent.includes(n), name, { timeout: 5000 })
        .catch(async () => {
          throw new Error(`${name}: no message (errors: "${await page.textContent('#import-errors')}")`);
        });
      const text = await page.textContent('#import-errors');
      assert.ok(text.includes(message), `${name}: "${text}" should contain "${message}"`);
      assert.match(await page.textContent('#import-info'), /good\.npy/, `${name}: the previous import is no longer described`);
      assert.deepStrictEqual(
        await page.evaluate(() => window.attentionPlayground.imported()),
        imported,
        `${name}: the previous import changed`,
      );
    }

    // 200 MB of JSON: refused by its size before it is read. The File is 200 references to one
    // 1 MiB Blob, so the test allocates 1 MiB, not 200.
    const big = await page.evaluate(async (MiB) => {
      const one = new Blob([new Uint8Array(MiB).fill(0x20)]);
      const parts = [new Blob(['{']), ...new Array(200).fill(one)];
      const f = new File(parts, 'big.json');
      const dt = new DataTransfer();
      dt.items.add(f);
      const t0 = performance.now();
      document.getElementById('import-drop').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
      while (!document.getElementById('import-errors').textContent.includes('big.json') && performance.now() - t0 < 5000)
        await new Promise((r) => setTimeout(r, 20));
      return { size: f.size, ms: performance.now() - t0, text: document.getElementById('import-errors').textContent };
    }, MiB);
    assert.equal(big.size, 200 * MiB + 1);
    assert.ok(big.text.includes('big.json is 200 MiB; the page reads at most 64 MiB of this kind of file'), big.text);
    assert.ok(big.ms < 3000, `refused after ${big.ms} ms`);
    assert.deepStrictEqual(await page.evaluate(() => window.attentionPlayground.imported()), imported);

    // A token file above 16 MiB, the same way.
    const tokens = await page.evaluate(async (MiB) => {
      const one = new Blob([new Uint8Array(MiB).fill(0x61)]);
      const input = document.getElementById('import-tokens');
      const dt = new DataTransfer();
      dt.items.add(new File(new Array(17).fill(one), 'tokens.txt'));
      input.files = dt.files;
      input.dispatchEvent(new Event('change', { bubbles: true }));
      const t0 = performance.now();
      while (!/token file is 17 MiB/.test(document.getElementById('import-errors').textContent) && performance.now() - t0 < 5000)
        await new Promise((r) => setTimeout(r, 20));
      return document.getElementById('import-errors').textContent;
    }, MiB);
    assert.ok(tokens.includes('the token file is 17 MiB; the page reads at most 16 MiB'), tokens);

    // An attention JSON with __proto__ and constructor keys: read (the keys mean nothing), no pollution.
    const proto =
      '{"__proto__": {"polluted": 1}, "constructor": {"prototype": {"polluted": 2}}, "tokens": ["a", "b"], "attention": [[1, 0], [0.5, 0.5]]}';
    await page.setInputFiles('#import-file', file('proto.json', new TextEncoder().encode(proto)));
    await page.waitForFunction(() => {
      const s = window.attentionPlayground.imported();
      return s.source?.name === 'proto.json' && !s.running && s.heads.length === 1;
    });
    assert.deepEqual((await page.evaluate(() => window.attentionPlayground.imported())).source.keyTokens, ['a', 'b']);
    assert.equal(await page.evaluate(() => ({}).polluted), undefined);

    // A head of 4097 queries (one key each): analysed, but too large to open in the playground.
    await page.setInputFiles('#import-file', file('tall.npy', npy([4097, 1], new Array(4097).fill(1))));
    await page.waitForFunction(() => {
      const s = window.attentionPlayground.imported();
      return s.source?.name === 'tall.npy' && !s.running && s.heads.length === 1;
    });
    await page.click('#head-card-0-0');
    await page.waitForSelector('#open-in-playground');
    assert.equal(await page.isDisabled('#open-in-playground'), true);
    assert.equal(await page.getAttribute('#open-in-playground', 'title'), 'the playground opens heads of up to 4096 tokens');

    // A saved state with __proto__: refused by the validator, the playground state kept.
    const stateText = JSON.stringify({ ...state, tau: 4 }).replace('{"version"', '{"__proto__":{"tau":5},"version"');
    await page.setInputFiles('#import-file', file('saved.state.json', new TextEncoder().encode(stateText)));
    await page.waitForFunction(() => document.getElementById('import-errors').textContent.includes('saved.state.json'));
    assert.ok(
      (await page.textContent('#import-errors')).includes('the state has an unknown field "__proto__"'),
      await page.textContent('#import-errors'),
    );
    assert.deepStrictEqual(await getState(page), state, 'the playground state changed');
    await page
      .click('#tab-playground')
      .catch(() => page.evaluate(() => document.querySelector('[data-view="playground"], #tab-playground')?.click()));
  });
});

describe('messages to the embed element and the embedded page', () => {
  test("an unknown name in the element's hide is reported as a warning above the frame, which is shown with the known names hidden", async () => {
    const context = await session.browser.newContext({ viewport: { width: 1000, height: 900 } });
    const host = await context.newPage();
    watch(host, session.events, '[embed hide] ');
    await host.goto(`${session.url}dev/embed-demo.html`);
    await host.evaluate(() => {
      const el = document.createElement('attention-playground');
      el.id = 'typo';
      el.setAttribute('hide', 'tau,masks');
      el.setAttribute('embed', '');
      document.body.prepend(el);
    });
    const frameHandle = await host.waitForFunction(
      () => {
        const frame = document.getElementById('typo').shadowRoot.querySelector('iframe');
        return frame?.contentWindow?.attentionPlayground ? frame : null;
      },
      null,
      { timeout: 20000 },
    );
    const box = await host.evaluate(() => {
      const p = document.getElementById('typo').shadowRoot.querySelector('p.error');
      return { hidden: p.hidden, title: p.querySelector('strong')?.textContent, text: p.textContent };
    });
    assert.equal(box.hidden, false);
    assert.equal(box.title, 'Attention Playground is shown, but: ');
    assert.match(box.text, /Unknown names in hide: masks\./);
    const inner = await (await frameHandle.asElement()).contentFrame();
    await inner.evaluate(() => window.attentionPlayground.ready);
    assert.match(await inner.evaluate(() => location.hash), /tau_hide=1/);
    await context.close();
  });

  test('messages of the wrong shape or from elsewhere are ignored; the frame keeps its height and its state', async () => {
    const context = await session.browser.newContext({ viewport: { width: 1000, height: 900 } });
    const host = await context.newPage();
    watch(host, session.events, '[embed host] ');
    await host.goto(`${session.url}dev/embed-demo.html`);
    const link = (await snapshot()).hash;
    await host.evaluate((state) => {
      const el = document.createElement('attention-playground');
      el.id = 'probe';
      el.setAttribute('state', state);
      el.setAttribute('embed', '');
      el.setAttribute('height', '640');
      document.body.prepend(el);
      window.scrollTo(0, 0);
    }, link);
    const frameHandle = await host.waitForFunction(
      () => {
        const frame = document.getElementById('probe').shadowRoot.querySelector('iframe');
        return frame?.contentWindow?.attentionPlayground ? frame : null;
      },
      null,
      { timeout: 20000 },
    );
    const inner = await (await frameHandle.asElement()).contentFrame();
    await inner.evaluate(() => window.attentionPlayground.ready);
    // Let the page report its own height, then read it.
    await host.waitForFunction(() => document.getElementById('probe').shadowRoot.querySelector('iframe').style.height !== '640px', null, {
      timeout: 20000,
    });
    await host.waitForTimeout(300);
    const heightOf = () => host.evaluate(() => document.getElementById('probe').shadowRoot.querySelector('iframe').style.height);
    const fitted = await heightOf();
    const innerState = await inner.evaluate(() => window.attentionPlayground.getState());
    // From the frame itself, wrong shapes.
    await inner.evaluate(() => {
      const type = 'attention-playground:height';
      for (const m of [
        null,
        'attention-playground:height',
        42,
        { type },
        { type, height: '77' },
        { type, height: NaN },
        { type, height: -5 },
        { type, height: 1e9 },
        { type: 'other', height: 77 },
        { height: 77 },
        [type, 77],
        { type, height: { valueOf: () => 77 } },
      ]) {
        try {
          parent.postMessage(m, '*');
        } catch {
          /* an uncloneable message is the sender's error */
        }
      }
    });
    // From the host page (not the frame), the right shape.
    await host.evaluate(() => window.postMessage({ type: 'attention-playground:height', height: 77 }, '*'));
    // To the embedded page: it has no message handler, so a "setState" message changes nothing.
    await host.evaluate(() => {
      const w = document.getElementById('probe').shadowRoot.querySelector('iframe').contentWindow;
      w.postMessage({ type: 'setState', state: { tau: 5 } }, '*');
      w.postMessage('v=1&tau=5', '*');
    });
    await host.waitForTimeout(300);
    assert.equal(await heightOf(), fitted, 'a bad message changed the frame height');
    assert.deepStrictEqual(await inner.evaluate(() => window.attentionPlayground.getState()), innerState);
    // The channel works (so the checks above can fail): a good message from the frame is applied.
    // (With its frame id, the window's name, as the page's own height messages carry it.)
    await inner.evaluate(() => parent.postMessage({ type: 'attention-playground:height', height: 1234, id: window.name }, '*'));
    await host.waitForFunction(() => document.getElementById('probe').shadowRoot.querySelector('iframe').style.height === '1234px');
    await context.close();
  });
});
