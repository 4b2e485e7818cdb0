/**
 * The BareMetalHost driver: how controllers drive physical servers managed by the baremetal-operator.
 * Decisions are pure functions over hosts (states, selection, the desired host after a claim, a
 * provisioning, a release or a pause); the I/O functions send the difference as one merge patch.
 *
 * @example Associate a Metal3Machine with a host, then provision it.
 * ```ts
 * import type { Client } from '@metal3-ts/generated';
 * import { BareMetalHostResource } from '@metal3-ts/generated/metal3.io/v1alpha1';
 * import type { Metal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
 * import type { InformerFactory } from '@metal3-ts/shared/cache/informer-factory';
 * import { CLUSTER_NAME_LABEL } from '@metal3-ts/shared/meta/cluster-api-names';
 * import { acquireHost, hostInventory, metal3MachineConsumer, metal3MachineProvisioning, provisionHost } from '@metal3-ts/baremetal';
 *
 * export async function associate(client: Client, informers: InformerFactory, machine: Metal3Machine, clusterName: string) {
 *   const inventory = hostInventory(informers.informerFor(BareMetalHostResource));
 *   const consumer = metal3MachineConsumer(machine);
 *   const outcome = await acquireHost(client, consumer, { labels: { [CLUSTER_NAME_LABEL]: clusterName } }, {
 *     candidates: (c) => inventory.candidates(c),
 *     onWrite: (host) => inventory.noteWrite(host),
 *   });
 *   if (!outcome.acquired) return { requeueAfterMs: 30_000 }; // none, reuse-pending or contended
 *   await provisionHost(client, outcome.host, metal3MachineProvisioning(machine), { onWrite: (h) => inventory.noteWrite(h) });
 *   return {};
 * }
 * ```
 *
 * @module
 */
export * from './names.ts';
export * from './host-annotation.ts';
export * from './states.ts';
export * from './consumer.ts';
export * from './label-selector.ts';
export * from './selection.ts';
export * from './node-reuse.ts';
export * from './inventory.ts';
export { hostMergePatch, type HostPatchOptions, type HostWriteOptions, patchHost } from './host-patch.ts';
export * from './claim.ts';
export * from './acquire.ts';
export { onFreshHost } from './fresh-host.ts';
export * from './provision.ts';
export * from './release.ts';
export * from './pause.ts';
