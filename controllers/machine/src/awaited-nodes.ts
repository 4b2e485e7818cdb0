// One name for one concept: an *awaited Node* is the workload Node a provisioned Metal3Machine waits
// for: a Node that the provider-ID rules (phases/provider-id.ts) could pick, one carrying one of its
// provider IDs (A, B, P-6, P-7), one labelled with its host's UID (C, P-8) or one whose
// `kubernetes.io/hostname` label is one of its hostnames (E, P-12). Those identities are the wait keys
// of the machine's wait (shared/workload/node-waits.ts: a Node event wakes only the machines whose keys
// it shows, whatever the size of the workload cluster); awaited-node-poll.ts paces the fallback poll.
import type { Node } from '@metal3-ts/generated/core/v1';
import { NODE_HOSTNAME_LABEL, NODE_UUID_LABEL } from './names.ts';

/** What a Node this machine can use may carry. */
export interface AwaitedNode {
  readonly providerIDs: readonly string[];
  readonly hostUid?: string | undefined;
  readonly hostnames: readonly string[];
}

/** Wait keys of an awaited Node: one per identity it may show. */
export function awaitedKeys(awaited: AwaitedNode): string[] {
  return [
    ...awaited.providerIDs.filter((id) => id !== '').map((id) => `id:${id}`),
    ...(awaited.hostUid ? [`uuid:${awaited.hostUid}`] : []),
    ...awaited.hostnames.filter((name) => name !== '').map((name) => `hostname:${name}`),
  ];
}

/** Wait keys a Node shows as it is. */
export function nodeKeys(node: Readonly<Node>): string[] {
  const uuid = node.metadata.labels?.[NODE_UUID_LABEL];
  const hostname = node.metadata.labels?.[NODE_HOSTNAME_LABEL];
  return [...(node.spec?.providerID ? [`id:${node.spec.providerID}`] : []), ...(uuid ? [`uuid:${uuid}`] : []), ...(hostname ? [`hostname:${hostname}`] : [])];
}
