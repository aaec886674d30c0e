// Runs before the page is painted (a classic script in <head>, no module, no inline code so the
// page works under a strict content security policy):
// - embed mode's class is set before the header could flash;
// - a page that will not be in English (the link's lang=, else the language chosen before, else
//   the browser's: page/link.js startLang), or whose link hides controls (<name>_hide=1), starts
//   with class "ap-booting": nothing but a neutral spinner shows until main.js has applied the
//   language and the hide flags (style.css), so no English text and no hidden control flashes;
// - in the release, the modules the link will need beyond main.js (its language's strings, the
//   lesson when the link has one) are preloaded at once, named by a <meta> scripts/dist.js writes.
(function () {
  var hash = location.hash;
  var root = document.documentElement;
  if (/(^#|&)embed=1(&|$)/.test(hash)) root.classList.add('ap-embed');
  var tag = null; // the last lang= wins, as in page-options.js readPageOptions
  hash.replace(/(?:^#|&)lang=([^&]*)/g, function (m, value) {
    tag = value;
  });
  if (tag === null) {
    try {
      tag = localStorage.getItem('attention-playground.lang');
    } catch (e) {
      tag = null; // storage may be blocked (sandboxed iframe)
    }
  }
  if (!tag) tag = navigator.language || '';
  var zh = /^zh/i.test(tag);
  if (zh || /(^#|&)[a-z]+_hide=1(&|$)/.test(hash)) root.classList.add('ap-booting');
  var meta = document.querySelector('meta[name="attention-playground:preload"]');
  if (!meta) return;
  var want = [zh ? 'zh-CN' : 'en'];
  if (/(^#|&)lesson=/.test(hash)) want.push('lesson');
  meta.content.split(';').forEach(function (group) {
    var parts = group.split('=');
    if (want.indexOf(parts[0]) < 0) return;
    parts[1].split(',').forEach(function (href) {
      var link = document.createElement('link');
      link.rel = 'modulepreload';
      link.href = href;
      document.head.appendChild(link);
    });
  });
})();
