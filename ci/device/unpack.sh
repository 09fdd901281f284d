# Sourced by gpu-run.sh and cpu-gate.sh on a lent machine, from the repository root: puts the
# packed Node on PATH and the packed node_modules / dist in place (see pack.sh). Runs once per
# machine: a second script on the same machine finds both there.
mkdir -p /tmp/node/bin
[ -x /tmp/node/bin/node ] || { xz -dc .devrun/node.xz > /tmp/node/bin/node && chmod +x /tmp/node/bin/node; }
export PATH="/tmp/node/bin:$PATH" NO_COLOR=1
[ -d bench/node_modules ] || tar -xJf .devrun/nm.tar.xz
