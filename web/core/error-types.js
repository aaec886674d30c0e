// The two errors the page, node and the CLI report, shared by web/core/state-schema.js (the link codec) and
// web/core/core.js (the WebAssembly core, which holds the schema's one validator), and
// throwIfError, which turns the core's error answers into them (core.js, core-import.js).

/** An invalid state or head as reported by the core: `code` is one of shape_mismatch,
 * non_finite, bad_temperature, invalid_value, too_large, bad_state, bad_file; `field` names the input
 * ("tau", "heads[0].Q", "mask.padding", ...). */
export class AttentionError extends Error {
  constructor(code, field, message) {
    super(message);
    this.name = 'AttentionError';
    this.code = code;
    this.field = field;
  }
}

/**
 * A state or link that does not satisfy docs/state.md: thrown by the link codec (field "link",
 * "d", ...) and by core.validateState() (field "tau", "heads[0].Q[1][0]", "tokens.keys", ...).
 * `message` is a sentence a teacher can act on; `code` is the core's error code ("bad_state" for
 * the codec and most schema rules; "shape_mismatch", "bad_temperature", ... as the CLI reports).
 */
export class StateError extends AttentionError {
  /**
   * @param {string} field path of the offending field
   * @param {string} message what is wrong, in plain English
   * @param {string} [code] the core's error code
   */
  constructor(field, message, code = 'bad_state') {
    super(code, field, message);
    this.name = 'StateError';
  }
}

/** The core's {error: {code, field, message}} answer as an AttentionError; any other answer as it is. */
export function throwIfError(out) {
  if (out && out.error) throw new AttentionError(out.error.code, out.error.field, out.error.message);
  return out;
}
