#!/usr/bin/env bash
# poslab table against .npy files written by real numpy (Debian's python3-numpy,
# installed by scripts/install-deps.sh): tests/cli/table_numpy.py.
set -u
py=/usr/bin/python3
if ! "$py" -c 'import numpy' 2>/dev/null; then
  echo "not ok - numpy is missing: run scripts/install-deps.sh (Debian python3-numpy)"
  exit 1
fi
exec "$py" "$(dirname "$0")/table_numpy.py" "$1"
