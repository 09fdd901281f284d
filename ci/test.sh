#!/usr/bin/env bash
# The project's test command (README):  bash ci/test.sh
# Setup, then build + typecheck + test through turbo, then count the vitest reports.
# The last line of output is always `N passed, N failed` (`, N skipped` when > 0).
# Exits non-zero if turbo failed, a test failed, no test ran, or (CI=true) a test
# was skipped. Extra arguments go to turbo (e.g. --filter=@kvfuzz/allocator-core).
set -euo pipefail
# shellcheck source=ci/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$KVFUZZ_ROOT"

# Plain logs when output is not a terminal (CI): vitest and turbo honour NO_COLOR,
# and turbo.json passes it through to the tasks.
if [ ! -t 1 ] && [ -z "${FORCE_COLOR:-}" ]; then export NO_COLOR=1; fi

t_all="$(kvfuzz_now)"
bash ci/setup.sh
kvfuzz_pnpm_path

# Only count reports written by this run.
for d in packages/*/ fuzz/ bench/; do
  rm -f "${d}"test-results/*.json
done

echo "[test] turbo run build typecheck test"
t="$(kvfuzz_now)"
turbo_rc=0
# errors-only: a passing task prints nothing; a failing task prints its whole log
# (vitest's failure report included), grouped so parallel tasks do not interleave.
# dependencies-successful: one failing package does not hide the others' results.
pnpm exec turbo run build typecheck test \
  --output-logs=errors-only --log-order=grouped --ui=stream \
  --continue=dependencies-successful "$@" || turbo_rc=$?
echo "[test] turbo finished with status $turbo_rc ($(kvfuzz_since "$t")s; $(kvfuzz_since "$t_all")s in all)"

count_rc=0
node ci/count-tests.mjs --turbo-exit "$turbo_rc" || count_rc=$?
exit "$count_rc"
