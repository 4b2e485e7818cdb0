// What a MachineSet does about its Machines, decided from a snapshot (CAPI's syncReplicas and
// updateStatus), with no I/O:
// - its Machines are those in its namespace matching its selector that it controls, plus orphans
//   (no controller) matching the selector, which it adopts; Machines controlled by anything else are
//   not its business;
// - fewer than `spec.replicas` (default 1): create the difference; more: delete the excess in
//   delete-policy order, counting Machines already being deleted as part of the excess;
// - status counts every one of its Machines (deleting ones too) as replicas; a Machine is ready when
//   Running with a nodeRef and not being deleted, available when it has been ready for
//   `minReadySeconds`.
import type { Machine, MachineSet, MachineSetStatus } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { CLUSTER_NAME_LABEL } from './machineset-constants.ts';
import { machinesToDelete } from './machineset-delete-policy.ts';
import { isEmptySelector, selectorMatches, selectorString } from './machineset-selector.ts';

export interface MachineSetPlan {
  /** The set's Machines after adoption (deleting ones included). */
  readonly machines: readonly Readonly<Machine>[];
  /** Orphans to adopt (also listed in `machines`). */
  readonly adopt: readonly Readonly<Machine>[];
  /** Machines to create. */
  readonly create: number;
  /** Machines to delete now (the excess minus those already deleting). */
  readonly delete: readonly Readonly<Machine>[];
}

export function desiredReplicas(ms: Readonly<MachineSet>): number {
  return ms.spec?.replicas ?? 1;
}

function controllerUid(machine: Readonly<Machine>): string | undefined {
  return machine.metadata.ownerReferences?.find((ref) => ref.controller === true)?.uid;
}

/** The set's own Machines and the orphans it may adopt, among `candidates` (any namespace filter done). */
export function machinesOfSet(
  ms: Readonly<MachineSet>,
  candidates: readonly Readonly<Machine>[],
): { owned: Readonly<Machine>[]; orphans: Readonly<Machine>[] } {
  const owned: Readonly<Machine>[] = [];
  const orphans: Readonly<Machine>[] = [];
  const selector = ms.spec?.selector;
  // An empty selector would claim every Machine of the namespace: CAPI's webhook refuses it, we ignore it.
  if (!selector || isEmptySelector(selector)) return { owned, orphans };
  for (const machine of candidates) {
    if (machine.metadata.namespace !== ms.metadata.namespace) continue;
    if (!selectorMatches(selector, machine.metadata.labels)) continue;
    const uid = controllerUid(machine);
    if (uid === ms.metadata.uid) owned.push(machine);
    else if (uid === undefined && !machine.metadata.deletionTimestamp) orphans.push(machine);
  }
  return { owned, orphans };
}

/** @throws InvalidSelectorError (terminal) before anything is decided for a set with a bad selector. */
export function planMachineSet(ms: Readonly<MachineSet>, candidates: readonly Readonly<Machine>[]): MachineSetPlan {
  if (ms.spec?.selector) selectorString(ms.spec.selector);
  const { owned, orphans } = machinesOfSet(ms, candidates);
  const machines = [...owned, ...orphans];
  const diff = machines.length - desiredReplicas(ms);
  if (diff < 0) return { machines, adopt: orphans, create: -diff, delete: [] };
  const excess = machinesToDelete(machines, diff, ms.spec?.deletePolicy);
  return { machines, adopt: orphans, create: 0, delete: excess.filter((m) => !m.metadata.deletionTimestamp) };
}

export function isMachineReady(machine: Readonly<Machine>): boolean {
  return !machine.metadata.deletionTimestamp && machine.status?.phase === 'Running' && machine.status.nodeRef !== undefined;
}

// When the Machine last became ready: its NodeHealthy or Ready condition turning True, else its last
// status update, else its creation.
function readySince(machine: Readonly<Machine>): number {
  const conditions = machine.status?.conditions ?? [];
  const since = conditions.find((c) => c.type === 'NodeHealthy' && c.status === 'True')?.lastTransitionTime ??
    conditions.find((c) => c.type === 'Ready' && c.status === 'True')?.lastTransitionTime ??
    machine.status?.lastUpdated ??
    machine.metadata.creationTimestamp;
  return since ? Date.parse(since) : 0;
}

/** Epoch ms from which the Machine counts as available; undefined while it is not ready. */
export function availableFrom(machine: Readonly<Machine>, minReadySeconds: number): number | undefined {
  if (!isMachineReady(machine)) return undefined;
  return minReadySeconds > 0 ? readySince(machine) + minReadySeconds * 1000 : 0;
}

export interface MachineSetStatusResult {
  readonly status: MachineSetStatus;
  /** When a ready Machine will become available (minReadySeconds), so the caller can look again then. */
  readonly nextAvailableAt?: number;
}

/** The status fields a MachineSet publishes, from its Machines, at wall-clock time `now` (epoch ms). */
export function machineSetStatus(ms: Readonly<MachineSet>, machines: readonly Readonly<Machine>[], now: number): MachineSetStatusResult {
  const minReady = ms.spec?.minReadySeconds ?? 0;
  const templateLabels = ms.spec?.template?.metadata?.labels ?? {};
  let fullyLabeled = 0;
  let ready = 0;
  let available = 0;
  let nextAvailableAt: number | undefined;
  for (const machine of machines) {
    if (Object.entries(templateLabels).every(([k, v]) => machine.metadata.labels?.[k] === v)) fullyLabeled++;
    const from = availableFrom(machine, minReady);
    if (from === undefined) continue;
    ready++;
    if (from <= now) available++;
    else nextAvailableAt = Math.min(nextAvailableAt ?? from, from);
  }
  const status: MachineSetStatus = {
    ...ms.status,
    selector: ms.spec?.selector ? selectorString(ms.spec.selector) : '',
    replicas: machines.length,
    fullyLabeledReplicas: fullyLabeled,
    readyReplicas: ready,
    availableReplicas: available,
    ...(ms.metadata.generation !== undefined ? { observedGeneration: ms.metadata.generation } : {}),
  };
  return nextAvailableAt === undefined ? { status } : { status, nextAvailableAt };
}

/** Every Machine whose controller is the object with `uid` (what a deleting owner must remove). */
export function machinesControlledBy(uid: string | undefined, candidates: readonly Readonly<Machine>[]): Readonly<Machine>[] {
  return uid ? candidates.filter((m) => controllerUid(m) === uid) : [];
}

/**
 * The labels CAPI's MachineSet controller keeps in place: the cluster-name label on the set, in its
 * selector and in its template, so a set only ever selects Machines of its own Cluster. Returns
 * whether anything changed.
 */
export function ensureClusterNameLabels(ms: MachineSet): boolean {
  const cluster = ms.spec?.clusterName;
  if (!cluster || !ms.spec) return false;
  let changed = false;
  const set = (labels: Record<string, string>): Record<string, string> => {
    if (labels[CLUSTER_NAME_LABEL] !== cluster) {
      labels[CLUSTER_NAME_LABEL] = cluster;
      changed = true;
    }
    return labels;
  };
  ms.metadata.labels = set({ ...ms.metadata.labels });
  ms.spec.selector = { ...ms.spec.selector, matchLabels: set({ ...ms.spec.selector.matchLabels }) };
  ms.spec.template = { ...ms.spec.template, metadata: { ...ms.spec.template?.metadata, labels: set({ ...ms.spec.template?.metadata?.labels }) } };
  return changed;
}
