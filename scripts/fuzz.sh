#!/usr/bin/env bash
# Builds the libFuzzer harnesses in fuzz/ (clang-14, ASan + UBSan, build/fuzz)
# and runs each for a bounded time, as many at once as there are cores:
# scripts/fuzz.sh [--build-only] [SECONDS per harness, default 300] [HARNESS…]
# (tokenizer json_options yaml_loader grade table).
# Seeds are read from fuzz/corpus/<harness>/ (kept small, in git); new inputs
# found go to build/fuzz/corpus/<harness>/. Exits 1 if any harness crashed,
# leaving the input in build/fuzz/crashes/ (reproduce: build/fuzz/fuzz_NAME FILE).
set -uo pipefail
cd "$(dirname "$0")/.."
build_only=0
if [ "${1:-}" = --build-only ]; then build_only=1; shift; fi
seconds="${1:-300}"
shift || true
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=(tokenizer json_options yaml_loader grade table)
case "$seconds" in '' | *[!0-9]*) echo "fuzz: SECONDS must be a whole number, got '$seconds'" >&2; exit 2 ;; esac

if ! command -v clang++-14 >/dev/null; then
  echo "fuzz: clang++-14 is missing (bash scripts/install-deps.sh installs clang-14 and libclang-rt-14-dev)" >&2
  exit 2
fi
jobs=$(nproc 2>/dev/null || echo 2)
echo "fuzz: build (build/fuzz)"
CC=clang-14 CXX=clang++-14 cmake -S . -B build/fuzz -DPOSLAB_FUZZ=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null || exit 2
targets=()
for h in "${harnesses[@]}"; do targets+=(--target "fuzz_$h"); done
cmake --build build/fuzz -j"$jobs" "${targets[@]}" || exit 2
[ $build_only = 1 ] && exit 0

mkdir -p build/fuzz/crashes build/fuzz/logs
# A huge allocation throws std::bad_alloc (as in the shipped build) instead of aborting.
export ASAN_OPTIONS="allocator_may_return_null=1:detect_leaks=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"

# fuzz_one HARNESS: one harness for $seconds; its exit code in logs/HARNESS.rc.
fuzz_one() {
  local h=$1 max_len=4096
  mkdir -p "build/fuzz/corpus/$h"
  [ "$h" = yaml_loader ] && max_len=16384
  build/fuzz/fuzz_"$h" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 -max_len=$max_len \
    -print_final_stats=1 -artifact_prefix="build/fuzz/crashes/$h-" \
    "build/fuzz/corpus/$h" "fuzz/corpus/$h" >"build/fuzz/logs/$h.log" 2>&1
  echo $? >"build/fuzz/logs/$h.rc"
}

echo "fuzz: ${harnesses[*]} for ${seconds} s each, $jobs at a time"
running=0
for h in "${harnesses[@]}"; do
  if [ $running -ge "$jobs" ]; then
    wait -n
    running=$((running - 1))
  fi
  rm -f "build/fuzz/logs/$h.rc"
  fuzz_one "$h" &
  running=$((running + 1))
done
wait

status=0
for h in "${harnesses[@]}"; do
  rc=$(cat "build/fuzz/logs/$h.rc" 2>/dev/null || echo 99)
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "build/fuzz/logs/$h.log" | grep -o '[0-9]*$' || true)
  speed=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "build/fuzz/logs/$h.log" | grep -o '[0-9]*$' || true)
  if [ "$rc" -eq 0 ]; then
    echo "fuzz: $h ok: ${runs:-?} runs, ${speed:-?} exec/s"
  else
    status=1
    echo "fuzz: $h FAILED (exit $rc) after ${runs:-?} runs; log build/fuzz/logs/$h.log:"
    grep -E "^(==[0-9]+==ERROR|SUMMARY|.*runtime error|artifact_prefix|Test unit written)" "build/fuzz/logs/$h.log" | head -20
    grep -A 25 -E "^==[0-9]+==ERROR" "build/fuzz/logs/$h.log" | grep -E "^ +#[0-9]+ " | head -12
  fi
done
exit $status
