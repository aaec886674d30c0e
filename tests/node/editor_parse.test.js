// The matrix editor's cell parser (web/views/editor.js): plain decimals only, and an error that
// quotes what was typed without echoing a whole pasted block back under the editor.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCell } from '../../web/views/editor.js';

test('a cell takes plain decimals, −∞ for masked logits, and refuses the rest', () => {
  assert.deepEqual(parseCell(' 1.5e2 ', false), { value: 150 });
  assert.deepEqual(parseCell('−2', false), { value: -2 });
  assert.deepEqual(parseCell('-inf', true), { value: null });
  assert.match(parseCell('0x10', false).error, /"0x10" is not a number/);
});

test('a pasted megabyte is quoted as its first 40 characters, not echoed whole', () => {
  const paste = '1\t2\t3\n'.repeat(200_000); // 1.2 MB of tab-separated rows
  const { error } = parseCell(paste, false);
  assert.ok(error.length < 100, `error of ${error.length} characters`);
  assert.ok(error.includes(`${paste.trim().slice(0, 40)}…`));
});
