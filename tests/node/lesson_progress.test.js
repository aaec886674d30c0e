// The lesson's progress per class link (web/lesson/progress.js): the key names the class link's
// state only (page options such as lang= or embed= do not change it), a saved link reads back,
// and where storage is blocked (a sandboxed iframe) nothing throws and `available` is false.
//
//   node --test tests/node/lesson_progress.test.js

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classKey, createProgress } from '../../web/lesson/progress.js';

test('the key is the class link state: page options are ignored, another state gives another key', () => {
  const state = 'v=1&mode=qkv&tau=1&lesson=%7B%22step%22%3A1%7D';
  assert.equal(classKey(`#${state}&lang=zh-CN&embed=1&readonly=1`), classKey(state));
  assert.notEqual(classKey(state), classKey(state.replace('tau=1', 'tau=2')));
  assert.match(classKey(state), /^[0-9a-f]{16}$/);
});

test('saved progress reads back where storage works', () => {
  const items = new Map();
  globalThis.window = {
    localStorage: {
      setItem: (k, v) => items.set(k, String(v)),
      getItem: (k) => (items.has(k) ? items.get(k) : null),
      removeItem: (k) => items.delete(k),
    },
  };
  try {
    const p = createProgress('#v=1&lesson=x&lang=en');
    assert.equal(p.available, true);
    assert.equal(p.load(), null);
    p.save('v=1&lesson=y');
    assert.equal(createProgress('#v=1&lesson=x&lang=zh-CN').load(), 'v=1&lesson=y', 'the same class link in another language');
    assert.equal(createProgress('#v=1&lesson=z').load(), null, 'another class link');
    p.clear();
    assert.equal(p.load(), null);
  } finally {
    delete globalThis.window;
  }
});

test('blocked storage (a sandboxed iframe): not available, nothing throws', () => {
  const blocked = () => {
    throw new DOMException('The document is sandboxed', 'SecurityError');
  };
  globalThis.window = {};
  Object.defineProperty(globalThis.window, 'localStorage', { get: blocked });
  try {
    const p = createProgress('#v=1&lesson=x');
    assert.equal(p.available, false);
    assert.equal(p.load(), null);
    p.save('v=1');
    p.clear();
  } finally {
    delete globalThis.window;
  }
});
