// The snippets the share dialog (share-dialog.js) offers, as text: the <iframe> snippet with the
// few lines that size the iframe from the page's height messages, and the <attention-playground>
// element (web/embed.js). Plain strings in, a string out: tested in node and pasted by the tests
// into host pages.
import { stripPageOptions } from './page-options.js';
import { HEIGHT_MESSAGE } from '../embed/frame-messages.js';

/** The iframe's height before the page reports its own (px). */
export const SNIPPET_HEIGHT = 800;

const escapeAttr = (text) => String(text).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/**
 * The script of the iframe snippet: sets an iframe[data-attention-playground]'s height from the
 * page's height messages. A message counts only when event.source is one of those iframes' windows,
 * event.origin is that iframe's origin (or "null" from an iframe sandboxed without
 * allow-same-origin, whose page has no origin of its own) and the message has exactly the documented shape (a height
 * between 0 and 100 000, an id of at most 100 characters); a message from such an iframe that fails
 * a check is ignored with a console warning, other windows' messages silently (they may belong to
 * another embed, such as an <attention-playground> element's own frame). Pasted twice it installs itself
 * once. web/embed-frames.js is this script as a file, for course pages whose content security
 * policy forbids inline scripts (tests/node/page_options.test.js checks they are the same).
 */
export const SNIPPET_SCRIPT = `/* Attention Playground: makes the iframe as tall as its content (docs/embedding.md). */
if (!window.attentionPlaygroundHeight) {
  window.attentionPlaygroundHeight = true;
  window.addEventListener('message', function (event) {
    var data = event.data;
    var ours = data !== null && typeof data === 'object' && typeof data.type === 'string' && data.type.indexOf('attention-playground:') === 0;
    var frame = null;
    document.querySelectorAll('iframe[data-attention-playground]').forEach(function (f) {
      if (f.contentWindow === event.source) frame = f;
    });
    if (!frame) return; /* another window's message (another embed's, maybe): not this script's business */
    /* A frame sandboxed without allow-same-origin speaks as origin "null": its own window still counts. */
    var opaque = event.origin === 'null' && frame.sandbox.length > 0 && !frame.sandbox.contains('allow-same-origin');
    if (!opaque && new URL(frame.src, location.href).origin !== event.origin) {
      console.warn('Attention Playground: message ignored (wrong origin)', event.origin, data);
      return;
    }
    if (ours && data.type !== '${HEIGHT_MESSAGE}') return;
    if (!ours || typeof data.height !== 'number' || !(data.height > 0 && data.height < 100000) ||
        typeof data.id !== 'string' || data.id.length > 100) {
      console.warn('Attention Playground: message ignored (not a height message)', event.origin, data);
      return;
    }
    frame.style.height = Math.ceil(data.height) + 'px';
  });
}`;

/**
 * The HTML to paste into a course page: the iframe and SNIPPET_SCRIPT, which sets its height from
 * the page's messages.
 * @param {string} url the link (absolute)
 * @param {{title: string, height?: number}} o
 */
export function iframeSnippet(url, { title, height = SNIPPET_HEIGHT }) {
  return `<iframe src="${escapeAttr(url)}" title="${escapeAttr(title)}" width="100%" height="${height}"
  style="border: 0; width: 100%; max-width: 100%;" loading="lazy" allow="clipboard-write" data-attention-playground></iframe>
<script>
${SNIPPET_SCRIPT}
</script>`;
}

/**
 * The custom-element form: the script tag of embed.js and the element with the state and options.
 * With `fallback`, the element holds a link to the page: shown only where the element never
 * starts (embed.js blocked or not found; a running element draws its shadow root instead).
 * @param {string} scriptUrl absolute URL of embed.js
 * @param {string} fragment the state's link fragment (page options are taken from `options`)
 * @param {{lang: string|null, embed: boolean, readonly: boolean, teacher?: boolean, hide: string[]}} options
 * @param {{href: string, text: string}} [fallback]
 */
export function elementSnippet(scriptUrl, fragment, options, fallback) {
  const attrs = [`state="${escapeAttr(stripPageOptions(fragment))}"`];
  if (options.lang) attrs.push(`lang="${options.lang}"`);
  if (options.hide?.length) attrs.push(`hide="${options.hide.join(',')}"`);
  if (options.readonly) attrs.push('readonly');
  if (options.teacher) attrs.push('teacher');
  if (options.embed) attrs.push('embed');
  const inner = fallback ? `<a href="${escapeAttr(fallback.href)}">${escapeAttr(fallback.text).replace(/>/g, '&gt;')}</a>` : '';
  return `<script type="module" src="${escapeAttr(scriptUrl)}"></script>
<attention-playground ${attrs.join(' ')}>${inner}</attention-playground>`;
}
