// The Cluster of a scene as the real Cluster API admits it: its webhook refuses a Cluster that names
// neither infrastructure nor control plane, so each names a Metal3Cluster (which need not exist: the
// Cluster then waits in Provisioning, which the data and claim controllers do not look at).
import type { Client } from '@metal3-ts/generated';
import { type Cluster, ClusterResource, newCluster } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { Metal3ClusterResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';

export function createCluster(admin: Client, ns: string, name: string): Promise<Cluster> {
  return admin.api(ClusterResource, ns).create(
    newCluster({ metadata: { name }, spec: { infrastructureRef: { apiVersion: Metal3ClusterResource.apiVersion, kind: 'Metal3Cluster', name } } }),
  );
}
