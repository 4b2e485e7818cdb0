// The scope of one Metal3Machine reconcile, read once: what it reads, all from the informers (which
// also serve our own writes): the object, its owner Machine (M-9), the Machine's Cluster (M-11), the
// Metal3Cluster (M-13), the host named by the host annotation (M-40). Nothing here talks to the
// apiserver. The phases then share the scope: they may change the working copy's metadata and the
// spec fields the controller owns (`m3m`; never its status), move `host` on to the host associated
// or written this pass, and record what they found in `observed`, the data references included,
// which deriveStatus turns into the status. Nothing else of the scope is theirs to write.
import type { Api, OwnerReference } from '@metal3-ts/generated';
import type { Cluster, MachineSet } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type {
  Metal3Cluster,
  Metal3Data,
  Metal3DataClaim,
  Metal3Machine,
  Metal3MachineTemplate,
} from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { Informer } from '@metal3-ts/shared/cache/types';
import type { HostConsumer } from '@metal3-ts/baremetal/consumer';
import type { Logger } from '@metal3-ts/shared/log/logger';
import { getOwnerByKind } from '@metal3-ts/shared/meta/owner-references';
import type { Request } from '@metal3-ts/shared/reconcile/reconcile';
import { hostAnnotationKey, hostAnnotationProblem as annotationProblem } from '@metal3-ts/baremetal/host-annotation';
import type { Guard } from './guards.ts';
import { CLUSTER_API_GROUP, CLUSTER_NAME_LABEL, HOST_ANNOTATION } from './names.ts';
import { type DataReferences, referencesOf } from './data-references.ts';
import type { Observations } from './observations.ts';
import type { CachedHost, CachedMachine } from './projections.ts';

export interface MachineInformers {
  readonly metal3Machines: Informer<Metal3Machine>;
  readonly machines: Informer<CachedMachine>;
  readonly clusters: Informer<Cluster>;
  readonly metal3Clusters: Informer<Metal3Cluster>;
  readonly hosts: Informer<CachedHost>;
  readonly claims: Informer<Metal3DataClaim>;
  readonly datas: Informer<Metal3Data>;
  readonly templates: Informer<Metal3MachineTemplate>;
  readonly machineSets: Informer<MachineSet>;
}

/** What a reconcile reads before it decides anything (guards.ts decides from it). */
export interface MachineReads {
  readonly request: Request;
  /** `namespace/name`, for messages. */
  readonly key: string;
  /** `Metal3Machine namespace/name`: the object a StepError names. */
  readonly object: string;
  /** The cached object: frozen; reconcile phases work on a copy. */
  readonly cached: Readonly<Metal3Machine>;
  readonly namespace: string;
  /** M-9: the first ownerReference to a Cluster API Machine, and that Machine when it exists. */
  readonly machineRef: OwnerReference | undefined;
  readonly machine: Readonly<CachedMachine> | undefined;
  /** M-11: the Cluster named by the Machine's cluster-name label (the Metal3Machine's when there is no Machine). */
  readonly clusterName: string | undefined;
  readonly cluster: Readonly<Cluster> | undefined;
  /** M-13: the Metal3Cluster named by the Cluster's infrastructureRef. */
  readonly metal3Cluster: Readonly<Metal3Cluster> | undefined;
  /** M-40: the associated host (looked up in the Metal3Machine's namespace only, never in another). */
  readonly host: Readonly<CachedHost> | undefined;
  readonly api: Api<Metal3Machine>;
  readonly log: Logger;
}

/** The record cannot name a host of this machine: more than one `/`, or another namespace (terminal). */
export function hostAnnotationProblem(m3m: Readonly<Metal3Machine>): string | undefined {
  return annotationProblem(m3m.metadata.annotations?.[HOST_ANNOTATION], m3m.metadata.namespace ?? '');
}

/** What `request` reads, or undefined when the Metal3Machine does not exist (M-8). */
export function readScope(informers: MachineInformers, request: Request, api: Api<Metal3Machine>, log: Logger): MachineReads | undefined {
  const cached = informers.metal3Machines.store.get(request);
  if (!cached) return undefined;
  const namespace = cached.metadata.namespace ?? '';
  const at = (name: string | undefined) => ({ namespace, name: name ?? '' });
  const machineRef = getOwnerByKind(cached, CLUSTER_API_GROUP, 'Machine');
  const machine = machineRef ? informers.machines.store.get(at(machineRef.name)) : undefined;
  // Without its Machine (only a deletion gets that far), the Metal3Machine's own label names the Cluster.
  const clusterName = (machine ? machine.metadata.labels?.[CLUSTER_NAME_LABEL] : cached.metadata.labels?.[CLUSTER_NAME_LABEL]) || undefined;
  const cluster = clusterName ? informers.clusters.store.get(at(clusterName)) : undefined;
  const m3cName = cluster?.spec?.infrastructureRef?.name;
  const metal3Cluster = m3cName ? informers.metal3Clusters.store.get(at(m3cName)) : undefined;
  // M-40 (changed): a host of another namespace is never looked up (hostAnnotationProblem says why).
  const own = hostAnnotationKey(cached.metadata.annotations?.[HOST_ANNOTATION], namespace);
  const host = own ? informers.hosts.store.get(own) : undefined;
  return {
    request,
    key: `${namespace}/${cached.metadata.name ?? ''}`,
    object: `Metal3Machine ${namespace}/${cached.metadata.name ?? ''}`,
    cached,
    namespace,
    machineRef,
    machine,
    clusterName,
    cluster,
    metal3Cluster,
    host,
    api,
    log,
  };
}

/** Who holds hosts in one reconcile: the consumer (with its reuse name) and the cluster its hosts are labelled with. */
export interface Claimant {
  readonly consumer: HostConsumer;
  readonly clusterName: string;
}

export interface MachineScope extends Omit<MachineReads, 'host'> {
  readonly decision: Guard;
  /** Read once for status.lastUpdated. */
  readonly now: Date;
  /** The working copy: metadata and the owned spec fields as the phases want them. */
  m3m: Metal3Machine;
  /**
   * The object as the server last returned it to this pass (the cached copy until a phase writes
   * the machine: adoptWrite): the final patch is computed against it, so a field a phase wrote
   * already is not sent again, and its condition write carries the current resourceVersion.
   */
  base: Metal3Machine;
  /** The host as read, then as associated or written by this pass. */
  host: Readonly<CachedHost> | undefined;
  /** Set by the spec phase, for every phase that claims, keeps or releases a host. */
  claimant?: Claimant | undefined;
  readonly observed: Observations;
  /** Set by the deletion phase once no host names the machine: the finalizer may go. */
  released?: boolean;
}

/** The scope of one reconcile, from what it read and the guard's decision. */
export function newScope(reads: MachineReads, decision: Guard, now: Date): MachineScope {
  return { ...reads, decision, now, m3m: structuredClone(reads.cached) as Metal3Machine, base: structuredClone(reads.cached) as Metal3Machine, observed: {} };
}

/**
 * A phase wrote the machine (finalizer, host record): the written object becomes the base, and the
 * working copy takes what that write decided (finalizers, the host record, resourceVersion and
 * generation) while keeping what later phases changed and nobody wrote yet.
 */
export function adoptWrite(scope: Pick<MachineScope, 'm3m' | 'base'>, written: Readonly<Metal3Machine>): void {
  scope.base = structuredClone(written) as Metal3Machine;
  const meta = scope.m3m.metadata;
  const { finalizers, resourceVersion, generation } = written.metadata;
  const recorded = written.metadata.annotations?.[HOST_ANNOTATION];
  Object.assign(meta, { finalizers, resourceVersion, generation });
  const { [HOST_ANNOTATION]: _was, ...others } = meta.annotations ?? {};
  const annotations = recorded === undefined ? others : { ...others, [HOST_ANNOTATION]: recorded };
  // No annotations left, none on the server: none here either (an empty map would be a write).
  if (Object.keys(annotations).length === 0 && written.metadata.annotations === undefined) delete meta.annotations;
  else meta.annotations = annotations;
}

type ReconcileGuard = Extract<Guard, { kind: 'Reconcile' }>;

/** The Machine, Cluster and Metal3Cluster of a reconcile the guard let through (phases after the guard phase). */
export function reconciling(scope: Pick<MachineScope, 'decision'>): ReconcileGuard {
  if (scope.decision.kind !== 'Reconcile') throw new Error(`a normal-flow phase ran on a ${scope.decision.kind} decision`);
  return scope.decision;
}

/** The claimant the spec phase computed (phases after it). */
export function scopeClaimant(scope: Pick<MachineScope, 'claimant'>): Claimant {
  if (!scope.claimant) throw new Error('a host phase ran before the spec phase');
  return scope.claimant;
}

/** The data references of this pass: the working copy's at first use (after the finalizer write). */
export function dataReferences(scope: Pick<MachineScope, 'm3m' | 'observed'>): DataReferences {
  return (scope.observed.references ??= referencesOf(scope.m3m));
}
