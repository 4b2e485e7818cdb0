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
quiet=0
print=0
versions=()
for arg in "$@"; do
  case "$arg" in
    --quiet) quiet=1 ;;
    --print) print=1 ;;
    --all) for d in "$here"/capi/v*/; do d=${d%/}; versions+=("${d##*/}"); done ;;
    v[0-9]*) versions+=("$arg") ;;
    *) echo "build-capi.sh: unknown argument $arg" >&2; exit 2 ;;
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

say() { if [ "$quiet" = 0 ]; then echo "capi-bins: $*" >&2; fi; }
shout() { echo "capi-bins: $*" >&2; }

cache_root=${METAL3_TS_BIN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/metal3-ts}

# --- Go: only needed when something is missing ------------------------------------------------------
go_cmd=""
need_go() {
  [ -n "$go_cmd" ] && return 0
  local candidate=${GO:-} want have
  if [ -z "$candidate" ]; then
    if command -v go >/dev/null 2>&1; then candidate=go
    elif [ -x /usr/local/go/bin/go ]; then candidate=/usr/local/go/bin/go
    fi
  fi
  # The wrappers' highest `go` line is the minimum; GOTOOLCHAIN=local keeps an older Go from
  # silently downloading a toolchain.
  want=$(sed -n 's/^go \([0-9.]*\)$/\1/p' "$here"/capi/*/go.mod | sort -V | tail -n1)
  have=""
  if [ -n "$candidate" ]; then
    have=$(GOTOOLCHAIN=local "$candidate" env GOVERSION 2>/dev/null | sed 's/^go//') || have=""
  fi
  if [ -z "$have" ] || [ "$(printf '%s\n%s\n' "$want" "$have" | sort -V | head -n1)" != "$want" ]; then
    cat >&2 <<MSG
capi-bins: cannot build the Cluster API managers: need Go >= $want (found: ${have:-no go command}).
  Install Go >= $want (https://go.dev/dl/, on PATH or at /usr/local/go/bin/go).
MSG
    exit 3
  fi
  go_cmd=$candidate
}

# An interrupted build leaves neither a running `go build` nor a partial binary behind.
build_pid=""
tmp=""
cleanup() {
  if [ -n "$build_pid" ]; then kill "$build_pid" 2>/dev/null || true; wait "$build_pid" 2>/dev/null || true; fi
  if [ -n "$tmp" ]; then rm -f "$tmp"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# binary name -> main package inside the module
binaries=(manager kubeadm-bootstrap-manager kubeadm-control-plane-manager)
package_of() {
  case "$1" in
    manager) echo sigs.k8s.io/cluster-api ;;
    kubeadm-bootstrap-manager) echo sigs.k8s.io/cluster-api/bootstrap/kubeadm ;;
    kubeadm-control-plane-manager) echo sigs.k8s.io/cluster-api/controlplane/kubeadm ;;
  esac
}

build_one() {
  local version=$1 name=$2 out=$3
  need_go
  shout "building Cluster API $version $name into $out (cold: minutes; log: $out.log)"
  local start=$SECONDS status=0 ldflags="-s -w"
  local minor
  minor=$(echo "$version" | cut -d. -f2)
  # What `manager --version` and the user agent report, as a release build would.
  for k in gitVersion=$version gitMajor=1 gitMinor=$minor gitTreeState=clean buildDate=1970-01-01T00:00:00Z; do
    ldflags="$ldflags -X sigs.k8s.io/cluster-api/version.$k"
  done
  tmp="$out.tmp.$$"
  (cd "$here/capi/$version" && GOWORK=off GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS="-mod=readonly -buildvcs=false" \
    exec "$go_cmd" build -trimpath -ldflags "$ldflags" -o "$tmp" "$(package_of "$name")") >"$out.log" 2>&1 &
  build_pid=$!
  wait "$build_pid" || status=$?
  build_pid=""
  if [ "$status" != 0 ]; then
    echo "capi-bins: building Cluster API $version $name failed; last lines of $out.log:" >&2
    tail -n 30 "$out.log" >&2
    exit 1
  fi
  mv -f "$tmp" "$out"
  tmp=""
  shout "built Cluster API $version $name in $((SECONDS - start)) s"
}

# Copies the release manifests out of the module cache (downloaded by the build; `go mod download`
# fetches them again on a machine whose module cache was cleaned since).
copy_release() {
  local version=$1 dir=$2 src part
  need_go
  src=$(cd "$here/capi/$version" && GOWORK=off GOTOOLCHAIN=local GOFLAGS="-mod=readonly" \
    "$go_cmd" mod download -json sigs.k8s.io/cluster-api | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
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
  dir="$cache_root/capi/$version"
  mkdir -p "$dir"
  missing=0
  for name in "${binaries[@]}"; do [ -x "$dir/$name" ] || missing=1; done
  [ -d "$dir/release" ] || missing=1
  if [ "$missing" = 1 ]; then
    # One lock per version: concurrent callers never both spend the cores on the same build.
    exec 9>"$dir/.lock"
    if command -v flock >/dev/null 2>&1; then flock 9; fi
    for name in "${binaries[@]}"; do
      [ -x "$dir/$name" ] || build_one "$version" "$name" "$dir/$name"
    done
    [ -d "$dir/release" ] || copy_release "$version" "$dir"
    exec 9>&-
  fi
  for name in "${binaries[@]}"; do
    say "Cluster API $version $name: $dir/$name"
    if [ "$print" = 1 ]; then echo "$version/$name=$dir/$name"; fi
  done
  if [ "$print" = 1 ]; then echo "$version/release=$dir/release"; fi
done
exit 0
