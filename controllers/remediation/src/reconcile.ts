// One reconcile of a Metal3Remediation, in the common shape: the scope read once (scope.ts) → the
// pure decision (decide.ts) → the one step it names, as a named phase → one patch of the
// Metal3Remediation (metadata and status, PatchHelper). The step's own write comes back as an event
// and brings the next step; waits name what ends them (host event, Node event, or the timeout).
import type { Client } from '@metal3-ts/generated';

import { type Metal3Remediation, Metal3RemediationResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { patchAfterPhases, runPhases } from '@metal3-ts/shared/controller/phases';
import { hasFinalizer } from '@metal3-ts/shared/meta/finalizers';
import { PatchHelper } from '@metal3-ts/shared/patch/patch-helper';
import { type ReconcileContext, type ReconcileFn, type Request, requestKey, type Result } from '@metal3-ts/shared/reconcile/reconcile';
import type { ClusterKey } from '@metal3-ts/shared/workload/errors';
import type { NodeWaits } from '@metal3-ts/shared/workload/node-waits';
import type { EventRecorder } from '@metal3-ts/shared/events/recorder';
import { serialiseMap } from './backup.ts';
import { decide, type RemediationView, type Step } from './decide.ts';
import { parseGoDuration } from './duration.ts';
import { ANNOTATIONS_BACKUP, LABELS_BACKUP, rebootAnnotation, REMEDIATION_FINALIZER } from './names.ts';
import { clusterOf, type NodeRead, readNode, readScope, type RemediationStores, type Scope } from './scope.ts';
import { drained, hasOutOfServiceTaint } from './out-of-service.ts';
import { perform } from './steps.ts';

export interface RemediationDeps {
  /** Its writes should reach the informers (runMain's WriteThroughClient). */
  readonly client: Client;
  readonly stores: RemediationStores;
  readonly workloadClient: (cluster: ClusterKey) => Promise<Client>;
  /**
   * A remediation in flight waits on its Machine's Node (to disappear after the delete, to come back
   * after the power cycle): a Node event of that name wakes it, where upstream polls every 5 s (RS-12, RS-13).
   */
  readonly nodes: Pick<NodeWaits, 'wait' | 'forget'>;
  /** Out-of-service-taint mode, decided at start-up (out-of-service.ts). */
  readonly outOfService?: boolean | undefined;
  readonly now?: (() => Date) | undefined;
  /** Bad input (a missing Machine, Metal3Machine or host) and the power cycles are told as events. */
  readonly events?: EventRecorder | undefined;
}

/** Everything a step may use: the objects, the Node read, the clock. */
export interface StepScope extends Scope {
  readonly object: string;
  readonly remediation: Metal3Remediation;
  readonly node: NodeRead | undefined;
  readonly workload: Client | undefined;
  readonly now: Date;
}

/** The decision's input from the objects (pure). */
export function viewOf(
  r: Readonly<Metal3Remediation>,
  scope: Scope,
  node: NodeRead | undefined,
  now: Date,
  mode: { readonly outOfService?: boolean | undefined; readonly drained?: boolean } = {},
): RemediationView {
  const present = node?.state === 'present' ? node.node : undefined;
  const annotations = r.metadata.annotations ?? {};
  const lastRemediated = r.status?.lastRemediated ? Date.parse(r.status.lastRemediated) : undefined;
  return {
    phase: r.status?.phase ?? '',
    strategyType: r.spec?.strategy?.type,
    hostOnline: scope.host.spec?.online !== false,
    hostPoweredOn: scope.host.status?.poweredOn === true,
    rebootAnnotated: rebootAnnotation(r.metadata.uid!) in (scope.host.metadata.annotations ?? {}),
    hasFinalizer: hasFinalizer(r, REMEDIATION_FINALIZER),
    node: node?.state ?? 'unknown',
    nodeDeleting: !!present?.metadata.deletionTimestamp,
    outOfService: mode.outOfService === true,
    tainted: hasOutOfServiceTaint(present),
    drained: mode.drained === true,
    backupChanged: !!present && (annotations[ANNOTATIONS_BACKUP] !== serialiseMap(present.metadata.annotations) ||
      annotations[LABELS_BACKUP] !== serialiseMap(present.metadata.labels)),
    lastRemediatedMs: Number.isNaN(lastRemediated) ? undefined : lastRemediated,
    timeoutMs: parseGoDuration(r.spec?.strategy?.timeout),
    retryLimit: r.spec?.strategy?.retryLimit ?? 0,
    retryCount: r.status?.retryCount ?? 0,
    nowMs: now.getTime(),
  };
}

export function remediationReconciler(deps: RemediationDeps): ReconcileFn {
  return (request, context) => reconcileRemediation(deps, request, context);
}

async function reconcileRemediation(deps: RemediationDeps, request: Request, context: ReconcileContext): Promise<Result> {
  const key = requestKey(request);
  const current = deps.stores.remediations.get(request);
  if (!current) {
    deps.nodes.forget(key);
    return {};
  }
  const remediation = structuredClone(current) as Metal3Remediation;
  const helper = new PatchHelper(remediation, deps.client.api(Metal3RemediationResource, request.namespace));
  const now = deps.now?.() ?? new Date();
  let scope: Scope;
  try {
    scope = readScope(deps.stores, remediation);
  } catch (error) {
    deps.events?.warning(current, 'RemediationBlocked', (error as Error).message);
    throw error;
  }
  let step: Step = decide(viewOf(remediation, scope, undefined, now));
  let node: NodeRead | undefined;
  let workload: Client | undefined;
  if (step.do === 'needNode') {
    const cluster = clusterOf(scope.machine);
    workload = await deps.workloadClient(cluster);
    node = await readNode(workload, scope.machine);
    deps.nodes.wait(key, cluster, [scope.machine.status!.nodeRef!.name!], workload);
    const mode = { outOfService: deps.outOfService };
    step = decide(viewOf(remediation, scope, node, now, mode));
    if (step.do === 'awaitDrain') {
      const isDrained = await drained(workload, deps.client, scope.machine.status!.nodeRef!.name!);
      step = decide(viewOf(remediation, scope, node, now, { ...mode, drained: isDrained }));
    }
  } else if (step.do === 'ignore' || step.do === 'fail') {
    deps.nodes.forget(key);
  }
  context.log.debug('remediation step', { step: step.do, phase: remediation.status?.phase ?? '' });
  const stepScope: StepScope = { ...scope, object: key, remediation, node, workload, now };
  const run = await runPhases(deps, stepScope, [{ step: step.do, run: (d, s) => perform(d, s, step, context) }]);
  await patchAfterPhases(key, run.failure, () => helper.patch(remediation));
  if (run.failure !== undefined) throw run.failure;
  return run.outcome ?? {};
}
