// The Chromium every browser script here launches (tests/browser, bench/, scripts/screenshot.js):
// Debian's /usr/bin/chromium, headless. docs/toolchain.md "Browser": without the networking flags
// Chromium floods the closed network.
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
];
