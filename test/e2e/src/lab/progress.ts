// What the lab shows while a cluster comes up: hosts by provisioning state, machines by phase, each
// machine's host and provider ID, and whether the cluster is Running. A pure summary of listed
// objects, printed whenever it changes.
import type { Client } from '@metal3-ts/generated';
import { KubeadmControlPlaneResource } from '@metal3-ts/generated/controlplane.cluster.x-k8s.io/v1beta1';
import { type Cluster, ClusterResource, type Machine, MachineDeploymentResource, MachineResource } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { type BareMetalHost, BareMetalHostResource } from '@metal3-ts/generated/metal3.io/v1alpha1';

export interface Snapshot {
  readonly clusters: readonly Cluster[];
  readonly machines: readonly Machine[];
  readonly hosts: readonly BareMetalHost[];
  /** Machines the control planes and MachineDeployments ask for, per cluster name. */
  readonly wanted: ReadonlyMap<string, number>;
}

export async function snapshot(client: Client, namespace: string): Promise<Snapshot> {
  const [clusters, machines, hosts, kcps, mds] = await Promise.all([
    client.api(ClusterResource, namespace).list(),
    client.api(MachineResource, namespace).list(),
    client.api(BareMetalHostResource, namespace).list(),
    client.api(KubeadmControlPlaneResource, namespace).list(),
    client.api(MachineDeploymentResource, namespace).list(),
  ]);
  const wanted = new Map<string, number>();
  const add = (cluster: string | undefined, n: number | undefined) => cluster && wanted.set(cluster, (wanted.get(cluster) ?? 0) + (n ?? 1));
  for (const kcp of kcps.items) {
    add(kcp.metadata.labels?.['cluster.x-k8s.io/cluster-name'] ?? kcp.metadata.ownerReferences?.find((r) => r.kind === 'Cluster')?.name, kcp.spec?.replicas);
  }
  for (const md of mds.items) add(md.spec?.clusterName, md.spec?.replicas);
  return { clusters: clusters.items, machines: machines.items, hosts: hosts.items, wanted };
}

const count = (values: readonly string[]): string =>
  [...values.reduce((m, v) => m.set(v, (m.get(v) ?? 0) + 1), new Map<string, number>())]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([v, n]) => `${n} ${v}`)
    .join(', ') || 'none';

/**
 * Running: the Cluster is Provisioned with its control plane ready, and exactly the Machines its
 * control plane and MachineDeployments ask for are Running, each with a Node and a provider ID.
 */
export function isClusterRunning(s: Snapshot, cluster: string): boolean {
  const c = s.clusters.find((x) => x.metadata.name === cluster);
  if (!c || c.status?.phase !== 'Provisioned' || c.status?.controlPlaneReady !== true) return false;
  const machines = s.machines.filter((m) => m.spec?.clusterName === cluster && !m.metadata.deletionTimestamp);
  return machines.length === (s.wanted.get(cluster) ?? -1) &&
    machines.every((m) => m.status?.phase === 'Running' && !!m.status.nodeRef && !!m.spec?.providerID);
}

/** The lines the lab prints for a snapshot. */
export function describe(s: Snapshot): string[] {
  const lines = [`hosts:    ${count(s.hosts.map((h) => h.status?.provisioning?.state || 'new'))}`];
  lines.push(`machines: ${count(s.machines.map((m) => m.status?.phase ?? 'Pending'))}`);
  for (const m of [...s.machines].sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1))) {
    const host = s.hosts.find((h) => h.spec?.consumerRef?.name === m.spec?.infrastructureRef.name);
    lines.push(
      `  ${m.metadata.name ?? ''}: ${m.status?.phase ?? 'Pending'}${host ? ` on ${host.metadata.name ?? ''}` : ''}${
        m.spec?.providerID ? ` ${m.spec.providerID}` : ''
      }${m.status?.nodeRef ? ` node ${m.status.nodeRef.name}` : ''}`,
    );
  }
  for (const c of s.clusters) {
    lines.push(`cluster ${c.metadata.name ?? ''}: ${c.status?.phase ?? 'Pending'}${isClusterRunning(s, c.metadata.name ?? '') ? ' and Running' : ''}`);
  }
  return lines;
}
