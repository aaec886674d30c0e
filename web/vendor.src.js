// The third-party code the page uses, bundled by `npm run build:vendor` into web/vendor/vendor.js
// (a build output, not committed) so the page stays plain ES modules served by any static server.
export { deflateSync, inflateSync, strToU8, strFromU8, unzipSync } from 'fflate';
export { interpolateCividis, interpolateViridis } from 'd3-scale-chromatic';
