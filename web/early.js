// Runs before the page is painted (a classic script in <head>, no module, no inline code so the
// page works under a strict content security policy):
// - embed mode's class is set before the header could flash;
// - a page that will not be in English (the link's lang=, else the language chosen before, else
//   the browser's: page/link.js startLang), or whose link hides controls (<name>_hide=1), starts
//   with class "ap-booting": nothing but a neutral spinner shows until main.js has applied the
//   language and the hide flags (style.css), so no English text and no hidden control flashes.
(function () {
  var hash = location.hash;
  var root = document.documentElement;
  if (/(^#|&)embed=1(&|$)/.test(hash)) root.classList.add('ap-embed');
  var lang = /(?:^#|&)lang=([^&]*)/.exec(hash);
  var tag = lang ? lang[1] : null;
  if (tag === null) {
    try {
      tag = localStorage.getItem('attention-playground.lang');
    } catch (e) {
      tag = null; // storage may be blocked (sandboxed iframe)
    }
  }
  if (!tag) tag = navigator.language || '';
  if (/^zh/i.test(tag) || /(^#|&)[a-z]+_hide=1(&|$)/.test(hash)) root.classList.add('ap-booting');
})();
