// The third-party code the page uses, bundled by `npm run build:vendor` into web/vendor/vendor.js
// (a build output, not committed) so the page stays plain ES modules served by any static server.
export { deflateSync, inflateSync, strToU8, strFromU8, unzipSync } from 'fflate';
export { interpolateCividis, interpolateGreys, interpolateMagma, interpolateViridis } from 'd3-scale-chromatic';
// KaTeX renders the formulas with the selected row's numbers (web/views/formulas.js); its CSS and
// fonts are copied to web/vendor/katex/ by scripts/build.sh, so nothing is fetched from elsewhere.
import katex from 'katex';
export const katexRender = katex.render;
export const katexRenderToString = katex.renderToString;
