#!/usr/bin/env bash
# The project's main command (README):  bash ci/fuzz.sh [args]
# Setup, build what the fuzzer imports, then `pnpm fuzz [args]` (default: --time 60).
# Setup and build output goes to stderr, so the fuzzer's stdout stays its own.
set -euo pipefail
# shellcheck source=ci/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$KVFUZZ_ROOT"

bash ci/setup.sh >&2
kvfuzz_pnpm_path

# The fuzzer imports workspace packages through their dist/ builds.
echo "[fuzz] building @kvfuzz/fuzz's dependencies" >&2
pnpm exec turbo run build --filter='@kvfuzz/fuzz...' --output-logs=errors-only --ui=stream >&2

[ "$#" -gt 0 ] || set -- --time 60
echo "[fuzz] pnpm fuzz $*" >&2
exec pnpm fuzz "$@"
