// The Cluster API manager build without building anything: a missing or too old Go gives one clear
// message and exit code 3, an unknown release is refused naming the known ones, and a warm cache
// answers with paths (the managers and the release manifests) without touching Go.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CAPI_VERSIONS, capiBuildScript, ensureClusterApiBinaries } from './capi-binaries.ts';

const test = suite('envtest: Cluster API manager binaries');
let scratch = '';
test.before(() => {
  scratch = mkdtempSync(join(tmpdir(), 'metal3-ts-capi-bins-test-'));
});
test.after(() => rmSync(scratch, { recursive: true, force: true }));

const runBuild = (args: string[], env: Record<string, string>) =>
  spawnSync('bash', [capiBuildScript, '--print', '--quiet', ...args], { env: { ...process.env, ...env }, encoding: 'utf8' });

test('both pinned releases have a wrapper module, newest first', () => {
  assert.equal(CAPI_VERSIONS, ['v1.13.5', 'v1.10.10']);
});

test('without Go: one message saying what to install, exit code 3, nothing on stdout', () => {
  const result = runBuild(['v1.13.5'], { METAL3_TS_BIN_CACHE: join(scratch, 'empty-cache'), GO: '/nonexistent/go' });
  assert.is(result.status, 3);
  assert.match(result.stderr, /cannot build the Cluster API managers: need Go >= 1\.\d+/);
  assert.match(result.stderr, /found: no go command/);
  assert.is(result.stdout, '');
});

test('a Go older than the wrapper modules need is refused before building', () => {
  const fakeGo = join(scratch, 'old-go');
  writeFileSync(fakeGo, '#!/bin/sh\necho go1.19.8\n', { mode: 0o755 });
  const result = runBuild(['v1.10.10'], { METAL3_TS_BIN_CACHE: join(scratch, 'empty-cache'), GO: fakeGo });
  assert.is(result.status, 3);
  assert.match(result.stderr, /found: 1\.19\.8/);
});

test('an unknown release is refused naming the known ones', () => {
  const result = runBuild(['v1.9.0'], { METAL3_TS_BIN_CACHE: join(scratch, 'empty-cache') });
  assert.is(result.status, 2);
  assert.match(result.stderr, /no wrapper module for Cluster API v1\.9\.0 \(known: v1\.10\.10 v1\.13\.5/);
  assert.throws(() => ensureClusterApiBinaries('v1.9.0'), /Cluster API v1\.9\.0 is not built by this project \(known: v1\.13\.5, v1\.10\.10\)/);
});

test('a warm cache answers with every path and needs no Go', () => {
  for (const version of CAPI_VERSIONS) {
    const built = ensureClusterApiBinaries(version);
    const result = runBuild([version], { GO: '/nonexistent/go' });
    assert.is(result.status, 0, result.stderr);
    for (const path of [built.core, built.bootstrap, built.controlPlane]) assert.match(result.stdout, `=${path}\n`);
    assert.ok(existsSync(join(built.release, 'controlplane/kubeadm/config/crd/kustomization.yaml')));
    assert.ok(existsSync(join(built.release, 'config/webhook/manifests.yaml')));
  }
});

test.run();
