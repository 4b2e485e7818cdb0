/**
 * The providerID rules of the Metal3Machine controller (research §3), without I/O: the two
 * spellings, and which workload Node is this machine's. The controller lists and patches Nodes; these
 * functions only decide, so each rule is a table test.
 *
 * @example Step C (node label), once the host is provisioned.
 * ```ts
 * const candidates = providerIDCandidates({ metal3Machine: view, hostUid: host.metadata.uid, hostFound: true });
 * const labelled = await listNodes(workload, { labelSelector: uuidLabelSelector(uid) });
 * const decision = nodeByUuidLabel(labelled.map(toNodeView), candidates, hasConfigRef, uid);
 * if (decision.kind === 'set' && decision.patchNode) await patchNodeProviderID(workload, decision.patchNode, decision.providerID);
 * ```
 *
 * @module
 */
export * from './formats.ts';
export * from './node-match.ts';
