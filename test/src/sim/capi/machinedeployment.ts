// Cluster API's MachineDeployment controller, simulated (cluster.x-k8s.io/v1beta1).
//
// Covers: one MachineSet per template revision (named `<deployment>-<template hash>`, labelled
// `machine-template-hash`, `cluster.x-k8s.io/deployment-name` and cluster-name, selector narrowed by
// the hash, the deployment as controller, revision annotations); rolling update with
// maxSurge/maxUnavailable (defaults 1/0, percentages), one step per reconcile as Machines become
// available; OnDelete; scaling; pruning of empty old sets past `revisionHistoryLimit` (default 1);
// status (replicas, updatedReplicas, readyReplicas, availableReplicas, unavailableReplicas, selector,
// phase, observedGeneration); the cluster-name and deployment-name labels the webhook and controller
// keep; the Cluster as owner; the `cluster.x-k8s.io/machinedeployment` finalizer (deleting a
// deployment deletes its sets and waits: the test apiserver has no garbage collector); pause
// (Cluster `spec.paused`, the paused annotation; `spec.paused` stops rollouts, not status).
//
// Does not cover: proportional scaling of several sets when replicas change mid-rollout (the new set
// and the old ones are scaled by the rollout rules only), in-place propagation of labels,
// annotations and timeouts to existing sets, rolloutAfter, progressDeadlineSeconds, remediation,
// conditions. Rollout decisions wait until every set's status has caught up with its spec
// (observedGeneration), so a step never acts on counts a set has not yet published.
import { isNotFound, type KubeObject } from '@metal3-ts/generated';
import {
  ClusterResource,
  type MachineDeployment,
  MachineDeploymentResource,
  type MachineSet,
  MachineSetResource,
} from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { controllerFor } from '@metal3-ts/shared/controller/builder';
import { requestFor } from '@metal3-ts/shared/controller/handlers';
import { ensureFinalizer, removeFinalizerGuarded } from '@metal3-ts/shared/meta/ensure-finalizer';
import { getOwnerByKind, setOwnerReference } from '@metal3-ts/shared/meta/owner-references';
import { isPaused } from '@metal3-ts/shared/meta/paused';
import type { Runnable } from '@metal3-ts/shared/manager/runnable';
import { PatchHelper } from '@metal3-ts/shared/patch/patch-helper';
import { type ReconcileContext, type Request, type Result, TerminalError } from '@metal3-ts/shared/reconcile/reconcile';
import type { SimulatorDeps } from '../simulator.ts';
import { deploymentStatus } from './machinedeployment-status.ts';
import {
  deploymentReplicas,
  ensureDeploymentLabels,
  machineSetForDeployment,
  nextRevision,
  revisionOf,
  setsToPrune,
  splitSets,
} from './machinedeployment-sets.ts';
import { DESIRED_REPLICAS_ANNOTATION, MACHINE_DEPLOYMENT_FINALIZER, MAX_REPLICAS_ANNOTATION, REVISION_ANNOTATION } from './machineset-constants.ts';
import { selectorString } from './machineset-selector.ts';
import { InvalidRolloutStrategyError, resolveFenceposts, rolloutStep, type SetReplicas } from './rollout-plan.ts';

export interface MachineDeploymentSimulatorOptions {
  readonly maxConcurrentReconciles?: number;
}

const GROUP = 'cluster.x-k8s.io';

function replicasOf(ms: Readonly<MachineSet>): SetReplicas {
  return {
    name: ms.metadata.name ?? '',
    replicas: ms.spec?.replicas ?? 0,
    actualReplicas: ms.status?.replicas ?? 0,
    availableReplicas: ms.status?.availableReplicas ?? 0,
    createdAt: ms.metadata.creationTimestamp ?? '',
    revision: revisionOf(ms),
  };
}

/** A set whose status does not yet reflect its latest spec. */
function isSettling(ms: Readonly<MachineSet>): boolean {
  return (ms.status?.observedGeneration ?? 0) < (ms.metadata.generation ?? 0);
}

export function machineDeploymentSimulator(deps: SimulatorDeps, options: MachineDeploymentSimulatorOptions = {}): Runnable[] {
  const { client, informers, registry, log, clock } = deps;
  const deployments = informers.informerFor(MachineDeploymentResource);
  const sets = informers.informerFor(MachineSetResource);
  const clusters = informers.informerFor(ClusterResource);

  const clusterToDeployments = (cluster: Readonly<KubeObject>) =>
    deployments.store.list(cluster.metadata.namespace).filter((md) => md.spec?.clusterName === cluster.metadata.name).map(requestFor);
  const ownedSets = (md: Readonly<MachineDeployment>) =>
    sets.store.list(md.metadata.namespace).filter((ms) => ms.metadata.ownerReferences?.some((ref) => ref.controller === true && ref.uid === md.metadata.uid));

  async function reconcileDelete(md: Readonly<MachineDeployment>): Promise<Result> {
    const namespace = md.metadata.namespace ?? '';
    const own = ownedSets(md);
    for (const ms of own) {
      if (ms.metadata.deletionTimestamp) continue;
      await client.api(MachineSetResource, namespace).delete(ms.metadata.name ?? '').catch((error: unknown) => {
        if (!isNotFound(error)) throw error;
      });
    }
    if (own.length > 0) return {};
    await removeFinalizerGuarded(client.api(MachineDeploymentResource, namespace), md as MachineDeployment, MACHINE_DEPLOYMENT_FINALIZER);
    return {};
  }

  async function scaleSet(
    ms: Readonly<MachineSet>,
    replicas: number,
    md: Readonly<MachineDeployment>,
    maxReplicas: number,
    context: ReconcileContext,
  ): Promise<void> {
    const annotations = { [DESIRED_REPLICAS_ANNOTATION]: String(deploymentReplicas(md)), [MAX_REPLICAS_ANNOTATION]: String(maxReplicas) };
    const sameAnnotations = Object.entries(annotations).every(([k, v]) => ms.metadata.annotations?.[k] === v);
    if ((ms.spec?.replicas ?? 0) === replicas && sameAnnotations) return;
    await client.api(MachineSetResource, ms.metadata.namespace).mergePatch(ms.metadata.name ?? '', { metadata: { annotations }, spec: { replicas } });
    context.log.info('scaled MachineSet', { machineSet: ms.metadata.name, from: ms.spec?.replicas ?? 0, to: replicas });
  }

  async function reconcile(request: Request, context: ReconcileContext): Promise<Result> {
    const cached = deployments.store.get(request);
    if (!cached) return {};
    const namespace = request.namespace ?? '';
    const api = client.api(MachineDeploymentResource, namespace);
    if (cached.metadata.deletionTimestamp) return reconcileDelete(cached);
    const cluster = clusters.store.get({ namespace, name: cached.spec?.clusterName ?? '' });
    if (!cluster || isPaused(cluster, cached)) return {};
    // A selector apimachinery would refuse stops here (terminal), before any set is made from it.
    if (cached.spec?.selector) selectorString(cached.spec.selector);
    const md = structuredClone((await ensureFinalizer(api, cached as MachineDeployment, MACHINE_DEPLOYMENT_FINALIZER)) ?? cached) as MachineDeployment;
    const patch = new PatchHelper(md, api);
    ensureDeploymentLabels(md);
    if (!getOwnerByKind(md, GROUP, 'Cluster')) setOwnerReference(md, cluster);

    const desired = deploymentReplicas(md);
    let fenceposts: { maxSurge: number; maxUnavailable: number };
    try {
      fenceposts = resolveFenceposts(md.spec?.strategy?.rollingUpdate, desired);
    } catch (error) {
      if (error instanceof InvalidRolloutStrategyError) throw new TerminalError(error.message, { cause: error });
      throw error;
    }
    const maxReplicas = desired + fenceposts.maxSurge;

    // Sets on their way out take no part in the rollout (their Machines still count in status).
    const active = (list: readonly Readonly<MachineSet>[]) => list.filter((ms) => !ms.metadata.deletionTimestamp);
    const own = active(ownedSets(md));
    let { newSet, oldSets } = splitSets(md, own);
    if (!md.spec?.paused && !own.some(isSettling)) {
      const step = rolloutStep({
        desired,
        strategy: {
          type: md.spec?.strategy?.type,
          maxSurge: md.spec?.strategy?.rollingUpdate?.maxSurge,
          maxUnavailable: md.spec?.strategy?.rollingUpdate?.maxUnavailable,
        },
        newSet: newSet ? replicasOf(newSet) : { name: '', replicas: 0, actualReplicas: 0, availableReplicas: 0, createdAt: '' },
        oldSets: oldSets.map(replicasOf),
      });
      if (!newSet) {
        const created = await client.api(MachineSetResource, namespace).create(
          machineSetForDeployment(md, { replicas: step.newReplicas, revision: nextRevision(own), maxReplicas }),
        );
        context.log.info('created MachineSet', { machineSet: created.metadata.name, replicas: step.newReplicas });
        newSet = created;
      } else {
        await scaleSet(newSet, step.newReplicas, md, maxReplicas, context);
        // Rolling back to an older template makes its set the newest revision again.
        const revision = nextRevision(own);
        if (oldSets.some((ms) => revisionOf(ms) > revisionOf(newSet!))) {
          await client.api(MachineSetResource, namespace).mergePatch(newSet.metadata.name ?? '', {
            metadata: { annotations: { [REVISION_ANNOTATION]: String(revision) } },
          });
        }
      }
      for (const ms of oldSets) {
        const to = step.oldReplicas.get(ms.metadata.name ?? '');
        if (to !== undefined) await scaleSet(ms, to, md, maxReplicas, context);
      }
      const rolledOut = (newSet.status?.availableReplicas ?? 0) >= desired &&
        oldSets.every((ms) => (step.oldReplicas.get(ms.metadata.name ?? '') ?? ms.spec?.replicas ?? 0) === 0);
      if (rolledOut) {
        for (const ms of setsToPrune(md, oldSets)) {
          await client.api(MachineSetResource, namespace).delete(ms.metadata.name ?? '').catch((error: unknown) => {
            if (!isNotFound(error)) throw error;
          });
          context.log.info('deleted old MachineSet', { machineSet: ms.metadata.name });
        }
      }
      ({ newSet, oldSets } = splitSets(md, active(ownedSets(md))));
    }

    const revision = newSet ? revisionOf(newSet) : 0;
    if (revision > 0) md.metadata.annotations = { ...md.metadata.annotations, [REVISION_ANNOTATION]: String(revision) };
    md.status = deploymentStatus(md, newSet, ownedSets(md));
    await patch.patch(md);
    return {};
  }

  const controller = controllerFor('capi-machinedeployment', MachineDeploymentResource, { informers, registry, log, clock })
    .owns(MachineSetResource)
    .watches(ClusterResource, clusterToDeployments)
    .withOptions({ maxConcurrentReconciles: options.maxConcurrentReconciles ?? 2 })
    .build(reconcile);
  return [controller];
}
