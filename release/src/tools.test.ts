// build-tools.sh without building anything: a given binary is used as is, a missing or too old Go
// gives one message naming what to install or set, a bad argument is refused.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ROOT } from './layout.ts';

const script = join(ROOT, 'test/envtest/bins/build-tools.sh');
const scratch = mkdtempSync(join(tmpdir(), 'metal3-ts-tools-test-'));
const emptyCache = join(scratch, 'empty-cache');

function run(args: string[], env: Record<string, string>) {
  const clean = { ...process.env };
  delete clean['KUSTOMIZE'];
  delete clean['CLUSTERCTL'];
  return spawnSync('bash', [script, ...args], { env: { ...clean, METAL3_TS_BIN_CACHE: emptyCache, ...env }, encoding: 'utf8' });
}

test('KUSTOMIZE / CLUSTERCTL name a binary used as is, nothing built', () => {
  const fake = join(scratch, 'my-kustomize');
  writeFileSync(fake, '#!/bin/sh\n', { mode: 0o755 });
  const result = run(['--print', '--quiet', 'kustomize'], { KUSTOMIZE: fake, GO: '/nonexistent/go' });
  assert.is(result.status, 0, result.stderr);
  assert.is(result.stdout, `kustomize=${fake}\n`);
  const missing = run(['clusterctl'], { CLUSTERCTL: join(scratch, 'nothing') });
  assert.is(missing.status, 3);
  assert.match(missing.stderr, /CLUSTERCTL=.*nothing is not an executable/);
});

test('without Go: one message naming the Go version needed and the variable to set instead', () => {
  const result = run(['--print', 'clusterctl'], { GO: '/nonexistent/go', PATH: '/usr/bin:/bin' });
  assert.is(result.status, 3);
  assert.match(result.stderr, /cannot build clusterctl: need Go >= 1\.\d+/);
  assert.match(result.stderr, /set CLUSTERCTL to a clusterctl binary \(v1\.13\.5\)/);
  assert.is(result.stdout, '');
});

test('a Go older than the wrapper module needs is refused before building', () => {
  const oldGo = join(scratch, 'old-go');
  writeFileSync(oldGo, '#!/bin/sh\necho go1.19.8\n', { mode: 0o755 });
  const result = run(['kustomize'], { GO: oldGo });
  assert.is(result.status, 3);
  assert.match(result.stderr, /found: 1\.19\.8/);
});

test('an unknown tool or flag is refused, naming it', () => {
  const result = run(['helm'], {});
  assert.is(result.status, 2);
  assert.match(result.stderr, /unknown argument helm/);
});

test.after(() => rmSync(scratch, { recursive: true, force: true }));
test.run();
