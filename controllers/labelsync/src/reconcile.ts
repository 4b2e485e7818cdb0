// One reconcile of a BareMetalHost's label sync, in the common shape: the scope read once from the
// informers (scope.ts, with the chain's decision) → the decision's named phases (phases.ts) → no
// status of its own to write (upstream's controller writes none either: its deferred host patch is
// always empty, LS-2). A failed request reaches the worker loop labelled with its step, which retries
// with backoff; everything else is done until a watched object changes (no periodic requeue, LS-7).
//
// Bad input never fails the reconcile: a prefix that is no label prefix (LS-4) is a Warning event on
// the Metal3Cluster naming the annotation and the entry, and the host waits for the annotation to
// change (an event); upstream fails the reconcile and retries it with backoff for ever.
import type { BareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { runPhases } from '@metal3-ts/shared/controller/phases';
import type { EventRecorder } from '@metal3-ts/shared/events/recorder';
import type { ReconcileContext, ReconcileFn, Request, Result } from '@metal3-ts/shared/reconcile/reconcile';
import { requestKey } from '@metal3-ts/shared/reconcile/reconcile';
import type { Decision } from './chain.ts';
import { INVALID_PREFIX_REASON, LABEL_SYNC_PREFIXES_ANNOTATION } from './names.ts';
import { type PhaseContext, SYNC_PHASES } from './phases.ts';
import { type LabelSyncStores, readScope } from './scope.ts';

export interface ReconcilerDeps extends Omit<PhaseContext, 'log'> {
  readonly stores: LabelSyncStores;
  readonly events?: EventRecorder | undefined;
}

export function labelSyncReconciler(deps: ReconcilerDeps): ReconcileFn {
  return (request, context) => reconcileHost(deps, request, context);
}

/** The message of the InvalidLabelSyncPrefix event: the annotation, then upstream's error (LS-4). */
export function invalidPrefixMessage(decision: Extract<Decision, { kind: 'InvalidPrefix' }>): string {
  return `annotation ${LABEL_SYNC_PREFIXES_ANNOTATION}: ${decision.message}; no labels are synced for this cluster until it is fixed`;
}

export async function reconcileHost(deps: ReconcilerDeps, request: Request, { log }: ReconcileContext): Promise<Result> {
  const key = requestKey(request);
  const host: Readonly<BareMetalHost> | undefined = deps.stores.hosts.get(request);
  if (!host) {
    deps.nodes.forget(key);
    return {};
  }
  const scope = readScope(deps.stores, host, key);
  const { decision } = scope;
  switch (decision.kind) {
    case 'Wait':
      deps.nodes.forget(key);
      log.debug('nothing to sync', { why: decision.why });
      return {};
    case 'InvalidPrefix':
      deps.nodes.forget(key);
      log.info('invalid label-sync prefix', { metal3Cluster: decision.metal3Cluster.metadata.name, prefix: decision.prefix });
      deps.events?.warning(decision.metal3Cluster, INVALID_PREFIX_REASON, invalidPrefixMessage(decision));
      return {};
    case 'Sync': {
      const run = await runPhases({ ...deps, log }, scope, SYNC_PHASES);
      if (run.failure !== undefined) throw run.failure;
      return run.outcome ?? {};
    }
  }
}
