// Which events reach the Metal3Machine controller (research §0.6, M-1…M-7, E-20).
//
// Changed from upstream, as in the Metal3Cluster controller: pausing is an event too. Upstream drops
// every event of an object carrying the pause annotation and every Cluster update but un-pausing,
// so the Paused condition and the BareMetalHost pause (M-14) waited for some later, unrelated
// reconcile. Here the update that adds the annotation passes, and so do both Cluster spec.paused
// transitions, so pausing and un-pausing reach the host at once (M-14, M-15, M-16).
//
// The per-source filters drop updates that carry nothing a reconcile acts on: our own status writes
// on the Metal3Machine, and the status bookkeeping BMO and Cluster API write many times a minute.
import type { KubeObject } from '@metal3-ts/generated';
import type { Cluster } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type { Metal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { and, clusterUnpaused, hasWatchFilterLabel, or, pausingUpdate, type Predicate, resourceNotPaused } from '@metal3-ts/shared/controller/predicates';
import { foreignReferences, REFERENCE_FIELDS } from '@metal3-ts/shared/meta/references';
import { deepEqual } from '@metal3-ts/shared/patch/diff';
import type { CachedHost, CachedMachine } from './projections.ts';

/**
 * Every source (§0.6, E-20: judged on the source object of mapped watches): the watch-filter label
 * when `--watch-filter` is set; not paused by annotation, except for the update that pauses.
 */
export function metal3MachineEventFilter(watchFilter: string): Predicate {
  return and(hasWatchFilterLabel(watchFilter), or(resourceNotPaused, pausingUpdate));
}

/** An update that sets Cluster spec.paused. */
const clusterPausing: Predicate<Cluster> = {
  create: () => false,
  update: (old, cluster) => old.spec?.paused !== true && cluster.spec?.paused === true,
  delete: () => false,
};

/** Every create, paused or not: a Cluster that appears paused (clusterctl move) pauses its hosts. */
const clusterCreated: Predicate<Cluster> = { create: () => true, update: () => false, delete: () => false };

/** Cluster API v1beta1 infrastructure readiness: the status field or the InfrastructureReady condition (§0.7). */
const infrastructureReady = (cluster: Readonly<Cluster>): boolean =>
  cluster.status?.infrastructureReady === true || cluster.status?.conditions?.some((c) => c.type === 'InfrastructureReady' && c.status === 'True') === true;

/** An update where the Cluster's infrastructure turns ready: machines waiting on M-12 go on. */
const clusterInfrastructureReady: Predicate<Cluster> = {
  create: () => false,
  update: (old, cluster) => !infrastructureReady(old) && infrastructureReady(cluster),
  delete: () => false,
};

/**
 * M-3: Cluster API's ClusterUnpaused, plus pausing, every create and the infrastructure turning ready
 * (Cluster API's ClusterPausedTransitionsOrInfrastructureReady); never deletes.
 */
export const clusterPauseTransitions: Predicate<Cluster> = or(clusterUnpaused, clusterPausing, clusterCreated, clusterInfrastructureReady);

/** Passes updates whose projection changed; creates and deletes pass. */
function changedIn<T extends KubeObject>(project: (obj: Readonly<T>) => unknown): Predicate<T> {
  return { update: (old, obj) => !deepEqual(project(old), project(obj)) };
}

/** The object without status, resourceVersion and managedFields. */
function withoutStatus(obj: Readonly<KubeObject>): unknown {
  const { status: _status, metadata, ...rest } = obj as KubeObject & { status?: unknown };
  const { resourceVersion: _rv, managedFields: _mf, ...meta } = metadata;
  return { ...rest, metadata: meta };
}

/**
 * M-1: the primary watch ignores updates that change only the status (our own writes among them),
 * except a status reference turning to another namespace (issue 21): that is reported at once.
 */
export const metal3MachineChanged: Predicate<Metal3Machine> = changedIn((m3m) => ({
  object: withoutStatus(m3m),
  foreign: foreignReferences(m3m, REFERENCE_FIELDS.Metal3Machine),
}));

/**
 * M-7: what of a host the reconcile reads (association, provider ID, addresses, pause, deletion).
 * `status.poweredOn` is kept: deletion waits for an externally provisioned host to power off.
 * Dropped: `lastUpdated`, `operationHistory`, credentials and error counters BMO rewrites often.
 */
export const hostChanged: Predicate<CachedHost> = changedIn((host) => ({
  labels: host.metadata.labels,
  annotations: host.metadata.annotations,
  deletionTimestamp: host.metadata.deletionTimestamp,
  spec: host.spec,
  state: host.status?.provisioning?.state,
  errorMessage: host.status?.errorMessage,
  errorType: host.status?.errorType,
  hardware: host.status?.hardware,
  operationalStatus: host.status?.operationalStatus,
  poweredOn: host.status?.poweredOn,
}));

/** The v1beta1 condition `type`'s status, as CAPM3 reads Machine conditions (§0.7). */
const conditionStatus = (machine: Readonly<CachedMachine>, type: string): string | undefined =>
  machine.status?.conditions?.find((c) => c.type === type)?.status;

/**
 * M-2: what of a Machine the reconcile reads: bootstrap data and config (M-20, M-23), failure
 * domain (M-10), provider ID, infrastructureRef, labels (cluster name M-11, control plane N-3),
 * owners (node reuse N-4), deletion, the Node reference and bootstrap readiness (M-20).
 */
export const machineChanged: Predicate<CachedMachine> = changedIn((machine) => ({
  bootstrap: machine.spec?.bootstrap,
  failureDomain: machine.spec?.failureDomain,
  providerID: machine.spec?.providerID,
  infrastructureRef: machine.spec?.infrastructureRef,
  labels: machine.metadata.labels,
  ownerReferences: machine.metadata.ownerReferences,
  deletionTimestamp: machine.metadata.deletionTimestamp,
  nodeRef: machine.status?.nodeRef,
  bootstrapReady: conditionStatus(machine, 'BootstrapReady'),
  bootstrapReadyField: machine.status?.bootstrapReady,
}));
