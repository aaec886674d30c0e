#!/usr/bin/env bash
# The kernel suite (tests/cpp/test_kernels.cpp) compiled to WebAssembly SIMD128 with em++ and run
# by ctest under node: the wasm-simd128 KernelSet against the scalar reference, on the same
# lengths, masks and NaN padding as natively. Build dir: build/wasm-tests (incremental).
# Node 20 needs --no-experimental-fetch for a non-ES6 Emscripten 3.1.6 build (docs/toolchain.md quirk 9).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
emcmake cmake -S . -B build/wasm-tests -DCMAKE_BUILD_TYPE=Release -DATTN_BUILD_TESTS=OFF \
  -DATTN_WASM_SIMD=OFF -DATTN_WASM_KERNEL_TESTS=ON \
  "-DCMAKE_CROSSCOMPILING_EMULATOR=$(command -v node);--no-experimental-fetch" >/dev/null
cmake --build build/wasm-tests --target attn_kernel_tests_wasm -j "$jobs"
ctest --test-dir build/wasm-tests --output-on-failure
