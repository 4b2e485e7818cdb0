// The reboot strategy against a real kube-apiserver, the controller running as a user bound to exactly
// deploy/rbac.yaml. The management apiserver doubles as the workload cluster (its Nodes), and the
// test plays BMO (status.poweredOn follows the reboot annotation) and the kubelet (a Node registers
// again after power-on); every wait is on a condition. The clock is the test's, so the timeout passes
// without waiting for it.
import * as assert from 'uvu/assert';
import { type Client } from '@metal3-ts/generated';
import { MachineResource } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { NodeResource } from '@metal3-ts/generated/core/v1';
import { Metal3RemediationResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { BareMetalHostResource } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { eventually, type RunningController, startInProcess } from '@metal3-ts/test/testing/controller-runner';
import { controllerSuite } from '@metal3-ts/test/testing/controller-suite';
import { fileURLToPath } from 'node:url';
import { remediationController } from '../src/controller.ts';
import { createFixture as fixture } from './support.ts';
import { CONTROLLER_NAME, rebootAnnotation, REMEDIATION_FINALIZER } from '../src/names.ts';

const RBAC = fileURLToPath(new URL('../deploy/rbac.yaml', import.meta.url));
const { test, env, admin, track, namespace } = controllerSuite<RunningController>('Metal3Remediation: the reboot strategy on a real apiserver', {
  afterStop: (c) => assert.is(c.errors(), 0, 'no failed reconcile'),
});

/** BMO's part: the host powers off once the reboot annotation is there, on once it is gone. */
async function powerCycle(client: Client, ns: string, uid: string, what: string) {
  const hosts = client.api(BareMetalHostResource, ns);
  await eventually(
    `${what}: reboot annotation on the host`,
    async () => rebootAnnotation(uid) in ((await hosts.get('host-0')).metadata.annotations ?? {}) || undefined,
  );
  await hosts.mergePatchStatus('host-0', { status: { poweredOn: false } });
  await eventually(
    `${what}: reboot annotation removed`,
    async () => !(rebootAnnotation(uid) in ((await hosts.get('host-0')).metadata.annotations ?? {})) || undefined,
  );
  await hosts.mergePatchStatus('host-0', { status: { poweredOn: true } });
}

test('RS-10…RS-14: power off through the reboot annotation, back up and delete the Node, power on, restore its labels on the new Node; RS-13/RS-15/S-1: after retryLimit the Machine gets OwnerRemediated False in v1beta1 AND v1beta2, the host capm3.metal3.io/unhealthy (AP-31)', async () => {
  const client = admin();
  const ns = await namespace('remediation');
  let offsetMs = 0;
  track(
    await startInProcess(env(), ns, {
      rbac: RBAC,
      user: 'remediation-controller',
      component: 'metal3-ts-remediation',
      controllers: [CONTROLLER_NAME],
      verboseEnv: 'REMEDIATION_TEST_LOG',
      build: (deps) =>
        remediationController({
          ...deps,
          workloadClient: () => Promise.resolve(client),
          now: () => new Date(Date.now() + offsetMs),
          config: { concurrency: 2 },
        }),
    }),
  );
  const { node, uid } = await fixture(client, ns);
  const remediations = client.api(Metal3RemediationResource, ns);
  const nodes = client.api(NodeResource);

  await powerCycle(client, ns, uid, 'first cycle');
  const waiting = await remediations.get('worker-0');
  assert.is(waiting.status?.phase, 'Waiting');
  assert.ok(waiting.metadata.finalizers?.includes(REMEDIATION_FINALIZER));
  assert.is(waiting.metadata.annotations?.['remediation.metal3.io/node-labels-backup'], '{"node-role.kubernetes.io/worker":"","zone":"a"}');
  await eventually('the old Node deleted', async () => (await nodes.list()).items.every((n) => n.metadata.name !== node) || undefined);
  // The kubelet of the rebooted host registers a new Node, with a label of its own.
  await nodes.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: node, labels: { zone: 'b' } } });
  const restored = await eventually('labels restored and finalizer gone', async () => {
    const [n, r] = [await nodes.get(node), await remediations.get('worker-0')];
    return !r.metadata.finalizers?.length && n.metadata.labels?.['node-role.kubernetes.io/worker'] === '' ? { n, r } : undefined;
  });
  assert.equal(restored.n.metadata.labels, { zone: 'b', 'node-role.kubernetes.io/worker': '' }, 'the new Node keeps its own zone (RS-14)');
  assert.is(restored.r.metadata.annotations?.['remediation.metal3.io/node-labels-backup'], undefined);

  // Timed out: one retry (retryLimit 1), a second power cycle, and the Node never comes back.
  offsetMs += 101_000;
  await remediations.mergePatch('worker-0', { metadata: { labels: { nudge: '1' } } });
  await powerCycle(client, ns, uid, 'retry');
  await eventually('Node deleted again, remediation Waiting with retryCount 1', async () => {
    const r = await remediations.get('worker-0');
    const gone = (await nodes.list()).items.every((n) => n.metadata.name !== node);
    return gone && r.status?.phase === 'Waiting' && r.status.retryCount === 1 ? r : undefined;
  });
  offsetMs += 202_000;
  await remediations.mergePatch('worker-0', { metadata: { labels: { nudge: '2' } } });
  const machine = await eventually('Machine handed back', async () => {
    const m = await client.api(MachineResource, ns).get('worker-0');
    return m.status?.v1beta2?.conditions?.some((c) => c.type === 'OwnerRemediated') ? m : undefined;
  });
  const v1 = machine.status?.conditions?.find((c) => c.type === 'OwnerRemediated');
  const v2 = machine.status?.v1beta2?.conditions?.find((c) => c.type === 'OwnerRemediated');
  assert.equal([v1?.status, v1?.reason, v1?.severity], ['False', 'WaitingForRemediation', 'Warning']);
  assert.equal([v2?.status, v2?.reason, v2?.message], ['False', 'WaitingForRemediation', 'Waiting for remediation']);
  const done = await eventually('phase Deleting machine', async () => {
    const r = await remediations.get('worker-0');
    return r.status?.phase === 'Deleting machine' ? r : undefined;
  });
  assert.is(done.status?.retryCount, 1);
  const host = await client.api(BareMetalHostResource, ns).get('host-0');
  assert.is(host.metadata.annotations?.['capm3.metal3.io/unhealthy'], 'capm3/UnhealthyNode', 'no node reuse: the host is kept out of selection');
  assert.is(host.metadata.annotations?.['capi.metal3.io/unhealthy'], undefined, 'the deprecated key is not written');
});

test.run();
