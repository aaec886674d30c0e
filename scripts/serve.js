// A minimal static file server for web/ on 127.0.0.1 (any static server that sends .wasm as
// application/wasm works; this one needs nothing beyond node).
//   node scripts/serve.js [--port 8000] [--root web] [--static-host] [--base /courses/attention/]
// Tries the next ports if the one asked for is taken, then prints the URL.
// --base serves the folder under that path instead of at / (npm run preview -- --base /x/y/: the
// release as a course site's sub-path holds it); the path without its final slash redirects to
// it, anything outside it is 404.
// --static-host (npm run preview: --root dist) serves like a static host serving the release
// (docs/deploy.md): a file's precompressed .br or .gz beside it when the browser accepts that
// encoding (Content-Encoding, Vary: Accept-Encoding), hashed files (assets/) cacheable for a year,
// the entry files revalidated on every load. Both modes send Access-Control-Allow-Origin: *.
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.md': 'text/plain; charset=utf-8',
  '.npy': 'application/octet-stream',
};

/** Starts serving `root`; resolves to {server, url}. */
export async function serve({
  root = fileURLToPath(new URL('../web', import.meta.url)),
  port = 8000,
  host = '127.0.0.1',
  tries = 20,
  staticHost = false,
  base: prefix = '/',
} = {}) {
  const base = resolve(root);
  const devRoot =
    base === resolve(fileURLToPath(new URL('../web', import.meta.url))) ? resolve(fileURLToPath(new URL('../dev', import.meta.url))) : null;
  prefix = basePath(prefix);
  const server = createServer(async (req, res) => {
    try {
      let path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
      if (prefix !== '/') {
        if (`${path}/` === prefix) {
          res.writeHead(301, { Location: prefix }).end();
          return;
        }
        if (!path.startsWith(prefix)) throw new Error('outside the base path');
        path = path.slice(prefix.length - 1);
      }
      // The developer pages (dev/: benchmarks, scenarios, demos) are served beside web/ at /dev/,
      // never from a release (dist/ has none).
      const dev = devRoot && (path === '/dev' || path.startsWith('/dev/'));
      const from = dev ? devRoot : base;
      let file = normalize(join(from, dev ? path.slice('/dev'.length) : path));
      if (file !== from && !file.startsWith(from + sep)) {
        res.writeHead(403).end();
        return;
      }
      if ((await stat(file).catch(() => null))?.isDirectory()) file = join(file, 'index.html');
      // Access-Control-Allow-Origin: * as GitHub Pages and most static hosts send it: a frame
      // sandboxed without allow-same-origin has the origin "null", and its module scripts and
      // .wasm are CORS requests (docs/embedding.md "Sandboxed frames").
      const headers = {
        'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
        'Cache-Control': 'no-cache',
        'Access-Control-Allow-Origin': '*',
      };
      let body = null;
      if (staticHost) {
        const accepts = String(req.headers['accept-encoding'] ?? '');
        for (const [enc, ext] of [
          ['br', '.br'],
          ['gzip', '.gz'],
        ]) {
          if (body || !new RegExp(`\\b${enc}\\b`).test(accepts)) continue;
          body = await readFile(file + ext).catch(() => null);
          if (body) headers['Content-Encoding'] = enc;
        }
        headers.Vary = 'Accept-Encoding';
        const hashed = file.includes(`${sep}assets${sep}`) && !file.includes(`${sep}assets${sep}data${sep}`);
        if (hashed) headers['Cache-Control'] = 'public, max-age=31536000, immutable';
      }
      body ??= await readFile(file);
      headers['Content-Length'] = body.length;
      res.writeHead(200, headers);
      res.end(req.method === 'HEAD' ? undefined : body);
    } catch {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
    }
  });
  for (let p = port; p < port + tries; p++) {
    const ok = await new Promise((done) => {
      server.once('error', () => done(false));
      server.listen(p, host, () => done(true));
    });
    if (ok) return { server, url: `http://${host}:${server.address().port}${prefix}` };
  }
  throw new Error(`no free port in ${port}..${port + tries - 1}`);
}

/** '/courses/attention' or 'courses/attention/' -> '/courses/attention/'; refuses '..' and the like. */
export function basePath(text) {
  const parts = String(text).split('/').filter(Boolean);
  if (parts.some((p) => p === '.' || p === '..' || /[\\?#%]/.test(p)))
    throw new Error(`serve: --base must be a plain path such as /courses/attention/ (got "${text}")`);
  return `/${parts.map((p) => `${p}/`).join('')}`;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const arg = (name, dflt) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? process.argv[i + 1] : dflt;
  };
  const port = Number(arg('--port', process.env.PORT ?? 8000));
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`serve: the port must be a whole number from 0 to 65535 (got "${arg('--port', process.env.PORT)}")`);
    process.exit(64);
  }
  let base;
  try {
    base = basePath(arg('--base', '/'));
  } catch (e) {
    console.error(e.message);
    process.exit(64);
  }
  const { url } = await serve({ port, root: arg('--root', undefined), staticHost: process.argv.includes('--static-host'), base });
  console.log(`Attention Playground is being served at ${url}  (Ctrl+C to stop)`);
}
