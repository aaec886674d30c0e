#!/usr/bin/env bash
# Runs every test: C++ (Catch2 via ctest), node (WASM module, CLI agreement, URL codec), the
# browser tests (Debian Chromium driven by playwright-core) and the notebook test (python/).
# Installs and builds first. Runs every suite even if one fails; exits non-zero if any failed.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh || exit 1
bash scripts/build.sh || exit 1

status=0
echo "== C++ tests (ctest)"
ctest --test-dir build/native --output-on-failure || status=1

echo "== C++ kernel tests compiled to WebAssembly SIMD128 (node)"
bash scripts/test-wasm-kernels.sh || status=1

echo "== node tests"
node --test tests/node/ || status=1

echo "== browser tests (Chromium)"
# A test that hangs fails after 10 minutes instead of holding the run (the longest passes in ~80 s).
node --test --test-concurrency=1 --test-timeout=600000 tests/browser/ || status=1

echo "== notebook test (nbclient + ipykernel, the one-file page in Chromium)"
node --test tests/notebook/ || status=1

exit $status
