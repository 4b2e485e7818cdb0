// The `<cluster>-kubeconfig` Secret as Cluster API writes it (CAPI `kubeconfig.GenerateSecretWithOwner`):
// key `value`, the cluster-name label, type `cluster.x-k8s.io/secret`, controlled by its owner; and
// which existing Secrets of that name the simulator takes over. Pure.
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

/**
 * Ours to rewrite and delete: a kubeconfig Secret in Cluster API's format, whoever wrote it (this
 * simulator, or KubeadmControlPlane pointing at `spec.controlPlaneEndpoint`, an address nothing here
 * serves). A Secret of another type is a user's own, left alone, as KCP leaves it alone too.
 */
export function isCapiKubeconfig(secret: Readonly<Secret>): boolean {
  return secret.type === KUBECONFIG_SECRET_TYPE;
}

/**
 * What to do with the existing `<cluster>-kubeconfig` Secret: `rewrite` its value to reach our
 * apiserver (only the value: KCP may have made itself the controller, and keeps that), `keep` it, or
 * `foreign` when it is not ours to touch.
 */
export function kubeconfigAction(existing: Readonly<Secret>, wanted: Readonly<Secret>): 'rewrite' | 'keep' | 'foreign' {
  if (!isCapiKubeconfig(existing)) return 'foreign';
  return existing.data?.[KUBECONFIG_SECRET_KEY] === wanted.data?.[KUBECONFIG_SECRET_KEY] ? 'keep' : 'rewrite';
}
