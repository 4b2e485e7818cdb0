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
bins_prefix=tools
# shellcheck source=lib.sh
. "$here/lib.sh"
tools=()
for arg in "$@"; do
  case "$arg" in
    kustomize|clusterctl) tools+=("$arg") ;;
    *) bins_flag "$arg" || { echo "build-tools.sh: unknown argument $arg (expected --quiet, --print, kustomize, clusterctl)" >&2; exit 2; } ;;
  esac
done
[ "${#tools[@]}" -gt 0 ] || { echo "build-tools.sh: name a tool: kustomize or clusterctl" >&2; exit 2; }

# tool -> module whose version pins it, and the main package built.
module_of() { case "$1" in kustomize) echo sigs.k8s.io/kustomize/kustomize/v5 ;; clusterctl) echo sigs.k8s.io/cluster-api ;; esac; }
package_of() { case "$1" in kustomize) echo sigs.k8s.io/kustomize/kustomize/v5 ;; clusterctl) echo sigs.k8s.io/cluster-api/cmd/clusterctl ;; esac; }
version_of() {
  local module
  module=$(module_of "$1")
  sed -n "s|^require ${module//./\\.} \(v[0-9][^ ]*\)$|\1|p" "$here/$1/go.mod"
}

# Each tool needs the Go of its own wrapper (bins_ensure's default); the message names the tool.
go_missing() {
  cat <<MSG
tools: cannot build $tool: need Go >= $1 (found: $2).
  Either install Go >= $1 (on PATH or at /usr/local/go/bin/go), or set $upper to a $tool binary ($version).
MSG
}

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
  out="$bins_cache_root/$tool/$version/$tool"
  # -X sets the version clusterctl reports (it checks providers' contracts against its own).
  ldflags="-s -w"
  if [ "$tool" = clusterctl ]; then ldflags=$(bins_version_ldflags "$version" sigs.k8s.io/cluster-api/version); fi
  bins_ensure "$tool $version" "$out" minutes "$here/$tool" -ldflags "$ldflags" "$(package_of "$tool")"
  say "$tool $version: $out"
  [ "$print" = 1 ] && echo "$tool=$out"
done
exit 0
