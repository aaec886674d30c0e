#!/usr/bin/env bash
# npm run lint: formatting (prettier for JS and CSS, clang-format for C++), ESLint, the page's
# import graph (dependency-cruiser, .dependency-cruiser.cjs: no cycle in web/), the length of the
# web files and of the C++ functions (scripts/check_function_length.sh) and the docs check
# (scripts/check-docs.js: no dated headings, no issue numbers), in a few seconds; CI runs it
# before the tests. `npm run format` rewrites what the formatters would change.
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
echo "== function length"
scripts/check_function_length.sh || status=1
echo "== docs (scripts/check-docs.js)"
node scripts/check-docs.js || status=1
echo "== dependency-cruiser (no import cycle in web/)"
npx --no-install depcruise --config .dependency-cruiser.cjs --output-type err web || status=1
# A file over MAX_LINES lines does more than one job: split it along its jobs. String tables
# (web/i18n/) and build outputs or data are exempt.
MAX_LINES=400
echo "== file length (web/: at most $MAX_LINES lines a file)"
while IFS= read -r f; do
  [ -f "$f" ] || continue
  n=$(wc -l <"$f")
  if [ "$n" -gt "$MAX_LINES" ]; then
    echo "$f: $n lines (at most $MAX_LINES): split it along its jobs" >&2
    status=1
  fi
done < <(git ls-files web | grep -vE '^web/(i18n|generated|vendor|wasm|data)/' | grep -vE '\.(png|npy|json|md)$')
[ $status -eq 0 ] && echo "lint: clean"
exit $status
