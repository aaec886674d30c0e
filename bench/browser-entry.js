// Entry of web/vendor/bench-vendor.js (`npm run build:bench`, a build output, not committed): the
// benchmark page's only import besides the project's own WASM modules. It carries TF.js (core and
// the WASM backend, whose .wasm files are copied to web/vendor/tfjs/) and the shared runner of
// bench/lib, so that node and Chromium time exactly the same code. Kept apart from
// web/vendor/vendor.js so the playground page does not download TF.js.
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-wasm';

export { tf };
export { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
export { runBench, computeRatios, formatTables, RATIOS } from './lib/harness.js';
export { allVariants } from './lib/variants.js';
