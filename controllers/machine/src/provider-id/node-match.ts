// Which workload-cluster Node belongs to a Metal3Machine (research P-4, P-5, P-8, P-12), decided over
// plain Node views so the caller does the listing and patching and these rules stay table-tested.
// The rules guard against two Nodes claiming one BareMetalHost (once by UID, once by name), which
// would let Cluster API attach the wrong Node to a Machine.
//
// Node names in messages are joined with ", " in list order, as upstream's `getNodeNames` does.
// Upstream walks a Go map, so when several IDs are duplicated which one it reports varies; here the
// first one in Node list order is reported, every time.
import { NODE_HOSTNAME_LABEL, NODE_UUID_LABEL } from '../names.ts';
import type { ProviderIDCandidates } from './formats.ts';

/** The part of a workload `Node` these rules read (`metadata.name`, `spec.providerID`, `metadata.labels`). */
export interface NodeView {
  readonly name: string;
  readonly providerID?: string | undefined;
  readonly labels?: Readonly<Record<string, string>> | undefined;
}

const joinNames = (names: readonly string[]): string => names.join(', ');

/** The label selector that finds a host's Node by its UID (P-8), e.g. `metal3.io/uuid=<uid>`. */
export function uuidLabelSelector(hostUid: string): string {
  return `${NODE_UUID_LABEL}=${hostUid}`;
}

/**
 * The duplicate-providerID check (`duplicateProviderIDsExist`, P-5, vectors V-9).
 *
 * `validNodes` maps each non-empty providerID to the names of the Nodes carrying it. An ID used by
 * more than one Node is a problem. So is more than one ID that is this machine's: equal to `legacy`,
 * or *containing* the new ID's prefix up to and including its last `/` (`metal3://<ns>/<host>/`,
 * so another Metal3Machine on the same host counts). If `newId` has no `/` the prefix is empty and
 * every ID counts, as upstream.
 *
 * @returns the problem, worded as upstream, or `undefined` when there is none.
 */
export function duplicateProviderIDProblem(validNodes: ReadonlyMap<string, readonly string[]> | undefined, legacy: string, newId: string): string | undefined {
  if (!validNodes) return undefined;
  const prefix = newId.slice(0, newId.lastIndexOf('/') + 1);
  let ours = 0;
  const oursNodes: string[] = [];
  for (const [providerID, names] of validNodes) {
    if (providerID === legacy || providerID.includes(prefix)) {
      ours++;
      oursNodes.push(...names);
    }
    if (names.length > 1) return `providerID ${providerID} is in use by multiple nodes: (${joinNames(names)})`;
  }
  if (ours > 1) return `both providerIDs (${legacy} and ${newId}) cannot be used at the same time by node: (${joinNames(oursNodes)})`;
  return undefined;
}

/**
 * The Node already carrying one of this machine's providerIDs (`getNodeByProviderID`, P-4), taken
 * from a list of **all** workload Nodes.
 *
 * Nodes without a providerID or a name are ignored. A duplicate (P-5) is a problem even when a match
 * exists. Unlike upstream, which panics there, a matching Node without a name is simply not a match.
 */
export function findNodeByProviderID(nodes: readonly NodeView[], candidates: ProviderIDCandidates): { readonly node: NodeView } | { readonly problem: string } {
  const validNodes = new Map<string, NodeView[]>();
  let matching: string | undefined;
  for (const node of nodes) {
    const providerID = node.providerID ?? '';
    if (providerID === '' || node.name === '') continue;
    if (providerID === candidates.new || providerID === candidates.legacy) matching = providerID;
    validNodes.set(providerID, [...(validNodes.get(providerID) ?? []), node]);
  }
  const names = new Map([...validNodes].map(([providerID, list]) => [providerID, list.map((node) => node.name)]));
  const problem = duplicateProviderIDProblem(names, candidates.legacy, candidates.new);
  if (problem) return { problem };
  const node = matching === undefined ? undefined : validNodes.get(matching)?.[0];
  return node ? { node } : { problem: 'unable to find node with matching ProviderID' };
}

/** What to do after looking for the Node labelled with the host's UID (P-8). */
export type UuidLabelDecision =
  /** No labelled Node yet while the kubelet is still coming up: requeue after 30 s. */
  | { readonly kind: 'wait'; readonly message: string }
  /**
   * Set `spec.providerID := providerID` and `status.ready = true` on the Metal3Machine. With
   * `patchNode`, first patch that Node's empty `spec.providerID` to the same value (P-11).
   */
  | { readonly kind: 'set'; readonly node: string; readonly providerID: string; readonly patchNode?: string }
  /** No labelled Node and no bootstrap configRef: go on to the default providerID and the hostname path (P-10, P-12). */
  | { readonly kind: 'fallthrough'; readonly reason: string }
  /** The labels or providerIDs contradict each other: report an error; someone must fix the Nodes. */
  | { readonly kind: 'conflict'; readonly message: string };

/**
 * Decides step C of the providerID workflow (`SetProviderIDFromNodeLabel`, P-8) from the Nodes
 * listed with {@link uuidLabelSelector}.
 *
 * Deliberate difference (E-11): several labelled Nodes, or one whose providerID is neither
 * candidate, are a `conflict`. Upstream means them as errors but returns "not successful, no
 * error" and falls through to the hostname path, which may then patch some other Node.
 *
 * Upstream checks "no Node, configRef defined" and "several Nodes" before computing the
 * candidates; callers that compute `candidates` first see a candidate error there instead (both
 * are transient 30 s waits).
 */
export function nodeByUuidLabel(
  nodes: readonly NodeView[],
  candidates: ProviderIDCandidates,
  hasBootstrapConfigRef: boolean,
  hostUid: string,
): UuidLabelDecision {
  const label = uuidLabelSelector(hostUid);
  const [node, ...others] = nodes;
  if (!node) {
    return hasBootstrapConfigRef
      ? { kind: 'wait', message: `requeuing, could not find node with label: ${label}` }
      : { kind: 'fallthrough', reason: `no Node labelled ${label} and the Machine has no bootstrap configRef` };
  }
  if (others.length > 0) return { kind: 'conflict', message: `more than one Node labelled ${label}: (${joinNames(nodes.map((n) => n.name))})` };
  const providerID = node.providerID ?? '';
  if (providerID === '') return { kind: 'set', node: node.name, providerID: candidates.new, patchNode: node.name };
  if (providerID === candidates.new || providerID === candidates.legacy) return { kind: 'set', node: node.name, providerID };
  return {
    kind: 'conflict',
    message: `Node ${node.name} labelled ${label} has providerID ${providerID}, expected ${candidates.new} or ${candidates.legacy}`,
  };
}

/** What to do after looking for the Node by hostname (P-12). */
export type HostnameDecision =
  /** Nothing to patch yet: requeue after 30 s. */
  | { readonly kind: 'wait'; readonly message: string }
  /** Patch this Node's `spec.providerID` to the Metal3Machine's `spec.providerID` (P-11). */
  | { readonly kind: 'patch'; readonly node: string };

/**
 * Decides step E, the hostname fallback (`SetNodeProviderIDByHostname`, P-12), over **all**
 * workload Nodes and the Metal3Machine's `Hostname` addresses.
 *
 * A Node matches when its `kubernetes.io/hostname` label is present and equals one of `hostnames`;
 * exactly one match is required.
 */
export function nodeByHostname(nodes: readonly NodeView[], hostnames: readonly string[]): HostnameDecision {
  if (hostnames.length === 0) return { kind: 'wait', message: 'No machine hostname' };
  if (nodes.length === 0) return { kind: 'wait', message: 'no Nodes found' };
  const matching = nodes.filter((node) => {
    const hostname = node.labels?.[NODE_HOSTNAME_LABEL];
    return hostname !== undefined && hostnames.includes(hostname);
  });
  const [node, ...others] = matching;
  if (!node) return { kind: 'wait', message: `no nodes matching hostnames: ${hostnames.join(', ')}` };
  if (others.length > 0) return { kind: 'wait', message: `multiple nodes matching hostnames: ${hostnames.join(', ')}` };
  return { kind: 'patch', node: node.name };
}
