#!/usr/bin/env bash
# Packs what a lent GPU machine needs to run the WebGPU tests and benches on real hardware
# (device tool: /work/.library/device). That machine has no Node, no registry and maybe no
# Vulkan loader, so all three travel in .devrun/ (ignored by git, named in `carry`):
#   node.xz       this machine's node binary (Node 20)
#   nm.tar.xz     every node_modules folder (symlinks kept) and the packages' dist/, without
#                 turbo, typescript and the webgpu builds for other platforms (size limit 64 MiB)
#   *.deb         the Vulkan loader and the glvnd libraries, unpacked into / there
# Then: device run with carry [".devrun"] and command `bash ci/device/gpu-run.sh`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
grep -qx '/.devrun/' .git/info/exclude 2>/dev/null || echo '/.devrun/' >> .git/info/exclude
mkdir -p .devrun
pnpm -r --filter './packages/*' build >/dev/null
if [ ! -f .devrun/node.xz ] || [ "$(node -v)" != "$(cat .devrun/node.version 2>/dev/null)" ]; then
  xz -9 -T2 -c "$(readlink -f "$(command -v node)")" > .devrun/node.xz
  node -v > .devrun/node.version
fi
tar -c --exclude='node_modules/.pnpm/turbo*' --exclude='node_modules/.pnpm/@turbo*' \
  --exclude='node_modules/.pnpm/typescript@*' --exclude='webgpu/dist/darwin-*' \
  --exclude='webgpu/dist/linux-arm64' --exclude='webgpu/dist/win32-*' \
  node_modules bench/node_modules fuzz/node_modules packages/*/node_modules packages/*/dist \
  | xz -6 -T2 > .devrun/nm.tar.xz
# The Vulkan loader and the glvnd libraries the NVIDIA driver's ICD (libGLX_nvidia) loads.
(cd .devrun && rm -f ./*.deb && apt-get download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2 >/dev/null 2>&1)
du -ch .devrun/* | tail -1
