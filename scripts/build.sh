#!/usr/bin/env bash
# Builds the native core (library, CLI, tests), the wasm module, and the static
# site in dist/. Incremental: re-running only rebuilds what changed.
#   bash scripts/build.sh --bench   also the benchmarks' executables
#     (build/native/attention_bench, train_bench; build/wasm/train_bench.js),
#     which npm test does not need (npm run bench builds them this way).
#   bash scripts/build.sh --lab     only what the page and the browser tests
#     use: the wasm module, the site, and natively the library and the CLI
#     (the instructor's re-grader), not the GoogleTest executable (npm start;
#     npm test builds that alongside the browser tests: scripts/test.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bench=0
lab=0
for a in "$@"; do
  case "$a" in
    --bench) bench=1 ;;
    --lab) lab=1 ;;
    *) echo "build.sh: unknown option '$a' (allowed: --bench, --lab)" >&2; exit 2 ;;
  esac
done
jobs=$(nproc 2>/dev/null || echo 2)
# ccache when installed (CMAKE_CXX_COMPILER_LAUNCHER=none: without).
. scripts/ccache.sh

# The native build (library, CLI, GoogleTest) and the wasm build share
# nothing, so they run side by side: each one's serial steps (linking, the
# test discovery, Binaryen's wasm-opt on the wasm) leave a core the
# other one uses. POSLAB_BUILD_SERIAL=1 builds one after the other (easier to
# read when a build fails).
build_native() {
  # The launcher is passed on every configure (the environment variable only
  # counts when a build folder is first configured).
  cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER_LAUNCHER="${CMAKE_CXX_COMPILER_LAUNCHER:-}" >/dev/null
  if [ $lab = 1 ]; then
    cmake --build build/native -j"$jobs" --target poslab_cli
  else
    cmake --build build/native -j"$jobs"
  fi
  if [ $bench = 1 ]; then cmake --build build/native -j"$jobs" --target attention_bench train_bench; fi
}
build_wasm() {
  # Emscripten 3.1.6's JS optimiser needs acorn, which Debian keeps in /usr/share/nodejs.
  export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
  if [ ! -f build/wasm/CMakeCache.txt ]; then
    emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CROSSCOMPILING_EMULATOR="$(command -v node)" >/dev/null
  fi
  cmake --build build/wasm -j"$jobs"
  if [ $bench = 1 ]; then cmake --build build/wasm -j"$jobs" --target train_bench_wasm; fi
}
if [ "${POSLAB_BUILD_SERIAL:-0}" = 1 ]; then
  echo "build: native (build/native)"
  build_native
  echo "build: wasm (build/wasm)"
  build_wasm
else
  echo "build: native (build/native) and wasm (build/wasm), side by side"
  (set -o pipefail; build_native 2>&1 | sed -u 's/^/[native] /') &
  native_pid=$!
  (set -o pipefail; build_wasm 2>&1 | sed -u 's/^/[wasm] /') &
  wasm_pid=$!
  native_ok=0 wasm_ok=0
  wait "$native_pid" || native_ok=$?
  wait "$wasm_pid" || wasm_ok=$?
  if [ "$native_ok" -ne 0 ] || [ "$wasm_ok" -ne 0 ]; then
    [ "$native_ok" -ne 0 ] && echo "build: the native build failed (its lines start with [native])" >&2
    [ "$wasm_ok" -ne 0 ] && echo "build: the wasm build failed (its lines start with [wasm])" >&2
    exit 1
  fi
fi

echo "build: site (dist/)"
mkdir -p dist
cp build/wasm/poslab.js dist/poslab.js
cp build/wasm/poslab-web.js dist/poslab-web.js
cp build/wasm/poslab-web.wasm dist/poslab.wasm
cp cpp/bindings/wasm/poslab.d.ts dist/poslab.d.ts
node scripts/build-web.mjs
echo "build: done"
