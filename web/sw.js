// The release's service worker (dist/sw.js; docs/deploy.md "Offline"): after the first visit the
// page opens with no network. `npm run dist` prepends self.RELEASE = {version, files: [[url, sha256
// prefix], …], skip: {simd: [urls], scalar: [urls]}}: every file of the release with its content
// hash, and the core build each browser does not load (the page registers sw.js?core=simd|scalar).
// web/ itself never registers it (only dist/index.html names it, web/page/offline.js).
//
// One cache per release ("attention-playground-<version>", the version a hash of all the files'
// hashes). Install fetches every file past the HTTP cache and checks its hash; one missing or
// different file fails the install, so a cache never holds a mix of two releases. A new release
// waits until no page of the old one is open, then replaces the old cache (activate deletes it).
// Requests are answered from this release's cache only, else from the network.
const { version, files, skip } = self.RELEASE;
const CACHE = `attention-playground-${version}`;
const core = new URL(self.location.href).searchParams.get('core') === 'scalar' ? 'scalar' : 'simd';
const scope = new URL('./', self.location.href);

async function digest(buffer) {
  const bytes = new Uint8Array(await crypto.subtle.digest('SHA-256', buffer));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

async function fill() {
  const cache = await caches.open(CACHE);
  const left = new Set(skip[core]);
  try {
    await Promise.all(
      files
        .filter(([url]) => !left.has(url))
        .map(async ([url, hash]) => {
          const response = await fetch(new Request(new URL(url, scope), { cache: 'reload' }));
          if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
          const body = await response.clone().arrayBuffer();
          if (!(await digest(body)).startsWith(hash)) throw new Error(`${url}: not this release's file`);
          await cache.put(new URL(url, scope), response);
        }),
    );
  } catch (e) {
    await caches.delete(CACHE);
    throw e;
  }
}

self.addEventListener('install', (event) => event.waitUntil(fill()));

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name.startsWith('attention-playground-') && name !== CACHE) await caches.delete(name);
      }
      await self.clients.claim();
    })(),
  );
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== scope.origin || !url.pathname.startsWith(scope.pathname)) return;
  event.respondWith(
    (async () => {
      const cache = await caches.open(CACHE);
      // The page is index.html whatever its query (?selftest=…); "./" is stored as the page.
      const page = url.pathname.endsWith('/') || url.pathname.endsWith('/index.html');
      const key = page ? new URL('./', url) : new URL(url.pathname, url);
      return (await cache.match(key)) ?? fetch(request);
    })(),
  );
});
