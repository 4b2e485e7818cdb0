// runMain's exit codes and messages without a cluster (the full run is in test/src/harness/manager.test.ts).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ProcessPort } from '../manager/signals.ts';
import { runMain } from './run-main.ts';

const test = suite('runMain');

async function run(argv: string[], env: Record<string, string> = {}): Promise<{ code: number | undefined; out: string[]; registered: boolean }> {
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
    register: () => void (registered = true),
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

test.run();
