#!/usr/bin/env node
// The one-file page: `node scripts/single-file.js [--out dist/attention-playground.html]` (also
// `npm run single-file`) builds a single HTML file from web/ that opens from file://, runs in an
// <iframe sandbox="allow-scripts">, in a Jupyter output cell (srcdoc) and on a learning platform
// as one upload. Nothing in it is fetched:
//   - the page's JS is one esbuild bundle (dynamic imports inlined, no code splitting), gzipped in
//     a base-85 block that a small inline module starts from a blob: URL (APP_LOADER);
//   - style.css, lab/lab.css and KaTeX's CSS are inlined, with KaTeX's main fonts as data: URLs
//     (the rarer KaTeX fonts are left out: the browser falls back to its serif/sans fonts);
//   - the WebAssembly core is gzipped in a base-85 data block (the SIMD build; the scalar one
//     too while the file stays within MAX_FILE_BYTES), read through web/core/wasm-load.js's
//     globalThis.attnEmbeddedWasm hook (scripts/single-file-runtime.js);
//   - the workers (web/large/large-worker.js, web/import/import-worker.js) are one gzipped bundle, started from
//     blob: URLs;
//   - the bundled real-attention presets (web/data/real) are carried gzipped;
//   - a content security policy with the hashes of its scripts and styles ('wasm-unsafe-eval' to
//     compile the core, worker-src blob:), no network at all.
// The file carries an empty <script type="application/json" id="ap-embedded"> block: `attn html`
// and python/attention_playground.py fill it with a state or a file (web/embed/embedded.js); its
// data-max-bytes is the largest input they accept (MAX_EMBEDDED_BYTES, defined here only).
import { build, transform } from 'esbuild';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { DIGITS, bytes as bytesOf85, encode85 } from './single-file-runtime.js';
import { EMBEDDED_ID } from '../web/embed/embedded.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const WEB = join(ROOT, 'web');

/** The one-file page's budget on disk (docs/embedding.md "The one-file page": <= 1.5 MB). */
export const MAX_FILE_BYTES = 1.5e6;
/** The largest state or file `attn html` and the notebook module embed (bytes of input). */
export const MAX_EMBEDDED_BYTES = 50 * 1024 * 1024;
/**
 * KaTeX fonts carried inline (the ones ordinary formulas use); the others fall back. dist/ loads the
 * same ones early on a repeat visit (scripts/dist.js, web/early.js).
 */
export const KATEX_FONTS = ['KaTeX_Main-Regular', 'KaTeX_Math-Italic', 'KaTeX_Main-Bold', 'KaTeX_Size1-Regular'];
/** Where the bundles believe they live: import.meta.url in every bundled module (no file is fetched from it). */
const BASE_URL = 'https://attention-playground.invalid/web/';

// The core and the lab in one module (attn_full_simd, CMakeLists.txt): the page's two modules share
// most of their code, which inline would count twice. Its glue stands in for the core module's.
const WASM = [
  { variant: 'wasm-simd128', file: 'wasm/attn_full_simd.wasm', glue: 'wasm/attn_full_simd.js' },
  { variant: 'wasm-scalar', file: 'wasm/attn.wasm' },
];
const WORKERS = ['large/large-worker.js', 'import/import-worker.js', 'lab/lab-worker.js'];
const workerName = (w) => w.split('/').pop();

/** The inline module that starts the app from its block (its decoder is the runtime's own). */
const APP_LOADER = `const DIGITS = ${JSON.stringify(DIGITS)};
const bytes = ${bytesOf85.toString()};
const block = document.querySelector('script[data-ap-app]');
const code = await new Response(new Blob([bytes(block.textContent.trim())]).stream().pipeThrough(new DecompressionStream('gzip'))).text();
await import(URL.createObjectURL(new Blob([code], { type: 'text/javascript' })));
`;
const sha256 = (text) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
const gz85 = (bytes) => encode85(gzipSync(bytes, { level: 9 }));

/** Text safe inside a <script> or <style> element (no closing tag, no comment opener). */
function rawText(text) {
  return text.replace(/<\/(script|style)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
}

/**
 * Resolutions of the one-file bundles. web/vendor/vendor.js is a prebuilt bundle (KaTeX, d3
 * colours, fflate) esbuild cannot shake: the bundles take its source, scripts/vendor/vendor.src.js, instead
 * (the workers only its fflate part). Without the scalar build, its glue is a stub that says so.
 */
function resolutions(entry, withScalar) {
  return {
    name: 'single-file',
    setup(b) {
      b.onResolve({ filter: /vendor\/vendor\.js$/ }, () => ({ path: 'vendor', namespace: 'single-file' }));
      // web/core/wasm-load.js imports the glue of a build by a variable path (import(build.js)):
      // here by the literal paths of its BUILDS, so esbuild inlines them.
      b.onLoad({ filter: /[\\/]web[\\/]core[\\/]wasm-load\.js$/ }, ({ path }) => {
        const src = readFileSync(path, 'utf8');
        const globs = [...src.matchAll(/js: '(\.\.\/wasm\/[^']+\.js)'/g)].map((m) => m[1]);
        if (!globs.length || !src.includes('import(build.js)'))
          throw new Error('web/core/wasm-load.js no longer loads the glue by import(build.js): update scripts/single-file.js');
        const table = `({${globs.map((g) => `${JSON.stringify(g)}: () => import(${JSON.stringify(g)})`).join(', ')}})[build.js]()`;
        return { contents: src.replace('import(build.js)', table), loader: 'js' };
      });
      if (!withScalar) b.onResolve({ filter: /wasm\/attn\.js$/ }, () => ({ path: 'scalar', namespace: 'single-file' }));
      b.onResolve({ filter: /wasm\/attn_simd\.js$/ }, () => ({ path: join(WEB, WASM[0].glue) }));
      // KaTeX is inline anyway: no formulas typeset at build time (web/generated/tex.js).
      b.onResolve({ filter: /generated\/tex\.js$/ }, () => ({ path: 'no-prerendered-tex', namespace: 'single-file' }));
      // The lab modules are never loaded here: the one module has the lab (web/core/core.js Core.labMod).
      b.onResolve({ filter: /wasm\/attn_lab(_simd)?\.js$/ }, () => ({ path: 'no-lab-module', namespace: 'single-file' }));
      b.onLoad({ filter: /.*/, namespace: 'single-file' }, ({ path }) => {
        if (path === 'no-prerendered-tex') return { contents: 'export const PRERENDERED = {};', loader: 'js' };
        if (path === 'no-lab-module') {
          return {
            contents: "export default () => Promise.reject(new Error('the one-file page has no separate lab module'));",
            loader: 'js',
          };
        }
        if (path === 'scalar') {
          return {
            contents: "export default () => Promise.reject(new Error('this one-file page carries the SIMD build only'));",
            loader: 'js',
          };
        }
        const src = readFileSync(join(ROOT, 'scripts/vendor/vendor.src.js'), 'utf8');
        const fflate = src.split('\n').filter((line) => /from 'fflate'/.test(line));
        return { contents: entry === 'workers' ? fflate.join('\n') : src, resolveDir: WEB, loader: 'js' };
      });
    },
  };
}

/**
 * One bundle: the runtime (scripts/single-file-runtime.js), then web/<entry>. The workers are one
 * bundle (they share the core): it runs the worker named by self.__apWorker, which the runtime
 * sets (the dynamic import is inlined and runs before any message arrives).
 */
async function bundle(entry, format, withScalar) {
  const contents =
    entry === 'workers'
      ? `import './scripts/single-file-runtime.js';\n${WORKERS.map((w) => `if (self.__apWorker === '${workerName(w)}') import('./web/${w}');`).join('\n')}\n`
      : `import './scripts/single-file-runtime.js';\nimport './web/${entry}';\n`;
  const out = await build({
    stdin: { contents, resolveDir: ROOT, loader: 'js' },
    plugins: [resolutions(entry, withScalar)],
    bundle: true,
    splitting: false,
    format,
    minify: true,
    write: false,
    target: 'es2022',
    platform: 'browser',
    legalComments: 'none',
    logLevel: 'warning',
    // The core's node branch (web/core/wasm-load.js) imports node:fs; a browser never takes it.
    external: ['node:*'],
    define: { 'import.meta.url': JSON.stringify(`${BASE_URL}${entry === 'workers' ? WORKERS[0] : entry}`) },
  });
  return out.outputFiles[0].text;
}

/**
 * KaTeX's stylesheet without its @font-face rules, and those rules for KATEX_FONTS with the fonts
 * as data: URLs (each carried while the file has room; without them KaTeX falls back to the
 * browser's serif fonts).
 */
function katexCss() {
  const dir = join(WEB, 'vendor/katex');
  const fonts = [];
  const css = readFileSync(join(dir, 'katex.min.css'), 'utf8').replace(/@font-face\{[^}]*\}/g, (face) => {
    const name = /url\(fonts\/([A-Za-z0-9_-]+)\.woff2\)/.exec(face)?.[1];
    if (name && KATEX_FONTS.includes(name)) {
      const data = readFileSync(join(dir, 'fonts', `${name}.woff2`)).toString('base64');
      fonts.push(face.replace(/src:[^;}]*/, () => `src:url(data:font/woff2;base64,${data}) format("woff2")`));
    }
    return '';
  });
  return { css, fonts };
}

/** The page's CSS (its <link rel="stylesheet"> files, in order). */
function pageCss(html) {
  const links = [...html.matchAll(/<link rel="stylesheet" href="([^"]+)">/g)].map((m) => m[1]);
  const css = links.map((href) => readFileSync(join(WEB, href), 'utf8'));
  for (const text of css) {
    if (/url\((?!["']?data:)/.test(text))
      throw new Error('a stylesheet of web/ refers to a file by url(): inline it in scripts/single-file.js');
  }
  return { links, css: css.join('\n') };
}

/** CSS minified by esbuild (the one-file page carries every byte). */
async function minifyCss(css) {
  return (await transform(css, { loader: 'css', minify: true })).code;
}

/** The bundled real-attention files (web/data/real/<name>/attention.json), smallest first. */
function realData() {
  const dir = join(WEB, 'data/real');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((d) => existsSync(join(dir, d, 'attention.json')))
    .map((d) => ({ path: `data/real/${d}/attention.json`, text: gz85(readFileSync(join(dir, d, 'attention.json'))) }))
    .sort((a, b) => a.text.length - b.text.length);
}

/** The page with `withScalar` (both builds) or the SIMD build only; the optional parts while they fit. */
async function assemble(withScalar) {
  let html = readFileSync(join(WEB, 'index.html'), 'utf8');
  const { links, css } = pageCss(html);
  const pageStyles = await minifyCss(css);
  const katex = katexCss();
  // The app (the runtime and web/main.js, ~0.9 MB of minified JS) is a gzipped base-85 block too
  // (a third of the size); a small inline module (APP_LOADER) unzips it with the browser's
  // DecompressionStream and imports it from a blob: URL, which the policy allows ('blob:').
  const appBlock = `<script type="application/octet-stream" data-ap-app>${gz85(Buffer.from(await bundle('main.js', 'esm', withScalar)))}</script>`;
  const app = rawText(APP_LOADER);
  const workers = gz85(Buffer.from(await bundle('workers', 'iife', withScalar)));
  // The page's classic scripts (early.js: what must hold from the first paint) go inline as they are.
  const classic = [];
  const favicon = `data:image/png;base64,${readFileSync(join(WEB, 'favicon.png')).toString('base64')}`;

  html = html.replace(/<link rel="icon" href="[^"]*" type="image\/png">/, () => `<link rel="icon" href="${favicon}" type="image/png">`);
  for (const href of links)
    html = html.replace(new RegExp(`\\s*<link rel="stylesheet" href="${href.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}">`), '');
  html = html.replace(/<script src="([^"]+)"><\/script>/g, (_, src) => {
    classic.push(rawText(readFileSync(join(WEB, src), 'utf8')));
    return `<script>${classic.at(-1)}</script>`;
  });
  html = html.replace(/\s*<link rel="(?:modulepreload|preload)"[^>]*>/g, ''); // everything is inline
  // The one file carries no notes on the real heads' provenance (the served copy links them).
  html = html.replace(/\s*<a id="footer-data" [^>]*>[^<]*<\/a>/, '');
  if (/<script[^>]+src=(?!"main\.js")|<link rel="stylesheet"/.test(html))
    throw new Error('web/index.html loads a file scripts/single-file.js does not inline');

  const blocks = [`<script type="application/octet-stream" data-ap-workers="${WORKERS.map(workerName).join(' ')}">${workers}</script>`];
  blocks.push(`<script type="application/json" id="${EMBEDDED_ID}" data-max-bytes="${MAX_EMBEDDED_BYTES}"></script>`);
  for (const { variant, file } of WASM.filter((w) => withScalar || w.variant === 'wasm-simd128')) {
    blocks.push(`<script type="application/octet-stream" data-ap-wasm="${variant}">${gz85(readFileSync(join(WEB, file)))}</script>`);
  }

  // The optional parts, most useful first: the real-attention presets, then KaTeX's fonts.
  const optional = [
    ...realData().map((d) => ({ block: `<script type="application/octet-stream" data-ap-data="${d.path}">${d.text}</script>` })),
    ...katex.fonts.map((font) => ({ style: rawText(font) })),
  ];
  const page = (chosen) => {
    const styles = [rawText(pageStyles), rawText(katex.css), ...chosen.filter((o) => o.style).map((o) => o.style)];
    const policy = [
      "default-src 'none'",
      `script-src ${[...classic, app].map(sha256).join(' ')} blob: 'wasm-unsafe-eval'`,
      `style-src ${styles.map(sha256).join(' ')}`,
      'img-src data: blob:',
      'font-src data:',
      'connect-src data: blob:',
      'worker-src blob:',
      "frame-src 'none'",
      "object-src 'none'",
      "base-uri 'none'",
      "form-action 'none'",
    ].join('; ');
    // The head: the policy, the favicon, the styles (KaTeX's as #katex-css, which
    // web/views/formulas.js then does not load), the classic scripts; the app runs as a module at the end of
    // the body, after the data blocks it reads.
    const [pageStyle, katexStyle, ...fontStyles] = styles;
    const styleTags = [
      `<style>${pageStyle}</style>`,
      `<style id="katex-css">${katexStyle}</style>`,
      ...fontStyles.map((f) => `<style>${f}</style>`),
    ];
    return html
      .replace(
        /<meta http-equiv="Content-Security-Policy" content="[^"]*">/,
        () => `<meta http-equiv="Content-Security-Policy" content="${policy}">`,
      )
      .replace('<script type="module" src="main.js"></script>', () => styleTags.join('\n  '))
      .replace(
        '</body>',
        () =>
          `${[...blocks, ...chosen.filter((o) => o.block).map((o) => o.block), appBlock].join('\n')}\n<script type="module">${app}</script>\n</body>`,
      );
  };
  const chosen = [];
  for (const part of optional) {
    if (Buffer.byteLength(page([...chosen, part])) <= MAX_FILE_BYTES) chosen.push(part);
  }
  html = page(chosen);
  return {
    html,
    bytes: Buffer.byteLength(html),
    variants: withScalar ? WASM.map((w) => w.variant) : ['wasm-simd128'],
    data: chosen.filter((o) => o.block).length,
    fonts: chosen.filter((o) => o.style).length,
  };
}

/**
 * Builds the one-file page: both WebAssembly builds when they fit MAX_FILE_BYTES, else the SIMD
 * one only; then as many bundled real-attention presets as still fit (the others say they are
 * not in the file when chosen).
 * @returns {Promise<{html: string, bytes: number, variants: string[], data: number, fonts: number}>}
 */
export async function buildSingleFile() {
  const both = await assemble(true);
  return both.bytes <= MAX_FILE_BYTES ? both : assemble(false);
}

async function main() {
  const args = process.argv.slice(2);
  if (args.includes('--help')) {
    console.log('usage: node scripts/single-file.js [--out dist/attention-playground.html]');
    return;
  }
  const i = args.indexOf('--out');
  // --out, else $DIST_DIR/attention-playground.html (scripts/dist.js sets it), else dist/.
  const out = resolve(i >= 0 && args[i + 1] ? args[i + 1] : join(process.env.DIST_DIR || join(ROOT, 'dist'), 'attention-playground.html'));
  for (const f of WASM) {
    if (!existsSync(join(WEB, f.file))) throw new Error(`web/${f.file} is missing: run \`bash scripts/build.sh\` first`);
  }
  const { html, bytes, variants, data, fonts } = await buildSingleFile();
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, html);
  const kb = (n) => `${(n / 1024).toFixed(0)} KB`;
  console.log(
    `${relative(process.cwd(), out) || out}: ${kb(statSync(out).size)} (${variants.join(' + ')}, ${data} real-attention presets, ${fonts} KaTeX fonts; budget ${kb(MAX_FILE_BYTES)})`,
  );
  // Over budget the file still works: a warning here, a failure in tests/browser/single_file.test.js.
  if (bytes > MAX_FILE_BYTES) console.warn(`warning: the one-file page is over its budget of ${MAX_FILE_BYTES} bytes`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((e) => {
    console.error(e.message);
    process.exit(1);
  });
}
