// The out-of-service-taint mode (R-14, `--out-of-service-taint`) against a real kube-apiserver, the
// controller under exactly deploy/rbac.yaml, the management apiserver doubling as the workload
// cluster, the test playing BMO: the Node is tainted instead of deleted, kept while a VolumeAttachment
// names it (upstream's 5 s drain check), and untainted once the host is back; the Node is never deleted.
import * as assert from 'uvu/assert';
import { fileURLToPath } from 'node:url';
import { NodeResource } from '@metal3-ts/generated/core/v1';
import { Metal3RemediationResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { BareMetalHostResource } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { eventually, type RunningController, startInProcess } from '@metal3-ts/test/testing/controller-runner';
import { controllerSuite } from '@metal3-ts/test/testing/controller-suite';
import { remediationController } from '../src/controller.ts';
import { CONTROLLER_NAME, rebootAnnotation, REMEDIATION_FINALIZER } from '../src/names.ts';
import { OUT_OF_SERVICE_TAINT } from '../src/out-of-service.ts';
import { createFixture } from './support.ts';

const RBAC = fileURLToPath(new URL('../deploy/rbac.yaml', import.meta.url));
const { test, env, admin, track, namespace } = controllerSuite<RunningController>('Metal3Remediation: out-of-service-taint mode on a real apiserver', {
  afterStop: (c) => assert.is(c.errors(), 0, 'no failed reconcile'),
});
const VA = '/apis/storage.k8s.io/v1/volumeattachments';

test('R-14/RS-12/RS-13 taint instead of delete: the Node is kept, drained once no VolumeAttachment names it, untainted after power-on', async () => {
  const client = admin();
  const ns = await namespace('remediation-oost');
  track(
    await startInProcess(env(), ns, {
      rbac: RBAC,
      user: 'remediation-controller',
      component: 'metal3-ts-remediation',
      controllers: [CONTROLLER_NAME],
      build: (deps) => remediationController({ ...deps, workloadClient: () => Promise.resolve(client), config: { outOfService: true } }),
    }),
  );
  const raw = env().admin.client;
  const { node, uid } = await createFixture(client, ns);
  const original = await client.api(NodeResource).get(node);
  await raw.create(VA, {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'VolumeAttachment',
    metadata: { name: `${ns}-va` },
    spec: { attacher: 'csi.example.com', nodeName: node, source: { persistentVolumeName: 'pv-0' } },
  });
  const hosts = client.api(BareMetalHostResource, ns);
  const remediations = client.api(Metal3RemediationResource, ns);
  await eventually('reboot annotation on the host', async () => rebootAnnotation(uid) in ((await hosts.get('host-0')).metadata.annotations ?? {}) || undefined);
  await hosts.mergePatchStatus('host-0', { status: { poweredOn: false } });
  const isTaint = (t: { key: string; value?: string; effect: string }) =>
    t.key === OUT_OF_SERVICE_TAINT.key && t.value === 'nodeshutdown' && t.effect === 'NoExecute';
  await eventually('the Node tainted out-of-service', async () => (await client.api(NodeResource).get(node)).spec?.taints?.some(isTaint) || undefined);
  assert.is((await remediations.get('worker-0')).status?.phase, 'Running', 'not drained while a VolumeAttachment names the Node');
  await raw.delete(`${VA}/${ns}-va`);
  await eventually('Waiting once drained', async () => (await remediations.get('worker-0')).status?.phase === 'Waiting' || undefined, 20_000);
  await eventually('reboot annotation removed', async () => !(rebootAnnotation(uid) in ((await hosts.get('host-0')).metadata.annotations ?? {})) || undefined);
  await hosts.mergePatchStatus('host-0', { status: { poweredOn: true } });
  const done = await eventually('taint lifted and finalizer gone', async () => {
    const [n, r] = [await client.api(NodeResource).get(node), await remediations.get('worker-0')];
    return !n.spec?.taints?.some(isTaint) && !r.metadata.finalizers?.includes(REMEDIATION_FINALIZER) ? { n, r } : undefined;
  });
  assert.is(done.n.metadata.uid, original.metadata.uid, 'the same Node: never deleted');
  assert.is(done.r.metadata.annotations?.['remediation.metal3.io/node-labels-backup'], undefined, 'no backup in this mode');
});

test.run();
