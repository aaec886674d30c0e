#!/usr/bin/env bash
# Kernel benchmark entry points (docs/performance.md):
#   bash scripts/bench.sh node [ARGS]      `npm run bench`: node, writes bench-results/bench-node.json
#   bash scripts/bench.sh browser [ARGS]   `npm run bench:browser`: Debian Chromium headless,
#                                          writes bench-results/bench-chromium.json
#   bash scripts/bench.sh scenarios [ARGS] `npm run bench:scenarios`: whole-head workloads in
#                                          Chromium, writes bench-results/scenarios-chromium.json
#   bash scripts/bench.sh build-page       `npm run build:bench`: web/vendor/bench-vendor.js (TF.js
#                                          + the shared runner) and web/vendor/tfjs/*.wasm
# Installs the npm packages and runs the build first when they are missing. Not part of `npm test`:
# speed is measured here, not asserted in a test.
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-node}"
shift || true

ensure_deps() {
  if [ ! -d node_modules/@tensorflow/tfjs-backend-wasm ] || [ ! -d node_modules/playwright-core ]; then
    bash scripts/setup.sh
  fi
}

ensure_build() {
  local missing=0
  for f in web/wasm/attn.js web/wasm/attn.wasm web/wasm/attn_simd.js web/wasm/attn_simd.wasm build/native/attn_bench; do
    [ -e "$f" ] || { echo "bench: $f is missing, running the build" >&2; missing=1; }
  done
  if [ "$missing" = 1 ]; then bash scripts/build.sh; fi
}

build_page() {
  npx --no-install esbuild bench/browser-entry.js --bundle --format=esm --minify --platform=browser \
    --outfile=web/vendor/bench-vendor.js --log-level=warning
  mkdir -p web/vendor/tfjs
  cp node_modules/@tensorflow/tfjs-backend-wasm/dist/*.wasm web/vendor/tfjs/
}

case "$mode" in
  node)
    ensure_deps
    ensure_build
    exec node bench/node.js "$@"
    ;;
  browser)
    ensure_deps
    ensure_build
    build_page
    exec node bench/browser.js "$@"
    ;;
  scenarios)
    ensure_deps
    ensure_build
    exec node bench/scenarios.js "$@"
    ;;
  build-page)
    ensure_deps
    build_page
    ;;
  *)
    echo "usage: bash scripts/bench.sh node|browser|build-page [ARGS]" >&2
    exit 2
    ;;
esac
