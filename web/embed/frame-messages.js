// Messages between the playground in an iframe and its course page (docs/embedding.md): the
// height the page posts, the setState a parent may send from an origin the link names, and their
// checks (source window, origin, shape). Every listener ignores, with a console warning, what
// is not the playground's or not from where it should be.

/** The height message's type (docs/embedding.md). */
export const HEIGHT_MESSAGE = 'attention-playground:height';
/** The message a parent (from an origin= option) sends to show a state (docs/embedding.md). */
export const SET_STATE_MESSAGE = 'attention-playground:setState';
/** The page's answer to a setState message, sent to that origin only. */
export const STATE_RESULT_MESSAGE = 'attention-playground:stateResult';
/** Every message of the playground has a type starting with this. */
export const MESSAGE_PREFIX = 'attention-playground:';

/**
 * False when the page's content security policy forbids frames: the one-file page's
 * `frame-src 'none'` (scripts/single-file.js), which cannot load itself in a frame. The lesson's
 * step 5 and the share dialog's preview then offer no frame.
 * @param {Document} [doc]
 */
export function canFrame(doc = document) {
  const policy = doc.querySelector('meta[http-equiv="Content-Security-Policy"]')?.content ?? '';
  return !/(^|;)\s*frame-src\s+'none'/.test(policy);
}

/**
 * True when the page is served over http(s). Opened from a file (or a notebook's blob: or
 * about:srcdoc), its address works on this computer only, and so do snippets that load it.
 * @param {Location} [loc]
 */
export function servedOverHttp(loc = location) {
  return loc.protocol === 'http:' || loc.protocol === 'https:';
}

/** A plain object as structured clone makes it (not an array, a Date, a Blob, …). */
const isPlainObject = (x) => x !== null && typeof x === 'object' && Object.getPrototypeOf(x) === Object.prototype;

/** True when a message claims to be the playground's (its type starts with MESSAGE_PREFIX). */
export function isPlaygroundMessage(data) {
  return isPlainObject(data) && typeof data.type === 'string' && data.type.startsWith(MESSAGE_PREFIX);
}

/**
 * Checks a height message's shape: {type: HEIGHT_MESSAGE, height: finite number, 0 < height <
 * 100000, id: string of at most 100 characters}. Other keys are ignored.
 * @returns {{height: number, id: string}|null} null when the shape is wrong
 */
export function readHeightMessage(data) {
  if (!isPlainObject(data) || data.type !== HEIGHT_MESSAGE) return null;
  const { height, id } = data;
  if (typeof height !== 'number' || !Number.isFinite(height) || !(height > 0 && height < 100000)) return null;
  if (typeof id !== 'string' || id.length > 100) return null;
  return { height, id };
}

/**
 * Checks a setState message's shape: {type: SET_STATE_MESSAGE, state: object, id?: string of at
 * most 100 characters, echoed in the answer}. The state itself is validated by setState.
 * @returns {{state: object, id: string}|null}
 */
export function readSetStateMessage(data) {
  if (!isPlainObject(data) || data.type !== SET_STATE_MESSAGE) return null;
  if (!isPlainObject(data.state)) return null;
  if (data.id !== undefined && (typeof data.id !== 'string' || data.id.length > 100)) return null;
  return { state: data.state, id: data.id ?? '' };
}

/**
 * When the page runs in an <iframe>, tells the parent its height on load and whenever it changes
 * (debounced): {type: HEIGHT_MESSAGE, height: px, id}. The id is the link's frame option, else
 * the frame's name. The height is not sensitive, so the target origin is "*"; the receiving page
 * checks event.source, event.origin and the shape (embed.js and the share dialog's snippet do).
 * @param {Window} win
 * @param {() => string} frameId
 * @returns {() => void} stops reporting
 */
export function reportHeight(win, frameId) {
  if (win.parent === win) return () => {};
  const doc = win.document;
  let last = -1;
  let timer = 0;
  const send = () => {
    timer = 0;
    // The <html> box, not scrollHeight: scrollHeight never drops below the frame's own height,
    // so a frame could grow but never shrink.
    const height = Math.ceil(doc.documentElement.getBoundingClientRect().height);
    if (height === last || height <= 0) return; // a hidden frame measures 0: nothing to report
    last = height;
    win.parent.postMessage({ type: HEIGHT_MESSAGE, height, id: (frameId() || win.name || '').slice(0, 100) }, '*');
  };
  const schedule = () => {
    if (!timer) timer = win.setTimeout(send, 60);
  };
  const observer = new win.ResizeObserver(schedule);
  observer.observe(doc.documentElement);
  if (doc.body) observer.observe(doc.body);
  win.addEventListener('load', schedule);
  schedule();
  return () => {
    observer.disconnect();
    win.clearTimeout(timer);
  };
}

/** Logs a message the page ignores (docs/embedding.md "Messages"). */
function ignored(reason, event) {
  console.warn(`Attention Playground: message ignored (${reason})`, { origin: event.origin, data: event.data });
}

/**
 * When the page runs in an <iframe>, takes setState messages from its parent: accepted only when
 * event.source is window.parent, event.origin is one of origins() (the link's origin= options)
 * and the message has the shape of readSetStateMessage; the answer {type: STATE_RESULT_MESSAGE,
 * id, ok, error?} goes back to that window and origin only. A playground message that fails a
 * check is ignored with a console warning; other messages (not "attention-playground:…") from
 * elsewhere are not the page's business and are ignored silently. Nothing of the parent is read.
 * @param {Window} win
 * @param {{origins: () => string[], apply: (state: object) => Promise<void>}} o
 * @returns {() => void} stops listening
 */
export function acceptStateMessages(win, { origins, apply }) {
  if (win.parent === win) return () => {};
  const onMessage = (event) => {
    const ours = isPlaygroundMessage(event.data);
    const fromParent = event.source === win.parent;
    if (!fromParent) {
      if (ours) ignored('not from the parent window', event);
      return;
    }
    const allowed = origins();
    if (!allowed.includes(event.origin)) {
      if (ours)
        ignored(allowed.length ? `origin ${event.origin} is not in the link's origin= options` : 'the link has no origin= option', event);
      return;
    }
    const message = readSetStateMessage(event.data);
    if (!message) {
      ignored('not a setState message of the documented shape', event);
      return;
    }
    const reply = (answer) => event.source.postMessage({ type: STATE_RESULT_MESSAGE, id: message.id, ...answer }, event.origin);
    Promise.resolve()
      .then(() => apply(message.state))
      .then(
        () => reply({ ok: true }),
        (e) => reply({ ok: false, error: String(e?.message ?? e).slice(0, 2000) }),
      );
  };
  win.addEventListener('message', onMessage);
  return () => win.removeEventListener('message', onMessage);
}
