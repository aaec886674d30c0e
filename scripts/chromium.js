// The Chromium every browser script here launches (tests/browser, bench/, scripts/screenshot.js):
// Debian's /usr/bin/chromium, headless. docs/toolchain.md "Browser": without the networking flags
// Chromium floods the closed network.

/**
 * The features playwright-core disables in every Chromium it launches (its chromiumSwitches'
 * disabledFeatures, playwright-core 1.65). Chromium reads only the last --disable-features flag,
 * so the one below must repeat them; tests/node/chromium_args.test.js compares this copy with the
 * installed playwright-core's list.
 */
export const PLAYWRIGHT_DISABLED_FEATURES = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
  'msForceBrowserSignIn',
  'msEdgeUpdateLaunchServicesPreferredVersion',
];

/**
 * What this project disables on top: the browser's own toolbar WebUI (the omnibox popup and its
 * "AI mode" composebox). Headless Chromium 156 renders it in a renderer of its own
 * (`--type=renderer --top-chrome-webui`) at every navigation, ~1.1 s of CPU during one offline
 * visit at 4x: on a 2-core machine it took a core from the page under test (the offline visit's
 * time to usable 1,358-1,420 -> 1,075-1,119 ms without it; docs/performance.md "Chromium's toolbar renderer").
 * No phone browser has it; both features are needed (either alone keeps the renderer).
 */
export const OWN_DISABLED_FEATURES = ['WebUIOmniboxPopup', 'WebUIOmniboxAimPopup'];

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
  `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, ...OWN_DISABLED_FEATURES].join(',')}`,
];
