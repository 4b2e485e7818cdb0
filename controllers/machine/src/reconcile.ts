// One reconcile of a Metal3Machine (research §1.2): read the scope from the informers → guard → the
// finalizer (a guarded write of its own) → snapshot → the phases of the normal or the deletion flow,
// each writing what it decided into a working copy → summaries → one patch of the Metal3Machine.
// Phases report waits as results; thrown errors are written to conditions first, then retried with
// backoff, except invalid configuration, which is terminal (failureReason/failureMessage, seed 002).
// A request the apiserver refuses (Forbidden, Invalid) always reaches a condition naming verb and
// resource: the phase's own, else AssociateBMH (the worker loop adds the Warning event).
import { isConflict } from '@metal3-ts/generated';
import { Metal3MachineResource, type Metal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { BareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { isClaimedBy } from '@metal3-ts/baremetal/consumer';
import { hostKey } from '@metal3-ts/baremetal/host-patch';
import { releaseHost } from '@metal3-ts/baremetal/release';
import { isClaimed, isProvisioned } from '@metal3-ts/baremetal/states';
import { ensureFinalizer, removeFinalizerGuarded } from '@metal3-ts/shared/meta/ensure-finalizer';
import { PatchHelper } from '@metal3-ts/shared/patch/patch-helper';
import { refusalOf } from '@metal3-ts/shared/controller/refusal';
import { InvalidKubeconfigSecretError } from '@metal3-ts/shared/workload/errors';
import { requestKey, TerminalError, type ReconcileContext, type ReconcileFn, type Request, type Result } from '@metal3-ts/shared/reconcile/reconcile';
import type { MachineReconcilerDeps } from './deps.ts';
import { InvalidConfigurationError, isInvalidConfiguration, messageOf } from './errors.ts';
import { guard, isBootstrapReady, type Guard } from './guards.ts';
import { userDataFor } from './host-spec.ts';
import { FailureReason, HOST_ANNOTATION, KUBERNETES_NODE_READY, METAL3_MACHINE_FINALIZER, OWNED_CONDITIONS, REQUEUE_AFTER_MS } from './names.ts';
import { NodeWaits } from './node-waits.ts';
import { claimantOf, reconcileAssociate, type Claimant } from './phases/associate.ts';
import { dissociateMetadata, releaseHosts } from './phases/delete.ts';
import { HostTakenError, reconcileHost, staleHostRecord } from './phases/host.ts';
import { forgetHost } from './phases/host-record.ts';
import { reconcileMetadata, waitForMetadata } from './phases/metadata.ts';
import { reconcileHostPause } from './phases/pause.ts';
import { reconcileProviderID } from './phases/provider-id.ts';
import { releaseStrayHosts } from './phases/stray-hosts.ts';
import { foreignReferencesMessage } from './references.ts';
import { hostAnnotationProblem, readScope, type MachineScope } from './scope.ts';
import {
  conditionMessage,
  finishStatus,
  markAssociated,
  markAssociateFailed,
  markAssociateWaiting,
  markDataReady,
  markDataWaiting,
  markMetadataAssociated,
  markNodeProblem,
  markNodeReady,
  markNodeWaiting,
  markPause,
  markSecretsSetExternally,
} from './status.ts';

/** Writable copy of a server or cache object. */
const copy = (m3m: Readonly<Metal3Machine>): Metal3Machine => structuredClone(m3m) as Metal3Machine;

type ReconcileGuard = Extract<Guard, { kind: 'Reconcile' }>;

export function metal3MachineReconciler(deps: MachineReconcilerDeps): ReconcileFn {
  const now = deps.now ?? (() => new Date());
  const safetyNet: Result = { requeueAfterMs: deps.requeueAfterMs ?? REQUEUE_AFTER_MS };
  const nodeWaits = new NodeWaits(deps.nodePollMs ?? 1_000, deps.requeueAfterMs ?? REQUEUE_AFTER_MS);
  /** The last dropped-address report per machine (`namespace/name`), so each problem is told once. */
  const reportedDrops = new Map<string, string>();
  /** The Node was found, or the machine is gone: no more polls, no more Node events for it. */
  const stopAwaitingNode = (key: string) => {
    nodeWaits.forget(key);
    deps.nodeWaiters?.forget(key);
  };

  return async (request: Request, ctx: ReconcileContext): Promise<Result> => {
    const key = requestKey(request);
    const scope = readScope(deps.informers, request, deps.client.api(Metal3MachineResource, request.namespace), ctx.log);
    if (!scope) {
      stopAwaitingNode(key);
      reportedDrops.delete(key);
      return {};
    }
    // A workload cluster on its way out: its apiserver should not have to wait on our Node watch.
    if (scope.cluster?.metadata.deletionTimestamp) deps.nodeWaiters?.clusterDeleting({ namespace: request.namespace ?? '', name: scope.cluster.metadata.name ?? '' });
    const decision = guard(scope);
    if (decision.kind === 'NotOurs') return {};
    let m3m = copy(scope.cached);
    let failure: unknown;
    if (decision.kind === 'Reconcile') {
      try {
        const written = await ensureFinalizer(scope.api, m3m, METAL3_MACHINE_FINALIZER);
        if (written) m3m = copy(written);
      } catch (error) {
        if (!refusalOf(error)) throw error;
        failure = error;
      }
    }
    const before = copy(m3m);
    const patch = new PatchHelper(m3m, scope.api);
    let result: Result = {};
    if (failure === undefined) {
      try {
        result = await run(scope, decision, m3m);
      } catch (error) {
        failure = error;
      }
    }
    if (refusalOf(failure) && !mentioned(m3m, messageOf(failure))) markAssociateFailed(m3m, messageOf(failure));
    if (isInvalidConfiguration(failure)) {
      const status = (m3m.status ??= {});
      status.failureReason = FailureReason.InvalidConfiguration;
      status.failureMessage = failure.message;
      if (before.status?.failureMessage !== failure.message) deps.events?.warning(m3m, 'InvalidConfiguration', failure.message);
    }
    finishStatus(before, m3m, now());
    await patch.patch(m3m, { ownedConditions: OWNED_CONDITIONS });
    if (decision.kind === 'Delete' && failure === undefined && result === RELEASED) {
      await removeFinalizerGuarded(scope.api, m3m, METAL3_MACHINE_FINALIZER);
      stopAwaitingNode(key);
      return {};
    }
    if (isInvalidConfiguration(failure)) throw new TerminalError(failure.message, { cause: failure });
    // A host that changed under a locked write: look again at once with the fresh copy.
    if (isConflict(failure)) return { requeueAfterMs: 1 };
    if (failure !== undefined) throw failure;
    return result;
  };

  async function run(scope: MachineScope, decision: Guard, m3m: Metal3Machine): Promise<Result> {
    if (decision.kind !== 'Delete') {
      const pause = await reconcileHostPause(deps, scope.cluster, scope.host);
      if (pause) markPause(m3m, pause);
      if (typeof pause === 'object') return safetyNet;
    }
    switch (decision.kind) {
      case 'Paused':
        markPause(m3m, 'Paused');
        scope.log.info('Reconciliation is paused for this object');
        return {};
      case 'Delete':
        return reconcileDelete(scope, m3m);
      case 'WaitForOwnerRef':
        markAssociateWaiting(m3m, { kind: 'OwnerRef' });
        return {};
      case 'WaitForMachine':
        markAssociateWaiting(m3m, { kind: 'Machine', message: `Waiting for the owner Machine ${decision.name}` });
        return safetyNet;
      case 'WaitForCluster':
        markAssociateWaiting(m3m, { kind: 'Cluster', message: decision.message });
        return safetyNet;
      case 'Failed':
        return {};
      case 'WaitForInfrastructure':
        markAssociateWaiting(m3m, { kind: 'Infrastructure' });
        return safetyNet;
      case 'WaitForMetal3Cluster':
        markAssociateWaiting(m3m, { kind: 'Metal3Cluster' });
        return safetyNet;
      case 'NotOurs':
      case 'Reconcile':
        break;
    }
    return decision.kind === 'Reconcile' ? reconcileNormal(scope, decision, m3m) : {};
  }

  async function reconcileNormal(scope: MachineScope, decision: ReconcileGuard, m3m: Metal3Machine): Promise<Result> {
    const { machine, cluster } = decision;
    // Issue 21: a reference into another namespace stops the machine before it claims or writes anything.
    const foreign = foreignReferencesMessage(m3m);
    if (foreign) {
      markAssociateFailed(m3m, foreign);
      throw new InvalidConfigurationError(foreign);
    }
    const spec = (m3m.spec ??= {});
    if (machine.spec?.failureDomain && spec.failureDomain !== machine.spec.failureDomain) spec.failureDomain = machine.spec.failureDomain;
    // After M-10: host selection prefers the failure domain just copied.
    const claimant = claimantOf(deps, m3m, machine, cluster);

    // M-19: provisioned, adopted and with a Node: only keep the host as it should be. Only a host this
    // machine holds: a record edited to name another host goes through association (M-40 changed).
    if (spec.providerID && m3m.status?.ready && machine.status?.nodeRef && scope.host && isClaimedBy(scope.host, claimant.consumer.ref)) {
      markAssociated(m3m);
      markMetadataAssociated(m3m);
      if (!spec.dataTemplate) markSecretsSetExternally(m3m);
      const kept = await updateHost(scope, m3m, scope.host, claimant, true);
      await releaseStrayHosts(deps, kept, claimant);
      return {};
    }
    if (!isBootstrapReady(machine)) {
      markAssociateWaiting(m3m, { kind: 'Bootstrap' });
      return {};
    }

    let host: Readonly<BareMetalHost> | undefined = scope.host;
    try {
      const status = (m3m.status ??= {});
      if (!status.userData) {
        const userData = userDataFor(m3m, machine);
        if (userData) status.userData = userData;
      }
      const problem = hostAnnotationProblem(m3m);
      if (problem) throw new InvalidConfigurationError(problem);
      // M-40 (changed): a record of a host nobody holds goes through selection like no record at all.
      const unclaimed = host && !isClaimed(host) ? host : undefined;
      if (!m3m.metadata.annotations?.[HOST_ANNOTATION] || unclaimed) {
        const outcome = await reconcileAssociate(deps, m3m, claimant, unclaimed, scope.log);
        if (outcome.kind === 'waiting') {
          markAssociateWaiting(m3m, { kind: 'Host', message: outcome.message });
          return outcome.retrySoon ? { requeueAfterMs: 200 } : safetyNet;
        }
        if (outcome.kind === 'lost') {
          scope.log.info(outcome.message);
          return { requeueAfterMs: 200 };
        }
        if (outcome.kind === 'associated') {
          host = outcome.host;
          deps.events?.normal(m3m, 'HostAssociated', `Associated with BareMetalHost ${hostKey(outcome.host)} (${outcome.choice})`);
        }
      }
    } catch (error) {
      markAssociateFailed(m3m, messageOf(error));
      throw error;
    }
    // A record of a host that is gone, or that another machine took before our claim (a crash between
    // record and claim, a hand edit): forget it and choose again.
    const stale = staleHostRecord(m3m, host, claimant.consumer);
    if (stale) {
      // A host someone else took keeps no owner reference to us (the garbage collector would delete it with us).
      if (host) await releaseHost(deps.client, host, { consumer: claimant.consumer.ref }, { onWrite: (h) => deps.inventory.noteWrite(h) });
      const written = await forgetHost(scope.api, m3m, stale.recorded);
      if (written) Object.assign(m3m.metadata, { annotations: written.metadata.annotations ?? {} });
      markAssociateWaiting(m3m, { kind: 'Host', message: stale.message });
      return { requeueAfterMs: 200 };
    }
    if (!host) return safetyNet;
    markAssociated(m3m);
    const strays = await releaseStrayHosts(deps, host, claimant);
    if (strays.length > 0) scope.log.info(`Releasing hosts this machine holds besides ${hostKey(host)}: ${strays.join(', ')}`);

    try {
      await reconcileMetadata(deps, m3m);
      markMetadataAssociated(m3m);
      // A node problem of an earlier pass (a refused claim write, an unusable workload cluster, a
      // provider-ID conflict) is stale now unless reconcileNode finds it again below.
      markNodeWaiting(m3m, 'Waiting for the Node of the workload cluster');
    } catch (error) {
      markNodeProblem(m3m, 'AssociateM3MetaDataFailed', messageOf(error));
      throw error;
    }
    const data = waitForMetadata(deps, m3m);
    if (data.ready && spec.dataTemplate) markDataReady(m3m);
    if (!data.ready) markDataWaiting(m3m, data.message);
    host = await updateHost(scope, m3m, host, claimant, data.ready);
    if (!data.ready || !isProvisioned(host)) return safetyNet;
    return reconcileNode(scope, decision, m3m, host);
  }

  async function updateHost(scope: MachineScope, m3m: Metal3Machine, host: Readonly<BareMetalHost>, claimant: Claimant, deploy: boolean): Promise<Readonly<BareMetalHost>> {
    try {
      const kept = await reconcileHost(deps, m3m, host, claimant, deploy);
      reportDroppedAddresses(scope, m3m, kept.host, kept.droppedAddresses);
      return kept.host;
    } catch (error) {
      if (error instanceof HostTakenError || isInvalidConfiguration(error) || refusalOf(error)) markAssociateFailed(m3m, messageOf(error));
      if (error instanceof HostTakenError) scope.log.error(error.message);
      throw error;
    }
  }

  /** M-31 (changed): what the host reported but the machine did not copy, told once per problem (log line and Warning event). */
  function reportDroppedAddresses(scope: MachineScope, m3m: Metal3Machine, host: Readonly<BareMetalHost>, dropped: readonly string[]): void {
    if (dropped.length === 0) {
      reportedDrops.delete(scope.key);
      return;
    }
    const shown = dropped.length > 5 ? [...dropped.slice(0, 5), `${dropped.length - 5} more`] : dropped;
    const message = `Not copied from the inspection data of BareMetalHost ${hostKey(host)}: ${shown.join('; ')}`;
    if (reportedDrops.get(scope.key) === message) return;
    reportedDrops.set(scope.key, message);
    scope.log.warn(message);
    deps.events?.warning(m3m, 'HostAddressesDropped', message);
  }

  /** P-*: the provider ID, once the host is provisioned (M-32, M-33). */
  async function reconcileNode(scope: MachineScope, decision: ReconcileGuard, m3m: Metal3Machine, host: Readonly<BareMetalHost>): Promise<Result> {
    let outcome;
    try {
      outcome = await reconcileProviderID(deps, m3m, host, decision.machine, decision.cluster, decision.metal3Cluster);
    } catch (error) {
      const message = messageOf(error);
      // A kubeconfig that can never work (junk, exec plugin, file references) or a refused request
      // waits for a person: say so on the object. Anything else (no kubeconfig yet, apiserver
      // starting) is a normal wait during bring-up: look again soon.
      if (error instanceof InvalidKubeconfigSecretError || refusalOf(error)) {
        if (conditionMessage(scope.cached, KUBERNETES_NODE_READY) !== message) deps.events?.warning(m3m, 'WorkloadClusterUnusable', message);
        markNodeProblem(m3m, 'AssociateM3MetaDataFailed', message);
        scope.log.error('Workload cluster unusable', { error: message });
      } else {
        scope.log.info(`Workload cluster not usable yet: ${message}`);
        markNodeWaiting(m3m, `Workload cluster not usable yet: ${message}`);
      }
      return { requeueAfterMs: nodeWaits.next(scope.key) };
    }
    // P-9, M-19: a ready machine without a data template got its Secrets from elsewhere. Said as soon
    // as it is ready (also while the hostname fallback still looks for the Node), so Ready follows.
    if (m3m.status?.ready && !m3m.spec?.dataTemplate) markSecretsSetExternally(m3m);
    switch (outcome.kind) {
      case 'ready':
        if (outcome.node) {
          markNodeReady(m3m);
          stopAwaitingNode(scope.key);
        }
        if (outcome.patchedNode) deps.events?.normal(m3m, 'ProviderIDSet', `Node ${outcome.patchedNode} given providerID ${outcome.providerID}`);
        return outcome.node ? {} : { requeueAfterMs: nodeWaits.next(scope.key) };
      case 'waiting':
        scope.log.debug(outcome.message);
        return { requeueAfterMs: nodeWaits.next(scope.key) };
      case 'conflict':
        // A fix in the workload cluster raises no event here: keep polling, but tell once per problem
        // (judged on the cached object: this pass may have reset the condition to a wait above).
        if (conditionMessage(scope.cached, KUBERNETES_NODE_READY) !== outcome.message) deps.events?.warning(m3m, 'ProviderIDConflict', outcome.message);
        markNodeProblem(m3m, 'AssociateM3MetaDataFailed', outcome.message);
        return { requeueAfterMs: nodeWaits.next(scope.key) };
    }
  }

  async function reconcileDelete(scope: MachineScope, m3m: Metal3Machine): Promise<Result> {
    markNodeProblem(m3m, 'Deleting');
    const clearData = { metaData: !!m3m.status?.metaData, networkData: !!m3m.status?.networkData };
    try {
      await dissociateMetadata(deps, m3m);
    } catch (error) {
      markNodeProblem(m3m, 'DisassociateM3MetaDataFailed', messageOf(error));
      throw error;
    }
    try {
      const outcome = await releaseHosts(deps, m3m, scope.host, scope.machine, scope.cluster, clearData);
      if (outcome.kind === 'deprovisioning') {
        scope.log.info(`Deprovisioning BareMetalHost ${outcome.host} (${outcome.state || 'no state'})`);
        return safetyNet;
      }
    } catch (error) {
      markNodeProblem(m3m, 'DeletionFailed', messageOf(error));
      throw error;
    }
    return RELEASED;
  }
}

/** Whether some condition already carries `message` (a phase reported the failure itself). */
function mentioned(m3m: Readonly<Metal3Machine>, message: string): boolean {
  const v1 = m3m.status?.conditions ?? [];
  const v2 = m3m.status?.v1beta2?.conditions ?? [];
  return [...v1, ...v2].some((c) => c.message === message);
}

/** The deletion flow's "host released, remove the finalizer" result (compared by identity). */
const RELEASED: Result = Object.freeze({});
