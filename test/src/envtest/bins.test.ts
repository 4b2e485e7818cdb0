// Binary resolution without building anything: KUBEBUILDER_ASSETS is honoured, a missing or too old Go
// gives one clear message, and etcd retries when it loses a port race.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { buildScript, ensureBinaries } from './binaries.ts';
import { startEtcd } from './etcd.ts';
import type { ProcessExitError } from './errors.ts';
import { freePort } from './ports.ts';

const test = suite('envtest: binaries');
let scratch = '';
test.before(() => {
  scratch = mkdtempSync(join(tmpdir(), 'metal3-ts-bins-test-'));
});
test.after(() => rmSync(scratch, { recursive: true, force: true }));

function runBuild(env: Record<string, string | undefined>) {
  const clean = { ...process.env };
  delete clean['KUBEBUILDER_ASSETS'];
  return spawnSync('bash', [buildScript, '--print', '--quiet'], { env: { ...clean, ...env }, encoding: 'utf8' });
}

test('KUBEBUILDER_ASSETS is used as is, nothing is built', () => {
  const real = ensureBinaries();
  const assets = join(scratch, 'assets');
  spawnSync('mkdir', ['-p', assets]);
  symlinkSync(real.kubeApiserver, join(assets, 'kube-apiserver'));
  symlinkSync(real.etcd, join(assets, 'etcd'));
  const result = runBuild({ KUBEBUILDER_ASSETS: assets, METAL3_TS_BIN_CACHE: join(scratch, 'empty-cache'), GO: '/nonexistent/go' });
  assert.is(result.status, 0, result.stderr);
  assert.match(result.stdout, `kube-apiserver=${assets}/kube-apiserver`);
  assert.match(result.stdout, `etcd=${assets}/etcd`);
});

test('without Go and without assets: one message saying what to install', () => {
  const result = runBuild({ METAL3_TS_BIN_CACHE: join(scratch, 'empty-cache'), GO: '/nonexistent/go' });
  assert.is(result.status, 3);
  assert.match(result.stderr, /need Go >= 1\.\d+/);
  assert.match(result.stderr, /found: no go command/);
  assert.match(result.stderr, /KUBEBUILDER_ASSETS/);
  assert.is(result.stdout, '');
});

test('a Go older than the wrapper modules need is refused before building', () => {
  const fakeGo = join(scratch, 'old-go');
  writeFileSync(fakeGo, '#!/bin/sh\necho go1.19.8\n', { mode: 0o755 });
  const result = runBuild({ METAL3_TS_BIN_CACHE: join(scratch, 'empty-cache'), GO: fakeGo });
  assert.is(result.status, 3);
  assert.match(result.stderr, /found: 1\.19\.8/);
});

test('etcd retries with fresh ports when a port is taken between choosing and binding', async () => {
  const taken = await freePort();
  const blocker: Server = createServer();
  await new Promise<void>((r) => blocker.listen(taken, '127.0.0.1', () => r()));
  let first = true;
  const retries: ProcessExitError[] = [];
  const dir = join(scratch, 'etcd');
  spawnSync('mkdir', ['-p', dir]);
  const etcd = await startEtcd({
    binary: ensureBinaries().etcd,
    dir,
    timeoutMs: 20_000,
    pickPort: () => Promise.resolve(first ? ((first = false), taken) : freePort()),
    onRetry: (e) => retries.push(e),
  });
  try {
    assert.is(retries.length, 1);
    assert.ok(retries[0]!.portRace);
    assert.not.match(etcd.url, `:${taken}`);
  } finally {
    await etcd.stop();
    blocker.close();
  }
});

test.run();
