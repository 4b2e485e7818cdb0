// Issue 16 point 3: a workload Node patch the workload apiserver refuses (403 Forbidden) is a
// failure, not a silent poll. The workload cluster gets a ValidatingAdmissionPolicy whose validation
// refuses, with reason Forbidden, any Node update that changes spec.providerID, which is exactly the
// patch of P-11 (the simulated kubelet leaves the providerID to us, mode `default`). The refusal must
// reach the controller's error metric, controller_runtime_reconcile_errors_total{controller=
// "metal3machine"}, and KubernetesNodeReady with a reason and a message naming the Node and the verb,
// plus a Warning event; once the policy is lifted the harness's retry lands the patch (no crash loop,
// no stuck machine).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Client } from '@metal3-ts/generated';
import { newNode, type Node, NodeResource } from '@metal3-ts/generated/core/v1';
import { getCondition } from '@metal3-ts/shared/conditions/get';
import { KUBERNETES_NODE_READY } from '../src/names.ts';
import { CLUSTER, createMachine, eventsFor, eventually, IMAGE, machineTestScene, metal3MachineWhen, PROVISION_MS, workloadNodeApi } from './support.ts';

const test = suite('Metal3Machine whose workload Node patch is refused (issue 16)');
const POLICY = 'metal3-ts-test-deny-provider-id';
const ADMISSION = '/apis/admissionregistration.k8s.io/v1';
const PROBE_NODE = 'policy-probe';

/** The workload cluster's client, as the tests' ClusterCache (admin kubeconfig Secret) reaches it. */
const workloadClient = (): Promise<Client> =>
  eventually('the workload cluster reachable', () => scene.workloadCache.get({ namespace: scene.ns, name: CLUSTER }), PROVISION_MS);

const create = (client: Client, plural: string, body: object) =>
  client.transport.request({ method: 'POST', path: `${ADMISSION}/${plural}`, body, verb: 'create', resource: plural });

/** Refuses (403 Forbidden) every Node update that sets or changes spec.providerID; every other Node write passes. */
async function refuseProviderIDs(client: Client): Promise<void> {
  await create(client, 'validatingadmissionpolicies', {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name: POLICY },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['UPDATE'], resources: ['nodes'] }] },
      validations: [{
        expression: '!has(object.spec.providerID) || (has(oldObject.spec.providerID) && object.spec.providerID == oldObject.spec.providerID)',
        message: 'spec.providerID may not be set by this test user',
        reason: 'Forbidden',
      }],
    },
  });
  await create(client, 'validatingadmissionpolicybindings', {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name: POLICY },
    spec: { policyName: POLICY, validationActions: ['Deny'] },
  });
  // The policy reaches the apiserver's admission asynchronously: wait until a probe Node's patch is refused.
  const nodes = client.api(NodeResource);
  await nodes.create(newNode({ metadata: { name: PROBE_NODE } }));
  await eventually('the policy refusing a providerID patch', async () => {
    try {
      await nodes.mergePatch(PROBE_NODE, { spec: { providerID: 'metal3://probe' } });
      await nodes.delete(PROBE_NODE);
      await nodes.create(newNode({ metadata: { name: PROBE_NODE } }));
      return undefined;
    } catch (error) {
      return (error as { code?: number }).code === 403 ? true : undefined;
    }
  }, PROVISION_MS);
  await nodes.delete(PROBE_NODE);
}

const scene = machineTestScene(test, {
  prefix: 'machine-node-forbidden',
  hosts: ['host-0'],
  setup: async () => refuseProviderIDs(await workloadClient()),
});

test('issue 16: a Forbidden Node patch reaches controller_runtime_reconcile_errors_total, KubernetesNodeReady (reason, message naming the Node and the verb) and a Warning event; lifted, the machine gets ready', async () => {
  const { client, ns } = scene;
  const errorsBefore = scene.controller.reconcileErrorsTotal();
  await createMachine(client, ns, 'm-0', { spec: { image: IMAGE } });
  const nodes = await workloadNodeApi(scene.workloadCache, ns, PROVISION_MS);
  const node: Node = await eventually('the kubelet registered the Node of host-0', async () => {
    const uid = scene.host('host-0').metadata.uid;
    return (await nodes.list()).items.find((n) => n.metadata.labels?.['metal3.io/uuid'] === uid);
  }, PROVISION_MS);
  const name = node.metadata.name ?? '';
  const m3m = await metal3MachineWhen(client, ns, 'm-0', `KubernetesNodeReady False naming Node ${name} and the verb`, (m) => {
    const condition = getCondition(m, KUBERNETES_NODE_READY);
    return condition?.status === 'False' && !!condition.message?.includes(`Node ${name} `) && condition.message.includes('patch nodes refused: 403 Forbidden');
  }, PROVISION_MS);
  const condition = getCondition(m3m, KUBERNETES_NODE_READY);
  assert.is(condition?.reason, 'AssociateM3MetaDataFailed');
  assert.is(condition?.severity, 'Warning');
  assert.ok(condition?.message?.includes(`workload cluster ${ns}/${CLUSTER}`), condition?.message);
  assert.is(node.spec?.providerID ?? '', '', 'the Node was not patched');
  await eventually(
    'controller_runtime_reconcile_errors_total{controller="metal3machine"} counted the refusal',
    () => scene.controller.reconcileErrorsTotal() > errorsBefore ? true : undefined,
  );
  const events = await eventually('a Warning event WorkloadClusterUnusable naming the Node', async () => {
    const found = (await eventsFor(client, ns, 'm-0', 'WorkloadClusterUnusable')).filter((e) => e.message?.includes(`Node ${name} `));
    return found.length > 0 ? found : undefined;
  });
  assert.is(events[0]?.type, 'Warning');

  const workload = await workloadClient();
  await workload.transport.request({
    method: 'DELETE',
    path: `${ADMISSION}/validatingadmissionpolicybindings/${POLICY}`,
    verb: 'delete',
    resource: 'validatingadmissionpolicybindings',
  });
  const ready = await metal3MachineWhen(
    client,
    ns,
    'm-0',
    'ready once the policy is lifted',
    (m) => m.status?.ready === true && getCondition(m, KUBERNETES_NODE_READY)?.status === 'True',
    60_000,
  );
  assert.is((await nodes.get(name)).spec?.providerID, ready.spec?.providerID);
});

test.run();
