// The page's one number-box rule (web/views/number-box.js), used by the main controls and the
// lab's boxes: what a box's text says against its limits, the interval a refusal names, and the
// arrow keys' step (one unit of the last digit typed). Expected values worked out by hand.
//
//   node --test tests/node/number_box.test.js

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { halfWidth, inRange, rangeText, readBox, readDecimal, stepBox } from '../../web/views/number-box.js';
import { parseCell } from '../../web/views/editor.js';

test('readBox: numbers, letters, an empty box, fractions in a whole-number box, the limits', () => {
  assert.deepEqual(readBox(' 0.25 '), { x: 0.25 });
  assert.deepEqual(readBox('1e-3'), { x: 0.001 });
  assert.deepEqual(readBox(''), { problem: 'empty', text: '' });
  assert.deepEqual(readBox('   '), { problem: 'empty', text: '' });
  assert.deepEqual(readBox('abc'), { problem: 'notNumber', text: 'abc' });
  assert.deepEqual(readBox('0,5'), { problem: 'notNumber', text: '0,5' });
  assert.deepEqual(readBox('NaN'), { problem: 'notNumber', text: 'NaN' });
  assert.deepEqual(readBox('Infinity'), { problem: 'notNumber', text: 'Infinity' });
  assert.deepEqual(readBox('2.5', { whole: true }), { problem: 'whole', text: '2.5' });
  assert.deepEqual(readBox('3', { whole: true, min: 1, max: 64 }), { x: 3 });
  assert.deepEqual(readBox('65', { whole: true, min: 1, max: 64 }), { problem: 'range', text: '65' });
  assert.deepEqual(readBox('1', { min: 0, max: 1, maxOpen: true }), { problem: 'range', text: '1' });
  assert.deepEqual(readBox('0', { min: 0, max: 1, minOpen: true, maxOpen: true }), { problem: 'range', text: '0' });
  assert.deepEqual(readBox('-1', { min: 0 }), { problem: 'range', text: '-1' });
  assert.deepEqual(readBox('1e9', { min: 0 }), { x: 1e9 });
});

test('boxes and cells read numbers by one rule: a decimal too large for a double is "too large", hex and words are not numbers', () => {
  assert.deepEqual(readBox('1e400'), { problem: 'tooLarge', text: '1e400' });
  assert.deepEqual(readBox('-1e400'), { problem: 'tooLarge', text: '-1e400' });
  assert.deepEqual(readBox('0x10'), { problem: 'notNumber', text: '0x10' }); // Number() alone: 16
  assert.deepEqual(readBox('1_000'), { problem: 'notNumber', text: '1_000' });
  assert.deepEqual(readBox('\u22122'), { x: -2 }); // U+2212, the minus sign a copied formula has
  assert.deepEqual(readBox('+.5'), { x: 0.5 });
  assert.deepEqual(readDecimal('1e308'), { x: 1e308 });
  assert.deepEqual(readDecimal('1e-400'), { x: 0 }); // underflows to 0: a number, not an error
  for (const text of ['1e400', '0x10', '', 'abc']) {
    const box = readBox(text).problem;
    const cell = parseCell(text, false).error;
    assert.ok(box && cell, text);
    assert.equal(/too large/.test(cell), box === 'tooLarge', `${text}: the cell says "${cell}", the box ${box}`);
  }
});

test('inRange and rangeText: closed, open and absent ends', () => {
  assert.equal(inRange(0.5, { min: 0.5, max: 100 }), true);
  assert.equal(inRange(0.4, { min: 0.5, max: 100 }), false);
  assert.equal(inRange(1, { min: 0, max: 1, maxOpen: true }), false);
  assert.equal(rangeText({ min: 1, max: 64 }), '[1, 64]');
  assert.equal(rangeText({ min: 0, max: 1, minOpen: true, maxOpen: true }), '(0, 1)');
  assert.equal(rangeText({ min: 0, max: 1, maxOpen: true }), '[0, 1)');
  assert.equal(rangeText({ min: 0 }), '[0, ∞)');
  assert.equal(rangeText({}), '(−∞, ∞)');
});

test('stepBox: one unit of the last digit, whole numbers by 1, within the limits', () => {
  assert.equal(stepBox('0.25', 1), '0.26');
  assert.equal(stepBox('0.25', -1), '0.24');
  assert.equal(stepBox('0.1', 1), '0.2'); // not 0.20000000000000004
  assert.equal(stepBox('3', 1), '4');
  assert.equal(stepBox('0.693147', 1), '0.693148');
  assert.equal(stepBox('1', -1, { min: 1, whole: true }), null); // at the lower end: no move
  assert.equal(stepBox('0.5', -1, { min: 0.5, max: 100 }), null);
  assert.equal(stepBox('0.95', 1, { min: 0, max: 1 }), '0.96');
  assert.equal(stepBox('0.999', 1, { min: 0, max: 1, maxOpen: true }), null); // 1 is excluded
  assert.equal(stepBox('0.5', 1, { min: 0, max: 1, maxOpen: true }), '0.6');
  assert.equal(stepBox('70', 1, { min: 0, max: 69, whole: true }), '69'); // beyond the end: to the end
  assert.equal(stepBox('abc', 1), null);
  assert.equal(stepBox('', 1), null);
  assert.equal(stepBox('2.5', 1, { whole: true }), null);
  assert.equal(stepBox('1e-3', 1), '0.002');
});

test('full-width digits (a Chinese input method in full-width mode) read as their ASCII forms, in boxes and cells', () => {
  assert.deepEqual(readBox('０．５'), { x: 0.5 });
  assert.deepEqual(readBox('－２'), { x: -2 });
  assert.deepEqual(readBox('１ｅ－３'), { x: 0.001 });
  assert.deepEqual(readBox('\u3000２\u3000'), { x: 2 });
  assert.deepEqual(readBox('２', { min: 0, max: 1 }), { problem: 'range', text: '２' }, 'the message quotes what was typed');
  assert.deepEqual(readBox('ａｂｃ'), { problem: 'notNumber', text: 'ａｂｃ' });
  assert.equal(halfWidth('2²½'), '2²½', 'only the full-width block changes (not NFKC)');
  assert.deepEqual(parseCell('１．２５', false), { value: 1.25 });
  assert.deepEqual(parseCell('－ｉｎｆ', true), { value: null });
  assert.match(parseCell('１ｘ', false).error, /"１ｘ" is not a number/);
});
