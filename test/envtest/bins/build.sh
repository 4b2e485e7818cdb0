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
quiet=0
print=0
only=""
for arg in "$@"; do
  case "$arg" in
    --quiet) quiet=1 ;;
    --print) print=1 ;;
    --only=etcd|--only=kube-apiserver) only=${arg#--only=} ;;
    *) echo "build.sh: unknown argument $arg" >&2; exit 2 ;;
  esac
done

# say: progress, silent with --quiet; shout: always (a build is happening, which takes a while).
say() { if [ "$quiet" = 0 ]; then echo "envtest-bins: $*" >&2; fi; }
shout() { echo "envtest-bins: $*" >&2; }

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

cache_root=${METAL3_TS_BIN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/metal3-ts}
kas_dir="$cache_root/k8s/$k8s_version"
etcd_dir="$cache_root/etcd/$etcd_version"
kas_bin="$kas_dir/kube-apiserver"
etcd_bin="$etcd_dir/etcd"

# --- Go: only needed when something is missing ------------------------------------------------------
go_cmd=""
tmp=""
need_go() {
  [ -n "$go_cmd" ] && return 0
  local candidate=${GO:-}
  if [ -z "$candidate" ]; then
    if command -v go >/dev/null 2>&1; then candidate=go
    elif [ -x /usr/local/go/bin/go ]; then candidate=/usr/local/go/bin/go
    fi
  fi
  # The highest `go` line of the two wrappers is the minimum toolchain; GOTOOLCHAIN=local below
  # makes an older Go fail here instead of silently downloading a toolchain.
  local want have
  want=$(sed -n 's/^go \([0-9.]*\)$/\1/p' "$here/kube-apiserver/go.mod" "$here/etcd/go.mod" | sort -V | tail -n1)
  have=""
  if [ -n "$candidate" ]; then
    have=$(GOTOOLCHAIN=local "$candidate" env GOVERSION 2>/dev/null | sed 's/^go//') || have=""
  fi
  if [ -z "$have" ] || [ "$(printf '%s\n%s\n' "$want" "$have" | sort -V | head -n1)" != "$want" ]; then
    cat >&2 <<EOF
envtest-bins: cannot build the test apiserver: need Go >= $want (found: ${have:-no go command}).
  Either install Go >= $want (https://go.dev/dl/, on PATH or at /usr/local/go/bin/go),
  or set KUBEBUILDER_ASSETS to a directory holding kube-apiserver ($k8s_version) and etcd ($etcd_version).
EOF
    exit 3
  fi
  go_cmd=$candidate
}

# An interrupted build (Ctrl-C, CI timeout, SIGTERM to this script alone) must leave neither a running
# `go build` nor a partial binary behind, so the build runs as a tracked background job.
build_pid=""
cleanup() {
  if [ -n "$build_pid" ]; then kill "$build_pid" 2>/dev/null || true; wait "$build_pid" 2>/dev/null || true; fi
  if [ -n "$tmp" ]; then rm -f "$tmp"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Build into a temporary name and rename, under a lock, so concurrent callers never run half a binary
# and never both spend the 2 cores on the same build.
build_locked() {
  local name=$1 out=$2; shift 2
  mkdir -p "$(dirname "$out")"
  exec 9>"$out.lock"
  if command -v flock >/dev/null 2>&1; then flock 9; fi
  if [ -x "$out" ]; then exec 9>&-; return 0; fi
  need_go
  shout "building $name into $out (cold: many minutes; log: $out.log)"
  local start=$SECONDS status=0
  tmp="$out.tmp.$$"
  local module_dir=$1; shift
  # The wrapper go.mod/go.sum are authoritative: -mod=readonly fails on drift instead of editing them,
  # GOWORK=off ignores any enclosing go.work, CGO_ENABLED=0 gives static binaries like upstream
  # releases. `exec` makes the background job's PID the go command itself, so cleanup() can stop it.
  (cd "$module_dir" && GOWORK=off GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS="-mod=readonly -buildvcs=false" \
    exec "$go_cmd" build -trimpath -o "$tmp" "$@") >"$out.log" 2>&1 &
  build_pid=$!
  wait "$build_pid" || status=$?
  build_pid=""
  if [ "$status" != 0 ]; then
    echo "envtest-bins: building $name failed; last lines of $out.log:" >&2
    tail -n 30 "$out.log" >&2
    exit 1
  fi
  mv -f "$tmp" "$out"
  tmp=""
  shout "built $name in $((SECONDS - start)) s"
  exec 9>&-
}

minor=$(echo "$k8s_version" | cut -d. -f2)
ldflags="-s -w"
for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags="$ldflags -X $p.gitVersion=$k8s_version -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitTreeState=clean -X $p.buildDate=1970-01-01T00:00:00Z"
done

# etcd first: it is small, and a failure there shows up before the long kube-apiserver build.
if [ ! -x "$etcd_bin" ] && [ "$only" != kube-apiserver ]; then
  build_locked "etcd $etcd_version" "$etcd_bin" \
    "$here/etcd" -ldflags "-s -w" go.etcd.io/etcd/server/v3
fi
if [ ! -x "$kas_bin" ] && [ "$only" != etcd ]; then
  build_locked "kube-apiserver $k8s_version" "$kas_bin" \
    "$here/kube-apiserver" -tags=selinux,notest,grpcnotrace -ldflags "$ldflags" k8s.io/kubernetes/cmd/kube-apiserver
fi

# With --only, the other binary may not exist: report only what is there.
if [ -x "$kas_bin" ]; then say "kube-apiserver $k8s_version: $kas_bin"; [ "$print" = 1 ] && echo "kube-apiserver=$kas_bin"; fi
if [ -x "$etcd_bin" ]; then say "etcd $etcd_version: $etcd_bin"; [ "$print" = 1 ] && echo "etcd=$etcd_bin"; fi
exit 0
