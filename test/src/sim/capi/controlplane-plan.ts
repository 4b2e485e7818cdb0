// What a KubeadmControlPlane does next, decided from a snapshot of its Machines (CAPI's KCP
// reconcile: initialize, scale up, scale down, rolling upgrade), with no I/O.
//
// One step at a time, and only from a settled control plane:
// - a Machine being deleted → wait for it to go;
// - Machines needing a rollout (version, infrastructure template or cluster configuration changed,
//   or created before `rolloutAfter`) → below `replicas + maxSurge` Machines: scale up, else scale
//   down the oldest outdated Machine (from the failure domain holding most of them);
// - no Machine yet → initialize (the first Machine gets the init configuration);
// - fewer than `replicas` → scale up (a joining Machine); more → scale down (outdated first, then
//   the oldest, from the failure domain holding most);
// scale-ups and scale-downs wait until every other Machine is Running (CAPI's preflight checks:
// Machines with a node, healthy control-plane components).
import type { Machine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type { KubeadmControlPlane, KubeadmControlPlaneStatus } from '@metal3-ts/generated/controlplane.cluster.x-k8s.io/v1beta1';
import { groupKindString } from './machineset-clone.ts';
import {
  CLONED_FROM_GROUPKIND_ANNOTATION,
  CLONED_FROM_NAME_ANNOTATION,
  CLUSTER_NAME_LABEL,
  CONTROL_PLANE_LABEL,
  KUBEADM_CLUSTER_CONFIGURATION_ANNOTATION,
} from './machineset-constants.ts';
import { isMachineReady } from './machineset-plan.ts';
import { selectorString } from './machineset-selector.ts';
import { scaledValue } from './rollout-plan.ts';

/** A control-plane Machine as the planner sees it. */
export interface ControlPlaneMachine {
  readonly name: string;
  readonly createdAt: string;
  readonly running: boolean;
  readonly deleting: boolean;
  readonly outdated: boolean;
  readonly failureDomain?: string | undefined;
}

export type ControlPlaneAction =
  | { readonly type: 'none' }
  | { readonly type: 'wait'; readonly reason: string }
  | { readonly type: 'initialize' }
  | { readonly type: 'scaleUp' }
  | { readonly type: 'scaleDown'; readonly machine: string };

export interface ControlPlaneInput {
  readonly replicas: number;
  readonly maxSurge: number;
  readonly machines: readonly ControlPlaneMachine[];
}

const oldestFirst = (a: ControlPlaneMachine, b: ControlPlaneMachine) =>
  a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : 0;

/** The Machine to remove among `candidates`: the oldest of the failure domain holding most of them. */
export function machineForScaleDown(candidates: readonly ControlPlaneMachine[]): ControlPlaneMachine | undefined {
  const byDomain = new Map<string, ControlPlaneMachine[]>();
  for (const m of candidates) byDomain.set(m.failureDomain ?? '', [...(byDomain.get(m.failureDomain ?? '') ?? []), m]);
  let pick: ControlPlaneMachine[] | undefined;
  for (const domain of [...byDomain.keys()].sort()) {
    const members = byDomain.get(domain) ?? [];
    if (!pick || members.length > pick.length) pick = members;
  }
  return pick ? [...pick].sort(oldestFirst)[0] : undefined;
}

/** The failure domain for a new Machine: the one with fewest up-to-date Machines (ties by name). */
export function failureDomainForScaleUp(domains: readonly string[], machines: readonly ControlPlaneMachine[]): string | undefined {
  let best: { domain: string; count: number } | undefined;
  for (const domain of [...domains].sort()) {
    const count = machines.filter((m) => !m.outdated && !m.deleting && m.failureDomain === domain).length;
    if (!best || count < best.count) best = { domain, count };
  }
  return best?.domain;
}

function preflight(machines: readonly ControlPlaneMachine[], except?: string): ControlPlaneAction | undefined {
  const notRunning = machines.filter((m) => m.name !== except && !m.running);
  return notRunning.length > 0 ? { type: 'wait', reason: `waiting for Machine ${notRunning[0]?.name} to be Running` } : undefined;
}

function scaleDown(machines: readonly ControlPlaneMachine[], candidates: readonly ControlPlaneMachine[]): ControlPlaneAction {
  const victim = machineForScaleDown(candidates);
  if (!victim) return { type: 'none' };
  return preflight(machines, victim.name) ?? { type: 'scaleDown', machine: victim.name };
}

export function planControlPlane(input: ControlPlaneInput): ControlPlaneAction {
  const { replicas, maxSurge, machines } = input;
  const deleting = machines.find((m) => m.deleting);
  if (deleting) return { type: 'wait', reason: `waiting for Machine ${deleting.name} to be deleted` };
  const outdated = machines.filter((m) => m.outdated);
  if (outdated.length > 0 && replicas > 0) {
    if (machines.length < replicas + maxSurge) return preflight(machines) ?? { type: 'scaleUp' };
    return scaleDown(machines, outdated);
  }
  if (machines.length < replicas) {
    if (machines.length === 0) return { type: 'initialize' };
    return preflight(machines) ?? { type: 'scaleUp' };
  }
  if (machines.length > replicas) return scaleDown(machines, outdated.length > 0 ? outdated : machines);
  return { type: 'none' };
}

/** KCP maxSurge: 0 or 1 (CAPI allows nothing else), default 1. */
export function controlPlaneMaxSurge(kcp: Readonly<KubeadmControlPlane>): number {
  const value = kcp.spec?.rolloutStrategy?.rollingUpdate?.maxSurge;
  return value === undefined ? 1 : Math.min(1, scaledValue(value, kcp.spec?.replicas ?? 1, true));
}

/** The JSON a control-plane Machine records of the cluster configuration it was made with. */
export function clusterConfigurationJson(kcp: Readonly<KubeadmControlPlane>): string {
  return JSON.stringify(kcp.spec?.kubeadmConfigSpec.clusterConfiguration ?? {});
}

/** What an infrastructure machine says it was cloned from (undefined: unknown, e.g. not found). */
export interface ClonedFrom {
  readonly name?: string | undefined;
  readonly groupKind?: string | undefined;
}

export function clonedFromOf(obj: { metadata: { annotations?: Record<string, string> } } | undefined): ClonedFrom | undefined {
  if (!obj) return undefined;
  return { name: obj.metadata.annotations?.[CLONED_FROM_NAME_ANNOTATION], groupKind: obj.metadata.annotations?.[CLONED_FROM_GROUPKIND_ANNOTATION] };
}

/**
 * Why a Machine needs replacing (undefined: it is up to date). Unknown provenance (an infrastructure
 * machine not found or without the cloned-from annotations, a Machine without the configuration
 * annotation) is not a mismatch, as in CAPI: such Machines may predate the annotations.
 */
export function rolloutReason(kcp: Readonly<KubeadmControlPlane>, machine: Readonly<Machine>, infra: ClonedFrom | undefined, now: number): string | undefined {
  const spec = kcp.spec;
  if (!spec) return undefined;
  if (machine.spec?.version !== spec.version) return `version ${machine.spec?.version ?? '(none)'} != ${spec.version}`;
  const ref = spec.machineTemplate.infrastructureRef;
  if (infra?.name !== undefined && infra.groupKind !== undefined && (infra.name !== ref.name || infra.groupKind !== groupKindString(ref))) {
    return `infrastructure template ${infra.groupKind}/${infra.name} != ${groupKindString(ref)}/${ref.name ?? ''}`;
  }
  const recorded = machine.metadata.annotations?.[KUBEADM_CLUSTER_CONFIGURATION_ANNOTATION];
  if (recorded !== undefined && recorded !== clusterConfigurationJson(kcp)) return 'cluster configuration changed';
  if (spec.rolloutAfter) {
    const after = Date.parse(spec.rolloutAfter);
    const created = Date.parse(machine.metadata.creationTimestamp ?? '');
    if (now >= after && created < after) return `created before rolloutAfter ${spec.rolloutAfter}`;
  }
  return undefined;
}

export function toPlannerView(machine: Readonly<Machine>, outdated: boolean): ControlPlaneMachine {
  return {
    name: machine.metadata.name ?? '',
    createdAt: machine.metadata.creationTimestamp ?? '',
    running: isMachineReady(machine),
    deleting: machine.metadata.deletionTimestamp !== undefined,
    outdated,
    failureDomain: machine.spec?.failureDomain,
  };
}

// Kubernetes versions compared numerically by major.minor.patch; a pre-release sorts before its release.
function versionKey(version: string): [number, number, number, number] {
  const match = /^v?(\d+)\.(\d+)\.(\d+)(-.*)?$/.exec(version);
  if (!match) return [Number.MAX_SAFE_INTEGER, 0, 0, 0];
  return [Number(match[1]), Number(match[2]), Number(match[3]), match[4] ? 0 : 1];
}

export function lowestVersion(versions: readonly string[]): string | undefined {
  let lowest: string | undefined;
  for (const v of versions) {
    if (lowest === undefined) {
      lowest = v;
      continue;
    }
    const a = versionKey(v);
    const b = versionKey(lowest);
    const cmp = a[0] - b[0] || a[1] - b[1] || a[2] - b[2] || a[3] - b[3];
    if (cmp < 0) lowest = v;
  }
  return lowest;
}

/**
 * The status a KubeadmControlPlane publishes. `initialized` and `ready` turn true with the first
 * Running Machine (its API server answers) and stay true, as in CAPI.
 */
export function controlPlaneStatus(
  kcp: Readonly<KubeadmControlPlane>,
  clusterName: string,
  machines: readonly Readonly<Machine>[],
  outdated: ReadonlySet<string>,
): KubeadmControlPlaneStatus {
  const ready = machines.filter(isMachineReady).length;
  const version = lowestVersion(machines.map((m) => m.spec?.version).filter((v): v is string => typeof v === 'string'));
  return {
    ...kcp.status,
    selector: selectorString({ matchLabels: { [CLUSTER_NAME_LABEL]: clusterName }, matchExpressions: [{ key: CONTROL_PLANE_LABEL, operator: 'Exists' }] }),
    replicas: machines.length,
    updatedReplicas: machines.filter((m) => !outdated.has(m.metadata.name ?? '')).length,
    readyReplicas: ready,
    unavailableReplicas: machines.length - ready,
    initialized: kcp.status?.initialized === true || ready > 0,
    ready: kcp.status?.ready === true || ready > 0,
    ...(version ? { version } : {}),
    ...(kcp.metadata.generation !== undefined ? { observedGeneration: kcp.metadata.generation } : {}),
  };
}
