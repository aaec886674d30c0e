#!/usr/bin/env bash
# npm run lint: formatting (prettier for JS and CSS, clang-format for C++), ESLint and the page's
# import graph (dependency-cruiser, .dependency-cruiser.cjs: no cycle in web/), in a few seconds; CI runs it before the tests. `npm run format` rewrites what the formatters would change.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-check}
mapfile -t cpp < <(git ls-files 'cpp/*.cpp' 'cpp/*.hpp' 'tests/cpp/*.cpp' 'tests/cpp/*.hpp')
if [ "$mode" = fix ]; then
  npx --no-install prettier --write --log-level=warn .
  clang-format -i "${cpp[@]}"
  exit 0
fi
status=0
echo "== prettier --check"
npx --no-install prettier --check --log-level=warn . || status=1
echo "== clang-format (${#cpp[@]} files)"
clang-format --dry-run -Werror "${cpp[@]}" || status=1
echo "== eslint"
npx --no-install eslint . || status=1
echo "== dependency-cruiser (no import cycle in web/)"
npx --no-install depcruise --config .dependency-cruiser.cjs --output-type err web || status=1
[ $status -eq 0 ] && echo "lint: clean"
exit $status
