// Small helpers of the link codec (web/codec/) and of web/core/state-schema.js: safe own-property reads and
// the short description of a value that error messages quote.

/** Short description of a value for error messages ("-1", "\"abc\"", "an object"). */
export function describe(value) {
  if (typeof value === 'number') return Object.is(value, -0) ? '-0' : String(value);
  if (typeof value === 'string') {
    const shown = value.length > 40 ? `${value.slice(0, 40)}...` : value;
    return JSON.stringify(shown);
  }
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `an array of length ${value.length}`;
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

/** Own property or undefined: an inherited `tau` (or a polluted prototype) must never count. */
export function own(object, key) {
  return Object.prototype.hasOwnProperty.call(object, key) ? object[key] : undefined;
}

export function isRecord(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
