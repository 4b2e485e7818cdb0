// What one host's reconcile decides, from the objects the informers hold (research LS-2, LS-3, LS-4;
// L-4…L-6): host → its consumer Metal3Machine → the owner Machine → its nodeRef, and the Machine's
// Cluster → its Metal3Cluster's prefix annotation. Pure over lookups, so every branch is table-tested
// without an apiserver. Where upstream requeues after 30 or 60 s (a missing link, a pause), this
// answers a wait the watches end: the object that is missing or paused raises an event when it
// changes, and that event maps back to the host (mappers.ts).
import type { Cluster, Machine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type { Metal3Cluster, Metal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { BareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { apiGroupOf, getOwnerByKind } from '@metal3-ts/shared/meta/owner-references';
import { hasPausedAnnotation } from '@metal3-ts/shared/meta/paused';
import type { ClusterKey } from '@metal3-ts/shared/workload/errors';
import { CLUSTER_API_GROUP, HOST_PAUSED_ANNOTATION, INFRASTRUCTURE_GROUP, LABEL_SYNC_PREFIXES_ANNOTATION } from './names.ts';
import { parsePrefixes } from './prefixes.ts';

export interface ChainLookup {
  metal3Machine(namespace: string, name: string): Readonly<Metal3Machine> | undefined;
  machine(namespace: string, name: string): Readonly<Machine> | undefined;
  cluster(namespace: string, name: string): Readonly<Cluster> | undefined;
  metal3Cluster(namespace: string, name: string): Readonly<Metal3Cluster> | undefined;
}

/** Nothing to do for the host until one of its links changes (each is watched). */
export interface Wait {
  readonly kind: 'Wait';
  /** What is missing or paused, for the log. */
  readonly why: string;
}

export type Decision =
  | Wait
  /** LS-4: the Metal3Cluster names a prefix that is not a label prefix: report it, sync nothing. */
  | { readonly kind: 'InvalidPrefix'; readonly metal3Cluster: Readonly<Metal3Cluster>; readonly prefix: string; readonly message: string }
  /** LS-6: the host's labels under `prefixes` go to Node `nodeName` of the workload cluster `cluster`. */
  | {
    readonly kind: 'Sync';
    readonly cluster: ClusterKey;
    readonly nodeName: string;
    readonly prefixes: ReadonlySet<string>;
  };

const wait = (why: string): Wait => ({ kind: 'Wait', why });

/** The consumer Metal3Machine of a host (LS-3), if its consumerRef names one. */
export function consumerOf(host: Readonly<BareMetalHost>): { namespace: string; name: string } | undefined {
  const ref = host.spec?.consumerRef;
  if (!ref?.name || ref.kind !== 'Metal3Machine' || apiGroupOf(ref.apiVersion ?? '') !== INFRASTRUCTURE_GROUP) return undefined;
  return { namespace: ref.namespace || host.metadata.namespace || '', name: ref.name };
}

export function decide(host: Readonly<BareMetalHost>, lookup: ChainLookup): Decision {
  if (host.metadata.annotations?.[HOST_PAUSED_ANNOTATION] !== undefined) return wait('the host is paused');
  const consumer = consumerOf(host);
  if (!consumer) return wait('the host is not consumed by a Metal3Machine');
  const m3m = lookup.metal3Machine(consumer.namespace, consumer.name);
  if (!m3m) return wait(`Metal3Machine ${consumer.name} not found`);
  const owner = getOwnerByKind(m3m, CLUSTER_API_GROUP, 'Machine');
  const machine = owner ? lookup.machine(consumer.namespace, owner.name) : undefined;
  if (!machine) return wait(`the owner Machine of Metal3Machine ${consumer.name} not found`);
  const nodeName = machine.status?.nodeRef?.name;
  if (!nodeName) return wait(`Machine ${machine.metadata.name} has no nodeRef yet`);
  const clusterName = machine.spec?.clusterName ?? '';
  const cluster = lookup.cluster(consumer.namespace, clusterName);
  if (!cluster) return wait(`Cluster ${clusterName} not found`);
  const m3cName = cluster.spec?.infrastructureRef?.name ?? '';
  const metal3Cluster = lookup.metal3Cluster(consumer.namespace, m3cName);
  if (!metal3Cluster) return wait(`Metal3Cluster ${m3cName || '(no infrastructureRef)'} not found`);
  if (cluster.spec?.paused === true || hasPausedAnnotation(metal3Cluster)) return wait('the Cluster or its Metal3Cluster is paused');
  const annotation = metal3Cluster.metadata.annotations?.[LABEL_SYNC_PREFIXES_ANNOTATION];
  if (annotation === undefined) return wait(`Metal3Cluster ${m3cName} has no ${LABEL_SYNC_PREFIXES_ANNOTATION} annotation`);
  const parsed = parsePrefixes(annotation);
  if (parsed.kind === 'Invalid') return { kind: 'InvalidPrefix', metal3Cluster, prefix: parsed.prefix, message: parsed.message };
  return { kind: 'Sync', cluster: { namespace: consumer.namespace, name: clusterName }, nodeName, prefixes: parsed.prefixes };
}
