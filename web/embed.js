// <attention-playground>: the playground in a course page with one script tag (docs/embedding.md).
//
//   <script type="module" src="https://…/embed.js"></script>
//   <attention-playground state="v=1&mode=qkv&…" lang="zh-CN" hide="tau,mask" readonly embed>
//   </attention-playground>
//
// The element shows index.html (next to this file) in an <iframe> with the state and the page
// options in its link, and makes the iframe as tall as the page inside reports it is (the
// 'attention-playground:height' message, from that iframe only). `state` is a link fragment
// ("v=1&…", with or without "#") or a state object as JSON (docs/state.md); a bad one shows a
// message inside the element instead of an empty box. Changing an attribute updates the frame.
import { HEIGHT_MESSAGE, HIDEABLE, formatPageOptions, stripPageOptions } from './page-options.js';
import { normaliseLang, t } from './i18n.js';

const PAGE = new URL('./index.html', import.meta.url);
const DEFAULT_HEIGHT = 720;

let stateModule = null;
/** state.js (with the link codec and its deflate) is loaded only when an element needs it. */
function loadState() {
  stateModule ??= import('./state.js');
  return stateModule;
}

let serial = 0;

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
  static observedAttributes = ['state', 'lang', 'hide', 'readonly', 'embed', 'palette', 'height'];

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    const style = document.createElement('style');
    style.textContent = STYLE;
    this.errorBox = document.createElement('p');
    this.errorBox.className = 'error';
    this.errorBox.setAttribute('role', 'alert');
    this.errorBox.hidden = true;
    this.frame = document.createElement('iframe');
    this.frame.setAttribute('loading', 'lazy');
    this.frameId = `attention-playground-${++serial}`;
    this.frame.name = this.frameId;
    root.append(style, this.errorBox, this.frame);
    this.pending = null;
    this.onMessage = (ev) => {
      if (ev.source !== this.frame.contentWindow || ev.origin !== PAGE.origin) return;
      const data = ev.data;
      if (!data || data.type !== HEIGHT_MESSAGE || typeof data.height !== 'number') return;
      if (!(data.height > 0 && data.height < 100000)) return;
      this.frame.style.height = `${Math.ceil(data.height)}px`;
      this.dispatchEvent(new CustomEvent('attention-playground:resize', { detail: { height: data.height } }));
    };
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

  showError(message) {
    const lang = this.language;
    const title = document.createElement('strong');
    title.textContent = t('embed.elementError', {}, lang);
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
    if (unknown.length) this.showError(t('embed.badHide', { list: unknown.join(', '), known: HIDEABLE.join(', ') }, lang));
    const options = {
      lang: normaliseLang(this.getAttribute('lang')),
      embed: this.hasAttribute('embed'),
      readonly: this.hasAttribute('readonly'),
      palette: this.getAttribute('palette') || 'viridis',
      hide: HIDEABLE.filter((name) => hide.includes(name)),
      frame: this.frameId,
    };
    const extra = formatPageOptions(options);
    const hash = fragment ? `${fragment}${extra}` : extra.slice(1);
    const url = `${PAGE.href}#${hash}`;
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
