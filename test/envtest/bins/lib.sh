# Sourced by build.sh, build-tools.sh and build-capi.sh: what every Go-tool build of the test
# environment does the same way, so each script says only what it builds.
#
# Promises:
# - Go is looked for only when something is missing (bins_need_go): a warm cache never runs the Go
#   toolchain, and a missing or too old Go exits 3 with the caller's message.
# - Binaries land in the per-user cache (bins_cache_root), under a lock (bins_lock), built into a
#   temporary name and renamed (bins_go_build): concurrent callers never run half a binary and never
#   both spend the cores on the same build.
# - An interrupted build (Ctrl-C, CI timeout, SIGTERM to the script alone) leaves neither a running
#   `go build` nor a partial binary behind.
#
# The caller sets `bins_prefix` (the tag of its progress lines) before sourcing, defines
# `go_missing WANT FOUND` (writes to stdout the message saying what to install or set instead), may
# set the array `bins_go_mods` (the wrapper go.mod files whose highest `go` line is the minimum Go;
# default: the go.mod of the module being built), and sets `quiet`/`print` through bins_flag.
# shellcheck shell=bash

quiet=0
print=0

# bins_flag ARG: handles the flags every script takes (--quiet, --print); non-zero for any other.
bins_flag() {
  case "$1" in
    --quiet) quiet=1 ;;
    --print) print=1 ;;
    *) return 1 ;;
  esac
}

# say: progress, silent with --quiet; shout: always (a build is happening, which takes a while).
say() { if [ "$quiet" = 0 ]; then echo "$bins_prefix: $*" >&2; fi; }
shout() { echo "$bins_prefix: $*" >&2; }

# The cache root: METAL3_TS_BIN_CACHE, else ${XDG_CACHE_HOME:-$HOME/.cache}/metal3-ts.
bins_cache_root=${METAL3_TS_BIN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/metal3-ts}

# bins_go_version GO_MOD...: the highest `go` line of the wrapper modules, the minimum toolchain.
bins_go_version() {
  sed -n 's/^go \([0-9.]*\)$/\1/p' "$@" | sort -V | tail -n1
}

# bins_need_go GO_MOD...: sets go_cmd to a Go at least as new as the modules need ($GO, else `go`
# on PATH, else /usr/local/go/bin/go), or writes go_missing's message on stderr and exits 3.
# GOTOOLCHAIN=local makes an older Go fail here instead of silently downloading a toolchain.
go_cmd=""
bins_go_mods=()
bins_need_go() {
  [ -n "$go_cmd" ] && return 0
  local candidate=${GO:-} want have=""
  if [ -z "$candidate" ]; then
    if command -v go >/dev/null 2>&1; then candidate=go
    elif [ -x /usr/local/go/bin/go ]; then candidate=/usr/local/go/bin/go
    fi
  fi
  want=$(bins_go_version "$@")
  if [ -n "$candidate" ]; then
    have=$(GOTOOLCHAIN=local "$candidate" env GOVERSION 2>/dev/null | sed 's/^go//') || have=""
  fi
  if [ -z "$have" ] || [ "$(printf '%s\n%s\n' "$want" "$have" | sort -V | head -n1)" != "$want" ]; then
    go_missing "$want" "${have:-no go command}" >&2
    exit 3
  fi
  go_cmd=$candidate
}

# bins_go_env CMD...: CMD under the settings of every build: the wrapper go.mod/go.sum are
# authoritative (-mod=readonly fails on drift instead of editing them), GOWORK=off ignores any
# enclosing go.work, CGO_ENABLED=0 gives static binaries like upstream releases.
bins_go_env() {
  GOWORK=off GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS="-mod=readonly -buildvcs=false" "$@"
}

# bins_version_ldflags VERSION PACKAGE...: `-s -w` plus the -X flags stamping VERSION into each
# version PACKAGE (what `--version` and the user agent report, as a release build would).
bins_version_ldflags() {
  local version=$1 minor flags="-s -w" p k
  shift
  minor=$(echo "$version" | cut -d. -f2)
  for p in "$@"; do
    for k in gitVersion=$version gitMajor=1 gitMinor=$minor gitTreeState=clean buildDate=1970-01-01T00:00:00Z; do
      flags="$flags -X $p.$k"
    done
  done
  echo "$flags"
}

# bins_lock FILE / bins_unlock: one builder at a time per FILE (flock where available).
bins_lock() {
  mkdir -p "$(dirname "$1")"
  exec 9>"$1"
  if command -v flock >/dev/null 2>&1; then flock 9; fi
}
bins_unlock() { exec 9>&-; }

build_pid=""
tmp=""
bins_cleanup() {
  if [ -n "$build_pid" ]; then kill "$build_pid" 2>/dev/null || true; wait "$build_pid" 2>/dev/null || true; fi
  if [ -n "$tmp" ]; then rm -f "$tmp"; fi
}
trap bins_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# bins_go_build LABEL OUT COLD MODULE_DIR GO_BUILD_ARG...: builds OUT with `go build -trimpath -o`
# in MODULE_DIR (the caller holds the lock and has called bins_need_go), logging to OUT.log; COLD
# says how long a cold build takes. On failure: the log's tail on stderr, exit 1. The build runs as
# a tracked background job, `exec` making its PID the go command itself, so bins_cleanup can stop it.
bins_go_build() {
  local label=$1 out=$2 cold=$3 module_dir=$4 start=$SECONDS status=0
  shift 4
  shout "building $label into $out (cold: $cold; log: $out.log)"
  tmp="$out.tmp.$$"
  (cd "$module_dir" && bins_go_env exec "$go_cmd" build -trimpath -o "$tmp" "$@") >"$out.log" 2>&1 &
  build_pid=$!
  wait "$build_pid" || status=$?
  build_pid=""
  if [ "$status" != 0 ]; then
    echo "$bins_prefix: building $label failed; last lines of $out.log:" >&2
    tail -n 30 "$out.log" >&2
    exit 1
  fi
  mv -f "$tmp" "$out"
  tmp=""
  shout "built $label in $((SECONDS - start)) s"
}

# bins_ensure LABEL OUT COLD MODULE_DIR GO_BUILD_ARG...: OUT exists afterwards. Warm (OUT
# executable): nothing runs. Cold: under OUT.lock, checked again (another caller may have built it
# meanwhile), then Go is required (bins_go_mods, else MODULE_DIR/go.mod) and OUT built.
bins_ensure() {
  local label=$1 out=$2 cold=$3 module_dir=$4
  shift 4
  [ -x "$out" ] && return 0
  bins_lock "$out.lock"
  if [ ! -x "$out" ]; then
    if [ "${#bins_go_mods[@]}" -gt 0 ]; then bins_need_go "${bins_go_mods[@]}"; else bins_need_go "$module_dir/go.mod"; fi
    bins_go_build "$label" "$out" "$cold" "$module_dir" "$@"
  fi
  bins_unlock
}
