// The lesson's progress kept per class link (docs/lesson.md "Progress"): the whole state while a
// lesson runs (its step, predictions, reveals, exercise marks and the moves a step asked for),
// saved in localStorage under a key made from the class link's state as the page was opened (a
// reload of the page itself keeps the tab's key: sessionStorage, tabKey below). A
// reload of the course page (the iframe's src is the class link again), a closed and reopened
// lesson and a tab left and come back to all find it there. Where storage is blocked (a sandboxed
// iframe, a browser setting) `available` is false: the page says so once, and the progress lives
// only in the page's own address (the link the page keeps writing, web/page/address.js).
//
// API
//   createProgress(fragment) -> {available, key, load(): string|null, save(link), clear()}
//     fragment: the link fragment the page was opened with (page options are ignored)
//     load(): the saved link fragment (encodeLink of the state) or null
import { stripPageOptions } from '../page/page-options.js';

const PREFIX = 'attention-playground.lesson.';

/** A short name of a class link: FNV-1a (two 32-bit lanes) of its state part, in hex. */
export function classKey(fragment) {
  const text = stripPageOptions(fragment);
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c, 0x5bd1e995) >>> 0;
  }
  return a.toString(16).padStart(8, '0') + b.toString(16).padStart(8, '0');
}

function openStorage() {
  try {
    const s = window.localStorage;
    const probe = `${PREFIX}probe`;
    s.setItem(probe, '1');
    s.removeItem(probe);
    return s;
  } catch {
    return null; // sandboxed iframe without allow-same-origin, blocked cookies, quota
  }
}

// The class key of this tab (sessionStorage): a reload opens the page from its own address,
// which holds the progress, not the class link; the key stays the class link's.
const TAB_KEY = `${PREFIX}tab`;

/** True when this load reopens the tab's own address (a reload, Back or Forward). */
function reopened() {
  try {
    const type = performance.getEntriesByType('navigation')[0]?.type;
    return type === 'reload' || type === 'back_forward';
  } catch {
    return false;
  }
}

/**
 * The key the progress of this page is kept under: the class link's. A page opened from a link
 * takes the link's key and remembers it for the tab; a reload (whose address is the page's own,
 * with the progress in it) keeps the key the tab had, so it goes on saving under the class link.
 */
function tabKey(fragment) {
  const own = PREFIX + classKey(fragment);
  let tab = null;
  try {
    tab = window.sessionStorage;
  } catch {
    return own;
  }
  try {
    const kept = tab?.getItem(TAB_KEY);
    if (kept && kept.startsWith(PREFIX) && reopened()) return kept;
    tab?.setItem(TAB_KEY, own);
  } catch {
    /* blocked: the link's own key */
  }
  return own;
}

export function createProgress(fragment) {
  const store = openStorage();
  const key = tabKey(fragment);
  return {
    available: store !== null,
    key,
    load() {
      try {
        return store?.getItem(key) ?? null;
      } catch {
        return null;
      }
    },
    save(link) {
      try {
        store?.setItem(key, link);
      } catch {
        /* full or blocked: the address still holds it */
      }
    },
    clear() {
      try {
        store?.removeItem(key);
      } catch {
        /* blocked */
      }
    },
  };
}
