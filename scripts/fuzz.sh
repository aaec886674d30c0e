#!/usr/bin/env bash
# Fuzzes the C++ readers with libFuzzer (docs/security.md "Fuzzing").
#
#   scripts/fuzz.sh [--runs N] [--merge] [TARGET...]
#
# Builds the targets of cpp/fuzz with clang, -fsanitize=fuzzer,address,undefined in build/fuzz
# (CMake option ATTN_FUZZ), then runs each TARGET (default: all) for N executions (default
# 1,000,000; env FUZZ_RUNS) from its seeds (tests/fuzz/seeds/<target>, written by
# tests/fuzz/make_seeds.py) and its checked-in corpus (tests/fuzz/corpus/<target>), one process at
# a time. New inputs go to build/fuzz/work/<target>; a crash stops that target, leaves the input in
# build/fuzz/artifacts/<target>/ and makes the script exit 1 (copy the input to
# tests/fuzz/regressions/<target>/ once the bug is fixed: ctest replays it from then on).
# --merge then minimises seeds + corpus + new inputs (-merge=1) into tests/fuzz/corpus/<target>.
# Prints, per target, the executions, the wall time and libFuzzer's final cov:/ft: counts.
# Needs clang and its libFuzzer runtime (Debian: clang, libclang-rt-14-dev).
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${FUZZ_RUNS:-1000000}
merge=0
targets=()
while (($#)); do
  case "$1" in
    --runs) runs=$2; shift 2 ;;
    --runs=*) runs=${1#--runs=}; shift ;;
    --merge) merge=1; shift ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 64 ;;
    *) targets+=("$1"); shift ;;
  esac
done
all=(npy npz attention_json tokens state lab analyze)
((${#targets[@]})) || targets=("${all[@]}")

# Longest input per target: room for a few small heads or a small state, not for inputs whose
# only effect is to make each execution slow.
declare -A max_len=([npy]=4096 [npz]=8192 [attention_json]=4096 [tokens]=2048 [state]=4096 [lab]=4096 [analyze]=8192)
declare -A dict=([npy]=npy [npz]=npy [attention_json]=attention_json [tokens]=attention_json
                 [state]=state [lab]=state [analyze]=npy)

command -v clang++ >/dev/null || { echo "fuzz.sh: clang++ is required (apt-get install clang)" >&2; exit 1; }
jobs=$(nproc 2>/dev/null || echo 2)
((jobs > 2)) && jobs=2
echo "== building the fuzz targets (build/fuzz, clang, ATTN_FUZZ=ON)"
cmake -S . -B build/fuzz -DCMAKE_CXX_COMPILER=clang++ -DATTN_FUZZ=ON -DATTN_BUILD_TESTS=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" >/dev/null
cmake --build build/fuzz -j "$jobs" --target "${targets[@]/#/fuzz_}" >/dev/null
python3 tests/fuzz/make_seeds.py build/fuzz/seeds >/dev/null

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
status=0
summary=()
for t in "${targets[@]}"; do
  [[ -n "${max_len[$t]:-}" ]] || { echo "fuzz.sh: unknown target $t (${all[*]})" >&2; exit 64; }
  work=build/fuzz/work/$t
  artifacts=build/fuzz/artifacts/$t
  log=build/fuzz/logs/$t.log
  rm -rf "$artifacts"  # what is left there after a run is that run's crash
  mkdir -p "$work" "$artifacts" build/fuzz/logs tests/fuzz/corpus/"$t"
  echo "== fuzz_$t: $runs runs, max_len ${max_len[$t]} (log: $log)"
  # The CLI target prints the command's messages on stderr: closed (libFuzzer keeps its own).
  quiet=()
  [[ $t == analyze ]] && quiet=(-close_fd_mask=2)
  start=$(date +%s.%N)
  crashed=0
  if ! build/fuzz/fuzz_"$t" -runs="$runs" -max_len="${max_len[$t]}" -dict=tests/fuzz/dict/"${dict[$t]}".dict \
      -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 -print_final_stats=1 \
      -artifact_prefix="$artifacts/" "${quiet[@]}" \
      "$work" build/fuzz/seeds/"$t" tests/fuzz/corpus/"$t" >"$log" 2>&1; then
    status=1
    crashed=1
    echo "fuzz_$t: CRASH (see $log and $artifacts/)" >&2
    grep -m5 -E "ERROR|FUZZ_CHECK|runtime error|Test unit written" "$log" >&2 || true
  fi
  end=$(date +%s.%N)
  execs=$(grep -oE '^Done [0-9]+ runs' "$log" | grep -oE '[0-9]+' || echo "-")
  final=$(grep -E '^#[0-9]+' "$log" | tail -1)
  cov=$(grep -oE 'cov: [0-9]+' <<<"$final" | grep -oE '[0-9]+' || echo "-")
  ft=$(grep -oE 'ft: [0-9]+' <<<"$final" | grep -oE '[0-9]+' || echo "-")
  secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.0f", b - a }')
  line=$(printf '%-15s %10s execs %6s s   cov %5s  ft %6s' "$t" "$execs" "$secs" "$cov" "$ft")
  echo "$line"
  summary+=("$line")

  if ((merge)) && ! ((crashed)); then
    merged=build/fuzz/merged/$t
    rm -rf "$merged" && mkdir -p "$merged"
    # -use_counters=0: keep the inputs that reach new edges, not every new hit count (a tenth of
    # the files, the same edges), so the checked-in corpus stays small.
    build/fuzz/fuzz_"$t" -merge=1 -use_counters=0 -max_len="${max_len[$t]}" -timeout=10 "${quiet[@]}" \
      "$merged" build/fuzz/seeds/"$t" tests/fuzz/corpus/"$t" "$work" >build/fuzz/logs/"$t".merge.log 2>&1
    rm -f tests/fuzz/corpus/"$t"/*
    cp "$merged"/* tests/fuzz/corpus/"$t"/
    echo "   merged corpus: $(ls tests/fuzz/corpus/"$t" | wc -l) files," \
      "$(find tests/fuzz/corpus/"$t" -type f -printf '%s\n' | awk '{ s += $1 } END { print s }') bytes in tests/fuzz/corpus/$t"
  fi
done

echo "== summary ($(date -u +%Y-%m-%d), $(clang++ --version | head -1))"
printf '%s\n' "${summary[@]}"
((merge)) && echo "checked-in corpus: $(find tests/fuzz/corpus -type f -printf '%s\n' | awk '{ s += $1 } END { print s }') bytes in all"
exit $status
