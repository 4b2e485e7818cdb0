/**
 * The providerID rules of the Metal3Machine controller (research §3), without I/O: the two
 * spellings, and which workload Node is this machine's. The controller lists and patches Nodes; these
 * functions only decide, so each rule is a table test.
 *
 * @example Step C (node label), once the host is provisioned: the decisions around the caller's I/O.
 * ```ts
 * import { nodeByUuidLabel, providerIDCandidates, type NodeView } from './index.ts';
 *
 * export function decide(hostUid: string, labelled: readonly NodeView[], hasBootstrapConfigRef: boolean) {
 *   const machine = { name: 'm-0', namespace: 'metal3', hostAnnotation: 'metal3/host-0' };
 *   const candidates = providerIDCandidates({ metal3Machine: machine, hostUid, hostFound: true });
 *   // `labelled`: the workload Nodes listed with the selector uuidLabelSelector(hostUid).
 *   const decision = nodeByUuidLabel(labelled, candidates, hasBootstrapConfigRef, hostUid);
 *   return decision.kind === 'wait' ? undefined : decision;
 * }
 * ```
 *
 * @module
 */
export * from './formats.ts';
export * from './node-match.ts';
