// runMain's exit codes and messages without a cluster (the full run is in test/src/harness/manager.test.ts).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ProcessPort } from '../manager/signals.ts';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClusterApiNotServedError } from '../capi/version.ts';
import { runMain } from './run-main.ts';

const test = suite('runMain');

async function run(
  argv: string[],
  env: Record<string, string> = {},
  register: () => void | Promise<void> = () => {},
): Promise<{ code: number | undefined; out: string[]; registered: boolean }> {
  let code: number | undefined;
  const out: string[] = [];
  let registered = false;
  const port: ProcessPort = { onShutdownSignal: () => () => {}, exit: (c) => (code = c) };
  await runMain({
    name: 'test-controller',
    argv,
    env,
    home: '/nonexistent',
    serviceAccountDir: '/nonexistent',
    process: port,
    sink: (l) => out.push(l),
    register: async () => {
      registered = true;
      await register();
    },
  });
  return { code, out, registered };
}

test('--help prints usage and exits 0', async () => {
  const r = await run(['--help']);
  assert.is(r.code, 0);
  assert.match(r.out.join('\n'), /^Usage of test-controller:\n[\s\S]*--kube-api-qps value/);
  assert.not.ok(r.registered);
});

test('a bad flag exits 2 naming the flag', async () => {
  const r = await run(['--kube-api-burst', 'lots']);
  assert.is(r.code, 2);
  assert.match(r.out[0] ?? '', /^test-controller: --kube-api-burst: expected an integer, got "lots"/);
});

test('no kubeconfig anywhere exits 2 with a message saying where it looked', async () => {
  const r = await run([]);
  assert.is(r.code, 2);
  assert.match(r.out.join('\n'), /no kubeconfig found: pass --kubeconfig, set KUBECONFIG, or run inside a pod/);
  assert.not.ok(r.registered);
});

test('S-10 a register that fails (Cluster API not served) exits 1 saying so, before any manager ran', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'run-main-'));
  try {
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(
      kubeconfig,
      'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n',
    );
    const r = await run(['--kubeconfig', kubeconfig, '--metrics-bind-address', '0', '--health-probe-bind-address', '0'], {}, () => {
      throw new ClusterApiNotServedError(
        "the apiserver serves no version of cluster.x-k8s.io (want v1beta2 or v1beta1): install Cluster API's core provider first",
      );
    });
    assert.is(r.code, 1);
    const line = r.out.find((l) => l.includes('cannot register the controllers')) ?? '';
    assert.match(line, /install Cluster API's core provider first/);
    assert.not.ok(r.out.some((l) => l.includes('starting manager')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
