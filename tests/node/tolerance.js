// The node tests' one tolerance helper: deep comparison of numbers within a tolerance.
import assert from 'node:assert/strict';

/**
 * Asserts that `a` and `b` are the same JSON-like value with numbers within `tol`: absolute up to
 * 1, relative above (|a - b| <= tol * max(1, |a|, |b|)). NaN equals only NaN; nulls, booleans and
 * strings must be equal; objects must have the same keys.
 * @param {unknown} a actual
 * @param {unknown} b expected
 * @param {string} [path] where in the value (for the message)
 * @param {number} [tol] tolerance (default 1e-9)
 */
export function assertClose(a, b, path = 'value', tol = 1e-9) {
  if (typeof a === 'number' && typeof b === 'number') {
    if (Number.isNaN(a) || Number.isNaN(b)) {
      assert.ok(Number.isNaN(a) && Number.isNaN(b), `${path}: ${a} vs ${b}`);
      return;
    }
    assert.ok(Math.abs(a - b) <= tol * Math.max(1, Math.abs(a), Math.abs(b)), `${path}: ${a} vs ${b} (tolerance ${tol})`);
    return;
  }
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') {
    assert.equal(a, b, path);
    return;
  }
  assert.equal(Array.isArray(a), Array.isArray(b), `${path}: array vs object`);
  assert.deepEqual(Object.keys(a).sort(), Object.keys(b).sort(), `${path} keys`);
  for (const k of Object.keys(a)) assertClose(a[k], b[k], `${path}.${k}`, tol);
}

/**
 * Asserts that `actual` holds everything `recorded` holds: each field of a recorded object is in
 * the actual one with a matching value (fields the actual one has besides are allowed: a saved
 * result records the fields of its day, and later versions may add more); arrays have the same
 * length and matching elements; numbers within `tol` as in assertClose; NaN equals only NaN;
 * nulls, booleans and strings are equal.
 * @param {unknown} actual
 * @param {unknown} recorded
 * @param {string} [path] where in the value (for the message)
 * @param {number} [tol] tolerance (default 1e-9)
 * @returns {number} how many values (numbers, strings, booleans, nulls) and array lengths were compared
 */
export function assertRecorded(actual, recorded, path = 'value', tol = 1e-9) {
  if (recorded === null || typeof recorded !== 'object') {
    assertClose(actual, recorded, path, tol);
    return 1;
  }
  assert.ok(actual !== null && typeof actual === 'object', `${path}: ${JSON.stringify(actual)?.slice(0, 80)}, recorded an object or array`);
  assert.equal(Array.isArray(actual), Array.isArray(recorded), `${path}: array vs object`);
  let compared = 0;
  if (Array.isArray(recorded)) {
    assert.equal(actual.length, recorded.length, `${path}.length`);
    compared++;
  }
  for (const k of Object.keys(recorded)) {
    assert.ok(Object.prototype.hasOwnProperty.call(actual, k), `${path}.${k}: recorded, missing now`);
    compared += assertRecorded(actual[k], recorded[k], `${path}.${k}`, tol);
  }
  return compared;
}
