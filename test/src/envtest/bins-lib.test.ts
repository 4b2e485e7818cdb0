// The build library the three Go-tool scripts share (test/envtest/bins/lib.sh), driven with a stand-in
// `go` that records its calls: a cold cache builds each binary once, through a temporary name, with
// the pinned build settings; a warm cache never runs Go; a failed build exits 1 with the log's tail
// and leaves nothing half-built behind. No real Go and no real cache are involved.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { buildScript } from './binaries.ts';

const test = suite('envtest: the shared build library (stand-in Go)');
const toolsScript = buildScript.replace(/build\.sh$/, 'build-tools.sh');
let scratch = '';
let fakeGo = '';
let calls = '';
test.before(() => {
  scratch = mkdtempSync(join(tmpdir(), 'metal3-ts-bins-lib-test-'));
  fakeGo = join(scratch, 'go');
  calls = join(scratch, 'calls');
  // Reports Go 1.99; `build` writes a tiny executable to its -o path (or fails when FAIL_BUILD is set).
  writeFileSync(
    fakeGo,
    `#!/bin/sh
echo "$GOWORK $GOTOOLCHAIN $CGO_ENABLED [$GOFLAGS] $*" >> "${join(scratch, 'calls')}"
if [ "$1" = env ]; then echo go1.99.0; exit 0; fi
if [ -n "$FAIL_BUILD" ]; then echo "compile error: $FAIL_BUILD"; exit 1; fi
out=; prev=
for a in "$@"; do [ "$prev" = -o ] && out=$a; prev=$a; done
printf '#!/bin/sh\\necho built\\n' > "$out"; chmod +x "$out"
`,
    { mode: 0o755 },
  );
});
test.after(() => rmSync(scratch, { recursive: true, force: true }));

function run(script: string, args: string[], cache: string, extra: Record<string, string> = {}) {
  rmSync(calls, { force: true });
  const env: Record<string, string | undefined> = { ...process.env, METAL3_TS_BIN_CACHE: cache, GO: fakeGo, ...extra };
  delete env['KUSTOMIZE'];
  delete env['KUBEBUILDER_ASSETS'];
  const result = spawnSync('bash', [script, '--print', ...args], { env, encoding: 'utf8' });
  const goCalls = existsSync(calls) ? readFileSync(calls, 'utf8').trim().split('\n') : [];
  return { ...result, goCalls };
}

test('cold: each binary built once into the cache with the pinned settings; warm: Go is not run at all', () => {
  const cache = join(scratch, 'cache');
  const cold = run(buildScript, ['--only=etcd'], cache);
  assert.is(cold.status, 0, cold.stderr);
  const builds = cold.goCalls.filter((c) => c.includes(' build '));
  assert.is(builds.length, 1, cold.goCalls.join('\n'));
  assert.match(builds[0]!, /^off local 0 \[-mod=readonly -buildvcs=false\] build -trimpath -o \S+\/etcd\.tmp\.\d+ /);
  assert.match(cold.stderr, /envtest-bins: building etcd v\S+ into .*\(cold: many minutes; log: .*etcd\.log\)/);
  const etcd = /^etcd=(.*)$/m.exec(cold.stdout)?.[1] ?? '';
  assert.ok(etcd.startsWith(cache) && existsSync(etcd), cold.stdout);

  const warm = run(buildScript, ['--only=etcd'], cache);
  assert.is(warm.status, 0, warm.stderr);
  assert.equal(warm.goCalls, [], 'a warm cache never runs the Go toolchain');
  assert.is(warm.stdout, cold.stdout);
});

test('a failed build exits 1 with the last lines of its log, leaving neither a binary nor a temporary file', () => {
  const cache = join(scratch, 'failing');
  const result = run(toolsScript, ['kustomize'], cache, { FAIL_BUILD: 'no such package' });
  assert.is(result.status, 1);
  assert.match(result.stderr, /tools: building kustomize v\S+ failed; last lines of .*kustomize\.log:\ncompile error: no such package/);
  assert.is(result.stdout, '');
  const dir = join(cache, 'kustomize', readdirSync(join(cache, 'kustomize'))[0]!);
  assert.equal(readdirSync(dir).sort(), ['kustomize.lock', 'kustomize.log']);
});

test.run();
