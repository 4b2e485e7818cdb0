// Objects a Metal3Remediation test needs, made as the cluster admin: a provisioned, powered-on host
// consumed by a Metal3Machine, its owner Machine (with a nodeRef to a Node in the management apiserver,
// which the tests use as the workload cluster) and the Metal3Remediation owned by the Machine, as
// Cluster API's MachineHealthCheck creates it (RS-1). Used by the real-apiserver tests, the bundle
// test and the image sample.
import type { Client } from '@metal3-ts/generated';
import { MachineResource } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { NodeResource } from '@metal3-ts/generated/core/v1';
import { Metal3MachineResource, Metal3RemediationResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { BareMetalHostResource } from '@metal3-ts/generated/metal3.io/v1alpha1';

export async function createFixture(
  client: Client,
  ns: string,
  options: { readonly online?: boolean; /** false: the Metal3Machine lacks its host annotation (bad input). */ readonly hostAnnotation?: boolean } = {},
) {
  const node = `${ns}-worker-0`;
  await client.api(BareMetalHostResource, ns).create({
    apiVersion: 'metal3.io/v1alpha1',
    kind: 'BareMetalHost',
    metadata: { name: 'host-0', namespace: ns },
    spec: {
      online: options.online ?? true,
      consumerRef: { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Machine', name: 'm3m-0', namespace: ns },
    },
  });
  await client.api(BareMetalHostResource, ns).mergePatchStatus('host-0', {
    status: { poweredOn: true, errorCount: 0, errorMessage: '', operationalStatus: 'OK', provisioning: { state: 'provisioned', ID: 'x', image: { url: '' } } },
  });
  const machine = await client.api(MachineResource, ns).create({
    apiVersion: 'cluster.x-k8s.io/v1beta1',
    kind: 'Machine',
    metadata: { name: 'worker-0', namespace: ns, labels: { 'cluster.x-k8s.io/cluster-name': 'c' } },
    spec: {
      clusterName: 'c',
      bootstrap: { dataSecretName: 'x' },
      infrastructureRef: { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Machine', name: 'm3m-0' },
    },
  });
  await client.api(MachineResource, ns).mergePatchStatus('worker-0', { status: { nodeRef: { kind: 'Node', name: node } } });
  const owner = { apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Machine', name: 'worker-0', uid: machine.metadata.uid! };
  await client.api(Metal3MachineResource, ns).create({
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
    kind: 'Metal3Machine',
    metadata: {
      name: 'm3m-0',
      namespace: ns,
      ownerReferences: [owner],
      annotations: options.hostAnnotation === false ? { 'example.com/kept': 'x' } : { 'metal3.io/BareMetalHost': `${ns}/host-0` },
    },
    spec: { customDeploy: { method: 'x' } },
  });
  await client.api(NodeResource).create({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: node, labels: { zone: 'a', 'node-role.kubernetes.io/worker': '' } },
  });
  const remediation = await client.api(Metal3RemediationResource, ns).create({
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
    kind: 'Metal3Remediation',
    metadata: { name: 'worker-0', namespace: ns, ownerReferences: [owner] },
    spec: { strategy: { type: 'Reboot', retryLimit: 1, timeout: '100s' } },
  });
  return { node, uid: remediation.metadata.uid! };
}
