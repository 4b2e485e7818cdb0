// A kubelet a test stops or makes report NotReady, and the Node status that follows: how a test (or
// someone in the lab, with `kubectl annotate bmh`) makes a worker's Node unhealthy the way a dead or
// broken kubelet would, so Cluster API's MachineHealthCheck sees a real unhealthy Node (issue 17).
//
// Two annotations on a BareMetalHost, each valued with the name of the host's consumer (the
// Metal3Machine, `kubectl get bmh`'s CONSUMER column), act on the kubelet of that provisioning only:
// a host provisioned again for another consumer runs a fresh kubelet (a new OS was written), so a
// remediated host comes back Ready without anyone removing them. Removing one restarts or heals the
// kubelet, which posts Ready again.
// - KUBELET_STOPPED_ANNOTATION: the kubelet is dead and posts nothing, so what changes the Node is
//   kube-controller-manager's node lifecycle controller, which the workload clusters lack: the
//   simulator plays it at once (no 40 s node-monitor-grace-period): every condition `Unknown`,
//   reason `NodeStatusUnknown`, message "Kubelet stopped posting node status.", lastHeartbeatTime
//   left as the kubelet last wrote it, lastTransitionTime now; taints `node.kubernetes.io/unreachable`.
// - KUBELET_NOT_READY_ANNOTATION: the kubelet runs but its container runtime network does not, so
//   it posts Ready `False`, reason `KubeletNotReady` with the kubelet's message; the lifecycle
//   controller taints `node.kubernetes.io/not-ready`. Stopped wins when both are set.
// A provisioned host that BMO reports powered off (`status.poweredOn: false`, e.g. held off by a
// `reboot.metal3.io/*` annotation during remediation) has a stopped kubelet too; when it is powered on
// again a fresh kubelet boots and registers its Node anew if someone deleted it (kubelet-controller.ts).
// Each taint comes with both effects, NoSchedule and NoExecute (with timeAdded). Not covered: the
// mirror Pods of a control-plane node stay Ready; pods are not evicted; no periodic heartbeats.
// Decisions are pure; writeNodeHealth is the one write, done by the kubelet controller.
import { type Client, isNotFound } from '@metal3-ts/generated';
import { type Node, type NodeCondition, NodeResource, type Taint } from '@metal3-ts/generated/core/v1';
import type { BareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { NODE_HOST_UID_ANNOTATION } from './names.ts';
import { kubeletConditions } from './node.ts';

/** On a BareMetalHost, the name of its consumer: the kubelet of that provisioning is dead. */
export const KUBELET_STOPPED_ANNOTATION = 'workload.sim.metal3-ts.dev/kubelet-stopped';
/** On a BareMetalHost, the name of its consumer: the kubelet of that provisioning reports NotReady. */
export const KUBELET_NOT_READY_ANNOTATION = 'workload.sim.metal3-ts.dev/kubelet-not-ready';

export const UNREACHABLE_TAINT = 'node.kubernetes.io/unreachable';
export const NOT_READY_TAINT = 'node.kubernetes.io/not-ready';
const NOT_READY_MESSAGE =
  'container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized';

export type KubeletState = 'running' | 'stopped' | 'not-ready';

/** A provisioned host BMO reports powered off: nothing runs on it. */
export function poweredOff(host: Readonly<BareMetalHost>): boolean {
  return host.status?.provisioning?.state === 'provisioned' && host.status.poweredOn === false;
}

/** The state of the kubelet of the host's current provisioning. */
export function kubeletState(host: Readonly<BareMetalHost>): KubeletState {
  if (poweredOff(host)) return 'stopped';
  const names = (annotation: string) => {
    const value = host.metadata.annotations?.[annotation];
    return !!value && value === host.spec?.consumerRef?.name;
  };
  if (names(KUBELET_STOPPED_ANNOTATION)) return 'stopped';
  return names(KUBELET_NOT_READY_ANNOTATION) ? 'not-ready' : 'running';
}

/** What the Node should say: `conditions` for its status, `taints` for its spec. */
export interface NodeHealth {
  readonly conditions: NodeCondition[];
  readonly taints: Taint[];
}

const LIFECYCLE_TAINTS = [UNREACHABLE_TAINT, NOT_READY_TAINT];

/** The lifecycle controller's taint for a state, both effects; none for a running kubelet. */
function taintsFor(node: Readonly<Node>, key: string | undefined, now: string): Taint[] {
  const kept = (node.spec?.taints ?? []).filter((t) => !LIFECYCLE_TAINTS.includes(t.key));
  const existing = (node.spec?.taints ?? []).filter((t) => t.key === key);
  if (!key) return kept;
  if (existing.length === 2) return [...kept, ...existing];
  return [...kept, { key, effect: 'NoSchedule' }, { key, effect: 'NoExecute', timeAdded: now }];
}

/** A condition's transition time moves only when its status changes. */
function sinceLastChange(next: NodeCondition, before: readonly NodeCondition[] | undefined): NodeCondition {
  const old = before?.find((c) => c.type === next.type);
  return old?.status === next.status && old.lastTransitionTime ? { ...next, lastTransitionTime: old.lastTransitionTime } : next;
}

/**
 * The Node's conditions and taints for the kubelet's state: what a running or NotReady kubelet
 * posts (heartbeat now), or what the lifecycle controller writes for a silent one (heartbeat kept).
 */
export function nodeHealth(node: Readonly<Node>, state: KubeletState, now: string): NodeHealth {
  const before = node.status?.conditions;
  if (state === 'stopped') {
    const conditions = (before ?? []).map((c) =>
      c.status === 'Unknown'
        ? c
        : { ...c, status: 'Unknown' as const, reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.', lastTransitionTime: now }
    );
    return { conditions, taints: taintsFor(node, UNREACHABLE_TAINT, now) };
  }
  const posted = kubeletConditions(now).map((c) =>
    state === 'not-ready' && c.type === 'Ready' ? { ...c, status: 'False' as const, reason: 'KubeletNotReady', message: NOT_READY_MESSAGE } : c
  );
  return { conditions: posted.map((c) => sinceLastChange(c, before)), taints: taintsFor(node, state === 'not-ready' ? NOT_READY_TAINT : undefined, now) };
}

/**
 * Makes the host's Node say what its kubelet's state implies: the taints with the Node's
 * resourceVersion as precondition (a concurrent writer, e.g. Cluster API syncing labels, makes it a
 * conflict the controller retries), then the conditions. False when there is no such Node of ours.
 */
export async function writeNodeHealth(client: Client, nodeName: string, hostUid: string, state: KubeletState, now: string): Promise<boolean> {
  const nodes = client.api(NodeResource);
  let node: Node;
  try {
    node = await nodes.get(nodeName);
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
  if (node.metadata.annotations?.[NODE_HOST_UID_ANNOTATION] !== hostUid) return false;
  const health = nodeHealth(node, state, now);
  await nodes.mergePatch(nodeName, { metadata: { resourceVersion: node.metadata.resourceVersion! }, spec: { taints: health.taints } });
  await nodes.mergePatchStatus(nodeName, { status: { conditions: health.conditions } });
  return true;
}
