#!/usr/bin/env bash
# Runs on a lent GPU machine (device tool), from the repository root, after ci/device/pack.sh:
# the gpu-kernels tests with CI=true (no adapter = failure), then the GPU benches with timestamp
# queries, their A/A calibration, and a quick CPU A/B gate on that machine's quieter cores.
# Each step has its own time limit so that a slow one leaves the others their results.
# SKIP_BENCH=1 stops after the tests, SKIP_CPU=1 before the CPU gate.
# Results go to $OUT (at most 8 files come back): run.log, adapter.txt, gpu-tests.json,
# gpu-bench.json, gpu-aa.json, cpu-quick.json.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
OUT="${OUT:-/tmp/devout}"; mkdir -p "$OUT"
exec > >(tee "$OUT/run.log") 2>&1
step() { echo; echo "== $1 ($(date +%T))"; }

step unpack
source ci/device/unpack.sh
# The NVIDIA Vulkan driver (libGLX_nvidia) needs the glvnd libraries beside the Vulkan loader:
# without them the loader finds it but gets no vkCreateInstance from it.
for f in .devrun/*.deb; do dpkg -x "$f" /; done
ldconfig
echo "unpacked: $(cd .devrun && ls *.deb | sed 's/_.*//' | tr '\n' ' ')"
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if [ -f "$icd" ] && ! ls /usr/share/vulkan/icd.d/nvidia* /etc/vulkan/icd.d/nvidia* >/dev/null 2>&1; then
  export VK_DRIVER_FILES="$icd"; echo "VK_DRIVER_FILES=$icd"
fi
node -v; nvidia-smi -L 2>&1 | head -2; echo "cores: $(nproc)"
ls /usr/share/vulkan/icd.d /etc/vulkan/icd.d /usr/local/nvidia/share/vulkan/icd.d 2>&1 | tr '\n' ' '; echo

step adapter
cat > /tmp/probe.mjs <<'JS'
import { create, globals } from 'webgpu';
Object.assign(globalThis, globals);
const a = await create([]).requestAdapter();
if (!a) { console.log('NO ADAPTER'); process.exit(1); }
console.log(JSON.stringify({ ...Object.fromEntries(['vendor','architecture','device','description'].map(k => [k, a.info[k]])),
  fallback: a.info.isFallbackAdapter, features: [...a.features].sort(), maxWorkgroupSize: a.limits.maxComputeWorkgroupSizeX }));
process.exit(0);
JS
cp /tmp/probe.mjs packages/gpu-kernels/probe.mjs
if ! (cd packages/gpu-kernels && timeout 60 node probe.mjs) | tee "$OUT/adapter.txt" | grep -q vendor; then
  echo "no adapter; the Vulkan loader's view:"
  (cd packages/gpu-kernels && VK_LOADER_DEBUG=error,warn,driver timeout 60 node probe.mjs 2>&1 | grep -v '^DRIVER' | head -30)
  lib="$(ldconfig -p | awk '/libGLX_nvidia.so.0/ {print $NF; exit}')"
  echo "libGLX_nvidia: ${lib:-not in ldconfig}"; [ -n "$lib" ] && ldd "$lib" | grep -i 'not found'
  exit 3
fi
rm -f packages/gpu-kernels/probe.mjs

step 'gpu-kernels tests (CI=true)'
(cd packages/gpu-kernels && CI=true timeout 150 node_modules/.bin/vitest run \
  --reporter=default --reporter=json --outputFile.json="$OUT/gpu-tests.json" 2>&1 | tail -25)
(cd bench && CI=true timeout 120 node_modules/.bin/vitest run src/gpu-kernels 2>&1 | tail -8)

[ "${SKIP_BENCH:-0}" = 1 ] && { step done; exit 0; }
cd bench
bench() { timeout "$1" node_modules/.bin/tsx --conditions=source src/cli/bench.ts "${@:2}" 2>&1 | grep -v -e '^\s*$' -e '^\[';  }
step 'GPU benches (kernels vs CPU, checked vs unchecked free)'
bench 200 --gpu --filter gpu-kernels --rounds-min 8 --rounds-max 20 --budget 120 --json /tmp/gpu-bench.json
cp /tmp/gpu-bench.json "$OUT/" 2>/dev/null
step 'GPU free A/A'
bench 90 --gpu --aa --filter gpu-kernels:free-batch --rounds-min 8 --rounds-max 12 --budget 45 --json /tmp/gpu-aa.json
cp /tmp/gpu-aa.json "$OUT/" 2>/dev/null
[ "${SKIP_CPU:-0}" = 1 ] && { step done; exit 0; }
step 'CPU A/B gate, quick'
bench 150 --quick --budget 100 --json /tmp/cpu-quick.json
cp /tmp/cpu-quick.json "$OUT/" 2>/dev/null
step done
