#!/usr/bin/env bash
# Builds everything the page and the tests need:
#   build/native   native core, Catch2 tests, the `attn` CLI
#   build/wasm     the WebAssembly module -> web/wasm/attn.{js,wasm}
#   web/vendor     third-party JS (fflate, colour scales) bundled by esbuild
# Incremental: re-running only rebuilds what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)

echo "== native build (build/native)"
cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/native -j "$jobs"

echo "== WebAssembly build (build/wasm)"
# Debian's em++ runs its JS optimiser with the system node, which needs Debian's acorn.
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release -DATTN_BUILD_TESTS=OFF >/dev/null
cmake --build build/wasm -j "$jobs"
mkdir -p web/wasm
cp build/wasm/attn.js build/wasm/attn.wasm web/wasm/

echo "== JS vendor bundle (web/vendor)"
npx --no-install esbuild web/vendor.src.js --bundle --format=esm --minify \
  --outfile=web/vendor/vendor.js --log-level=warning
echo "== build done"
