// The iframe snippet's script as a file (web/page/share-dialog.js SNIPPET_SCRIPT, docs/embedding.md), for
// course pages whose content security policy forbids inline scripts: <script src=".../embed-frames.js"></script>
// sizes every iframe[data-attention-playground] of the page from its height messages.
/* Attention Playground: makes the iframe as tall as its content (docs/embedding.md). */
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
    if (ours && data.type !== 'attention-playground:height') return;
    if (!ours || typeof data.height !== 'number' || !(data.height > 0 && data.height < 100000) ||
        typeof data.id !== 'string' || data.id.length > 100) {
      console.warn('Attention Playground: message ignored (not a height message)', event.origin, data);
      return;
    }
    frame.style.height = Math.ceil(data.height) + 'px';
  });
}
