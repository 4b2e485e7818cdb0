// Wiring of the Metal3Remediation controller (RS-3): remediations, woken by their hosts (power state,
// reboot annotation), their Machines (nodeRef) and their workload Nodes (node-source.ts), where
// upstream watches only the remediation and polls every 1–5 s. No pause or watch-filter handling, as
// upstream. Decisions live in decide.ts; tests build this controller in-process.
import type { Client } from '@metal3-ts/generated';
import { MachineResource } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { Metal3MachineResource, Metal3RemediationResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { BareMetalHostResource } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { type ControllerDeps, controllerFor } from '@metal3-ts/shared/controller/builder';
import type { Controller } from '@metal3-ts/shared/controller/controller';
import type { ClusterKey } from '@metal3-ts/shared/workload/errors';
import { NodeWaits } from '@metal3-ts/shared/workload/node-waits';
import { hostToRemediation, machineToRemediation } from './mappers.ts';
import { CONTROLLER_NAME } from './names.ts';
import { remediationReconciler } from './reconcile.ts';

export interface RemediationControllerDeps extends ControllerDeps {
  readonly client: Client;
  readonly workloadClient: (cluster: ClusterKey) => Promise<Client>;
  readonly now?: () => Date;
  readonly config: { readonly concurrency?: number; /** Out-of-service-taint mode (decided at start-up). */ readonly outOfService?: boolean };
}

export function remediationController(deps: RemediationControllerDeps): Controller {
  const { informers } = deps;
  const remediations = informers.informerFor(Metal3RemediationResource).store;
  const metal3Machines = informers.informerFor(Metal3MachineResource).store;
  const stores = {
    remediations,
    machines: informers.informerFor(MachineResource).store,
    metal3Machines,
    hosts: informers.informerFor(BareMetalHostResource).store,
  };
  const nodes = new NodeWaits({ log: deps.log });
  const reconcile = remediationReconciler({
    client: deps.client,
    stores,
    workloadClient: deps.workloadClient,
    nodes,
    now: deps.now,
    events: deps.events,
    outOfService: deps.config.outOfService,
  });
  return controllerFor(CONTROLLER_NAME, Metal3RemediationResource, deps)
    .watches(BareMetalHostResource, hostToRemediation(metal3Machines, remediations))
    .watches(MachineResource, machineToRemediation(remediations))
    .watchesRawSource(nodes.source)
    .withOptions({ maxConcurrentReconciles: deps.config.concurrency ?? 10 })
    .build(reconcile);
}
