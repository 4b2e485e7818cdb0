// The phases of a host whose labels sync to a Node (research LS-6), in order: reach the workload
// cluster and keep its Nodes watched → know the Node's labels → one merge patch of the labels that
// differ. Each phase is an I/O step `(ctx, scope)` for the harness's runPhases; a phase needing no
// request sends none (a watched cluster and a known Node cost nothing), so a host whose Node agrees
// is reconciled without a single request to either apiserver.
import { type Client, isNotFound } from '@metal3-ts/generated';
import { NodeResource } from '@metal3-ts/generated/core/v1';
import type { Phase } from '@metal3-ts/shared/controller/phases';
import type { Logger } from '@metal3-ts/shared/log/logger';
import type { Result } from '@metal3-ts/shared/reconcile/reconcile';
import type { ClusterKey } from '@metal3-ts/shared/workload/errors';
import type { Decision } from './chain.ts';
import { nodeLabelPatch } from './prefixes.ts';
import type { HostScope } from './scope.ts';
import type { SyncedNodes } from './synced-nodes.ts';

export interface PhaseContext {
  /** A client for a workload cluster (a ClusterCache's `get`). */
  readonly workloadClient: (cluster: ClusterKey) => Promise<Client>;
  readonly nodes: SyncedNodes;
  readonly log: Logger;
}

export type Step = 'workload cluster' | 'Node read' | 'Node patch';
type SyncPhase = Phase<PhaseContext, HostScope, Step>;
type Sync = Extract<Decision, { kind: 'Sync' }>;

const DONE: Result = {};

function syncOf(scope: HostScope): Sync {
  if (scope.decision.kind !== 'Sync') throw new Error(`${scope.object}: a sync phase ran for decision ${scope.decision.kind}`);
  return scope.decision;
}

/** Runs a request through the workload client; a failure other than 404 makes the next reconcile ask the ClusterCache again. */
async function through<T>(ctx: PhaseContext, scope: HostScope, cluster: ClusterKey, request: (client: Client) => Promise<T>): Promise<T> {
  try {
    return await request(scope.client!);
  } catch (error) {
    if (!isNotFound(error)) ctx.nodes.distrust(cluster);
    throw error;
  }
}

/**
 * Registers the host's Node and finds the cluster's client: the running watch's, else the
 * ClusterCache's (Secret read, probe), with which the watch is (re)started. The Node's labels as
 * last seen come with it.
 */
const reachCluster: SyncPhase = {
  step: 'workload cluster',
  async run(ctx, scope) {
    const { cluster, nodeName } = syncOf(scope);
    ctx.nodes.target(scope.key, cluster, nodeName);
    scope.client = ctx.nodes.clientOf(cluster);
    if (!scope.client) {
      scope.client = await ctx.workloadClient(cluster);
      ctx.nodes.watch(cluster, scope.client);
    }
    scope.nodeLabels = ctx.nodes.labelsOf(cluster, nodeName);
    return undefined;
  },
};

/** GET the Node when its labels are not known yet; a Node not registered yet is a wait the Node watch ends. */
const readNode: SyncPhase = {
  step: 'Node read',
  async run(ctx, scope) {
    if (scope.nodeLabels !== undefined) return undefined;
    const { cluster, nodeName } = syncOf(scope);
    try {
      const node = await through(ctx, scope, cluster, (client) => client.api(NodeResource).get(nodeName));
      ctx.nodes.note(cluster, node);
      scope.nodeLabels = node.metadata.labels ?? {};
      return undefined;
    } catch (error) {
      if (!isNotFound(error)) throw error;
      ctx.log.info('the Node is not registered yet; its watch wakes the host', { node: nodeName });
      return DONE;
    }
  },
};

/** LS-6: one merge patch of the Node's labels under the prefixes, only when they differ from the host's. */
const patchNode: SyncPhase = {
  step: 'Node patch',
  async run(ctx, scope) {
    const { cluster, nodeName, prefixes } = syncOf(scope);
    const patch = nodeLabelPatch(scope.host.metadata.labels, scope.nodeLabels, prefixes);
    if (!patch) return undefined;
    try {
      const node = await through(ctx, scope, cluster, (client) => client.api(NodeResource).mergePatch(nodeName, { metadata: { labels: patch } }));
      ctx.nodes.note(cluster, node);
      ctx.log.info('Node labels synced', { node: nodeName, labels: patch });
    } catch (error) {
      if (!isNotFound(error)) throw error;
      ctx.nodes.gone(cluster, nodeName);
      ctx.log.info('the Node is gone; its watch wakes the host when it registers again', { node: nodeName });
    }
    return undefined;
  },
};

export const SYNC_PHASES: readonly SyncPhase[] = [reachCluster, readNode, patchNode];
