#!/usr/bin/env bash
# Installs what Position Lab needs on a Debian 12 machine, idempotently: Debian
# packages (only those missing; apt-get update once, only if something is
# missing) and the npm packages in package-lock.json.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(emscripten libxtensor-dev xtl-dev libxsimd-dev libgtest-dev cmake make g++
          nlohmann-json3-dev libyaml-cpp-dev libicu-dev chromium chromium-driver libopenblas-dev fonts-noto-cjk
          clang-14 libclang-rt-14-dev  # clang-14 + its runtimes: libFuzzer (scripts/fuzz.sh)
          bubblewrap util-linux        # the re-grade's sandbox for student code (scripts/py-sandbox.mjs; prlimit is in util-linux)
          python3-numpy                # Debian numpy (/usr/bin/python3) writes the .npy files tests/cli/table_numpy.py reads
          ccache)                      # scripts/build.sh compiles through it when it is installed (scripts/ccache.sh)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  $SUDO apt-get update -qq
  # With recommends, as verified on this machine kind (Chromium then has its usual fonts).
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# npm ci when node_modules is missing or older than the lock file.
if [ -f package-lock.json ]; then
  stamp=node_modules/.package-lock.json
  if [ ! -f "$stamp" ] || [ package-lock.json -nt "$stamp" ]; then
    echo "install-deps: npm ci"
    npm ci --no-audit --no-fund --loglevel=error
  fi
fi
