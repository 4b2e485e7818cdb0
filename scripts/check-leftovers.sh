#!/usr/bin/env bash
# Fails (exit 1) if any process of the test environment is still running: an etcd or kube-apiserver
# started from the binary cache or KUBEBUILDER_ASSETS, or anything (including the launcher's watchdog
# shell) whose command line mentions an envtest temporary directory. Zombies are not counted: they
# have exited and only wait for their parent to reap them. Leftover temporary directories are listed
# as well. Run it after the tests (CI does).
set -u
cache_root=${METAL3_TS_BIN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/metal3-ts}
found=0
for proc in /proc/[0-9]*; do
  pid=${proc#/proc/}
  [ "$pid" = "$$" ] && continue
  state=$(sed -n 's/^[0-9]* (.*) \([A-Z]\).*/\1/p' "$proc/stat" 2>/dev/null) || continue
  [ -z "$state" ] || [ "$state" = Z ] && continue
  exe=$(readlink "$proc/exe" 2>/dev/null || true)
  cmd=$(tr '\0' ' ' <"$proc/cmdline" 2>/dev/null || true)
  hit=""
  case "$exe" in
    "$cache_root"/*) hit="binary from $cache_root" ;;
  esac
  if [ -n "${KUBEBUILDER_ASSETS:-}" ]; then
    case "$exe" in "${KUBEBUILDER_ASSETS%/}"/*) hit="binary from KUBEBUILDER_ASSETS" ;; esac
  fi
  case "$cmd" in *metal3-ts-envtest-*) [ "$pid" != "$PPID" ] && hit=${hit:-"mentions an envtest directory"} ;; esac
  case "$cmd" in *check-leftovers*) hit="" ;; esac
  if [ -n "$hit" ]; then
    echo "leftover process $pid ($hit): ${cmd:0:200}" >&2
    found=1
  fi
done
for dir in "${TMPDIR:-/tmp}"/metal3-ts-envtest-*; do
  [ -e "$dir" ] || continue
  echo "leftover directory: $dir" >&2
  found=1
done
if [ "$found" = 0 ]; then echo "check-leftovers: no envtest process or directory left"; fi
exit "$found"
