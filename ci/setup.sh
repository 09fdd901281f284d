#!/usr/bin/env bash
# Idempotent setup for a fresh Debian bookworm machine with Node 20, as root or not.
#   bash ci/setup.sh
# 1. Vulkan software driver that Dawn (webgpu) accepts: mesa-vulkan-drivers >= 25
#    from bookworm-backports (root only; otherwise a warning).
# 1b. Debian's chromium, headless, for the bench history report's test (root only;
#    otherwise a warning; that test fails under CI=true without it).
# 1c. Debian's python3 and python3-torch, for the SGLang adapter (root only;
#    otherwise a warning; its tests fail under CI=true without it).
# 2. pnpm, exactly 12.4.2 (the lockfile pins it; any other pnpm refuses to run here).
# 3. pnpm install --frozen-lockfile.
# Set KVFUZZ_SKIP_APT=1 to skip steps 1, 1b and 1c.
set -euo pipefail
# shellcheck source=ci/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$KVFUZZ_ROOT"

say() { printf '[setup] %s\n' "$*"; }
warn() { printf '[setup] WARNING: %s\n' "$*" >&2; }

# Runs a command with its output kept in a temporary log; prints the log only
# when the command fails (dpkg is chatty even with -qq).
quiet() {
  local log rc=0
  log="$(mktemp)"
  "$@" >"$log" 2>&1 || rc=$?
  if [ "$rc" -ne 0 ]; then
    cat "$log" >&2
    echo "[setup] ERROR: '$*' failed with status $rc" >&2
  fi
  rm -f "$log"
  return "$rc"
}

# apt with one retry after a pause (mirrors sometimes fail transiently).
apt_quiet() {
  quiet apt-get "$@" && return 0
  say "apt-get $1 failed; retrying once in 5s"
  sleep 5
  quiet apt-get "$@"
}

t_all="$(kvfuzz_now)"

# --- 1. Vulkan driver ---------------------------------------------------------
MESA_MIN=25

mesa_version() {
  # Prints the installed version, or nothing when not (fully) installed.
  local st
  st="$(dpkg-query -W -f='${db:Status-Abbrev}|${Version}' mesa-vulkan-drivers 2>/dev/null || true)"
  case "$st" in
    ii*) printf '%s' "${st#*|}" ;;
  esac
}

mesa_ok() {
  local v
  v="$(mesa_version)"
  [ -n "$v" ] && dpkg --compare-versions "$v" ge "${MESA_MIN}~"
}

backports_configured() {
  # An active (uncommented) line naming bookworm-backports, one-line or deb822 format.
  local f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    grep -Eq '^[^#]*bookworm-backports' "$f" && return 0
  done
  return 1
}

t="$(kvfuzz_now)"
if [ "${KVFUZZ_SKIP_APT:-0}" = 1 ]; then
  say "vulkan: skipped (KVFUZZ_SKIP_APT=1)"
elif ! command -v dpkg-query >/dev/null 2>&1; then
  warn "not a Debian system (no dpkg-query): cannot check mesa-vulkan-drivers >= $MESA_MIN; GPU tests will fail without a Vulkan driver Dawn accepts."
elif mesa_ok; then
  say "vulkan: mesa-vulkan-drivers $(mesa_version) already installed"
elif [ "$(id -u)" -ne 0 ]; then
  have="$(mesa_version)"
  warn "mesa-vulkan-drivers >= $MESA_MIN is not installed (found: ${have:-none}); GPU tests will fail. Install it as root: bash ci/setup.sh  (or: apt-get install -t bookworm-backports --no-install-recommends mesa-vulkan-drivers libvulkan1, with bookworm-backports in apt sources)"
else
  export DEBIAN_FRONTEND=noninteractive
  codename="$(. /etc/os-release 2>/dev/null && printf '%s' "${VERSION_CODENAME:-}")"
  if [ "$codename" = bookworm ]; then
    if backports_configured; then
      say "vulkan: bookworm-backports already in apt sources"
    else
      say "vulkan: adding bookworm-backports (/etc/apt/sources.list.d/bookworm-backports.sources)"
      cat > /etc/apt/sources.list.d/bookworm-backports.sources <<'SRC'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
    fi
    say "vulkan: installing mesa-vulkan-drivers libvulkan1 from bookworm-backports"
    apt_quiet update -qq
    apt_quiet install -y -qq --no-install-recommends -t bookworm-backports mesa-vulkan-drivers libvulkan1
  else
    # Not bookworm: the distribution's own mesa may already be new enough (trixie has 25).
    say "vulkan: not bookworm (${codename:-unknown}); installing the distribution's mesa-vulkan-drivers"
    apt_quiet update -qq
    apt_quiet install -y -qq --no-install-recommends mesa-vulkan-drivers libvulkan1
  fi
  if mesa_ok; then
    say "vulkan: mesa-vulkan-drivers $(mesa_version) installed ($(kvfuzz_since "$t")s)"
  else
    warn "mesa-vulkan-drivers is $(mesa_version) after install, need >= $MESA_MIN; GPU tests will fail."
  fi
fi

# Debian packages for one purpose, installed as root unless `have` already holds; otherwise a warning.
#   apt_step LABEL HAVE WHY PACKAGE...
# HAVE is a function that succeeds when the purpose is met; WHY says what fails without it.
apt_step() {
  local label="$1" have="$2" why="$3" t
  shift 3
  t="$(kvfuzz_now)"
  if [ "${KVFUZZ_SKIP_APT:-0}" = 1 ]; then
    say "$label: skipped (KVFUZZ_SKIP_APT=1)"
  elif "$have"; then
    say "$label: already installed"
  elif ! command -v apt-get >/dev/null 2>&1; then
    warn "$label is missing and this is not a Debian system (no apt-get): $why"
  elif [ "$(id -u)" -ne 0 ]; then
    warn "$label is missing: $why. Install it as root: bash ci/setup.sh  (or: apt-get install -y --no-install-recommends $*)"
  else
    export DEBIAN_FRONTEND=noninteractive
    say "$label: installing Debian's $*"
    apt_quiet update -qq
    apt_quiet install -y -qq --no-install-recommends "$@"
    if "$have"; then
      say "$label: installed ($(kvfuzz_since "$t")s)"
    else
      warn "$label is still missing after apt-get install $*: $why"
    fi
  fi
}

# --- 1b. Chromium --------------------------------------------------------------
# bench/src/report/history-chromium.test.ts opens the history report in headless
# Chromium (--dump-dom) and checks that every chart rendered. Debian's package,
# never a browser download; no recommends (the sandbox helper is not used).
chromium_ok() { command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; }
apt_step chromium chromium_ok "the bench history report test fails under CI=true (KVFUZZ_CHROMIUM names another binary)" chromium

# --- 1c. Python and torch ------------------------------------------------------
# adapters/sglang runs SGLang's own allocator and host pool on torch's CPU build, and
# its tests (fuzz/test/engine-sglang.test.ts) run it under Debian's python3 with
# python3-torch (PyPI is not used). Another python3 earlier on PATH may lack torch:
# the validator picks /usr/bin/python3 (or KVFUZZ_PYTHON).
torch_ok() { /usr/bin/python3 -c 'import torch' >/dev/null 2>&1; }
apt_step python3-torch torch_ok "the SGLang adapter tests fail under CI=true (KVFUZZ_PYTHON names another Python with torch)" python3 python3-torch

# --- 2. pnpm ------------------------------------------------------------------
t="$(kvfuzz_now)"
kvfuzz_pnpm_path
if [ "$(pnpm --version 2>/dev/null || true)" = "$KVFUZZ_PNPM_VERSION" ]; then
  say "pnpm: $KVFUZZ_PNPM_VERSION already at $(command -v pnpm)"
else
  if ! command -v npm >/dev/null 2>&1; then
    echo "[setup] ERROR: npm not found; install Node 20 (with npm) first." >&2
    exit 1
  fi
  # npm writes to <prefix>/lib/node_modules and <prefix>/bin; check the nearest
  # existing ancestor of each for write access.
  writable() {
    local d="$1"
    while [ ! -e "$d" ]; do d="$(dirname "$d")"; done
    [ -w "$d" ]
  }
  gprefix="$(npm prefix -g 2>/dev/null || true)"
  if [ "$(id -u)" -eq 0 ] || { [ -n "$gprefix" ] && writable "$gprefix/lib/node_modules" && writable "$gprefix/bin"; }; then
    say "pnpm: installing pnpm@$KVFUZZ_PNPM_VERSION globally (npm prefix ${gprefix:-?})"
    npm i -g --allow-scripts=pnpm "pnpm@$KVFUZZ_PNPM_VERSION"
  else
    # Not root and the global prefix is not ours: install into ~/.local instead.
    # Pass the original global npmrc along: a changed prefix would otherwise make
    # npm read <prefix>/etc/npmrc and lose settings such as its cafile.
    say "pnpm: global npm prefix '${gprefix:-?}' is not writable; installing pnpm@$KVFUZZ_PNPM_VERSION into $KVFUZZ_USER_PREFIX (its bin/ is put on PATH by ci/lib.sh for the ci scripts; add it to your PATH to use pnpm by hand)"
    gconf="$(npm config get globalconfig 2>/dev/null || true)"
    mkdir -p "$KVFUZZ_USER_PREFIX"
    if [ -n "$gconf" ] && [ -f "$gconf" ]; then
      npm i -g --prefix "$KVFUZZ_USER_PREFIX" --globalconfig "$gconf" --allow-scripts=pnpm "pnpm@$KVFUZZ_PNPM_VERSION"
    else
      npm i -g --prefix "$KVFUZZ_USER_PREFIX" --allow-scripts=pnpm "pnpm@$KVFUZZ_PNPM_VERSION"
    fi
  fi
  hash -r
  kvfuzz_pnpm_path
  got="$(pnpm --version 2>/dev/null || true)"
  if [ "$got" != "$KVFUZZ_PNPM_VERSION" ]; then
    echo "[setup] ERROR: after install, 'pnpm --version' prints '${got:-nothing}' (from $(command -v pnpm || echo 'no pnpm on PATH')), expected $KVFUZZ_PNPM_VERSION." >&2
    exit 1
  fi
  say "pnpm: $KVFUZZ_PNPM_VERSION installed at $(command -v pnpm) ($(kvfuzz_since "$t")s)"
fi

# --- 3. dependencies ----------------------------------------------------------
t="$(kvfuzz_now)"
say "pnpm install --frozen-lockfile"
pnpm install --frozen-lockfile
say "dependencies installed ($(kvfuzz_since "$t")s)"

say "done in $(kvfuzz_since "$t_all")s"
