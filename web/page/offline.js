// Offline after the first visit: registers the release's service worker (dist/sw.js, web/sw.js).
// Only dist/index.html names one (<meta name="attention-playground:service-worker">); web/ has none.
// Fails soft: no service workers (file://, a sandboxed iframe, a browser without them, storage
// blocked) means the page simply works online, with no error shown.

/**
 * @param {Document} doc
 * @param {'simd'|'scalar'} core the build this browser runs (the worker caches only that one)
 * @returns {Promise<ServiceWorkerRegistration|null>}
 */
export async function registerServiceWorker(doc, core) {
  const meta = doc.querySelector('meta[name="attention-playground:service-worker"]');
  if (!meta) return null;
  try {
    if (!/^https?:$/.test(location.protocol) || !navigator.serviceWorker) return null;
    const url = new URL(meta.content, doc.baseURI);
    url.searchParams.set('core', core);
    return await navigator.serviceWorker.register(url.href, { scope: './' });
  } catch {
    return null; // an opaque origin throws SecurityError; a refused registration rejects
  }
}
