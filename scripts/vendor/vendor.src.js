// The third-party code the page uses, bundled by `npm run build:vendor` into web/vendor/vendor.js
// (a build output, not committed) so the page stays plain ES modules served by any static server.
export { deflateSync, inflateSync, strToU8, strFromU8, unzipSync } from 'fflate';
export { interpolateCividis, interpolateGreys, interpolateMagma, interpolateViridis } from 'd3-scale-chromatic';
// KaTeX is bundled apart (scripts/vendor/katex.src.js -> web/vendor/katex.js): the formulas load it on first use.
