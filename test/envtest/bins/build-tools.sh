#!/usr/bin/env bash
# Builds (or reuses) the two Go tools the install-manifest tests use: kustomize (the reference renderer
# of config/, also used by `npm run components`) and clusterctl (the provider test installs our
# components with it). Test-environment and maintainer tools only: nothing in the product needs Go.
#
# Versions are pinned once each, by the wrapper modules beside this script (kustomize/go.mod requires
# sigs.k8s.io/kustomize/kustomize/v5, clusterctl/go.mod requires sigs.k8s.io/cluster-api). Binaries go
# to a per-user cache keyed by version, never into the clone:
#   ${XDG_CACHE_HOME:-$HOME/.cache}/metal3-ts/<tool>/<version>/<tool>
#
# Usage: build-tools.sh [--quiet] [--print] kustomize|clusterctl...
#   --print  print `<tool>=<path>` on stdout for each tool
# Environment:
#   KUSTOMIZE / CLUSTERCTL  an existing binary to use as is (nothing is built)
#   METAL3_TS_BIN_CACHE     overrides the cache root
#   GO                      the go command (default: `go` on PATH, else /usr/local/go/bin/go)
# Exit codes: 0 ok, 3 no usable Go (one clear message on stderr), other: build failed.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
quiet=0
print=0
tools=()
for arg in "$@"; do
  case "$arg" in
    --quiet) quiet=1 ;;
    --print) print=1 ;;
    kustomize|clusterctl) tools+=("$arg") ;;
    *) echo "build-tools.sh: unknown argument $arg (expected --quiet, --print, kustomize, clusterctl)" >&2; exit 2 ;;
  esac
done
[ "${#tools[@]}" -gt 0 ] || { echo "build-tools.sh: name a tool: kustomize or clusterctl" >&2; exit 2; }

say() { if [ "$quiet" = 0 ]; then echo "tools: $*" >&2; fi; }
shout() { echo "tools: $*" >&2; }

# tool -> module whose version pins it, and the main package built.
module_of() { case "$1" in kustomize) echo sigs.k8s.io/kustomize/kustomize/v5 ;; clusterctl) echo sigs.k8s.io/cluster-api ;; esac; }
package_of() { case "$1" in kustomize) echo sigs.k8s.io/kustomize/kustomize/v5 ;; clusterctl) echo sigs.k8s.io/cluster-api/cmd/clusterctl ;; esac; }
version_of() {
  local module
  module=$(module_of "$1")
  sed -n "s|^require ${module//./\\.} \(v[0-9][^ ]*\)$|\1|p" "$here/$1/go.mod"
}

cache_root=${METAL3_TS_BIN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/metal3-ts}

go_cmd=""
need_go() {
  [ -n "$go_cmd" ] && return 0
  local candidate=${GO:-} want have
  if [ -z "$candidate" ]; then
    if command -v go >/dev/null 2>&1; then candidate=go
    elif [ -x /usr/local/go/bin/go ]; then candidate=/usr/local/go/bin/go
    fi
  fi
  want=$(sed -n 's/^go \([0-9.]*\)$/\1/p' "$here/$1/go.mod")
  have=""
  if [ -n "$candidate" ]; then have=$(GOTOOLCHAIN=local "$candidate" env GOVERSION 2>/dev/null | sed 's/^go//') || have=""; fi
  if [ -z "$have" ] || [ "$(printf '%s\n%s\n' "$want" "$have" | sort -V | head -n1)" != "$want" ]; then
    local upper
    upper=$(echo "$1" | tr '[:lower:]' '[:upper:]')
    cat >&2 <<EOF
tools: cannot build $1: need Go >= $want (found: ${have:-no go command}).
  Either install Go >= $want (on PATH or at /usr/local/go/bin/go), or set $upper to a $1 binary ($(version_of "$1")).
EOF
    exit 3
  fi
  go_cmd=$candidate
}

build_pid=""
tmp=""
cleanup() {
  if [ -n "$build_pid" ]; then kill "$build_pid" 2>/dev/null || true; wait "$build_pid" 2>/dev/null || true; fi
  if [ -n "$tmp" ]; then rm -f "$tmp"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

for tool in "${tools[@]}"; do
  upper=$(echo "$tool" | tr '[:lower:]' '[:upper:]')
  given=${!upper:-}
  if [ -n "$given" ]; then
    [ -x "$given" ] || { echo "build-tools.sh: $upper=$given is not an executable" >&2; exit 3; }
    say "using $upper=$given"
    [ "$print" = 1 ] && echo "$tool=$given"
    continue
  fi
  version=$(version_of "$tool")
  [ -n "$version" ] || { echo "build-tools.sh: cannot read the pinned version from $here/$tool/go.mod" >&2; exit 2; }
  out="$cache_root/$tool/$version/$tool"
  if [ ! -x "$out" ]; then
    mkdir -p "$(dirname "$out")"
    # Under a lock, into a temporary name, then renamed: concurrent callers never run half a binary.
    exec 9>"$out.lock"
    if command -v flock >/dev/null 2>&1; then flock 9; fi
    if [ ! -x "$out" ]; then
      need_go "$tool"
      shout "building $tool $version into $out (cold: minutes; log: $out.log)"
      start=$SECONDS
      status=0
      tmp="$out.tmp.$$"
      # -X sets the version clusterctl reports (it checks providers' contracts against its own).
      ldflags="-s -w"
      if [ "$tool" = clusterctl ]; then
        minor=$(echo "$version" | cut -d. -f2)
        ldflags="$ldflags -X sigs.k8s.io/cluster-api/version.gitVersion=$version -X sigs.k8s.io/cluster-api/version.gitMajor=1 -X sigs.k8s.io/cluster-api/version.gitMinor=$minor -X sigs.k8s.io/cluster-api/version.gitTreeState=clean"
      fi
      (cd "$here/$tool" && GOWORK=off GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS="-mod=readonly -buildvcs=false" \
        exec "$go_cmd" build -trimpath -ldflags "$ldflags" -o "$tmp" "$(package_of "$tool")") >"$out.log" 2>&1 &
      build_pid=$!
      wait "$build_pid" || status=$?
      build_pid=""
      if [ "$status" != 0 ]; then
        echo "tools: building $tool failed; last lines of $out.log:" >&2
        tail -n 30 "$out.log" >&2
        exit 1
      fi
      mv -f "$tmp" "$out"
      tmp=""
      shout "built $tool $version in $((SECONDS - start)) s"
    fi
    exec 9>&-
  fi
  say "$tool $version: $out"
  [ "$print" = 1 ] && echo "$tool=$out"
done
exit 0
