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
