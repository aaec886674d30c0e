// The state API the node tests use: web/core/state-schema.js (defaults, equality) and the link codec with the
// schema's one implementation, the C++ core (web/core/core.js validateState), bound in. decodeLink and
// encodeLink validate as the page does (core.decodeLink; encodeLink of core.validateState), so a
// test reads exactly what a link or an API call gets in the page.
import { loadCore } from '../../web/core/core.js';
import { encodeLink as encodeLinkText } from '../../web/codec/link.js';

export * from '../../web/core/state-schema.js';

/** The WebAssembly core (SIMD build where it runs), loaded once for every test file using it. */
export const core = await loadCore();

/** core.validateState: normalised copy, or a StateError naming the field. */
export const validateState = (s) => core.validateState(s);

/** core.decodeLink: the link's state, validated. */
export const decodeLink = (fragment) => core.decodeLink(fragment);

/** The link of a state, validated first (the page only ever encodes a valid state). */
export const encodeLink = (s) => encodeLinkText(core.validateState(s));
