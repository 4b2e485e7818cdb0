// One reconcile of a Metal3Cluster (research §1.1): the scope read from the informers → guard → the
// writes that must not race other writers (spec defaults and the finalizer, each a JSON patch whose
// `test` ops pin what they were computed from) → snapshot → findOutcome and deriveStatus (pure) → one
// status patch. Deletion removes the finalizer with a guarded write once no machine of the cluster is
// left. A write the apiserver refuses (Forbidden, Invalid) is written to the conditions, naming verb
// and resource, before the error goes to the worker loop (which retries it and leaves a Warning
// event); a refused status patch can only reach the event.
import type { Api, Client } from '@metal3-ts/generated';
import { type Metal3Cluster, Metal3ClusterResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { getCondition } from '@metal3-ts/shared/conditions/get';
import type { EventRecorder } from '@metal3-ts/shared/events/recorder';
import { describeRefusal, refusalOf } from '@metal3-ts/shared/controller/refusal';
import { runStep } from '@metal3-ts/shared/controller/step-error';
import { ensureFinalizer, removeFinalizerGuarded } from '@metal3-ts/shared/meta/ensure-finalizer';
import { PatchHelper } from '@metal3-ts/shared/patch/patch-helper';
import { type ReconcileContext, type ReconcileFn, type Request, requestKey, type Result } from '@metal3-ts/shared/reconcile/reconcile';
import { type Guard, guard } from './guards.ts';
import { BAREMETAL_INFRASTRUCTURE_READY, METAL3_CLUSTER_FINALIZER, OWNED_CONDITIONS, REQUEUE_AFTER_MS } from './names.ts';
import { specDefaultsPatch, withDefaults } from './decisions/defaults.ts';
import { deletionWait } from './decisions/delete.ts';
import { validateControlPlaneEndpoint } from './decisions/endpoint.ts';
import { findOutcome, type LiveGuard } from './decisions/outcome.ts';
import { pausedCondition } from './decisions/paused.ts';
import { type ClusterInformers, type ClusterScope, machinesOfCluster, readScope } from './scope.ts';
import { type ClusterOutcome, deriveStatus } from './status.ts';

export interface ReconcilerDeps {
  /** Its writes should reach the informers (runMain's WriteThroughClient). */
  readonly client: Client;
  readonly informers: ClusterInformers;
  readonly events?: EventRecorder;
  /** Wall clock for `status.lastUpdated`. */
  readonly now?: () => Date;
  /** How long to wait before looking again at a deletion or a missing owner (default 30 s). */
  readonly requeueAfterMs?: number;
}

/** Writable copy of a server or cache object. */
const copy = (m3c: Readonly<Metal3Cluster>): Metal3Cluster => structuredClone(m3c) as Metal3Cluster;

export function metal3ClusterReconciler(deps: ReconcilerDeps): ReconcileFn {
  const now = deps.now ?? (() => new Date());
  const requeueAfterMs = deps.requeueAfterMs ?? REQUEUE_AFTER_MS;

  return async (request: Request, ctx: ReconcileContext): Promise<Result> => {
    const api = deps.client.api(Metal3ClusterResource, request.namespace);
    const scope = readScope(deps.informers, request, api, ctx.log);
    if (!scope) return {};
    const decision = guard(scope.cached, scope.cluster);
    const what = `Metal3Cluster ${requestKey(request)}`;
    switch (decision.kind) {
      case 'ExternallyManaged':
        ctx.log.debug('Metal3Cluster is externally managed, skipping');
        return {};
      case 'NotOurs':
        return {};
      case 'Delete':
        return await reconcileDelete(scope, decision, what);
      default:
        return await reconcileNormal(scope, decision, what);
    }
  };

  async function reconcileNormal(scope: ClusterScope, decision: LiveGuard, what: string): Promise<Result> {
    let m3c = copy(scope.cached);
    let refused: unknown;
    try {
      if (decision.kind !== 'Paused') m3c = await writeSpecDefaults(scope.api, m3c, what);
      if (decision.kind === 'Reconcile') {
        const written = await runStep(what, 'finalizer', () => ensureFinalizer(scope.api, m3c, METAL3_CLUSTER_FINALIZER));
        if (written) m3c = copy(written);
      }
    } catch (error) {
      if (!refusalOf(error)) throw error;
      refused = error;
    }
    const before = copy(m3c);
    const patch = new PatchHelper(m3c, scope.api);
    const finding = findOutcome(decision, m3c);
    if (finding.log) scope.log.info(finding.log);
    if (finding.warning && 'message' in finding.outcome) warnOnChange(before, m3c, finding.warning, finding.outcome.message);
    deriveStatus(m3c, refused ? refusedOutcome(refused) : finding.outcome, {
      paused: pausedCondition(scope.cluster, m3c),
      failureDomains: decision.kind !== 'Paused',
      stamp: { before: before.status, now: now() },
    });
    await runStep(what, 'status', () => patch.patch(m3c, { ownedConditions: OWNED_CONDITIONS }));
    if (refused) throw refused;
    return finding.requeue ? { requeueAfterMs } : {};
  }

  async function reconcileDelete(scope: ClusterScope, decision: Extract<Guard, { kind: 'Delete' }>, what: string): Promise<Result> {
    const m3c = copy(scope.cached);
    const wait = deletionWait(decision.clusterName, machinesOfCluster(deps.informers, m3c.metadata.namespace, decision.clusterName));
    const patch = new PatchHelper(m3c, scope.api);
    if (wait === undefined) {
      scope.log.info('No machines of the cluster left, removing the finalizer');
      try {
        await runStep(what, 'finalizer removal', () => removeFinalizerGuarded(scope.api, copy(m3c), METAL3_CLUSTER_FINALIZER));
      } catch (error) {
        if (!refusalOf(error)) throw error;
        deriveStatus(m3c, refusedOutcome(error));
        await runStep(what, 'status', () => patch.patch(m3c, { ownedConditions: OWNED_CONDITIONS }));
        throw error;
      }
      return {};
    }
    deriveStatus(m3c, { kind: 'Deleting', message: wait }, { paused: pausedCondition(scope.cluster, m3c) });
    await runStep(what, 'status', () => patch.patch(m3c, { ownedConditions: OWNED_CONDITIONS }));
    scope.log.info(wait);
    return { requeueAfterMs };
  }

  /** A Warning event when the condition message is new (the recorder also folds repeats). */
  function warnOnChange(before: Readonly<Metal3Cluster>, m3c: Metal3Cluster, reason: string, message: string): void {
    if (getCondition(before, BAREMETAL_INFRASTRUCTURE_READY)?.message === message) return;
    deps.events?.warning(m3c, reason, message);
  }
}

/** The status of a reconcile one of whose writes the apiserver refused (the caller checked refusalOf). */
function refusedOutcome(error: unknown): ClusterOutcome {
  const refusal = refusalOf(error);
  return { kind: 'RequestRefused', message: refusal ? describeRefusal(refusal) : String(error) };
}

/**
 * W-2/C-5: writes the defaulted spec fields, each guarded by a `test` of the value it was computed
 * from (a concurrent edit of those fields fails the write and the reconcile retries on the new spec).
 * An invalid endpoint stays as written: the status reports it and the user's fix comes first.
 */
async function writeSpecDefaults(api: Api<Metal3Cluster>, m3c: Metal3Cluster, what: string): Promise<Metal3Cluster> {
  const ops = specDefaultsPatch(m3c.spec);
  if (!ops || !m3c.spec) return m3c;
  if (validateControlPlaneEndpoint(withDefaults(m3c.spec).controlPlaneEndpoint).length > 0) return m3c;
  const written = await runStep(what, 'spec defaults', () => api.jsonPatch(m3c.metadata.name ?? '', ops));
  return copy(written);
}
