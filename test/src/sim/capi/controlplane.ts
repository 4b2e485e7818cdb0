// Cluster API's KubeadmControlPlane controller, simulated (controlplane.cluster.x-k8s.io/v1beta1).
//
// Covers: `spec.replicas` control-plane Machines, created one at a time once the Cluster's
// infrastructure is ready and its control-plane endpoint set: each with a KubeadmConfig built from
// `spec.kubeadmConfigSpec` (init configuration for the first, join configuration for the others), an
// infrastructure machine cloned from `spec.machineTemplate.infrastructureRef` (cloned-from
// annotations), labels `cluster.x-k8s.io/control-plane`, `cluster.x-k8s.io/control-plane-name` and
// cluster-name plus the template's, the KCP as controller of the Machine and on-create owner of the
// rest, failure domains spread over the Cluster's control-plane failure domains; scale down; rolling
// replacement, oldest first, when `spec.version`, the infrastructure template or the cluster
// configuration changes or `rolloutAfter` passes (scale up one, then delete the oldest outdated;
// maxSurge 1 or 0); status replicas / updatedReplicas / readyReplicas / unavailableReplicas /
// selector / version, `initialized` and `ready` (first Running Machine, then sticky); the
// `kubeadm.controlplane.cluster.x-k8s.io` finalizer (deletion waits for the Cluster's worker Machines,
// then deletes the control-plane Machines and waits for them); pause. The owning Cluster comes from
// the owner reference the Cluster controller sets (or, failing that, the cluster-name label).
//
// Does not cover: etcd membership, certificates, the kubeadm-config ConfigMap, control-plane
// component health (a Running Machine counts as healthy), remediation, in-place propagation of
// template labels/annotations, conditions, KubeadmConfig spec drift other than clusterConfiguration.
import { isNotFound, type ObjectReference } from '@metal3-ts/generated';
import { type Cluster, ClusterResource, type Machine, MachineResource } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { type KubeadmControlPlane, KubeadmControlPlaneResource } from '@metal3-ts/generated/controlplane.cluster.x-k8s.io/v1beta1';
import { controllerFor } from '@metal3-ts/shared/controller/builder';
import { ensureFinalizer, removeFinalizerGuarded } from '@metal3-ts/shared/meta/ensure-finalizer';
import { getOwnerByKind } from '@metal3-ts/shared/meta/owner-references';
import { isPaused } from '@metal3-ts/shared/meta/paused';
import type { Runnable } from '@metal3-ts/shared/manager/runnable';
import { PatchHelper } from '@metal3-ts/shared/patch/patch-helper';
import type { ReconcileContext, Request, Result } from '@metal3-ts/shared/reconcile/reconcile';
import type { SimulatorDeps } from '../simulator.ts';
import { isControlPlaneMachine, isValidEndpoint } from './contract.ts';
import { controlPlaneAnnotations, controlPlaneLabels, controlPlaneMachine, controlPlaneOwner, kubeadmConfigFor } from './controlplane-machine.ts';
import {
  clonedFromOf,
  controlPlaneMaxSurge,
  controlPlaneStatus,
  failureDomainForScaleUp,
  planControlPlane,
  rolloutReason,
  toPlannerView,
} from './controlplane-plan.ts';
import { groupOfApiVersion } from './machineset-clone.ts';
import { CLUSTER_NAME_LABEL, KUBEADM_CONTROL_PLANE_FINALIZER } from './machineset-constants.ts';
import { createFromTemplate, createObject, deleteReferenced, getReferenced } from './machineset-external.ts';
import { generateName, type RandomSource } from './machineset-names.ts';
import { machinesControlledBy } from './machineset-plan.ts';

export interface ControlPlaneSimulatorOptions {
  /** Random source for Machine name suffixes (default Math.random). */
  readonly random?: RandomSource;
  /** Wall-clock time in epoch ms (rolloutAfter); default Date.now. */
  readonly now?: () => number;
  /** How often deletion looks again while worker Machines remain (default 500 ms). */
  readonly workerWaitMs?: number;
  readonly maxConcurrentReconciles?: number;
}

const CONTROL_PLANE_GROUP = 'controlplane.cluster.x-k8s.io';

export function controlPlaneSimulator(deps: SimulatorDeps, options: ControlPlaneSimulatorOptions = {}): Runnable[] {
  const { client, informers, registry, log, clock } = deps;
  const planes = informers.informerFor(KubeadmControlPlaneResource);
  const machines = informers.informerFor(MachineResource);
  const clusters = informers.informerFor(ClusterResource);
  const random = options.random ?? Math.random;
  const now = options.now ?? Date.now;

  const clusterNameOf = (kcp: Readonly<KubeadmControlPlane>) =>
    getOwnerByKind(kcp, 'cluster.x-k8s.io', 'Cluster')?.name ?? kcp.metadata.labels?.[CLUSTER_NAME_LABEL];

  // The Cluster's controlPlaneRef, and any KCP that names the Cluster as its own.
  const clusterToControlPlane = (cluster: Readonly<Cluster>) => {
    const namespace = cluster.metadata.namespace ?? '';
    const names = new Set(planes.store.list(namespace).filter((kcp) => clusterNameOf(kcp) === cluster.metadata.name).map((kcp) => kcp.metadata.name ?? ''));
    const ref = cluster.spec?.controlPlaneRef;
    if (ref?.name && ref.kind === 'KubeadmControlPlane' && groupOfApiVersion(ref.apiVersion ?? '') === CONTROL_PLANE_GROUP) names.add(ref.name);
    return [...names].map((name) => ({ namespace, name }));
  };

  function clusterOf(kcp: Readonly<KubeadmControlPlane>): Readonly<Cluster> | undefined {
    const name = clusterNameOf(kcp);
    return name ? clusters.store.get({ namespace: kcp.metadata.namespace ?? '', name }) : undefined;
  }

  const ownMachines = (kcp: Readonly<KubeadmControlPlane>) =>
    machinesControlledBy(kcp.metadata.uid, machines.store.list(kcp.metadata.namespace)).filter((m) => isControlPlaneMachine(m));

  async function createMachine(
    kcp: Readonly<KubeadmControlPlane>,
    cluster: Readonly<Cluster>,
    init: boolean,
    failureDomain: string | undefined,
    context: ReconcileContext,
  ): Promise<void> {
    const namespace = kcp.metadata.namespace ?? '';
    const clusterName = cluster.metadata.name ?? '';
    const name = generateName(`${kcp.metadata.name}-`, random);
    const created: ObjectReference[] = [];
    try {
      const infrastructureRef = await createFromTemplate(client, {
        templateRef: kcp.spec?.machineTemplate.infrastructureRef ?? {},
        namespace,
        name,
        clusterName,
        labels: controlPlaneLabels(kcp, clusterName),
        annotations: controlPlaneAnnotations(kcp),
        owner: controlPlaneOwner(kcp),
      });
      created.push(infrastructureRef);
      const bootstrapConfigRef = await createObject(client, kubeadmConfigFor(kcp, name, clusterName, init));
      created.push(bootstrapConfigRef);
      await client.api(MachineResource, namespace).create(
        controlPlaneMachine(kcp, name, clusterName, { infrastructureRef, bootstrapConfigRef, failureDomain }),
      );
      context.log.info(init ? 'initialized control plane' : 'scaled up control plane', { machine: name });
    } catch (error) {
      for (const ref of created) await deleteReferenced(client, ref, namespace).catch(() => undefined);
      throw error;
    }
  }

  async function deleteMachine(machine: Readonly<Machine>): Promise<void> {
    await client.api(MachineResource, machine.metadata.namespace).delete(machine.metadata.name ?? '').catch((error: unknown) => {
      if (!isNotFound(error)) throw error;
    });
  }

  async function reconcileDelete(kcp: Readonly<KubeadmControlPlane>, cluster: Readonly<Cluster> | undefined): Promise<Result> {
    const namespace = kcp.metadata.namespace ?? '';
    // Workers go first: they need the API server to drain and leave cleanly.
    const clusterName = cluster?.metadata.name;
    const workers = clusterName ? machines.store.list(namespace).filter((m) => m.spec?.clusterName === clusterName && !isControlPlaneMachine(m)) : [];
    if (workers.length > 0) return { requeueAfterMs: options.workerWaitMs ?? 500 };
    const own = ownMachines(kcp);
    for (const machine of own) if (!machine.metadata.deletionTimestamp) await deleteMachine(machine);
    if (own.length > 0) return {};
    await removeFinalizerGuarded(client.api(KubeadmControlPlaneResource, namespace), kcp as KubeadmControlPlane, KUBEADM_CONTROL_PLANE_FINALIZER);
    return {};
  }

  async function reconcile(request: Request, context: ReconcileContext): Promise<Result> {
    const cached = planes.store.get(request);
    if (!cached) return {};
    const namespace = request.namespace ?? '';
    const api = client.api(KubeadmControlPlaneResource, namespace);
    const cluster = clusterOf(cached);
    if (cached.metadata.deletionTimestamp) return reconcileDelete(cached, cluster);
    // Woken when the Cluster controller sets the owner reference (a KCP update) or the Cluster changes.
    if (!cluster || isPaused(cluster, cached)) return {};
    const kcp = structuredClone((await ensureFinalizer(api, cached as KubeadmControlPlane, KUBEADM_CONTROL_PLANE_FINALIZER)) ?? cached) as KubeadmControlPlane;
    const patch = new PatchHelper(kcp, api);
    const clusterName = cluster.metadata.name ?? '';

    const own = ownMachines(kcp);
    const at = now();
    const outdated = new Set<string>();
    for (const machine of own) {
      const infra = clonedFromOf(await getReferenced(client, machine.spec?.infrastructureRef ?? {}, namespace).catch(() => undefined));
      if (rolloutReason(kcp, machine, infra, at) !== undefined) outdated.add(machine.metadata.name ?? '');
    }

    const ready = cluster.status?.infrastructureReady === true && isValidEndpoint(cluster.spec?.controlPlaneEndpoint);
    if (ready) {
      const views = own.map((m) => toPlannerView(m, outdated.has(m.metadata.name ?? '')));
      const action = planControlPlane({ replicas: kcp.spec?.replicas ?? 1, maxSurge: controlPlaneMaxSurge(kcp), machines: views });
      const domains = Object.entries(cluster.status?.failureDomains ?? {})
        .filter(([, fd]) => fd.controlPlane === true)
        .map(([name]) => name);
      switch (action.type) {
        case 'initialize':
        case 'scaleUp':
          await createMachine(kcp, cluster, action.type === 'initialize', failureDomainForScaleUp(domains, views), context);
          break;
        case 'scaleDown': {
          const victim = own.find((m) => m.metadata.name === action.machine);
          if (victim) await deleteMachine(victim);
          context.log.info('scaled down control plane', { machine: action.machine, outdated: outdated.has(action.machine) });
          break;
        }
        case 'wait':
          context.log.debug(action.reason);
          break;
        case 'none':
          break;
      }
    }

    kcp.status = controlPlaneStatus(kcp, clusterName, ownMachines(kcp), outdated);
    await patch.patch(kcp);
    return {};
  }

  const controller = controllerFor('capi-kubeadmcontrolplane', KubeadmControlPlaneResource, { informers, registry, log, clock })
    .owns(MachineResource)
    .watches(ClusterResource, clusterToControlPlane)
    .withOptions({ maxConcurrentReconciles: options.maxConcurrentReconciles ?? 2 })
    .build(reconcile);
  return [controller];
}
