// A kubelet a test stops, and the Node status that follows: how a test (or someone in the lab, with
// `kubectl annotate bmh`) makes a worker's Node NotReady the way a dead kubelet would, so Cluster API's
// MachineHealthCheck sees a real unhealthy Node (issue 17).
//
// The annotation KUBELET_STOPPED_ANNOTATION on a BareMetalHost, valued with the name of the host's
// consumer (the Metal3Machine, `kubectl get bmh`'s CONSUMER column), stops the kubelet of that
// provisioning only: a host provisioned again for another consumer runs a fresh kubelet (a new OS was
// written), so a remediated host comes back Ready without anyone removing the annotation. Removing it
// (or changing it) restarts the kubelet, which posts Ready again.
//
// A stopped kubelet posts nothing, so what changes the Node is kube-controller-manager's node
// lifecycle controller, which the workload clusters lack: the simulator plays it at once (no 40 s
// node-monitor-grace-period): every condition `Unknown` with its reason `NodeStatusUnknown` and message
// "Kubelet stopped posting node status.", lastHeartbeatTime left as the kubelet last wrote it,
// lastTransitionTime now, and the `node.kubernetes.io/unreachable` taints (NoSchedule, NoExecute).
// Not covered: the mirror Pods of a stopped control-plane node stay Ready; pods are not evicted.
// Decisions are pure; writeNodeHealth is the one write, done by the kubelet controller.
import { type Client, isNotFound } from '@metal3-ts/generated';
import { type Node, type NodeCondition, NodeResource, type Taint } from '@metal3-ts/generated/core/v1';
import type { BareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { NODE_HOST_UID_ANNOTATION } from './names.ts';
import { kubeletConditions } from './node.ts';

/** On a BareMetalHost, the name of its consumer: the kubelet of that provisioning is stopped. */
export const KUBELET_STOPPED_ANNOTATION = 'workload.sim.metal3-ts.dev/kubelet-stopped';

export const UNREACHABLE_TAINT = 'node.kubernetes.io/unreachable';
const UNKNOWN_REASON = 'NodeStatusUnknown';
const UNKNOWN_MESSAGE = 'Kubelet stopped posting node status.';

/** Whether the kubelet of the host's current provisioning is stopped. */
export function kubeletStopped(host: Readonly<BareMetalHost>): boolean {
  const value = host.metadata.annotations?.[KUBELET_STOPPED_ANNOTATION];
  return !!value && value === host.spec?.consumerRef?.name;
}

/** What the Node should say: `conditions` for its status, `taints` for its spec. */
export interface NodeHealth {
  readonly conditions: NodeCondition[];
  readonly taints: Taint[];
}

const withoutUnreachable = (taints: readonly Taint[] | undefined): Taint[] => (taints ?? []).filter((t) => t.key !== UNREACHABLE_TAINT);

/**
 * The node lifecycle controller's view of a Node whose kubelet stopped posting: each condition
 * Unknown (a transition now unless it already was), heartbeats kept, the unreachable taints added.
 */
export function unreachableNode(node: Readonly<Node>, now: string): NodeHealth {
  const conditions = (node.status?.conditions ?? []).map((c) =>
    c.status === 'Unknown' ? c : { ...c, status: 'Unknown' as const, reason: UNKNOWN_REASON, message: UNKNOWN_MESSAGE, lastTransitionTime: now }
  );
  const taints: Taint[] = [
    ...withoutUnreachable(node.spec?.taints),
    { key: UNREACHABLE_TAINT, effect: 'NoSchedule' },
    { key: UNREACHABLE_TAINT, effect: 'NoExecute', timeAdded: now },
  ];
  return { conditions, taints };
}

/** A restarted kubelet posts Ready again and the lifecycle controller lifts the unreachable taints. */
export function reachableNode(node: Readonly<Node>, now: string): NodeHealth {
  return { conditions: kubeletConditions(now), taints: withoutUnreachable(node.spec?.taints) };
}

/**
 * Makes the host's Node say its kubelet is stopped or running again: the taints with the Node's
 * resourceVersion as precondition (a concurrent writer, e.g. Cluster API syncing labels, makes it a
 * conflict the controller retries), then the conditions. False when there is no such Node of ours.
 */
export async function writeNodeHealth(client: Client, nodeName: string, hostUid: string, stopped: boolean, now: string): Promise<boolean> {
  const nodes = client.api(NodeResource);
  let node: Node;
  try {
    node = await nodes.get(nodeName);
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
  if (node.metadata.annotations?.[NODE_HOST_UID_ANNOTATION] !== hostUid) return false;
  const health = stopped ? unreachableNode(node, now) : reachableNode(node, now);
  await nodes.mergePatch(nodeName, { metadata: { resourceVersion: node.metadata.resourceVersion! }, spec: { taints: health.taints } });
  await nodes.mergePatchStatus(nodeName, { status: { conditions: health.conditions } });
  return true;
}
