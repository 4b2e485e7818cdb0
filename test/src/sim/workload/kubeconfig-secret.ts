// The `<cluster>-kubeconfig` Secret as Cluster API writes it (CAPI `kubeconfig.GenerateSecretWithOwner`):
// key `value`, the cluster-name label, type `cluster.x-k8s.io/secret`, controlled by its owner. Pure.
import { Buffer } from 'node:buffer';
import type { Cluster } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type { Secret } from '@metal3-ts/generated/core/v1';
import { kubeconfigSecretName } from '@metal3-ts/shared/workload/errors';
import { KUBECONFIG_SECRET_KEY } from '@metal3-ts/shared/workload/kubeconfig-secret';
import { CLUSTER_NAME_LABEL } from './host-cluster.ts';

export const KUBECONFIG_SECRET_TYPE = 'cluster.x-k8s.io/secret';

export function kubeconfigSecretFor(cluster: Readonly<Cluster>, kubeconfig: string): Secret {
  const { name, namespace, uid } = cluster.metadata;
  if (!name || !namespace || !uid) throw new Error('kubeconfigSecretFor: the Cluster needs a name, namespace and uid (read it from the server)');
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: kubeconfigSecretName(name),
      namespace,
      labels: { [CLUSTER_NAME_LABEL]: name },
      ownerReferences: [{ apiVersion: cluster.apiVersion, kind: 'Cluster', name, uid, controller: true, blockOwnerDeletion: true }],
    },
    type: KUBECONFIG_SECRET_TYPE,
    data: { [KUBECONFIG_SECRET_KEY]: Buffer.from(kubeconfig, 'utf8').toString('base64') },
  };
}

/** Ours to rewrite and delete: controlled by this very Cluster (a Secret a test wrote is left alone). */
export function isControlledBy(secret: Readonly<Secret>, cluster: Readonly<Cluster>): boolean {
  const uid = cluster.metadata.uid;
  return !!uid && (secret.metadata.ownerReferences ?? []).some((ref) => ref.controller === true && ref.uid === uid);
}
