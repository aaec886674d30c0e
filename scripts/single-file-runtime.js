// The one-file page's runtime: scripts/single-file.js bundles this module ahead of web/main.js and
// ahead of each worker, so the page's unchanged modules work from one file:
//   - globalThis.attnEmbeddedWasm(variant): the WebAssembly core's bytes, from the gzipped base 85
//     in <script type="application/octet-stream" data-ap-wasm="VARIANT"> (read by web/core/wasm-load.js);
//   - Worker: web/large/large-worker.js and web/import/import-worker.js start from blob: URLs made of their one
//     gzipped bundle (<script type="application/octet-stream" data-ap-workers="NAMES">), with the
//     core's text prepended as self.__apWasm and the worker's name as self.__apWorker;
//   - fetch: the bundled real-attention files (web/data/real/*, gzipped base 85 in <script
//     type="application/octet-stream" data-ap-data="PATH">) answer from the page; anything else is
//     refused (the page loads nothing from the network).
// It installs itself when imported: in the page (reads the data blocks) or in a worker.
import { gunzipSync, strFromU8 } from 'fflate';

// Binary data blocks are base 85 (5 characters per 4 bytes; base64 takes 5.33): printable ASCII
// without '<', so no block can hold "</script" or "<!--". The first character is how many zero
// bytes pad the last group (0 to 3).
export const DIGITS = Array.from({ length: 94 }, (_, i) => String.fromCharCode(33 + i))
  .filter((c) => c !== '<')
  .slice(0, 85)
  .join('');

/** Bytes as the blocks' base-85 text. */
export function encode85(data) {
  const pad = (4 - (data.length % 4)) % 4;
  const padded = new Uint8Array(data.length + pad);
  padded.set(data);
  const view = new DataView(padded.buffer);
  const out = [String(pad)];
  for (let i = 0; i < padded.length; i += 4) {
    let n = view.getUint32(i);
    const group = new Array(5);
    for (let k = 4; k >= 0; k--) {
      group[k] = DIGITS[n % 85];
      n = Math.floor(n / 85);
    }
    out.push(group.join(''));
  }
  return out.join('');
}

/** The bytes of a block's base-85 text. */
export function bytes(text) {
  const value = new Uint8Array(128);
  for (let i = 0; i < DIGITS.length; i++) value[DIGITS.charCodeAt(i)] = i;
  const groups = (text.length - 1) / 5;
  const out = new Uint8Array(groups * 4);
  const view = new DataView(out.buffer);
  for (let g = 0, at = 1; g < groups; g++, at += 5) {
    let n = 0;
    for (let k = 0; k < 5; k++) n = n * 85 + value[text.charCodeAt(at + k)];
    view.setUint32(g * 4, n);
  }
  return out.subarray(0, out.length - Number(text[0]));
}

function installWasm(scope, wasm) {
  scope.attnEmbeddedWasm = async (variant) => {
    if (!wasm[variant]) throw new Error(`this one-file page does not carry the ${variant} build`);
    return gunzipSync(bytes(wasm[variant]));
  };
}

function installPage(scope) {
  const doc = scope.document;
  const block = (attr, value) => doc.querySelector(`script[${attr}="${value}"]`)?.textContent.trim();
  const wasm = {};
  for (const el of doc.querySelectorAll('script[data-ap-wasm]')) wasm[el.dataset.apWasm] = el.textContent.trim();
  installWasm(scope, wasm);

  const NativeWorker = scope.Worker;
  let workers = null; // the workers' bundle, unzipped once
  scope.Worker = class extends NativeWorker {
    constructor(url, options) {
      const name = String(url).split(/[?#]/)[0].split('/').pop();
      const el = doc.querySelector('script[data-ap-workers]');
      if (!el || !el.dataset.apWorkers.split(' ').includes(name)) {
        super(url, options);
        return;
      }
      workers ??= strFromU8(gunzipSync(bytes(el.textContent.trim())));
      const head = `self.__apWasm = ${JSON.stringify(wasm)}; self.__apWorker = ${JSON.stringify(name)};\n`;
      super(URL.createObjectURL(new Blob([head, workers], { type: 'text/javascript' })));
    }
  };

  // Which bundled real-attention files the page carries (the preset select disables the others).
  scope.attnCarriedData = (path) => !!block('data-ap-data', path);
  const nativeFetch = scope.fetch?.bind(scope);
  scope.fetch = async (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    if (url.startsWith('data:') || url.startsWith('blob:')) return nativeFetch(input, init);
    const path = /\/(data\/[^?#]+)/.exec(url)?.[1];
    const data = path && block('data-ap-data', path);
    if (data) return new Response(gunzipSync(bytes(data)), { headers: { 'content-type': 'application/json' } });
    throw new TypeError(`the one-file page does not carry ${path ?? url} (it loads nothing from the network)`);
  };
}

if (globalThis.document) installPage(globalThis);
else if (globalThis.__apWasm) installWasm(globalThis, globalThis.__apWasm);
