// P-6…P-13: once the host is provisioned, find this machine's Node in the workload cluster and agree
// on a provider ID with it: an existing match (A), the cloud provider's ID (B), the Node the kubelet
// labelled with the host's UID (C, the normal path: its empty providerID is patched), else the
// default ID (D) and the Node found by hostname (E). The rules are pure (../provider-id/); this
// module reads Nodes once per pass (as the cluster's Node watch has seen them, once it has listed),
// writes at most one Node, and records the provider ID and readiness it agreed on (deriveStatus puts
// them on the Metal3Machine).
import type { Client } from '@metal3-ts/generated';
import type { Cluster } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { type Node, NodeResource } from '@metal3-ts/generated/core/v1';
import type { Metal3Cluster, Metal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { BareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { clusterKeyString } from '@metal3-ts/shared/workload/errors';
import { awaitedKeys } from '../awaited-nodes.ts';
import type { MachineReconcilerDeps } from '../deps.ts';
import { NodeProviderIDError } from '../errors.ts';
import { isCloudProviderEnabled } from '../guards.ts';
import { HOST_ANNOTATION, NODE_UUID_LABEL } from '../names.ts';
import type { Observations } from '../observations.ts';
import {
  findNodeByProviderID,
  hostNameFromAnnotation,
  newProviderID,
  nodeByHostname,
  nodeByUuidLabel,
  type NodeView,
  providerIDCandidates,
  type ProviderIDMachine,
} from '../provider-id/index.ts';
import type { CachedMachine } from '../projections.ts';

export type ProviderIDOutcome =
  /** `status.ready` is true and `spec.providerID` set; `node` names the Node when one was found. */
  | { readonly kind: 'ready'; readonly providerID: string; readonly node?: string | undefined; readonly patchedNode?: string | undefined }
  /** Not yet: the Node has not registered (or not with what we need). Look again soon. */
  | { readonly kind: 'waiting'; readonly message: string }
  /** The workload cluster contradicts itself (E-11 fixed, duplicates of P-5): a human must fix the Nodes. */
  | { readonly kind: 'conflict'; readonly message: string };

const view = (node: Readonly<Node>): NodeView => ({ name: node.metadata.name ?? '', providerID: node.spec?.providerID, labels: node.metadata.labels });

async function listNodes(workload: Client): Promise<NodeView[]> {
  const nodes: NodeView[] = [];
  for await (const node of workload.api(NodeResource).listAll()) nodes.push(view(node));
  return nodes;
}

/** P-11: only an empty providerID may be set; the apiserver refuses any other change. A failure names the Node. */
async function patchNodeProviderID(workload: Client, cluster: string, node: string, providerID: string): Promise<void> {
  try {
    await workload.api(NodeResource).mergePatch(node, { spec: { providerID } });
  } catch (error) {
    throw new NodeProviderIDError(node, cluster, error);
  }
}

/**
 * Runs steps A…F for a provisioned host and records the provider ID and readiness in `observed`.
 * Errors: workload-cluster access errors and a failed Node patch (NodeProviderIDError) are thrown.
 */
export async function reconcileProviderID(
  deps: Pick<MachineReconcilerDeps, 'workloadClient' | 'awaitedNodes'>,
  m3m: Readonly<Metal3Machine>,
  host: Readonly<BareMetalHost>,
  machine: Readonly<CachedMachine>,
  cluster: Readonly<Cluster>,
  metal3Cluster: Readonly<Metal3Cluster>,
  observed: Pick<Observations, 'providerID' | 'ready' | 'addresses'>,
): Promise<ProviderIDOutcome> {
  const machineView: ProviderIDMachine = {
    name: m3m.metadata.name ?? '',
    namespace: m3m.metadata.namespace ?? '',
    hostAnnotation: m3m.metadata.annotations?.[HOST_ANNOTATION],
  };
  const candidates = providerIDCandidates({ metal3Machine: machineView, hostUid: host.metadata.uid, hostFound: true });
  const clusterKey = { namespace: cluster.metadata.namespace ?? '', name: cluster.metadata.name ?? '' };
  const workload = await deps.workloadClient(clusterKey);
  const clusterText = clusterKeyString(clusterKey);
  const spec = m3m.spec ?? {};
  const hostnames = (observed.addresses ?? m3m.status?.addresses ?? []).filter((a) => a.type === 'Hostname').map((a) => a.address);
  // Recorded before the list, so a Node registering in between still wakes this machine; the
  // reconcile forgets it once the Node is found.
  const awaited = { providerIDs: [candidates.legacy, candidates.new, spec.providerID ?? ''], hostUid: host.metadata.uid, hostnames };
  deps.awaitedNodes?.wait(`${machineView.namespace}/${machineView.name}`, clusterKey, awaitedKeys(awaited), workload);
  // The Nodes the cluster's watch has seen (the wait above keeps it running, and a change it has not
  // seen yet wakes this machine again); the first waiter in a cluster lists them itself. A list on
  // every pass cost each machine all the cluster's Nodes, 3.5 MB of them at 1 000 Nodes (issue 20).
  const nodes = deps.awaitedNodes?.nodes(clusterKey, workload)?.map(view) ?? (await listNodes(workload));
  const ready = (providerID: string, extra: { node?: string; patchedNode?: string } = {}): ProviderIDOutcome => {
    observed.providerID = providerID;
    observed.ready = true;
    return { kind: 'ready', providerID, node: extra.node, patchedNode: extra.patchedNode };
  };

  // A (P-6, changed): a Node already carries one of our IDs; the machine takes the one it carries.
  // Upstream keeps spec.providerID, which P-10 may have defaulted before the kubelet registered
  // (no configRef, no labelled Node yet): a Node that then registers with the legacy ID would be
  // this machine's, yet Cluster API, copying the default, would never give the Machine its nodeRef.
  if (spec.providerID) {
    const found = findNodeByProviderID(nodes, candidates);
    if ('node' in found) return ready(found.node.providerID ?? spec.providerID, { node: found.node.name });
  }
  // B (P-7): the cloud provider sets the Node's ID; we adopt it.
  if (isCloudProviderEnabled(metal3Cluster)) {
    const found = findNodeByProviderID(nodes, candidates);
    if ('problem' in found) return { kind: 'waiting', message: `error retrieving node, requeuing: ${found.problem}` };
    return ready(found.node.providerID ?? '', { node: found.node.name });
  }
  // C (P-8, P-9): the Node the kubelet labelled with the host's UID.
  const uid = host.metadata.uid ?? '';
  const labelled = nodes.filter((node) => node.labels?.[NODE_UUID_LABEL] === uid);
  const decision = nodeByUuidLabel(labelled, candidates, machine.spec?.bootstrap?.configRef != null, uid);
  switch (decision.kind) {
    case 'wait':
      return { kind: 'waiting', message: decision.message };
    case 'conflict':
      return { kind: 'conflict', message: decision.message };
    case 'set':
      if (decision.patchNode) await patchNodeProviderID(workload, clusterText, decision.patchNode, decision.providerID);
      return ready(decision.providerID, { node: decision.node, ...(decision.patchNode ? { patchedNode: decision.patchNode } : {}) });
    case 'fallthrough':
      break;
  }
  // D (P-10): the default ID; E (P-12): the Node found by hostname gets it.
  const providerID = spec.providerID || newProviderID(machineView.namespace, hostNameFromAnnotation(machineView), machineView.name);
  observed.providerID = providerID;
  observed.ready = true;
  const byHostname = nodeByHostname(nodes, hostnames);
  if (byHostname.kind === 'wait') return { kind: 'waiting', message: byHostname.message };
  const target = nodes.find((node) => node.name === byHostname.node);
  if (target && target.providerID !== providerID) await patchNodeProviderID(workload, clusterText, byHostname.node, providerID);
  return { kind: 'ready', providerID, node: byHostname.node, patchedNode: target?.providerID !== providerID ? byHostname.node : undefined };
}
