#!/bin/sh
# Installs the project's own toolchain (Node.js 24, Deno 2, TypeScript, esbuild, turbo, uvu) at the
# versions in package-lock.json. Cheap when nothing changed: it compares the lockfile's hash with the
# one recorded by the last successful install.
#
# `npm install` rather than `npm ci`: deno, turbo and esbuild each depend on one optional package per
# platform, and a lockfile written where a registry serves only some of them lacks the others, which
# `npm ci` rejects as out of sync. `npm install` keeps the locked versions; CI fails if it rewrote the
# lockfile (.ci/run checks that no tracked file changed).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
stamp=node_modules/.metal3-ts-install
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ] || [ ! -x node_modules/.bin/node ] || [ ! -x node_modules/.bin/deno ]; then
  echo "metal3-ts: installing the toolchain (npm install from package-lock.json)..." >&2
  npm install --no-audit --no-fund --loglevel=error >&2
  sha256sum package-lock.json | cut -d' ' -f1 > "$stamp"
fi
node_modules/.bin/node -e 'const [maj]=process.versions.node.split(".").map(Number); if (maj < 24) { console.error("metal3-ts: node_modules/.bin/node is " + process.version + ", need >= 24"); process.exit(1) }'
