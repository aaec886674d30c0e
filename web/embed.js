// <attention-playground>: the playground in a course page with one script tag (docs/embedding.md).
//
//   <script type="module" src="https://cdn.jsdelivr.net/npm/attention-playground@0.1.0/dist/embed.js"></script>
//   <attention-playground state="v=1&mode=qkv&…" lang="zh-CN" hide="tau,mask" readonly embed>
//   </attention-playground>
//
// (or wherever the release is served: the Share for class dialog writes this URL from the page's
// own address). The element shows index.html (next to this file, by import.meta.url, so from the
// same copy) in an <iframe> with the state and the page options in its link, and makes the iframe as tall as the page inside reports it is (the
// 'attention-playground:height' message, from that iframe only). `state` is a link fragment
// ("v=1&…", with or without "#") or a state object as JSON (docs/state.md); a bad one shows a
// message inside the element instead of an empty box. Changing an attribute updates the frame.
//
// Messages: the element takes a height message only from its own iframe's window and origin, of
// the documented shape and with its own frame id; element.setState(state) posts a setState message
// to that frame (its link names this page's origin in origin=, so the page accepts it) and
// resolves or rejects with the page's answer. Anything else claiming to be a playground message is
// ignored with a console warning. The element reads nothing of the page inside the frame, and the
// page reads nothing of this one. Its styles are a constructed style sheet (CSSOM), so it works
// in a course page with a strict content security policy (docs/security.md).
import {
  HIDEABLE,
  SET_STATE_MESSAGE,
  STATE_RESULT_MESSAGE,
  isOrigin,
  isPlaygroundMessage,
  readHeightMessage,
  stripPageOptions,
  withPageOptions,
} from './page/page-options.js';
import { normaliseLang, t } from './i18n/i18n.js';

const PAGE = new URL('./index.html', import.meta.url);
const DEFAULT_HEIGHT = 720;

let stateModule = null;
/** The link codec (codec/link.js, with its deflate) is loaded only when an element needs it. */
function loadState() {
  stateModule ??= import('./codec/link.js');
  return stateModule;
}

let serial = 0;
let requests = 0;

/** The element's style sheet, built once (a <style> element would need 'unsafe-inline'). */
let sheet = null;
function styleSheet() {
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync(STYLE);
  }
  return sheet;
}

/** How long setState waits for the page's answer (ms). */
const ANSWER_TIMEOUT = 20000;

const STYLE = `
:host { display: block; position: relative; }
:host([hidden]) { display: none; }
iframe { display: block; width: 100%; border: 0; }
iframe[hidden] { display: none; }
.error { font: 14px/1.45 system-ui, sans-serif; color: #b3261e; background: #fdecea;
  border: 1px solid #f1b5b0; border-radius: 6px; padding: .6rem .8rem; margin: 0 0 .5rem; overflow-wrap: anywhere; }
.error strong { display: block; margin-bottom: .2rem; }
.error[hidden] { display: none; }
`;

export class AttentionPlaygroundElement extends HTMLElement {
  static observedAttributes = ['state', 'lang', 'hide', 'readonly', 'teacher', 'embed', 'palette', 'height'];

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    root.adoptedStyleSheets = [styleSheet()];
    this.errorBox = document.createElement('p');
    this.errorBox.className = 'error';
    this.errorBox.setAttribute('role', 'alert');
    this.errorBox.hidden = true;
    this.frame = document.createElement('iframe');
    this.frame.setAttribute('loading', 'lazy');
    this.frameId = `attention-playground-${++serial}`;
    this.frame.name = this.frameId;
    root.append(this.errorBox, this.frame);
    this.pending = null;
    this.answers = new Map(); // setState request id -> {resolve, reject, timer}
    this.onMessage = (ev) => this.receive(ev);
    // The page inside listens once it runs; its first height message says so.
    this.running = new Promise((resolve) => {
      this.markRunning = resolve;
    });
  }

  /** A message to this window: only this element's frame, origin and shapes count. */
  receive(ev) {
    const ours = isPlaygroundMessage(ev.data);
    if (!this.frame.contentWindow || ev.source !== this.frame.contentWindow) return; // another frame's or page's business
    if (ev.origin !== PAGE.origin) {
      if (ours) console.warn('Attention Playground: message ignored (wrong origin)', ev.origin, ev.data);
      return;
    }
    if (ours && ev.data.type === STATE_RESULT_MESSAGE) {
      const data = ev.data;
      const waiting = typeof data.id === 'string' ? this.answers.get(data.id) : undefined;
      if (!waiting || typeof data.ok !== 'boolean') {
        console.warn('Attention Playground: message ignored (no such setState request)', ev.origin, data);
        return;
      }
      this.answers.delete(data.id);
      clearTimeout(waiting.timer);
      if (data.ok) waiting.resolve();
      else waiting.reject(new Error(typeof data.error === 'string' ? data.error : 'the state was refused'));
      return;
    }
    const message = readHeightMessage(ev.data);
    if (!message || message.id !== this.frameId) {
      console.warn('Attention Playground: message ignored (not a height message of this frame)', ev.origin, ev.data);
      return;
    }
    this.markRunning();
    this.frame.style.height = `${Math.ceil(message.height)}px`;
    this.dispatchEvent(new CustomEvent('attention-playground:resize', { detail: { height: message.height } }));
  }

  /**
   * Shows a state in the frame (docs/state.md) without reloading it: resolves when the page took
   * it, rejects with the page's message when it refused it (its state is then unchanged).
   * @param {object} state
   * @returns {Promise<void>}
   */
  async setState(state) {
    await this.pending;
    if (!this.frame.contentWindow || this.frame.hidden) throw new Error('the element shows no playground');
    const id = `${this.frameId}-${++requests}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.answers.delete(id);
        reject(new Error('the playground did not answer (is the element on screen? its frame loads lazily)'));
      }, ANSWER_TIMEOUT);
      this.answers.set(id, { resolve, reject, timer });
      this.running.then(() => this.frame.contentWindow?.postMessage({ type: SET_STATE_MESSAGE, state, id }, PAGE.origin));
    });
  }

  connectedCallback() {
    window.addEventListener('message', this.onMessage);
    this.schedule();
  }

  disconnectedCallback() {
    window.removeEventListener('message', this.onMessage);
  }

  attributeChangedCallback() {
    if (this.isConnected) this.schedule();
  }

  /** Several attributes set in a row make one update. */
  schedule() {
    this.pending ??= Promise.resolve().then(() => {
      this.pending = null;
      return this.update();
    });
    return this.pending;
  }

  /** The element's language for its own messages. */
  get language() {
    return normaliseLang(this.getAttribute('lang')) ?? normaliseLang(document.documentElement.lang) ?? 'en';
  }

  /** A message above the frame: `warning` when the frame is still shown (an unknown hide name). */
  showError(message, { warning = false } = {}) {
    const lang = this.language;
    const title = document.createElement('strong');
    title.textContent = t(warning ? 'embed.elementWarning' : 'embed.elementError', {}, lang);
    this.errorBox.replaceChildren(title, document.createTextNode(message));
    this.errorBox.hidden = false;
  }

  /** The state attribute as a link fragment without page options ('' = the default state). */
  async fragment() {
    const lang = this.language;
    const text = (this.getAttribute('state') ?? '').trim();
    if (!text) return '';
    const { decodeLink, encodeLink } = await loadState();
    if (text.startsWith('{')) {
      let parsed;
      try {
        parsed = JSON.parse(text);
      } catch (e) {
        throw new Error(t('embed.badJson', { message: e.message }, lang));
      }
      try {
        return encodeLink(parsed);
      } catch (e) {
        throw new Error(t('embed.badState', { message: e.message }, lang));
      }
    }
    const bare = stripPageOptions(text);
    try {
      decodeLink(bare);
    } catch (e) {
      throw new Error(t('embed.badState', { message: e.message }, lang));
    }
    return bare;
  }

  async update() {
    const lang = this.language;
    this.errorBox.hidden = true;
    const hide = (this.getAttribute('hide') ?? '').split(/[\s,]+/).filter(Boolean);
    const unknown = hide.filter((name) => !HIDEABLE.includes(name));
    let fragment;
    try {
      fragment = await this.fragment();
    } catch (e) {
      this.showError(e.message);
      this.frame.hidden = true;
      this.frame.removeAttribute('src');
      return;
    }
    if (unknown.length)
      this.showError(t('embed.badHide', { list: unknown.join(', '), known: HIDEABLE.join(', ') }, lang), { warning: true });
    const options = {
      lang: normaliseLang(this.getAttribute('lang')),
      embed: this.hasAttribute('embed'),
      readonly: this.hasAttribute('readonly'),
      teacher: this.hasAttribute('teacher'),
      palette: this.getAttribute('palette') || 'viridis',
      hide: HIDEABLE.filter((name) => hide.includes(name)),
      frame: this.frameId,
      // This page may send the frame a state (setState); an opaque origin (a file:// page) cannot.
      origin: isOrigin(location.origin) ? [location.origin] : [],
    };
    const url = `${PAGE.href}#${withPageOptions(fragment, options)}`;
    this.frame.title = t('embed.frameTitle', {}, lang);
    if (!this.frame.style.height) {
      const h = Number(this.getAttribute('height'));
      this.frame.style.height = `${Number.isFinite(h) && h > 0 ? h : DEFAULT_HEIGHT}px`;
    }
    this.frame.hidden = false;
    if (this.frame.src !== url) this.frame.src = url;
  }
}

if (!customElements.get('attention-playground')) {
  customElements.define('attention-playground', AttentionPlaygroundElement);
}
