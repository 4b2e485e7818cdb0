// The lab keeps its controllers running as a kubelet would (issue 21): a controller that dies is
// started again with back-off and reconciles; an apiserver outage longer than the 10 s lease renew
// deadline ends every controller (lost lease → exit 1), they come back once the apiserver does, and
// the cluster converges. Real apiserver, five controllers from their bundles, simulators.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MachineDeploymentResource } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { httpGet } from '@metal3-ts/test/harness/controller-process';
import { CONTROLLERS } from '../lab/controllers.ts';
import { type Lab, startLab } from '../lab/lab.ts';
import { isClusterRunning } from '../lab/progress.ts';
import { CAPI, CLUSTER, CONTROL_PLANE_REPLICAS, eventually, hostsOf, labUntil, METAL3, RUN, running, seconds } from './support.ts';

const test = suite(`end to end: the lab restarts its controllers (${RUN})`);
let lab: Lab;
const log: string[] = [];

test.before(async () => {
  // One control-plane host per KCP replica and 4 worker hosts: md-0 (3 replicas) has one spare host to scale onto.
  lab = await startLab({
    hosts: CONTROL_PLANE_REPLICAS + 4,
    controlPlaneHosts: CONTROL_PLANE_REPLICAS,
    capi: CAPI,
    metal3Version: METAL3,
    log: (m) => log.push(m),
  });
  await running(lab, 180_000);
});

test.after(async () => {
  await lab?.stop();
});

const scaleTo = (replicas: number) => lab.client.api(MachineDeploymentResource, lab.namespace).mergePatch('md-0', { spec: { replicas } });
const scaled = (replicas: number, timeoutMs?: number) =>
  labUntil(lab, `md-0 at ${replicas} Running Machines`, (s) => isClusterRunning(s, CLUSTER) && hostsOf(s, 'md-0').length === replicas, timeoutMs);

test('SIGKILLed, the machine controller is restarted (exit logged with signal and count) and a scale-up after the kill converges', async () => {
  const machine = lab.controllers.get('machine')!;
  const killed = machine.process;
  killed.kill('SIGKILL');
  const exit = await killed.exited;
  assert.is(exit.signal, 'SIGKILL');
  await eventually('the machine controller started again', () => (machine.restarts === 1 ? true : undefined), 30_000);
  assert.equal(machine.exits.map((e) => [e.code, e.signal, e.delayMs]), [[null, 'SIGKILL', 1000]], 'one exit, first back-off delay');
  assert.ok(
    log.some((l) => /controller machine exited \(code -, signal SIGKILL\).*restart 1 in 1\.0 s/.test(l)),
    `restart logged: ${log.slice(-5).join(' | ')}`,
  );
  const address = await machine.process.address('readyz');
  await eventually('the new process ready', async () => ((await httpGet(address, '/readyz')).status === 200 ? true : undefined), 30_000);
  const t0 = performance.now();
  await scaleTo(4);
  await scaled(4);
  console.log(`restarts: scale-up after a SIGKILL converged in ${seconds(t0)} s`);
});

test('an apiserver outage longer than the renew deadline (15 s, etcd kept): every controller exits, is restarted, and a scale-up afterwards converges', async () => {
  const before = new Map(CONTROLLERS.map((name) => [name, lab.controllers.get(name)!.exits.length]));
  const t0 = performance.now();
  await lab.env.restartApiServer(15_000);
  console.log(`restarts: apiserver back after ${seconds(t0)} s`);
  // Each controller loses its lease (or its connection) and exits; the supervisor brings it back.
  for (const name of CONTROLLERS) {
    const c = lab.controllers.get(name)!;
    await eventually(
      `controller ${name} exited and restarted`,
      () => (c.exits.length > before.get(name)! && c.process.child.exitCode === null && c.restarts >= c.exits.length ? true : undefined),
      120_000,
    );
  }
  const codes = CONTROLLERS.map((name) => `${name}: ${lab.controllers.get(name)!.exits.slice(before.get(name)!).map((e) => e.code ?? e.signal).join(',')}`);
  console.log(`restarts: exits during the outage: ${codes.join('; ')}`);
  const t1 = performance.now();
  await running(lab, 180_000);
  const [added] = await lab.addHosts(1, 'worker');
  await scaleTo(5);
  const s = await scaled(5, 180_000);
  assert.ok(hostsOf(s, 'md-0').includes(added ?? ''), 'the host added after the outage is used');
  console.log(`restarts: after the outage, Running and scaled up in ${seconds(t1)} s`);
});

test.run();
