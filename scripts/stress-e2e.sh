#!/usr/bin/env bash
# Hunts races in the browser tests: runs the whole e2e suite N times in a row
# (default 3) while `stress-ng --cpu 2` keeps both cores busy, and says per
# run which tests failed. A test that fails only here waits on something the
# page has not promised (fix the page's readiness, web/js/ready.js, or the
# test's wait; never add sleeps or retries).
#
#   bash scripts/stress-e2e.sh [RUNS] [E2E FILE…]     (npm run test:stress)
#
# Uses the built dist/ (run npm run build first). The files run through
# scripts/e2e.mjs, as in npm test (slowest first); POSLAB_E2E_CONCURRENCY:
# files at once (default twice the cores, as npm test); POSLAB_STRESS_CPUS: stress-ng
# workers (default 2); POSLAB_TIMEOUT_SCALE (default 3): every test's own
# timeout and the helpers' waits times this (tests/e2e/timeout-scale.mjs), so
# that a failure is a race and not a test starved of CPU. The TAP output of every run is kept in
# test-artifacts/stress/run-N.tap (the runner's lines in run-N.log). Exits 1 if any run had a failure.
set -uo pipefail
cd "$(dirname "$0")/.."

runs="${1:-3}"
shift || true
case "$runs" in '' | *[!0-9]* | 0) echo "stress-e2e: RUNS must be a whole number ≥ 1, got '$runs'" >&2; exit 2 ;; esac
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(tests/e2e/)
jobs="${POSLAB_E2E_CONCURRENCY:-$((2 * $(nproc 2>/dev/null || echo 2)))}"
export POSLAB_TIMEOUT_SCALE="${POSLAB_TIMEOUT_SCALE:-3}"
cpus="${POSLAB_STRESS_CPUS:-2}"
for v in "$jobs" "$cpus"; do
  case "$v" in '' | *[!0-9]* | 0) echo "stress-e2e: POSLAB_E2E_CONCURRENCY and POSLAB_STRESS_CPUS must be whole numbers ≥ 1, got '$v'" >&2; exit 2 ;; esac
done

# stress-ng is needed by this script only (Debian's package), so it is
# installed here rather than by install-deps.sh.
if ! command -v stress-ng >/dev/null; then
  echo "stress-e2e: installing stress-ng"
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq stress-ng >/dev/null || {
    echo "stress-e2e: could not install stress-ng (apt-get install stress-ng)" >&2
    exit 2
  }
fi
[ -f dist/index.html ] || { echo "stress-e2e: dist/ is not built: run npm run build first" >&2; exit 2; }

# The servers send the copies the build compressed (scripts/precompress.mjs); none compresses per request.
out=test-artifacts/stress
mkdir -p "$out"
stress-ng --cpu "$cpus" --cpu-method matrixprod --quiet &
stress_pid=$!
trap 'kill "$stress_pid" 2>/dev/null; wait "$stress_pid" 2>/dev/null' EXIT
echo "stress-e2e: stress-ng --cpu $cpus (pid $stress_pid); $runs run(s) of ${files[*]}, $jobs file(s) at once, timeouts ×$POSLAB_TIMEOUT_SCALE"

bad=0
summary=()
for i in $(seq 1 "$runs"); do
  tap="$out/run-$i.tap"
  t=$SECONDS
  # The runner's own lines (a line per file, the failures) go to run-N.log.
  POSLAB_E2E_CONCURRENCY="$jobs" node scripts/e2e.mjs --import ./tests/e2e/timeout-scale.mjs --tap "$tap" "${files[@]}" >"$out/run-$i.log" 2>&1
  status=$?
  pass=$(grep -E '^# pass ' "$tap" | tail -1 | awk '{print $3}')
  fail=$(grep -E '^# fail ' "$tap" | tail -1 | awk '{print $3}')
  line="run $i: exit $status, pass ${pass:-?}, fail ${fail:-?}, $((SECONDS - t)) s"
  echo "stress-e2e: $line"
  if [ "$status" -ne 0 ]; then
    bad=1
    # The failing tests by name (TAP "not ok" lines at any depth), and where to read why.
    grep -E '^\s*not ok ' "$tap" | sed 's/^/  /'
    echo "  (details: $tap, $out/run-$i.log)"
  fi
  summary+=("$line")
done
echo "stress-e2e: summary"
printf '  %s\n' "${summary[@]}"
exit $bad
