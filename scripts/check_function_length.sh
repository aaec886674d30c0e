#!/usr/bin/env bash
# Part of `npm run lint` (scripts/lint.sh): fails when a C++ function of cpp/ is longer than
# MAX_LINES lines, counted from the line of its name to its closing brace. A long function is split
# along its steps into named helpers. Universal Ctags (Debian universal-ctags, scripts/setup.sh)
# finds the functions and where each ends; a lambda counts as part of the function around it.
set -euo pipefail
cd "$(dirname "$0")/.."

MAX_LINES=150

# Functions allowed to be longer for now, as file:name. Every entry is a debt to pay: the list is
# meant to be empty.
allowed=()

if ! ctags --version 2>/dev/null | grep -q "Universal Ctags"; then
  echo "check_function_length: Universal Ctags is missing (scripts/setup.sh installs universal-ctags)" >&2
  exit 1
fi

mapfile -t files < <(git ls-files 'cpp/*.cpp' 'cpp/*.hpp')
# One line per function definition: name, file, start line, end line.
mapfile -t long < <(
  ctags --languages=C++ --map-C++=+.hpp --kinds-C++=f --fields=+ne --extras=-q -o - "${files[@]}" |
    awk -F'\t' -v max="$MAX_LINES" '{
      start = ""; end = ""
      for (i = 4; i <= NF; i++) {
        if ($i ~ /^line:/) start = substr($i, 6)
        if ($i ~ /^end:/) end = substr($i, 5)
      }
      if (start == "" || end == "") { print "?\t" $2 "\t" $1; next }
      n = end - start + 1
      if (n > max) print n "\t" $2 "\t" $1 "\t" start
    }'
)

status=0
for entry in "${long[@]}"; do
  IFS=$'\t' read -r n file name start <<<"$entry"
  if [ "$n" = "?" ]; then
    echo "$file: ctags gave no extent for $name" >&2
    status=1
    continue
  fi
  key="$file:$name"
  is_allowed=0
  for a in "${allowed[@]}"; do [ "$a" = "$key" ] && is_allowed=1; done
  if ((is_allowed)); then
    echo "$file:$start: $name() is $n lines (allowed for now: scripts/check_function_length.sh)"
  else
    echo "$file:$start: $name() is $n lines, more than $MAX_LINES: split it along its steps" >&2
    status=1
  fi
done
# An allowed function that is no longer long leaves the list.
for a in "${allowed[@]}"; do
  found=0
  for entry in "${long[@]}"; do
    IFS=$'\t' read -r n file name start <<<"$entry"
    [ "$file:$name" = "$a" ] && found=1
  done
  if ((!found)); then
    echo "scripts/check_function_length.sh: $a is no longer over $MAX_LINES lines; remove it from the allowed list" >&2
    status=1
  fi
done
[ $status -eq 0 ] && echo "function length: ${#files[@]} files, no function over $MAX_LINES lines${allowed[0]:+ but the ${#allowed[@]} allowed}"
exit $status
