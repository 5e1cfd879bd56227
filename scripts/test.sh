#!/usr/bin/env bash
# Every test: GoogleTest and CLI tests (ctest), the wasm module under node
# --test, then the browser tests in headless Chromium. Exits non-zero on any
# failure, and runs every suite even when an earlier one fails.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh || exit 1
bash scripts/build.sh || exit 1

status=0
echo "== ctest (GoogleTest + CLI)"
ctest --test-dir build/native --output-on-failure -j"$(nproc 2>/dev/null || echo 2)" || status=1

echo "== sanitizers: ctest with ASan + UBSan (build/sanitize)"
cmake -S . -B build/sanitize -DPOSLAB_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null &&
  cmake --build build/sanitize -j"$(nproc 2>/dev/null || echo 2)" &&
  ctest --test-dir build/sanitize --output-on-failure -j"$(nproc 2>/dev/null || echo 2)" || status=1

echo "== fuzz: each libFuzzer harness for ${POSLAB_FUZZ_SECONDS:-60} s (npm run fuzz: 300 s)"
bash scripts/fuzz.sh "${POSLAB_FUZZ_SECONDS:-60}" || status=1

echo "== tsc: poslab.d.ts types the API as it is used"
npx --no-install tsc -p tests/types && echo "poslab.d.ts: ok" || status=1

echo "== node --test tests/web (page modules: grading, embedding)"
node --test tests/web/ || status=1

echo "== node --test tests/wasm"
node --test tests/wasm/ || status=1

if [ -d tests/e2e ] && ls tests/e2e/*.test.mjs >/dev/null 2>&1; then
  echo "== node --test tests/e2e (headless Chromium)"
  node --test --test-concurrency=1 tests/e2e/ || status=1
fi
exit $status
