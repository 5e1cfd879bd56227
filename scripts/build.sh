#!/usr/bin/env bash
# Builds the native core (library, CLI, tests), the wasm module, and the static
# site in dist/. Incremental: re-running only rebuilds what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)

echo "build: native (build/native)"
cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/native -j"$jobs"

echo "build: wasm (build/wasm)"
# Emscripten 3.1.6's JS optimiser needs acorn, which Debian keeps in /usr/share/nodejs.
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
if [ ! -f build/wasm/CMakeCache.txt ]; then
  emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CROSSCOMPILING_EMULATOR="$(command -v node)" >/dev/null
fi
cmake --build build/wasm -j"$jobs"

echo "build: site (dist/)"
mkdir -p dist
cp build/wasm/poslab.js dist/poslab.js
cp build/wasm/poslab-web.js dist/poslab-web.js
cp build/wasm/poslab-web.wasm dist/poslab.wasm
cp cpp/bindings/wasm/poslab.d.ts dist/poslab.d.ts
node scripts/build-web.mjs
echo "build: done"
