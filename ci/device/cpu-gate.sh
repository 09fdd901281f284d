#!/usr/bin/env bash
# Runs on a lent machine with many cores (device tool), after ci/device/pack.sh: the full CPU A/B
# gate, one bench file per core in parallel (each process pinned to its own core, its two variants
# taking turns there as always), so a few minutes give the rounds that take this 2-core machine
# twenty. Usage: bash ci/device/cpu-gate.sh [BUDGET_SECONDS [FILE ...]]; SERIAL=1 runs the files
# one after another on one core instead. Results in $OUT: gate.log, the machine's CPU layout
# (topology.txt) and gate-json.tgz, the bench/1 JSON of each file (gate-<file>.json; one archive,
# since at most 8 files come back from a call).
#
# Why SERIAL: a virtual machine may not show which of its CPUs share a physical core. On the
# H200 machine (16 CPUs, none listed as siblings) the host pool failed at 1.05-1.08 with six files
# in parallel and passes on this machine at 1.00-1.01; see bench/README.md.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
OUT="${OUT:-/tmp/devout}"; mkdir -p "$OUT"
budget="${1:-300}"
files=("${@:2}")
[ ${#files[@]} -gt 0 ] || files=(alloc-free alloc-extend alloc-decode free-segments prefix-cache host-pool)
exec > >(tee "$OUT/gate.log") 2>&1
# Each file's JSON and log go to a folder of this run's own, removed at exit.
work="$(mktemp -d "${TMPDIR:-/tmp}/kvfuzz-gate-XXXXXX")"
trap 'rm -rf "$work"' EXIT
source ci/device/unpack.sh
{ lscpu; for d in /sys/devices/system/cpu/cpu[0-9]*; do
  echo "${d##*/}: core $(cat "$d/topology/core_id" 2>/dev/null) package $(cat "$d/topology/physical_package_id" 2>/dev/null) siblings $(cat "$d/topology/thread_siblings_list" 2>/dev/null)"
done; } > "$OUT/topology.txt" 2>&1
# One logical CPU per physical core as the machine lists them, core 0's siblings left to the system.
cores=()
for d in /sys/devices/system/cpu/cpu[0-9]*; do
  c="${d##*cpu}"; first="$(sed 's/[,-].*//' "$d/topology/thread_siblings_list" 2>/dev/null || echo "$c")"
  [ "$first" = "$c" ] && [ "$c" != 0 ] && cores+=("$c")
done
echo "node $(node -v), $(nproc) cpus, one per core: ${cores[*]}, budget ${budget}s each, files: ${files[*]}${SERIAL:+ (serial)}"
cd bench
run_file() { # FILE CPU
  local f="$1" q
  case "$f" in prefix-cache|host-pool) q="$f:" ;; *) q="allocator-core:$f:" ;; esac
  node_modules/.bin/tsx --conditions=source src/cli/bench.ts --filter "$q" --cpu "$2" --budget "$budget" \
    --json "$work/gate-$f.json" > "$work/gate-$f.log" 2>&1
}
pids=()
for i in "${!files[@]}"; do
  if [ "${SERIAL:-0}" = 1 ]; then run_file "${files[$i]}" "${cores[0]}"
  else run_file "${files[$i]}" "${cores[$((i % ${#cores[@]}))]}" & pids+=($!); fi
done
for p in "${pids[@]}"; do wait "$p"; done
for f in "${files[@]}"; do
  echo "== $f"; grep -v -e '^\[' -e '^\s*$' "$work/gate-$f.log" | grep -v '^bench  \|^----' | tail -14
done
(cd "$work" && tar -czf "$OUT/gate-json.tgz" gate-*.json)
