#!/usr/bin/env bash
# Installs what the build and the tests need, only what is missing:
#   Debian packages: the C++ toolchain, clang-format and Universal Ctags (npm run lint),
#                    Emscripten, Catch2, nlohmann-json, xsimd, Eigen (SVD of the spectral lab
#                    view), libzip (the CLI reads .npz), Chromium, and numpy,
#                    nbclient + ipykernel for the notebook test (python/, tests/notebook/)
#   npm packages:    from package-lock.json (npm ci)
# Safe to run again; it does nothing when everything is there.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake g++ make clang-format universal-ctags emscripten catch2 nlohmann-json3-dev libxsimd-dev xtl-dev libeigen3-dev libzip-dev chromium fonts-wqy-microhei wabt
  python3-numpy python3-nbclient python3-nbformat python3-ipykernel)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "== installing Debian packages: ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

for tool in node npm; do
  command -v "$tool" >/dev/null || { echo "setup: $tool is required (Node.js >= 20)" >&2; exit 1; }
done

# npm ci when node_modules is missing or older than the lock file.
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "== installing npm packages (npm ci)"
  npm ci --no-audit --no-fund --loglevel=error
fi
