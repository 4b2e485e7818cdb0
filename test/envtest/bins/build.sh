#!/usr/bin/env bash
# Builds (or reuses) the kube-apiserver and etcd binaries of the test environment.
#
# The versions are pinned in one place each: the wrapper modules beside this script
# (kube-apiserver/go.mod requires k8s.io/kubernetes, etcd/go.mod requires go.etcd.io/etcd/server/v3).
# Binaries go to a per-user cache keyed by version, never into the clone, so a fresh CI clone on a
# warm machine costs nothing and a cold machine builds once:
#   ${XDG_CACHE_HOME:-$HOME/.cache}/metal3-ts/k8s/<k8s version>/kube-apiserver
#   ${XDG_CACHE_HOME:-$HOME/.cache}/metal3-ts/etcd/<etcd version>/etcd
#
# Usage: build.sh [--quiet] [--print] [--only=etcd|kube-apiserver]
#   --quiet  no progress output when everything is cached (build logs still go to stderr)
#   --print  print `kube-apiserver=<path>` and `etcd=<path>` on stdout (used by binaries.ts)
# Environment:
#   KUBEBUILDER_ASSETS   directory with kube-apiserver and etcd: used as is, nothing is built
#   METAL3_TS_BIN_CACHE  overrides the cache root (default ${XDG_CACHE_HOME:-$HOME/.cache}/metal3-ts)
#   GO                   the go command (default: `go` on PATH, else /usr/local/go/bin/go)
# Exit codes: 0 ok, 3 no usable Go and no assets (one clear message on stderr), other: build failed.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bins_prefix=envtest-bins
# shellcheck source=lib.sh
. "$here/lib.sh"
only=""
for arg in "$@"; do
  case "$arg" in
    --only=etcd|--only=kube-apiserver) only=${arg#--only=} ;;
    *) bins_flag "$arg" || { echo "build.sh: unknown argument $arg" >&2; exit 2; } ;;
  esac
done

# --- Versions, read from the wrapper modules (the single source of truth) ---------------------------
k8s_version=$(sed -n 's/^require k8s\.io\/kubernetes \(v[0-9][^ ]*\)$/\1/p' "$here/kube-apiserver/go.mod")
etcd_version=$(sed -n 's/^[[:space:]]*go\.etcd\.io\/etcd\/server\/v3 \(v[0-9][^ ]*\).*/\1/p' "$here/etcd/go.mod" | head -n1)
if [ -z "$k8s_version" ] || [ -z "$etcd_version" ]; then
  echo "build.sh: cannot read the pinned versions from $here/*/go.mod" >&2
  exit 2
fi

# --- KUBEBUILDER_ASSETS: the envtest convention, nothing to build ------------------------------------
if [ -n "${KUBEBUILDER_ASSETS:-}" ]; then
  for b in kube-apiserver etcd; do
    if [ ! -x "$KUBEBUILDER_ASSETS/$b" ]; then
      echo "build.sh: KUBEBUILDER_ASSETS=$KUBEBUILDER_ASSETS has no executable $b" >&2
      exit 3
    fi
  done
  say "using KUBEBUILDER_ASSETS=$KUBEBUILDER_ASSETS"
  if [ "$print" = 1 ]; then
    echo "kube-apiserver=$KUBEBUILDER_ASSETS/kube-apiserver"
    echo "etcd=$KUBEBUILDER_ASSETS/etcd"
  fi
  exit 0
fi

kas_bin="$bins_cache_root/k8s/$k8s_version/kube-apiserver"
etcd_bin="$bins_cache_root/etcd/$etcd_version/etcd"

# Either build needs the newer Go of the two wrappers (one message, whichever is built first).
bins_go_mods=("$here/kube-apiserver/go.mod" "$here/etcd/go.mod")
go_missing() {
  cat <<MSG
envtest-bins: cannot build the test apiserver: need Go >= $1 (found: $2).
  Either install Go >= $1 (https://go.dev/dl/, on PATH or at /usr/local/go/bin/go),
  or set KUBEBUILDER_ASSETS to a directory holding kube-apiserver ($k8s_version) and etcd ($etcd_version).
MSG
}

# etcd first: it is small, and a failure there shows up before the long kube-apiserver build.
if [ "$only" != kube-apiserver ]; then
  bins_ensure "etcd $etcd_version" "$etcd_bin" "many minutes" "$here/etcd" -ldflags "-s -w" go.etcd.io/etcd/server/v3
fi
if [ "$only" != etcd ]; then
  bins_ensure "kube-apiserver $k8s_version" "$kas_bin" "many minutes" "$here/kube-apiserver" -tags=selinux,notest,grpcnotrace \
    -ldflags "$(bins_version_ldflags "$k8s_version" k8s.io/component-base/version k8s.io/client-go/pkg/version)" k8s.io/kubernetes/cmd/kube-apiserver
fi

# With --only, the other binary may not exist: report only what is there.
if [ -x "$kas_bin" ]; then say "kube-apiserver $k8s_version: $kas_bin"; [ "$print" = 1 ] && echo "kube-apiserver=$kas_bin"; fi
if [ -x "$etcd_bin" ]; then say "etcd $etcd_version: $etcd_bin"; [ "$print" = 1 ] && echo "etcd=$etcd_bin"; fi
exit 0
