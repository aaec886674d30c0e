// Runs before the page is painted (a classic script in <head>, no module, no inline code so the
// page works under a strict content security policy):
// - embed mode's class is set before the header could flash;
// - a page that will not be in English (the link's lang=, else ?lang=, else the language chosen
//   before, else the browser's: page/address.js startLang), or whose link hides controls (<name>_hide=1), starts
//   with class "ap-booting": nothing but a neutral spinner shows (the page is not even laid out)
//   until main.js has applied the language and the hide flags (style.css), so no English text
//   and no hidden control flashes;
// - in the release, the modules the link will need beyond main.js (its language's strings, the
//   lesson when the link has one) are preloaded at once, named by a <meta> scripts/dist.js writes;
// - a module script that fails to load shows a clear message in the page's language.
(function () {
  var hash = location.hash;
  var root = document.documentElement;
  if (/(^#|&)embed=1(&|$)/.test(hash)) root.classList.add('ap-embed');
  var tag = null; // the last lang= wins, as in page-options.js readPageOptions
  hash.replace(/(?:^#|&)lang=([^&]*)/g, function (m, value) {
    tag = value;
  });
  if (tag === null) {
    // ?lang= in the query string when the fragment names none (page/address.js startLang)
    var q = /[?&]lang=([^&#]*)/.exec(location.search);
    if (q) tag = q[1];
  }
  if (tag === null) {
    try {
      tag = localStorage.getItem('attention-playground.lang');
    } catch (e) {
      tag = null; // storage may be blocked (sandboxed iframe)
    }
  }
  if (!tag) tag = navigator.language || '';
  var zh = /^zh(-|$)/i.test(tag); // page-options.js normaliseLang
  if (zh || /(^#|&)[a-z]+_hide=1(&|$)/.test(hash)) root.classList.add('ap-booting');
  // The page's modules could not load (a frame sandboxed without allow-same-origin on a host that
  // does not send Access-Control-Allow-Origin, a blocked file): say so instead of a spinner that
  // never stops, and show nothing else: the rest of the page is its English markup, whose
  // controls cannot work without the modules (class ap-failed, style.css). No module runs then,
  // so the text is here in both languages (not in web/i18n/); it names no repository path (the
  // reader is a student: the hint in parentheses is for the teacher).
  // Opened as a file (dist/index.html double-clicked): browsers load no module scripts from file://.
  var FILE = {
    en: 'This page cannot start from a file on disk: browsers do not load its scripts there. Serve the folder with a web server (the deployment guide says how), or open attention-playground.html, the one-file page, which works from a file.',
    zh: '此页面无法直接从磁盘上的文件启动：浏览器不会在这里加载它的脚本。请用网页服务器提供这个文件夹（部署说明中有方法），或打开单文件页面 attention-playground.html，它可以直接从文件打开。',
  };
  var FAILED = {
    en: 'The page could not load its scripts, so it cannot start. Please tell your teacher. (For the teacher: in a sandboxed frame, the server hosting the page must send Access-Control-Allow-Origin; or embed the one-file page instead. The embedding guide explains both.)',
    zh: '页面的脚本无法加载，因此无法启动。请告诉老师。（给老师：嵌在沙箱框架中时，托管页面的服务器需要发送 Access-Control-Allow-Origin 响应头；也可以改为嵌入单文件页面。嵌入说明中介绍了这两种做法。）',
  };
  document.addEventListener(
    'error',
    function (event) {
      var el = event.target;
      if (!el || el.tagName !== 'SCRIPT' || el.type !== 'module' || window.attentionPlayground) return;
      root.classList.remove('ap-booting');
      root.classList.add('ap-failed');
      root.setAttribute('lang', zh ? 'zh-CN' : 'en');
      var box = document.getElementById('loading');
      if (!box) box = document.createElement('p');
      if (box.parentNode !== document.body) document.body.insertBefore(box, document.body.firstChild);
      box.id = 'loading';
      box.hidden = false;
      box.className = 'loading error';
      box.setAttribute('role', 'alert');
      box.removeAttribute('data-i18n');
      var words = location.protocol === 'file:' && el.src ? FILE : FAILED; // not the one-file page's inline module
      box.textContent = zh ? words.zh : words.en;
    },
    true,
  );
  var meta = document.querySelector('meta[name="attention-playground:preload"]');
  if (!meta) return;
  var want = [zh ? 'zh-CN' : 'en'];
  if (/(^#|&)lesson=/.test(hash)) want.push('lesson');
  // A repeat visit, answered from the service worker's cache (no bytes over the network): KaTeX's
  // stylesheet now, and its main fonts loaded as soon as it is, so that the first layout of the
  // formulas has them (no second layout when they arrive). web/views/tex.js adds the same
  // stylesheet (id katex-css) on a first visit, when a formula is first shown.
  // Reading navigator.serviceWorker throws SecurityError in a frame sandboxed without
  // allow-same-origin (an opaque origin): no service worker there, so not cached.
  var cached = false;
  try {
    cached = Boolean(navigator.serviceWorker && navigator.serviceWorker.controller);
  } catch (e) {
    cached = false;
  }
  if (cached) want.push('katex');
  meta.content.split(';').forEach(function (group) {
    var parts = group.split('=');
    if (want.indexOf(parts[0]) < 0) return;
    var fonts = [];
    parts[1].split(',').forEach(function (href) {
      if (!href) return; // a group the page's own hints already cover
      var link = document.createElement('link');
      if (/\.css$/.test(href)) {
        link.rel = 'stylesheet';
        link.id = 'katex-css';
        link.onload = function () {
          fonts.forEach(function (f) {
            if (document.fonts) document.fonts.load(f).catch(function () {});
          });
        };
      } else if (/\.woff2$/.test(href)) {
        // KaTeX_Main-Bold-<hash>.woff2 -> 'bold 1em "KaTeX_Main"' (the rule that file serves)
        var m = /(KaTeX_[A-Za-z0-9]+)-([A-Za-z]+)-[^/]*$/.exec(href);
        if (m) fonts.push((m[2] === 'Bold' ? 'bold ' : m[2] === 'Italic' ? 'italic ' : '') + '1em "' + m[1] + '"');
        return;
      } else {
        link.rel = 'modulepreload';
      }
      link.href = href;
      document.head.appendChild(link);
    });
  });
})();
