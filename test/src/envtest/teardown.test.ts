// Teardown on every way a run can end: a start that times out, SIGINT (Ctrl-C, CI cancel),
// SIGKILL of the Node process itself (then the watchdog cleans up) and a normal stop(). Each case checks that the
// etcd/kube-apiserver processes are gone and the temporary directory is removed.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startEnv } from './env.ts';
import { EnvtestTimeoutError } from './errors.ts';
import { runningProcesses, waitFor } from './processes.ts';

const test = suite('envtest: teardown');
const fixture = join(dirname(fileURLToPath(import.meta.url)), 'testdata', 'hold-env.ts');

/** Alive means present and not a zombie (a zombie has exited; only its parent's bookkeeping remains). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** PIDs of live processes whose command line mentions `needle` (catches the watchdog shell too). */
function processesMentioning(needle: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(needle) && alive(Number(entry))) out.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

async function startFixture(): Promise<{ child: ReturnType<typeof spawn>; pids: number[]; dir: string }> {
  const child = spawn(process.execPath, [fixture], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const info = await new Promise<{ pids: number[]; dir: string }>((resolve, reject) => {
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      out += chunk;
      if (out.includes('\n')) resolve(JSON.parse(out.slice(0, out.indexOf('\n'))) as { pids: number[]; dir: string });
    });
    child.once('exit', (code) => reject(new Error(`fixture exited with ${code} before it was ready`)));
  });
  for (const pid of info.pids) assert.ok(alive(pid), `child ${pid} should be running`);
  assert.ok(existsSync(info.dir));
  return { child, ...info };
}

async function assertCleanedUp(pids: number[], dir: string, timeoutMs: number): Promise<void> {
  await waitFor(
    `processes ${pids.join(', ')} to exit and ${dir} to be removed`,
    () => Promise.resolve(pids.every((p) => !alive(p)) && !existsSync(dir) && processesMentioning(dir).length === 0 ? true : undefined),
    { timeoutMs, intervalMs: 100 },
  );
}

test('a start that times out leaves nothing behind', async () => {
  let dir = '';
  const before = new Set(runningProcesses());
  try {
    // etcd is up in ~0.2 s, the apiserver needs seconds: the apiserver wait times out.
    await startEnv({ crds: false, timeoutMs: 700, log: (m) => (dir ||= /directory (\S+)/.exec(m)?.[1] ?? '') });
    assert.unreachable('startEnv should have timed out');
  } catch (error) {
    assert.instance(error, EnvtestTimeoutError);
  }
  assert.ok(dir, 'the directory was logged');
  assert.equal(runningProcesses().filter((p) => !before.has(p)), []);
  await assertCleanedUp([], dir, 1000);
});

test('SIGINT stops the processes and removes the directory', async () => {
  const { child, pids, dir } = await startFixture();
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGINT');
  assert.is(await exited, 130);
  await assertCleanedUp(pids, dir, 2000);
});

test('SIGKILL of Node: the watchdog kills the processes and removes the directory', async () => {
  const { child, pids, dir } = await startFixture();
  child.kill('SIGKILL');
  await assertCleanedUp(pids, dir, 10_000);
});

test('AlwaysAllow only when asked: then a user without any Role may read, and stop cleans up', async () => {
  const env = await startEnv({ crds: false, authorization: 'AlwaysAllow' });
  const pids = [env.etcd.process.pid, env.management.process.pid];
  try {
    const nobody = env.user('nobody');
    const list = await nobody.client.get<{ items: unknown[] }>('/api/v1/namespaces');
    assert.ok(list.items.length > 0);
  } finally {
    await env.stop();
  }
  await assertCleanedUp(pids, env.dir, 1000);
});

test.run();
