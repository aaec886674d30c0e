#!/usr/bin/env bash
# One command from a fresh machine to a running playground: install, build, serve, print the URL.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
exec node scripts/serve.js "$@"
