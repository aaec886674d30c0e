// scripts/chromium.js: its --disable-features flag replaces playwright-core's (Chromium reads only
// the last one), so its copy of playwright-core's list must match the installed version's.
//
//   node --test tests/node/chromium_args.test.js

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { CHROMIUM_ARGS, OWN_DISABLED_FEATURES, PLAYWRIGHT_DISABLED_FEATURES } from '../../scripts/chromium.js';

const require = createRequire(import.meta.url);

test("the copy of playwright-core's disabled features matches the installed playwright-core", () => {
  const dir = dirname(require.resolve('playwright-core/package.json'));
  const bundle = readFileSync(join(dir, 'lib/coreBundle.js'), 'utf8');
  const block = bundle.match(/disabledFeatures = \[([\s\S]*?)\]\.filter\(Boolean\)/);
  assert.ok(
    block,
    'playwright-core/lib/coreBundle.js no longer has its disabledFeatures list: read how it disables features now and update scripts/chromium.js',
  );
  const listed = [...block[1].replace(/\/\/.*$/gm, '').matchAll(/"([^"]+)"/g)].map((m) => m[1]);
  assert.deepEqual(PLAYWRIGHT_DISABLED_FEATURES, listed, 'update PLAYWRIGHT_DISABLED_FEATURES in scripts/chromium.js');
});

test('one --disable-features flag carries both lists', () => {
  const flags = CHROMIUM_ARGS.filter((a) => a.startsWith('--disable-features='));
  assert.equal(flags.length, 1);
  assert.deepEqual(flags[0].slice('--disable-features='.length).split(','), [...PLAYWRIGHT_DISABLED_FEATURES, ...OWN_DISABLED_FEATURES]);
});
