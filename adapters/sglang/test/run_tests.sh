#!/usr/bin/env bash
# The SGLang adapter's Python tests (plain unittest, against the stand-in tree):
#   bash adapters/sglang/test/run_tests.sh [unittest options, e.g. -v or -k loader]
# Runs with KVFUZZ_PYTHON, else Debian's /usr/bin/python3 (python3-torch). Exit status is unittest's.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
python="${KVFUZZ_PYTHON:-/usr/bin/python3}"
if ! "$python" -c 'import torch' 2>/dev/null; then
  echo "[sglang-adapter tests] $python cannot import torch: apt-get install python3-torch, or run bash ci/setup.sh as root" >&2
  exit 1
fi
cd "$here"
exec "$python" -m unittest discover -s "$here" -t "$here" -p 'test_*.py' "$@"
