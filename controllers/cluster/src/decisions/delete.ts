// Deletion of a Metal3Cluster (research C-11): the finalizer stays while machines of its Cluster
// exist. Upstream counts only Cluster API Machines; a Metal3Machine needs its Metal3Cluster to be
// deleted itself (E-12), so here the Metal3Machines labelled with the cluster name are waited for too.
import type { KubeObject } from '@metal3-ts/generated';

/** At most this many names are listed in the condition message. */
const LISTED = 5;

export interface ClusterMachines {
  readonly machines: readonly Readonly<KubeObject>[];
  readonly metal3Machines: readonly Readonly<KubeObject>[];
}

/** Why the finalizer must stay, or undefined when it can go. */
export function deletionWait(clusterName: string | undefined, found: ClusterMachines): string | undefined {
  const parts = [describe(found.machines, 'Machine'), describe(found.metal3Machines, 'Metal3Machine')].filter((p) => p !== undefined);
  if (parts.length === 0) return undefined;
  return `Waiting for ${parts.join(' and ')} of Cluster ${clusterName ?? ''} to be deleted`;
}

function describe(objects: readonly Readonly<KubeObject>[], kind: string): string | undefined {
  if (objects.length === 0) return undefined;
  const names = objects.map((o) => o.metadata.name ?? '').sort();
  const shown = names.slice(0, LISTED).join(', ') + (names.length > LISTED ? ', ...' : '');
  return `${objects.length} ${kind}${objects.length === 1 ? '' : 's'} (${shown})`;
}
