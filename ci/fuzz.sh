#!/usr/bin/env bash
# The project's main command (README):  bash ci/fuzz.sh [args]
# Setup, then `pnpm fuzz [args]` (default: --time 60). The fuzzer loads the workspace
# packages from their TypeScript sources (the `source` export condition), so no build is needed.
# Setup and build output goes to stderr, so the fuzzer's stdout stays its own.
set -euo pipefail
# shellcheck source=ci/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$KVFUZZ_ROOT"

bash ci/setup.sh >&2
kvfuzz_pnpm_path

[ "$#" -gt 0 ] || set -- --time 60
echo "[fuzz] pnpm fuzz $*" >&2
exec pnpm fuzz "$@"
