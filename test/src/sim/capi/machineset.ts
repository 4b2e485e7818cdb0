// Cluster API's MachineSet controller, simulated (cluster.x-k8s.io/v1beta1).
//
// Covers: keeping `spec.replicas` Machines that match the selector: creating each from the template
// (bootstrap config cloned from its template, infrastructure machine cloned from its template, then
// the Machine referencing both; the clones get the set as their on-create owner, the Machine the set
// as controller and the Machine finalizer; a failed creation removes what it had created), adopting
// matching orphans, deleting the excess in delete-policy order (`cluster.x-k8s.io/delete-machine`
// first, then unhealthy, then oldest or newest); status replicas / fullyLabeledReplicas /
// readyReplicas (Machine phase Running with a nodeRef) / availableReplicas (minReadySeconds) /
// selector / observedGeneration; the cluster-name label on the set, its selector and template; the
// Cluster as owner of a stand-alone set; the `cluster.x-k8s.io/machineset` finalizer (deleting a set
// deletes its Machines and waits for them: the test apiserver has no garbage collector); pause by
// Cluster `spec.paused` or the `cluster.x-k8s.io/paused` annotation.
//
// Does not cover: in-place propagation of label/annotation/timeout changes to existing Machines,
// preflight checks (control plane stable, version skew), remediation, conditions, MachineSet
// `machineNamingStrategy`, CAPI's random delete order (the simulator's "Random" is oldest first, to
// be repeatable).
import { isNotFound, type KubeObject, type ObjectReference } from '@metal3-ts/generated';
import { ClusterResource, type Machine, MachineResource, type MachineSet, MachineSetResource } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { controllerFor } from '@metal3-ts/shared/controller/builder';
import { requestFor } from '@metal3-ts/shared/controller/handlers';
import { ensureFinalizer, removeFinalizerGuarded } from '@metal3-ts/shared/meta/ensure-finalizer';
import { getOwnerByKind, setOwnerReference } from '@metal3-ts/shared/meta/owner-references';
import { isPaused } from '@metal3-ts/shared/meta/paused';
import type { Runnable } from '@metal3-ts/shared/manager/runnable';
import { PatchHelper } from '@metal3-ts/shared/patch/patch-helper';
import type { ReconcileContext, Request, Result } from '@metal3-ts/shared/reconcile/reconcile';
import type { SimulatorDeps } from '../simulator.ts';
import { MACHINE_DEPLOYMENT_NAME_LABEL, MACHINE_SET_FINALIZER } from './machineset-constants.ts';
import { createFromTemplate, deleteReferenced } from './machineset-external.ts';
import { controllerRef, machineAnnotations, machineForSet, machineLabels, plainOwnerRef } from './machineset-machine.ts';
import { generateName, type RandomSource } from './machineset-names.ts';
import { ensureClusterNameLabels, machinesControlledBy, machineSetStatus, planMachineSet } from './machineset-plan.ts';
import { InvalidSelectorError, selectorMatches } from './machineset-selector.ts';

export interface MachineSetSimulatorOptions {
  /** Random source for Machine name suffixes (default Math.random). */
  readonly random?: RandomSource;
  /** Wall-clock time in epoch ms (minReadySeconds); default Date.now. */
  readonly now?: () => number;
  readonly maxConcurrentReconciles?: number;
}

const GROUP = 'cluster.x-k8s.io';

export function machineSetSimulator(deps: SimulatorDeps, options: MachineSetSimulatorOptions = {}): Runnable[] {
  const { client, informers, registry, log, clock } = deps;
  const sets = informers.informerFor(MachineSetResource);
  const machines = informers.informerFor(MachineResource);
  const clusters = informers.informerFor(ClusterResource);
  const random = options.random ?? Math.random;
  const now = options.now ?? Date.now;

  // An orphan Machine wakes every set whose selector matches it (adoption).
  const orphanToSets = (machine: Readonly<Machine>) => {
    if (machine.metadata.ownerReferences?.some((ref) => ref.controller === true)) return [];
    return sets.store.list(machine.metadata.namespace).filter((ms) => {
      try {
        return ms.spec?.selector !== undefined && selectorMatches(ms.spec.selector, machine.metadata.labels);
      } catch (error) {
        if (error instanceof InvalidSelectorError) return false;
        throw error;
      }
    }).map(requestFor);
  };
  const clusterToSets = (cluster: Readonly<KubeObject>) =>
    sets.store.list(cluster.metadata.namespace).filter((ms) => ms.spec?.clusterName === cluster.metadata.name).map(requestFor);

  async function createMachine(ms: Readonly<MachineSet>, context: ReconcileContext): Promise<void> {
    const namespace = ms.metadata.namespace ?? '';
    const template = ms.spec?.template?.spec;
    if (!template) throw new Error(`MachineSet ${namespace}/${ms.metadata.name}: no spec.template.spec`);
    const name = generateName(`${ms.metadata.name}-`, random);
    const clone = {
      namespace,
      name,
      clusterName: ms.spec?.clusterName ?? '',
      labels: machineLabels(ms),
      annotations: machineAnnotations(ms),
      owner: plainOwnerRef(ms),
    };
    const created: ObjectReference[] = [];
    try {
      let bootstrapConfigRef: ObjectReference | undefined;
      if (template.bootstrap.configRef) {
        bootstrapConfigRef = await createFromTemplate(client, { ...clone, templateRef: template.bootstrap.configRef });
        created.push(bootstrapConfigRef);
      }
      const infrastructureRef = await createFromTemplate(client, { ...clone, templateRef: template.infrastructureRef });
      created.push(infrastructureRef);
      await client.api(MachineResource, namespace).create(
        machineForSet(ms, name, { infrastructureRef, ...(bootstrapConfigRef ? { bootstrapConfigRef } : {}) }),
      );
      context.log.info('created Machine', { machine: name });
    } catch (error) {
      // Leave nothing half-made behind: a later attempt starts again under a new name.
      for (const ref of created) await deleteReferenced(client, ref, namespace).catch(() => undefined);
      throw error;
    }
  }

  async function reconcileDelete(ms: Readonly<MachineSet>): Promise<Result> {
    const namespace = ms.metadata.namespace ?? '';
    const own = machinesControlledBy(ms.metadata.uid, machines.store.list(namespace));
    for (const machine of own) {
      if (machine.metadata.deletionTimestamp) continue;
      await client.api(MachineResource, namespace).delete(machine.metadata.name ?? '').catch((error: unknown) => {
        if (!isNotFound(error)) throw error;
      });
    }
    // Woken again as each Machine goes (the Machine watch maps to its controller).
    if (own.length > 0) return {};
    await removeFinalizerGuarded(client.api(MachineSetResource, namespace), ms as MachineSet, MACHINE_SET_FINALIZER);
    return {};
  }

  async function reconcile(request: Request, context: ReconcileContext): Promise<Result> {
    const cached = sets.store.get(request);
    if (!cached) return {};
    const namespace = request.namespace ?? '';
    const api = client.api(MachineSetResource, namespace);
    if (cached.metadata.deletionTimestamp) return reconcileDelete(cached);
    const cluster = clusters.store.get({ namespace, name: cached.spec?.clusterName ?? '' });
    // The Cluster watch wakes us when it appears.
    if (!cluster || isPaused(cluster, cached)) return {};
    const ms = structuredClone((await ensureFinalizer(api, cached as MachineSet, MACHINE_SET_FINALIZER)) ?? cached) as MachineSet;
    const patch = new PatchHelper(ms, api);

    ensureClusterNameLabels(ms);
    // A stand-alone set (not made by a MachineDeployment) is owned by its Cluster.
    if (
      !getOwnerByKind(ms, GROUP, 'MachineDeployment') && !getOwnerByKind(ms, GROUP, 'Cluster') &&
      ms.metadata.labels?.[MACHINE_DEPLOYMENT_NAME_LABEL] === undefined
    ) {
      setOwnerReference(ms, cluster);
    }

    const plan = planMachineSet(ms, machines.store.list(namespace));
    const machineApi = client.api(MachineResource, namespace);
    for (const orphan of plan.adopt) {
      await machineApi.mergePatch(orphan.metadata.name ?? '', {
        metadata: {
          ownerReferences: [...(orphan.metadata.ownerReferences ?? []), controllerRef(ms)],
          resourceVersion: orphan.metadata.resourceVersion ?? null,
        },
      });
    }
    for (let i = 0; i < plan.create; i++) await createMachine(ms, context);
    for (const machine of plan.delete) {
      await machineApi.delete(machine.metadata.name ?? '').catch((error: unknown) => {
        if (!isNotFound(error)) throw error;
      });
      context.log.info('deleted Machine', { machine: machine.metadata.name });
    }

    // Our writes are already in the store (write-through client): count what is there now.
    const current = planMachineSet(ms, machines.store.list(namespace)).machines;
    const at = now();
    const { status, nextAvailableAt } = machineSetStatus(ms, current, at);
    ms.status = status;
    await patch.patch(ms);
    return nextAvailableAt === undefined ? {} : { requeueAfterMs: Math.max(1, nextAvailableAt - at) };
  }

  const controller = controllerFor('capi-machineset', MachineSetResource, { informers, registry, log, clock })
    .owns(MachineResource)
    .watches(MachineResource, orphanToSets)
    .watches(ClusterResource, clusterToSets)
    .withOptions({ maxConcurrentReconciles: options.maxConcurrentReconciles ?? 2 })
    .build(reconcile);
  return [controller];
}
