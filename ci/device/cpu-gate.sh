#!/usr/bin/env bash
# Runs on a lent machine with many cores (device tool), after ci/device/pack.sh: the full CPU A/B
# gate, one bench file per physical core in parallel (each process pinned to its own core, its
# two variants taking turns there as always), so a few minutes give the rounds that take this
# 2-core machine twenty. Usage: bash ci/device/cpu-gate.sh [BUDGET_SECONDS]; results in $OUT:
# gate.log and gate-json.tgz, the bench/1 JSON of each file (gate-<file>.json; one archive, since
# at most 8 files come back from a call).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
OUT="${OUT:-/tmp/devout}"; mkdir -p "$OUT"
budget="${1:-300}"
exec > >(tee "$OUT/gate.log") 2>&1
source ci/device/unpack.sh
# One logical CPU per physical core, core 0's siblings left to the system.
cores=()
for d in /sys/devices/system/cpu/cpu[0-9]*; do
  c="${d##*cpu}"; first="$(sed 's/[,-].*//' "$d/topology/thread_siblings_list" 2>/dev/null || echo "$c")"
  [ "$first" = "$c" ] && [ "$c" != 0 ] && cores+=("$c")
done
echo "node $(node -v), $(nproc) cpus, one per core: ${cores[*]}, budget ${budget}s each"
files=(alloc-free alloc-extend alloc-decode free-segments prefix-cache host-pool)
cd bench
pids=()
for i in "${!files[@]}"; do
  f="${files[$i]}"; cpu="${cores[$((i % ${#cores[@]}))]}"
  case "$f" in prefix-cache|host-pool) q="$f:" ;; *) q="allocator-core:$f:" ;; esac
  node_modules/.bin/tsx --conditions=source src/cli/bench.ts --filter "$q" --cpu "$cpu" --budget "$budget" \
    --json "/tmp/gate-$f.json" > "/tmp/gate-$f.log" 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
for f in "${files[@]}"; do
  echo "== $f"; grep -v -e '^\[' -e '^\s*$' "/tmp/gate-$f.log" | grep -v '^bench  \|^----' | tail -14
done
(cd /tmp && tar -czf "$OUT/gate-json.tgz" gate-*.json)
