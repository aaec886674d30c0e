#!/usr/bin/env bash
# npm run lint: formatting (prettier for JS and CSS, clang-format for C++), ESLint, the length of
# the C++ functions (scripts/check_function_length.sh) and the docs check (scripts/check-docs.js:
# no dated headings, no issue numbers), in a few seconds; CI runs it before the tests.
# `npm run format` rewrites what the formatters would change.
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
[ $status -eq 0 ] && echo "lint: clean"
exit $status
