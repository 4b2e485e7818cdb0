// The README's main command as a user runs it: the lab comes up to a Running cluster, prints a
// kubeconfig, and Ctrl-C (SIGINT) stops it with the conventional exit code, leaving no process and
// no directory behind.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runtimes } from '@metal3-ts/test/harness/controller-process';
import { eventually } from '@metal3-ts/test/testing/eventually';
import { CAPI, METAL3 } from './support.ts';

const main = fileURLToPath(new URL('../lab/main.ts', import.meta.url));

test(`npm start --capi ${CAPI} --metal3-version ${METAL3}: the lab reaches Running, prints a kubeconfig, and Ctrl-C stops everything (exit 130, nothing left)`, async () => {
  const child = spawn(runtimes.node, [main, '--hosts', '6', '--capi', CAPI, '--metal3-version', METAL3], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  try {
    await eventually('the lab waiting for Ctrl-C', () => (out.includes('Press Ctrl-C to stop.') ? true : undefined), {
      // Real Cluster API: the lab alone took up to 45 s and the cluster 33 s more on the loaded machine.
      timeoutMs: 240_000,
      pollMs: 200,
    });
    assert.match(out, 'the cluster is Running');
    const kubeconfig = /export KUBECONFIG=(\S+)/.exec(out)?.[1] ?? '';
    assert.ok(existsSync(kubeconfig), `the printed kubeconfig exists: ${kubeconfig}`);
    const envDir = dirname(dirname(kubeconfig));
    child.kill('SIGINT');
    assert.is(await exited, 130, `exit code after Ctrl-C; output tail:\n${out.slice(-1500)}`);
    assert.not.ok(existsSync(envDir), 'the environment directory is removed');
    // etcd and kube-apiserver run from the environment directory, and every controller names its
    // kubeconfig there too. (Not every `metal3-ts-lab-` process: other labs may run on the machine.)
    const left = spawnSync('pgrep', ['-f', envDir], { encoding: 'utf8' }).stdout.trim();
    assert.is(left, '', `no process left matching ${envDir}`);
  } finally {
    child.kill('SIGKILL');
  }
});

test.run();
