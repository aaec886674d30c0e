// Soak, short version (docs/security.md "Soak"): 1,000 random states through window.attentionPlayground.setState
// in one page session, after a warm-up of 200. No page error, no console error, no state refused;
// after the warm-up the WebAssembly memory does not grow, the JS heap after a forced GC stays
// within 2 MiB, no emscripten::val handle and no Embind object is left behind, and the document
// holds the same elements and listeners on the same reference state (BOUNDS in scripts/soak.js,
// which also runs the long version: `node scripts/soak.js`, 10,000 recomputes).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSession } from './harness.js';
import { BOUNDS, openSoakPage, soak } from '../../scripts/soak.js';

const MiB = 2 ** 20;
let session;
before(async () => {
  session = await startSession();
});
after(async () => {
  await session?.close();
});

test('1,000 random states in one page: no error, no refusal, heaps and handles within bounds', async () => {
  const out = await soak(await openSoakPage(session), {
    recomputes: 1_000,
    every: 250,
    warmup: 200,
    seed: 7,
    log: (line) => console.log(`# ${line}`),
  });
  const { pageErrors, consoleErrors, dialogs } = session.events;
  assert.deepEqual(pageErrors, [], 'page errors');
  assert.deepEqual(consoleErrors, [], 'console errors');
  assert.deepEqual(dialogs, [], 'dialogs');
  assert.deepEqual(out.rejected, [], 'every generated state is valid and must be shown');
  assert.equal(out.checkpoints.at(-1).recomputes, 1_200);

  const { baseline, growth } = out;
  const mib = (bytes) => `${(bytes / MiB).toFixed(2)} MiB`;
  assert.ok(
    growth.wasmBytes <= BOUNDS.wasmBytes,
    `WebAssembly memory grew by ${mib(growth.wasmBytes)} after the warm-up (from ${mib(baseline.wasmBytes)})`,
  );
  assert.ok(
    growth.jsHeapBytes <= BOUNDS.jsHeapBytes,
    `JS heap grew by ${mib(growth.jsHeapBytes)} after the warm-up (bound ${mib(BOUNDS.jsHeapBytes)})`,
  );
  assert.equal(growth.emvalHandles, 0, 'emscripten::val handles left behind');
  assert.equal(out.final.emvalHandles, 0, 'a live emscripten::val handle between computes');
  // The core binds functions only, so there is no Embind class whose instances a caller must
  // delete(); should class bindings appear, their live instances must not grow either.
  assert.ok(growth.classHandles <= BOUNDS.classHandles, 'Embind class instances left undeleted');
  assert.ok(growth.elements <= BOUNDS.elements, `${growth.elements} more elements on the same reference state`);
  assert.ok(growth.listeners <= BOUNDS.listeners, `${growth.listeners} more event listeners on the same reference state`);
  assert.ok(growth.domNodes <= BOUNDS.domNodes, `${growth.domNodes} more DOM nodes on the same reference state`);
});
