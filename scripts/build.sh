#!/usr/bin/env bash
# Builds everything the page and the tests need:
#   build/native   native core, Catch2 tests, the `attn` CLI
#   build/wasm     the WebAssembly modules -> web/wasm/attn.{js,wasm} (scalar) and
#                  web/wasm/attn_simd.{js,wasm} (SIMD128)
#   web/vendor     third-party JS (fflate, colour scales, KaTeX) bundled by esbuild, and
#                  KaTeX's CSS and fonts in web/vendor/katex/
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
cp build/wasm/attn.js build/wasm/attn.wasm build/wasm/attn_simd.js build/wasm/attn_simd.wasm web/wasm/
# The SIMD module must contain SIMD128 code and the scalar one none (a wrong flag would silently
# give two scalar builds, or a scalar build that fails to load where SIMD is off).
if command -v wasm-objdump >/dev/null; then
  simd_ops=$(wasm-objdump -d web/wasm/attn_simd.wasm | grep -c f32x4 || true)
  scalar_ops=$(wasm-objdump -d web/wasm/attn.wasm | grep -c f32x4 || true)
  if [ "$simd_ops" -eq 0 ] || [ "$scalar_ops" -ne 0 ]; then
    echo "build: f32x4 instructions: attn_simd.wasm $simd_ops (want > 0), attn.wasm $scalar_ops (want 0)" >&2
    exit 1
  fi
fi

echo "== JS vendor bundle (web/vendor)"
npx --no-install esbuild web/vendor.src.js --bundle --format=esm --minify \
  --outfile=web/vendor/vendor.js --log-level=warning
# KaTeX's stylesheet and fonts beside the bundle (katex.min.css loads fonts/ relative to itself).
mkdir -p web/vendor/katex
cp node_modules/katex/dist/katex.min.css web/vendor/katex/
cp -r node_modules/katex/dist/fonts web/vendor/katex/
echo "== build done"
