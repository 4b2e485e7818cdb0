#!/bin/sh
# Makes sure the project's own toolchain (Node.js 24, Deno 2, TypeScript, esbuild, turbo) is installed
# from the lockfile. Cheap when nothing changed: it compares a hash of package-lock.json with the one
# recorded by the last successful install.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
stamp=node_modules/.metal3-ts-install
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ] || [ ! -x node_modules/.bin/node ]; then
  echo "metal3-ts: installing the toolchain (npm ci)..." >&2
  npm ci --no-audit --no-fund --loglevel=error >&2
  echo "$want" > "$stamp"
fi
node_modules/.bin/node -e 'const [maj]=process.versions.node.split(".").map(Number); if (maj < 24) { console.error("metal3-ts: node_modules/.bin/node is " + process.version + ", need >= 24"); process.exit(1) }'
