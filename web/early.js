// Runs before the page is painted (a classic script in <head>, no module, no inline code so the
// page works under a strict content security policy): embed mode's class is set before the
// header could flash.
if (/(^#|&)embed=1(&|$)/.test(location.hash)) document.documentElement.classList.add('ap-embed');
