// Test support for the MachineSet / MachineDeployment / KubeadmControlPlane simulators: fixtures (a
// Cluster, a Metal3MachineTemplate, a KubeadmConfigTemplate) and a stand-in for the Machine
// controller that the tests of these simulators run instead of the real one: it marks Machines
// Running (phase and nodeRef, as the Machine controller would once the Node appears) when the test's
// gate lets it, and removes the Machine finalizer of deleting Machines.
import type { Client } from '@metal3-ts/generated';
import { KubeadmConfigTemplateResource, newKubeadmConfigTemplate } from '@metal3-ts/generated/bootstrap.cluster.x-k8s.io/v1beta1';
import { type Cluster, ClusterResource, type Machine, MachineResource, newCluster } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { Metal3MachineTemplateResource, newMetal3MachineTemplate } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { controllerFor } from '@metal3-ts/shared/controller/builder';
import { requestFor } from '@metal3-ts/shared/controller/handlers';
import { removeFinalizerGuarded } from '@metal3-ts/shared/meta/ensure-finalizer';
import type { Runnable } from '@metal3-ts/shared/manager/runnable';
import type { SimulatorDeps } from '../simulator.ts';
import { MACHINE_FINALIZER } from './machineset-constants.ts';
import { type Eventually, eventuallyWith } from '../../testing/eventually.ts';

export const INFRA_API_VERSION = 'infrastructure.cluster.x-k8s.io/v1beta1';
export const BOOTSTRAP_API_VERSION = 'bootstrap.cluster.x-k8s.io/v1beta1';

export async function createCluster(
  client: Client,
  namespace: string,
  name: string,
  status: { infrastructureReady?: boolean; endpoint?: string; failureDomains?: string[] } = {},
): Promise<Cluster> {
  const api = client.api(ClusterResource, namespace);
  const created = await api.create(
    newCluster({ metadata: { name, namespace }, spec: status.endpoint ? { controlPlaneEndpoint: { host: status.endpoint, port: 6443 } } : {} }),
  );
  if (status.infrastructureReady === undefined && !status.failureDomains) return created;
  const failureDomains = Object.fromEntries((status.failureDomains ?? []).map((fd) => [fd, { controlPlane: true }]));
  return api.mergePatchStatus(name, {
    status: { infrastructureReady: status.infrastructureReady ?? false, ...(status.failureDomains ? { failureDomains } : {}) },
  });
}

export async function createMetal3MachineTemplate(
  client: Client,
  namespace: string,
  name: string,
  imageUrl = 'http://172.22.0.1/images/node.img',
): Promise<void> {
  await client.api(Metal3MachineTemplateResource, namespace).create(
    newMetal3MachineTemplate({
      metadata: { name, namespace },
      spec: {
        template: { spec: { image: { url: imageUrl, checksum: `${imageUrl}.sha256sum`, format: 'raw' }, hostSelector: { matchLabels: { role: 'worker' } } } },
      },
    }),
  );
}

export async function createKubeadmConfigTemplate(client: Client, namespace: string, name: string): Promise<void> {
  await client.api(KubeadmConfigTemplateResource, namespace).create(
    newKubeadmConfigTemplate({
      metadata: { name, namespace },
      spec: {
        template: {
          metadata: { labels: { 'from-bootstrap-template': 'yes' } },
          spec: { joinConfiguration: { nodeRegistration: { kubeletExtraArgs: { 'node-labels': 'metal3.io/uuid={{ ds.meta_data.uuid }}' } } } },
        },
      },
    }),
  );
}

export const infraRef = (name: string) => ({ apiVersion: INFRA_API_VERSION, kind: 'Metal3MachineTemplate', name });
export const bootstrapRef = (name: string) => ({ apiVersion: BOOTSTRAP_API_VERSION, kind: 'KubeadmConfigTemplate', name });

export interface MachineStandIn {
  readonly runnables: Runnable[];
  /** Decides which Machines may become Running; call `recheck()` after changing what it answers. */
  gate: (machine: Readonly<Machine>) => boolean;
  /** Looks at every Machine again (after the gate changed). */
  recheck(): void;
}

/**
 * The Machine controller's visible effects, reduced to what MachineSet/KCP tests need. A Machine the
 * gate lets through becomes Running `delayMs` after the stand-in first saw it (a provisioning time).
 */
export function machineStandIn(deps: SimulatorDeps, options: { delayMs?: number } = {}): MachineStandIn {
  const machines = deps.informers.informerFor(MachineResource);
  const firstSeen = new Map<string, number>();
  const delayMs = options.delayMs ?? 0;
  const standIn: MachineStandIn = {
    runnables: [],
    gate: () => true,
    recheck() {
      for (const m of machines.store.list()) controller.enqueue(requestFor(m));
    },
  };
  const controller = controllerFor('test-machine-standin', MachineResource, { informers: deps.informers, log: deps.log }).build(async (request) => {
    const machine = machines.store.get(request);
    if (!machine) return {};
    const api = deps.client.api(MachineResource, request.namespace);
    if (machine.metadata.deletionTimestamp) {
      await removeFinalizerGuarded(api, machine as Machine, MACHINE_FINALIZER);
      return {};
    }
    const uid = machine.metadata.uid ?? '';
    const seen = firstSeen.get(uid) ?? Date.now();
    firstSeen.set(uid, seen);
    const wait = seen + delayMs - Date.now();
    const running = standIn.gate(machine) && wait <= 0;
    const phase = running ? 'Running' : 'Provisioning';
    const next = running || !standIn.gate(machine) ? {} : { requeueAfterMs: wait };
    if (machine.status?.phase === phase) return next;
    await api.mergePatchStatus(request.name, {
      status: running ? { phase, bootstrapReady: true, infrastructureReady: true, nodeRef: { apiVersion: 'v1', kind: 'Node', name: request.name } } : { phase },
    });
    return next;
  });
  standIn.runnables.push(controller);
  return standIn;
}

/** Polls `check` until it returns something other than undefined (15 s unless told, every 20 ms). */
export const eventually: Eventually = eventuallyWith({ timeoutMs: 15_000, pollMs: 20 });
