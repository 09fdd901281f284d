# shellcheck shell=bash
# Shared helpers for the ci/*.sh scripts. Source it; do not run it:
#   source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# It sets KVFUZZ_ROOT (the repo root, found from this file's own location),
# exports the no-telemetry variables, and defines kvfuzz_pnpm_path.

KVFUZZ_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
KVFUZZ_PNPM_VERSION=12.4.2
# Where ci/setup.sh puts pnpm when the global npm prefix is not writable.
KVFUZZ_USER_PREFIX="${HOME:-/nonexistent}/.local"

# Turbo: no telemetry banner, no network. Exported so every child sees them.
export TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1

# Puts the right pnpm first on PATH for the rest of the calling script.
# If the pnpm already on PATH is the pinned version, nothing changes; otherwise,
# if ci/setup.sh installed pnpm into the user prefix ($HOME/.local/bin), that
# directory goes in front of PATH.
kvfuzz_pnpm_path() {
  local v
  v="$(pnpm --version 2>/dev/null || true)"
  [ "$v" = "$KVFUZZ_PNPM_VERSION" ] && return 0
  if [ -x "$KVFUZZ_USER_PREFIX/bin/pnpm" ]; then
    case ":$PATH:" in
      *":$KVFUZZ_USER_PREFIX/bin:"*) ;;
      *) PATH="$KVFUZZ_USER_PREFIX/bin:$PATH" ;;
    esac
    export PATH
    hash -r
  fi
}

# Seconds since the epoch with microseconds (bash 5), for timing lines.
kvfuzz_now() { local t="${EPOCHREALTIME:-$(date +%s)}"; printf '%s' "${t/,/.}"; }

# Prints elapsed seconds (one decimal) since the kvfuzz_now value in $1.
kvfuzz_since() { awk -v a="$1" -v b="$(kvfuzz_now)" 'BEGIN { printf "%.1f", b - a }'; }
