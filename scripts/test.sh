#!/usr/bin/env bash
# The tests, in two sizes:
#   bash scripts/test.sh        (npm test)      install + build + every functional
#     test: ctest (GoogleTest + CLI), tsc (poslab.d.ts), node --test tests/web,
#     tests/wasm, and the browser tests in headless Chromium (tests/e2e, run by
#     scripts/e2e.mjs: several files at once, the slowest first).
#   bash scripts/test.sh --all  (npm run test:all, CI) the same, then the slow
#     checks: ctest under ASan + UBSan (build/sanitize), each libFuzzer harness
#     for POSLAB_FUZZ_SECONDS (60; two at a time on two cores), and the tests
#     marked slow (POSLAB_FULL_RUN=1: exercise 9's full default run, the
#     page at the table size limits). Their builds run at low priority
#     alongside the functional suites.
# Order: the lab's build first (build.sh --lab: wasm, site, native library and
# CLI), then two lanes at once: the browser tests, and beside them the
# GoogleTest build, ctest, tsc, tests/web and tests/wasm (the browser tests
# mostly wait on the page, and the other lane uses what they leave idle).
# The browser tests print their lines as they come; each suite of the other
# lane prints its output whole when it ends (build/test-logs/ keeps every
# suite's output). Each suite ends on its own closing line ("== NAME: ok (N s)"),
# and a summary at the end says which suites failed. Every suite runs even
# when an earlier one fails; the exit status is non-zero if any failed.
# tests/web and tests/wasm run one file a core at a time;
# POSLAB_E2E_CONCURRENCY sets how many e2e files run at once (default: twice
# the cores; each file has its own server and browser, so files are
# independent).
set -uo pipefail
cd "$(dirname "$0")/.."

all=0
for a in "$@"; do
  case "$a" in
    --all) all=1 ;;
    *) echo "test.sh: unknown option '$a' (allowed: --all)" >&2; exit 2 ;;
  esac
done

cores=$(nproc 2>/dev/null || echo 2)
e2e_jobs="${POSLAB_E2E_CONCURRENCY:-$((2 * cores))}"
case "$e2e_jobs" in '' | *[!0-9]* | 0) echo "test.sh: POSLAB_E2E_CONCURRENCY must be a whole number ≥ 1, got '$e2e_jobs'" >&2; exit 2 ;; esac

t0=$SECONDS
bash scripts/install-deps.sh || exit 1
# What the browser tests need first (the wasm module, the site, the native
# library and CLI); the GoogleTest executable is built alongside them below.
bash scripts/build.sh --lab || exit 1
# ccache for the GoogleTest, sanitizer and fuzzing builds too (as build.sh).
. scripts/ccache.sh
echo "== install + build of the lab: $((SECONDS - t0)) s"

logs=build/test-logs
rm -rf "$logs"
mkdir -p "$logs"

# test:all: the sanitizer and fuzzing builds (a quarter of an hour of
# compiling on 2 cores) start now, at the lowest priority, so they use the
# CPU the functional suites leave idle (the browser tests mostly wait on the
# page); their tests run after the functional suites.
slow_pid=
if [ $all = 1 ]; then
  (
    nice -n 19 bash -c '
      cmake -S . -B build/sanitize -DPOSLAB_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null &&
        cmake --build build/sanitize -j"$1" &&
        bash scripts/fuzz.sh --build-only' _ "$cores"
  ) >build/slow-builds.log 2>&1 &
  slow_pid=$!
fi

# run [--live] NAME COMMAND…: one suite, timed. Its output goes to
# build/test-logs/ and is printed whole when it ends (two suites run at once,
# so their lines would mix), then its closing line ("== NAME: ok (N s)"); its
# status is kept for the summary. --live: printed as it comes too (the browser
# tests print a line per file as it ends).
n_suites=0
run() {
  local live=0
  if [ "$1" = --live ]; then live=1; shift; fi
  local name=$1
  shift
  local t=$SECONDS id status=ok
  n_suites=$((n_suites + 1))
  id=$(printf '%02d' "$n_suites")
  printf '%s\n' "$name" >"$logs/$id.name"
  if [ $live = 1 ]; then
    echo "== $name (its lines as they come)"
    "$@" 2>&1 | tee "$logs/$id.log" || status=FAILED
    echo "$status" >"$logs/$id.status"
    echo "== $name: $status ($((SECONDS - t)) s)"
  else
    "$@" >"$logs/$id.log" 2>&1 || status=FAILED
    echo "$status" >"$logs/$id.status"
    { echo "== $name"; cat "$logs/$id.log"; echo "== $name: $status ($((SECONDS - t)) s)"; } >"$logs/$id.out"
    cat "$logs/$id.out"
  fi
}

# Two lanes at once: the browser tests (the longest suite; they mostly wait on
# the page) and, beside them, the GoogleTest build with ctest, tsc and the
# node suites. tests/web and tests/wasm run one file a core at a time.
(
  native_tests() {
    cmake --build build/native -j"$cores" && ctest --test-dir build/native --output-on-failure -j"$cores"
  }
  run "ctest (GoogleTest + CLI; the GoogleTest build first)" native_tests
  run "tsc: poslab.d.ts types the API as it is used" bash -c 'npx --no-install tsc -p tests/types && echo "poslab.d.ts: ok"'
  run "node --test tests/web (page modules: grading, embedding; $cores files at once)" node --test --test-concurrency="$cores" tests/web/
  run "node --test tests/wasm ($cores files at once)" node --test --test-concurrency="$cores" tests/wasm/
) &
lane_pid=$!
if [ -d tests/e2e ] && ls tests/e2e/*.test.mjs >/dev/null 2>&1; then
  # POSLAB_FULL_RUN (test:all only) turns on the tests marked slow.
  if [ $all = 1 ]; then export POSLAB_FULL_RUN=1; fi
  n_suites=10
  run --live "tests/e2e (headless Chromium, $e2e_jobs files at once, slowest first: scripts/e2e.mjs)" env POSLAB_E2E_CONCURRENCY="$e2e_jobs" node scripts/e2e.mjs
fi
wait "$lane_pid"
n_suites=20

if [ $all = 1 ]; then
  t=$SECONDS
  if wait "$slow_pid"; then
    echo "== sanitizer and fuzzing builds (alongside the suites above): ok ($((SECONDS - t)) s waited)"
  else
    echo "== sanitizer and fuzzing builds: FAILED; build/slow-builds.log ends:"
    tail -40 build/slow-builds.log
  fi
  sanitize() {
    # Builds again only if the background build above failed (then its errors show here).
    cmake -S . -B build/sanitize -DPOSLAB_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null &&
      cmake --build build/sanitize -j"$cores" &&
      ctest --test-dir build/sanitize --output-on-failure -j"$cores"
  }
  run --live "sanitizers: ctest with ASan + UBSan (build/sanitize)" sanitize
  run --live "fuzz: each libFuzzer harness for ${POSLAB_FUZZ_SECONDS:-60} s (npm run fuzz: 300 s)" bash scripts/fuzz.sh "${POSLAB_FUZZ_SECONDS:-60}"
fi

echo "== total: $((SECONDS - t0)) s"
failed=()
for st in "$logs"/*.status; do
  [ "$(cat "$st")" = ok ] || failed+=("$(cat "${st%.status}.name")")
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "== FAILED: $(IFS=';'; echo "${failed[*]}")"
  exit 1
fi
echo "== all suites passed"
