// npm run dist: the release, dist/ — the static site and nothing else (docs/deploy.md).
//
//   dist/index.html, embed.js, embed-frames.js, sw.js   entry files: fixed names
//   dist/assets/…                       everything else, named <name>-<content hash>.<ext>
//   dist/assets/data/real/…             the bundled real heads (read by name, so not renamed)
//   every file has a .br and a .gz beside it (a static host may send them as Content-Encoding)
//
// The page's modules are bundled by esbuild (minified, split at each dynamic import(), so a view
// that is not on the first screen is its own chunk), and its chunks joined again by rollup where
// main.js imports them statically (mergeFirstScreen: the first screen is one module file). Every URL is relative, so the folder works
// from any sub-path (/courses/attention/ as well as /). index.html keeps its content security
// policy (tests/browser/csp.test.js) with two additions: the sha256 hashes of the stylesheet and
// of early.js, which the release inlines (no 'unsafe-inline'); the release's extra tags (preloads,
// the service worker's name) are plain <link>/<meta> elements after the policy.
// The service worker (web/sw.js) gets the release's file list and content hashes, so a new
// release is a new cache, filled and checked completely before it is used.
// Last, scripts/single-file.js (the one-file page) runs if it exists.
//
//   node scripts/dist.js [--fast]     --fast: quicker, larger .br files (the browser tests' copy)
//   DIST_DIR=<dir> writes there instead of dist/
import { build, transform } from 'esbuild';
import { rollup } from 'rollup';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, extname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { execFileSync } from 'node:child_process';
import { brotliCompressSync, constants as zc, gzipSync } from 'node:zlib';
import { KATEX_FONTS } from './single-file.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const WEB = join(ROOT, 'web');
const DIST = process.env.DIST_DIR ?? join(ROOT, 'dist');
const ASSETS = join(DIST, 'assets');
const FAST = process.argv.includes('--fast');

const sha = (data) => createHash('sha256').update(data).digest('hex');
const short = (data) => sha(data).slice(0, 10);
const rel = (p) => relative(DIST, p).split(sep).join('/');

/** Writes `data` as dist/assets/<stem>-<hash><ext>; returns the path relative to dist/. */
function emitHashed(stem, ext, data, dir = ASSETS) {
  const file = join(dir, `${stem}-${short(data)}${ext}`);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, data);
  return rel(file);
}

function requireInputs() {
  for (const f of [
    'wasm/attn.js',
    'wasm/attn.wasm',
    'wasm/attn_simd.js',
    'wasm/attn_simd.wasm',
    'wasm/attn_lab.js',
    'wasm/attn_lab.wasm',
    'wasm/attn_lab_simd.js',
    'wasm/attn_lab_simd.wasm',
    'vendor/katex/katex.min.css',
    'generated/schema.js',
    'generated/tex.js',
  ]) {
    if (!existsSync(join(WEB, f))) throw new Error(`web/${f} is missing: run \`npm run build\` first`);
  }
}

/** The WebAssembly builds (core and lab modules): the .wasm and its Emscripten glue, both renamed by content. */
function emitCore() {
  const out = {};
  for (const name of ['attn', 'attn_simd', 'attn_lab', 'attn_lab_simd']) {
    const wasm = readFileSync(join(WEB, 'wasm', `${name}.wasm`));
    const wasmPath = emitHashed(name, '.wasm', wasm);
    // The glue names its .wasm beside itself (new URL("attn.wasm", import.meta.url)).
    const glue = readFileSync(join(WEB, 'wasm', `${name}.js`), 'utf8');
    const quoted = `"${name}.wasm"`;
    if (!glue.includes(quoted)) throw new Error(`web/wasm/${name}.js does not name ${quoted}`);
    const jsPath = emitHashed(name, '.js', glue.split(quoted).join(`"${basename(wasmPath)}"`));
    out[name] = { wasm: wasmPath, js: jsPath };
  }
  return out;
}

/**
 * An esbuild plugin: the bundle reads the vendor libraries from their sources (so KaTeX is a
 * chunk of its own and unused exports are dropped), and the paths that name build outputs in
 * strings (the WASM glue, the workers, KaTeX's stylesheet) are replaced by the release's names.
 */
function releasePaths(replacements) {
  return {
    name: 'release-paths',
    setup(b) {
      b.onResolve({ filter: /vendor\/(vendor|katex)\.js$/ }, (args) => ({
        path: join(ROOT, 'scripts/vendor', args.path.endsWith('katex.js') ? 'katex.src.js' : 'vendor.src.js'),
      }));
      b.onLoad({ filter: /[\\/]web[\\/].*\.js$/ }, (args) => {
        const file = relative(WEB, args.path).split(sep).join('/');
        const todo = replacements[file];
        if (!todo) return undefined;
        let text = readFileSync(args.path, 'utf8');
        for (const [from, to] of todo) {
          if (!text.includes(from)) throw new Error(`dist: web/${file} no longer contains ${from}`);
          text = text.split(from).join(to);
        }
        return { contents: text, loader: 'js' };
      });
    },
  };
}

/**
 * An esbuild plugin for the page's bundle: one string chunk per language instead of the tables
 * with both (web/i18n/i18n.js loadLang). Each table module is evaluated here and written back as the
 * one language's object literal; a table's functions (plurals) keep their source, with the small
 * helpers they call (the module's one-line `const x = (…) => …;` arrows). The result is checked
 * against the tables before it is used.
 */
async function i18nSplit() {
  const { LANGS } = await import(pathToFileURL(join(WEB, 'i18n/i18n.js')).href);
  const index = readFileSync(join(WEB, 'i18n/index.js'), 'utf8');
  const names = [...index.matchAll(/^import (\w+) from '\.\/(\w+)\.js';$/gm)].map((m) => m[2]);
  const sources = {};
  for (const lang of LANGS) {
    const parts = [];
    for (const name of names) {
      const file = join(WEB, 'i18n', `${name}.js`);
      const table = (await import(pathToFileURL(file).href)).default[lang];
      const helpers = [...readFileSync(file, 'utf8').matchAll(/^const (?!PAIRS\b|split\b)\w+ = \(.*;$/gm)].map((m) => m[0]);
      const body = Object.entries(table)
        .map(([k, v]) => `${JSON.stringify(k)}:${typeof v === 'function' ? `(${v.toString()})` : JSON.stringify(v)}`)
        .join(',\n');
      parts.push(`(() => {\n${helpers.join('\n')}\nreturn {${body}};\n})()`);
    }
    sources[lang] = `export default [${parts.join(',\n')}];\n`;
    // The check: the same keys, strings and functions as the tables.
    const got = (await import(`data:text/javascript,${encodeURIComponent(sources[lang])}`)).default;
    for (const [i, name] of names.entries()) {
      const want = (await import(pathToFileURL(join(WEB, 'i18n', `${name}.js`)).href)).default[lang];
      for (const [k, v] of Object.entries(want)) {
        const g = got[i][k];
        const same = typeof v === 'function' ? typeof g === 'function' && String(g) === String(v) : g === v;
        if (!same) throw new Error(`dist: the ${lang} string ${k} of web/i18n/${name}.js did not survive the split`);
      }
    }
  }
  return {
    name: 'i18n-split',
    setup(b) {
      b.onResolve({ filter: /^ap-i18n:/ }, (args) => ({ path: args.path.slice('ap-i18n:'.length), namespace: 'ap-i18n' }));
      b.onLoad({ filter: /.*/, namespace: 'ap-i18n' }, (args) => ({ contents: sources[args.path], loader: 'js' }));
      b.onLoad({ filter: /[\\/]web[\\/]i18n[\\/]index\.js$/ }, () => ({
        contents: `export const TABLES = [];\nexport const LOADERS = {${LANGS.map((l) => `${JSON.stringify(l)}: () => import(${JSON.stringify(`ap-i18n:${l}`)})`).join(', ')}};\n`,
        loader: 'js',
      }));
    },
  };
}

const ESBUILD = {
  bundle: true,
  format: 'esm',
  minify: true,
  target: 'es2022',
  logLevel: 'warning',
  metafile: true,
  charset: 'utf8',
  external: ['node:*'],
};

/** Output files of an esbuild run, relative to dist/, by entry point (web/…) and all. */
function outputs(result) {
  const entries = {};
  for (const [out, meta] of Object.entries(result.metafile.outputs)) {
    if (meta.entryPoint) entries[meta.entryPoint.replace(/^web\//, '')] = rel(join(ROOT, out));
  }
  return entries;
}

/**
 * Joins the page's esbuild output into fewer files: esbuild's code splitting makes a chunk of every
 * module that main.js and a dynamic import share, so the first screen was main.js and 14 more
 * modulepreloaded chunks, each request 1-8 ms of the main thread at 4x CPU through the service
 * worker on a repeat visit. Rollup bundles esbuild's output again from main.js: what main.js
 * imports statically becomes part of it (rollup does not split off modules that are already loaded
 * when a dynamic import runs), each dynamic import stays a chunk of its own. The offline repeat
 * visit of the class link: 1,089 -> 1,014 ms median of 9 at 4x (docs/performance.md
 * "Loading"). Replaces esbuild's files in dist/assets/ with rollup's (minified by esbuild again).
 * @param {import('esbuild').BuildResult} page esbuild's result (metafile) for web/main.js
 * @returns {Promise<{mainOut: string, chunkOf: (entry: string) => string[], preloads: string[]}>}
 *   paths relative to dist/: the page's entry, the file of a dynamic import's entry point (web/…
 *   or a plugin's name) and the files it imports statically beyond main.js's, main.js's static imports
 */
async function mergeFirstScreen(page) {
  const outputs = page.metafile.outputs;
  const own = new Set(Object.keys(outputs).map((o) => join(ROOT, o)));
  const mainAbs = join(
    ROOT,
    Object.keys(outputs).find((o) => outputs[o].entryPoint === 'web/main.js'),
  );
  const bundle = await rollup({
    input: mainAbs,
    preserveEntrySignatures: false,
    // Only esbuild's own outputs are joined; the core's glue, the workers and node: builtins stay.
    external: (id, importer) => !own.has(isAbsolute(id) ? id : importer ? resolve(dirname(importer), id) : id),
    onwarn: (warning) => {
      throw new Error(`dist: rollup: ${warning.message}`);
    },
    plugins: [
      {
        name: 'minify',
        renderChunk: async (code) => (await transform(code, { minify: true, target: 'es2022', charset: 'utf8', loader: 'js' })).code,
      },
    ],
  });
  const { output } = await bundle.generate({
    format: 'es',
    entryFileNames: 'main-[hash].js',
    chunkFileNames: 'chunk-[hash].js',
    hashCharacters: 'base36',
  });
  await bundle.close();
  for (const file of own) rmSync(file);
  for (const chunk of output) writeFileSync(join(ASSETS, chunk.fileName), chunk.code);
  const byName = new Map(output.map((c) => [c.fileName, c]));
  const closure = (chunk) => {
    const seen = new Set();
    const walk = (c) => {
      for (const name of c.imports) {
        if (byName.has(name) && !seen.has(name)) {
          seen.add(name);
          walk(byName.get(name));
        }
      }
    };
    walk(chunk);
    return [...seen];
  };
  const main = output.find((c) => c.isEntry);
  const preloads = closure(main);
  const asset = (name) => rel(join(ASSETS, name));
  const chunkOf = (entry) => {
    const found = Object.keys(outputs).find((o) => outputs[o].entryPoint === entry);
    if (!found) throw new Error(`dist: no chunk for ${entry}`);
    const chunk = output.find((c) => c.facadeModuleId === join(ROOT, found));
    if (!chunk) throw new Error(`dist: rollup made no chunk of ${entry}`);
    if (chunk === main) return [];
    return [chunk.fileName, ...closure(chunk)].filter((n) => n !== main.fileName && !preloads.includes(n)).map(asset);
  };
  return { mainOut: asset(main.fileName), chunkOf, preloads: preloads.map(asset) };
}

/** KaTeX's stylesheet and its WOFF2 fonts (every browser that runs the core reads WOFF2). */
function emitKatexCss() {
  const dir = join(ASSETS, 'katex');
  const mainFonts = []; // KATEX_FONTS, as dist/ names them
  mkdirSync(join(dir, 'fonts'), { recursive: true });
  let css = readFileSync(join(WEB, 'vendor/katex/katex.min.css'), 'utf8');
  css = css.replace(/,url\(fonts\/[^)]+\.woff\) format\("woff"\)/g, '').replace(/,url\(fonts\/[^)]+\.ttf\) format\("truetype"\)/g, '');
  const fonts = [...css.matchAll(/url\((fonts\/[^)]+)\)/g)].map((m) => m[1]);
  for (const font of new Set(fonts)) {
    if (!font.endsWith('.woff2')) throw new Error(`dist: KaTeX's CSS names ${font}`);
    const data = readFileSync(join(WEB, 'vendor/katex', font));
    const hashed = `fonts/${basename(font, '.woff2')}-${short(data)}.woff2`;
    writeFileSync(join(dir, hashed), data);
    css = css.split(`url(${font})`).join(`url(${hashed})`);
    if (KATEX_FONTS.includes(basename(font, '.woff2'))) mainFonts.push(rel(join(dir, hashed)));
  }
  return { css: emitHashed('katex', '.css', css, dir), mainFonts };
}

async function main() {
  requireInputs();
  rmSync(DIST, { recursive: true, force: true });
  mkdirSync(ASSETS, { recursive: true });

  const core = emitCore();
  const { css: katexCss, mainFonts: katexFonts } = emitKatexCss();
  // Paths in strings, as each source file writes them, and as the bundle in dist/assets/ must.
  const fromAssets = (p) => `./${relative('assets', p).split(sep).join('/')}`;
  const replacements = {
    'core/wasm-load.js': [
      ["'../wasm/attn_simd.js'", `'${fromAssets(core.attn_simd.js)}'`],
      ["'../wasm/attn_simd.wasm'", `'${fromAssets(core.attn_simd.wasm)}'`],
      ["'../wasm/attn.js'", `'${fromAssets(core.attn.js)}'`],
      ["'../wasm/attn.wasm'", `'${fromAssets(core.attn.wasm)}'`],
      ["'../wasm/attn_lab_simd.js'", `'${fromAssets(core.attn_lab_simd.js)}'`],
      ["'../wasm/attn_lab_simd.wasm'", `'${fromAssets(core.attn_lab_simd.wasm)}'`],
      ["'../wasm/attn_lab.js'", `'${fromAssets(core.attn_lab.js)}'`],
      ["'../wasm/attn_lab.wasm'", `'${fromAssets(core.attn_lab.wasm)}'`],
    ],
    'views/tex.js': [["'../vendor/katex/katex.min.css'", `'${fromAssets(katexCss)}'`]],
  };

  // The workers first: the page's bundle names them.
  const workers = await build({
    ...ESBUILD,
    entryPoints: ['web/large/large-worker.js', 'web/import/import-worker.js', 'web/lab/lab-worker.js'],
    absWorkingDir: ROOT,
    outdir: ASSETS,
    entryNames: '[name]-[hash]',
    plugins: [releasePaths(replacements)],
  });
  const workerOut = outputs(workers);
  replacements['large/large.js'] = [["'./large-worker.js'", `'${fromAssets(workerOut['large/large-worker.js'])}'`]];
  replacements['import/worker-client.js'] = [["'./import-worker.js'", `'${fromAssets(workerOut['import/import-worker.js'])}'`]];
  replacements['lab/offthread.js'] = [["'./lab-worker.js'", `'${fromAssets(workerOut['lab/lab-worker.js'])}'`]];

  // The page: main.js and a chunk per dynamic import (lab views, import view, KaTeX, strings).
  const page = await build({
    ...ESBUILD,
    entryPoints: ['web/main.js'],
    absWorkingDir: ROOT,
    outdir: ASSETS,
    splitting: true,
    entryNames: '[name]-[hash]',
    chunkNames: 'chunk-[hash]',
    plugins: [await i18nSplit(), releasePaths(replacements)],
  });
  const { mainOut, chunkOf, preloads } = await mergeFirstScreen(page);
  // What web/early.js preloads for a link: its language's strings, and the lesson when it has one
  // (dynamic imports main.js would only start once it runs; with the hints they download at once).
  const early = [
    ...(await import(pathToFileURL(join(WEB, 'i18n/i18n.js')).href)).LANGS.map((l) => [l, chunkOf(`ap-i18n:${l}`)]),
    ['lesson', chunkOf('web/lesson/panel.js')],
    // A repeat visit (its files come from the service worker's cache) applies KaTeX's stylesheet
    // and loads its main fonts at once: the first screen's formulas are then laid out once, with
    // their fonts, instead of again when the fonts arrive (docs/performance.md "Loading").
    ['katex', [katexCss, ...katexFonts]],
  ];
  // Only what the page's own <link rel="modulepreload"> hints do not already name: each preload
  // early.js adds costs a request on the main thread (8-14 ms at 4x CPU, through the service
  // worker offline) even for a file already on its way.
  const extra = (files) => files.filter((f) => !preloads.includes(f));
  const preloadMeta = `<meta name="attention-playground:preload" content="${early.map(([k, files]) => `${k}=${extra(files).join(',')}`).join(';')}">`;

  // embed.js keeps its name (course pages link it); its chunks are hashed.
  await build({
    ...ESBUILD,
    entryPoints: ['web/embed.js'],
    absWorkingDir: ROOT,
    outdir: DIST,
    splitting: true,
    entryNames: '[name]',
    chunkNames: 'assets/chunk-[hash]',
    plugins: [releasePaths(replacements)],
  });

  // Styles: the page's sheets (web/index.html's stylesheet links, in their order) as one file.
  const sheets = [...readFileSync(join(WEB, 'index.html'), 'utf8').matchAll(/<link rel="stylesheet" href="([^"]+)">/g)].map((m) => m[1]);
  if (!sheets.length) throw new Error('dist: web/index.html links no stylesheet');
  const css = await build({
    stdin: { contents: sheets.map((href) => `@import "./${href}";\n`).join(''), resolveDir: WEB, loader: 'css' },
    bundle: true,
    minify: true,
    write: false,
    logLevel: 'warning',
  });
  const cssText = css.outputFiles[0].text.trim();

  const small = async (file) =>
    (await transform(readFileSync(join(WEB, file), 'utf8'), { minify: true, loader: extname(file).slice(1) })).code;
  const earlyCode = (await small('early.js')).trim();
  // A PNG, not an SVG: Chrome decodes the page's favicon on its main thread, and an SVG one is a
  // whole SVG document there (37-55 ms at 4x CPU in the offline trace, before the first state).
  const faviconPath = emitHashed('favicon', '.png', readFileSync(join(WEB, 'favicon.png')));

  // The bundled real heads, under the name presets.js builds (./data/real/<dataset>/…).
  cpSync(join(WEB, 'data'), join(ASSETS, 'data'), { recursive: true });

  // index.html: the same markup and policy, the release's file names, and preloads so the core
  // and the first screen's modules download in parallel instead of one after another.
  let html = readFileSync(join(WEB, 'index.html'), 'utf8');
  const swap = (from, to) => {
    if (!html.includes(from)) throw new Error(`dist: web/index.html no longer contains ${from}`);
    html = html.split(from).join(to);
  };
  swap('<link rel="icon" href="favicon.png"', `<link rel="icon" href="${faviconPath}"`);
  swap('<a id="footer-data" href="data/real/README.md"', '<a id="footer-data" href="assets/data/real/README.md"');
  // The stylesheet and early.js are inlined, each allowed by its sha256 hash in the policy (still
  // no 'unsafe-inline'): as files, they were two more round trips before the body was parsed and
  // the module and core requests went out (the link sat idle for ~300 ms of a 1.6 Mbps phone
  // profile; docs/performance.md "Loading"). Everything else stays a file.
  const inline = (tag, text) => {
    if (new RegExp(`</${tag}|<!--`, 'i').test(text)) throw new Error(`dist: the inlined ${tag} contains </${tag} or <!--`);
    return `<${tag}>${text}</${tag}>`;
  };
  const hash = (text) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
  swap("script-src 'self'", `script-src 'self' ${hash(earlyCode)}`);
  swap("style-src 'self'", `style-src 'self' ${hash(cssText)}`);
  swap(`<link rel="stylesheet" href="${sheets[0]}">\n`, `${inline('style', cssText)}\n`);
  for (const href of sheets.slice(1)) swap(`  <link rel="stylesheet" href="${href}">\n`, '');
  // early.js blocks the parser (it runs once the stylesheet above is in, so the markup is never
  // styled without it); the preload hints it reads come first.
  swap(
    '\n  <!-- Embed mode from the first paint (main.js applies every page option once it runs). -->\n  <script src="early.js"></script>',
    '',
  );
  swap(
    '<script type="module" src="main.js"></script>',
    `${preloadMeta}\n  ${inline('script', earlyCode)}\n  <script type="module" src="main.js"></script>`,
  );
  const hints = [
    `<meta name="attention-playground:service-worker" content="sw.js">`,
    ...preloads.map((p) => `<link rel="modulepreload" href="${p}">`),
    `<link rel="modulepreload" href="${core.attn_simd.js}">`,
    `<link rel="preload" href="${core.attn_simd.wasm}" as="fetch" type="application/wasm" crossorigin>`,
  ];
  swap('<script type="module" src="main.js"></script>', [`<script type="module" src="${mainOut}"></script>`, ...hints].join('\n  '));
  html = html.replace(/\n\s*<!--[\s\S]*?-->/g, '');
  writeFileSync(join(DIST, 'index.html'), html);

  // The iframe snippet's script under its plain name: the snippet a teacher copies loads
  // embed-frames.js from the release (web/page/share-dialog.js), as a course page served by a CDN
  // does (tests/browser/pack.test.js). The sample course page is a developer page
  // (dev/embed-demo.html), not released.
  writeFileSync(join(DIST, 'embed-frames.js'), await small('embed-frames.js'));

  // The service worker: the release's files with their hashes (web/sw.js explains its use).
  const files = listFiles(DIST).filter((f) => !/\.(br|gz)$/.test(f));
  const manifest = files.map((f) => [f === 'index.html' ? './' : f, sha(readFileSync(join(DIST, f))).slice(0, 32)]);
  manifest.sort((a, b) => (a[0] < b[0] ? -1 : 1));
  const version = short(JSON.stringify(manifest));
  const variants = {
    simd: [core.attn.js, core.attn.wasm, core.attn_lab.js, core.attn_lab.wasm],
    scalar: [core.attn_simd.js, core.attn_simd.wasm, core.attn_lab_simd.js, core.attn_lab_simd.wasm],
  };
  const release = JSON.stringify({ version, files: manifest, skip: variants });
  const sw = readFileSync(join(WEB, 'sw.js'), 'utf8');
  if (!sw.includes('self.RELEASE')) throw new Error('dist: web/sw.js has no self.RELEASE');
  writeFileSync(join(DIST, 'sw.js'), (await transform(`self.RELEASE=${release};\n${sw}`, { minify: true, loader: 'js' })).code);

  if (existsSync(join(ROOT, 'scripts/single-file.js'))) {
    execFileSync(process.execPath, [join(ROOT, 'scripts/single-file.js')], { stdio: 'inherit', env: { ...process.env, DIST_DIR: DIST } });
  }

  // Precompressed copies beside every file (a static host serves them as Content-Encoding).
  let raw = 0;
  let br = 0;
  for (const f of listFiles(DIST)) {
    if (/\.(br|gz)$/.test(f)) continue;
    const data = readFileSync(join(DIST, f));
    const b = brotliCompressSync(data, { params: { [zc.BROTLI_PARAM_QUALITY]: FAST ? 5 : 11, [zc.BROTLI_PARAM_SIZE_HINT]: data.length } });
    writeFileSync(join(DIST, `${f}.br`), b);
    writeFileSync(join(DIST, `${f}.gz`), gzipSync(data, { level: 9 }));
    raw += data.length;
    br += b.length;
  }
  const kb = (n) => `${(n / 1024).toFixed(0)} KB`;
  console.log(`dist: ${files.length} files, ${kb(raw)} (${kb(br)} brotli), release ${version} -> ${relative(process.cwd(), DIST) || '.'}/`);
}

function listFiles(dir, base = dir) {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? listFiles(p, base) : [relative(base, p).split(sep).join('/')];
  });
}

main().catch((e) => {
  console.error(e.message);
  process.exit(1);
});
