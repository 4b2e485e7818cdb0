#!/usr/bin/env bash
# Builds (or reuses) the real Cluster API managers of one release for the test environment: core
# (`manager`), kubeadm bootstrap (`kubeadm-bootstrap-manager`) and kubeadm control plane
# (`kubeadm-control-plane-manager`), the three main packages of the Go module sigs.k8s.io/cluster-api.
#
# Each supported release has a wrapper module beside this script (capi/<version>/go.mod + go.sum +
# tools.go): the single source of truth for what is built. Binaries go to a per-user cache keyed by
# version, never into the clone, so a warm machine builds nothing and a cold one builds once:
#   ${XDG_CACHE_HOME:-$HOME/.cache}/metal3-ts/capi/<version>/{manager,kubeadm-bootstrap-manager,kubeadm-control-plane-manager}
# Beside them, release/ keeps the release's own install manifests, copied from the same module (the
# go.sum-verified tag): each component's config/{crd,webhook,manager,default}. The test environment
# installs CRDs and webhook configurations from these the way the released components do.
#
# Usage: build-capi.sh [--quiet] [--print] (<version>... | --all)      (e.g. v1.13.5 v1.10.10)
#   --all    every release with a wrapper module
#   --quiet  no progress output when everything is cached (build logs still go to stderr)
#   --print  print `<version>/<binary>=<path>` and `<version>/release=<dir>` lines on stdout
#           (used by src/envtest/capi-binaries.ts)
# Environment:
#   METAL3_TS_BIN_CACHE  overrides the cache root (default ${XDG_CACHE_HOME:-$HOME/.cache}/metal3-ts)
#   GO                   the go command (default: `go` on PATH, else /usr/local/go/bin/go)
# Exit codes: 0 ok, 2 bad usage / unknown version, 3 no usable Go (one clear message), other: build failed.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bins_prefix=capi-bins
# shellcheck source=lib.sh
. "$here/lib.sh"
versions=()
for arg in "$@"; do
  case "$arg" in
    --all) for d in "$here"/capi/v*/; do d=${d%/}; versions+=("${d##*/}"); done ;;
    v[0-9]*) versions+=("$arg") ;;
    *) bins_flag "$arg" || { echo "build-capi.sh: unknown argument $arg" >&2; exit 2; } ;;
  esac
done
if [ "${#versions[@]}" = 0 ]; then
  echo "build-capi.sh: name at least one version (known: $(ls "$here/capi" | tr '\n' ' '))" >&2
  exit 2
fi
for v in "${versions[@]}"; do
  if [ ! -f "$here/capi/$v/go.mod" ]; then
    echo "build-capi.sh: no wrapper module for Cluster API $v (known: $(ls "$here/capi" | tr '\n' ' '))" >&2
    exit 2
  fi
done

# Every release needs the newest Go of all the wrappers (one message whichever is built first).
bins_go_mods=("$here"/capi/*/go.mod)
go_missing() {
  cat <<MSG
capi-bins: cannot build the Cluster API managers: need Go >= $1 (found: $2).
  Install Go >= $1 (https://go.dev/dl/, on PATH or at /usr/local/go/bin/go).
MSG
}

# binary name -> main package inside the module
binaries=(manager kubeadm-bootstrap-manager kubeadm-control-plane-manager)
package_of() {
  case "$1" in
    manager) echo sigs.k8s.io/cluster-api ;;
    kubeadm-bootstrap-manager) echo sigs.k8s.io/cluster-api/bootstrap/kubeadm ;;
    kubeadm-control-plane-manager) echo sigs.k8s.io/cluster-api/controlplane/kubeadm ;;
  esac
}

# Copies the release manifests out of the module cache (downloaded by the build; `go mod download`
# fetches them again on a machine whose module cache was cleaned since).
copy_release() {
  local version=$1 dir=$2 src part
  bins_need_go "${bins_go_mods[@]}"
  src=$(cd "$here/capi/$version" && bins_go_env "$go_cmd" mod download -json sigs.k8s.io/cluster-api |
    sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  if [ -z "$src" ] || [ ! -d "$src/config/crd" ]; then
    echo "capi-bins: cannot find the sources of sigs.k8s.io/cluster-api $version in the module cache" >&2
    exit 1
  fi
  rm -rf "$dir/release.tmp"
  for component in . bootstrap/kubeadm controlplane/kubeadm; do
    for part in crd webhook manager default; do
      mkdir -p "$dir/release.tmp/$component/config"
      cp -R "$src/$component/config/$part" "$dir/release.tmp/$component/config/$part"
    done
  done
  chmod -R u+w "$dir/release.tmp"
  rm -rf "$dir/release"
  mv "$dir/release.tmp" "$dir/release"
}

for version in "${versions[@]}"; do
  dir="$bins_cache_root/capi/$version"
  mkdir -p "$dir"
  missing=0
  for name in "${binaries[@]}"; do [ -x "$dir/$name" ] || missing=1; done
  [ -d "$dir/release" ] || missing=1
  if [ "$missing" = 1 ]; then
    # One lock per version: the three managers and the manifests come from one module download.
    bins_lock "$dir/.lock"
    for name in "${binaries[@]}"; do
      if [ ! -x "$dir/$name" ]; then
        bins_need_go "${bins_go_mods[@]}"
        bins_go_build "Cluster API $version $name" "$dir/$name" minutes "$here/capi/$version" \
          -ldflags "$(bins_version_ldflags "$version" sigs.k8s.io/cluster-api/version)" "$(package_of "$name")"
      fi
    done
    [ -d "$dir/release" ] || copy_release "$version" "$dir"
    bins_unlock
  fi
  for name in "${binaries[@]}"; do
    say "Cluster API $version $name: $dir/$name"
    if [ "$print" = 1 ]; then echo "$version/$name=$dir/$name"; fi
  done
  if [ "$print" = 1 ]; then echo "$version/release=$dir/release"; fi
done
exit 0
