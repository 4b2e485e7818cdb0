// Scene steps the deletion files share (deletion.test.ts, deletion-reuse.test.ts): hosts labelled by
// a test's own `group`, machines selecting on it, a machine waited for until its host is provisioned,
// deleted, and its host waited for until released. Each takes the scene, or anything with its admin
// client and namespace, as its first parameter; `namespace` defaults to the scene's.
import * as assert from 'uvu/assert';
import { Metal3MachineResource, type Metal3MachineSpec } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { BareMetalHostResource, type BareMetalHostSpec } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { CONTROL_PLANE_LABEL } from '@metal3-ts/baremetal/names';
import { CLONED_FROM_NAME_ANNOTATION, HOST_ANNOTATION } from '../src/names.ts';
import {
  consumers,
  createAvailableHosts,
  createMachine,
  EVENT_MS,
  eventually,
  gone,
  hostWhen,
  IMAGE,
  type MachineOptions,
  type MachineTestScene,
} from './support.ts';

/** What the helpers read of a scene: its admin client and its namespace. */
export type SceneRef = Pick<MachineTestScene, 'client' | 'ns'>;

export const CONTROL_PLANE = { [CONTROL_PLANE_LABEL]: '' };

export const hostApi = (scene: SceneRef, namespace = scene.ns) => scene.client.api(BareMetalHostResource, namespace);

export const selector = (group: string): Pick<Metal3MachineSpec, 'hostSelector'> => ({ hostSelector: { matchLabels: { group } } });

/** Hosts labelled `group`, available. */
export async function availableHosts(
  scene: SceneRef,
  group: string,
  names: readonly string[],
  options: { namespace?: string; spec?: Partial<BareMetalHostSpec> } = {},
): Promise<void> {
  await createAvailableHosts(scene.client, options.namespace ?? scene.ns, names, { labels: { group }, ...(options.spec ? { spec: options.spec } : {}) });
}

/**
 * The name of the host `machine` holds once BMO has provisioned it. The annotation alone is not
 * enough: the controller records its choice before claiming, and a lost claim changes the record.
 */
export function provisionedHost(scene: SceneRef, machine: string, namespace = scene.ns): Promise<string> {
  return eventually(`${machine} on a host provisioned for it`, async () => {
    const m3m = await scene.client.api(Metal3MachineResource, namespace).get(machine);
    const name = (m3m.metadata.annotations?.[HOST_ANNOTATION] ?? '').split('/')[1];
    if (!name) return undefined;
    const host = await hostApi(scene, namespace).get(name);
    return host.spec?.consumerRef?.name === machine && host.status?.provisioning?.state === 'provisioned' ? name : undefined;
  }, 30_000);
}

/** Deletes the Metal3Machine, waits until it is gone and checks no host still names it (issue: "never leaves a host with a consumerRef to a deleted machine"). */
export async function deleteMachine(scene: SceneRef, name: string, namespace = scene.ns, timeoutMs = 30_000): Promise<void> {
  await scene.client.api(Metal3MachineResource, namespace).delete(name);
  await gone(scene.client, Metal3MachineResource, namespace, name, timeoutMs);
  assert.is((await consumers(scene.client, namespace)).get(name), undefined, `no host names the deleted ${name}`);
}

/** The host once released by a deletion: free again and back in `available`. */
export const releasedHost = (scene: SceneRef, name: string, namespace = scene.ns) =>
  hostWhen(
    scene.client,
    namespace,
    name,
    `${name} released and available`,
    (h) => !h.spec?.consumerRef && h.status?.provisioning?.state === 'available',
    EVENT_MS,
  );

/** A control-plane Machine owned by KubeadmControlPlane `kcp` (N-3), its Metal3Machine cloned from `template`. */
export function controlPlaneMachine(
  scene: SceneRef,
  name: string,
  kcp: string,
  group: string,
  template: string | undefined,
  extra: Partial<MachineOptions> = {},
) {
  return createMachine(scene.client, scene.ns, name, {
    spec: { image: IMAGE, ...selector(group) },
    labels: CONTROL_PLANE,
    ...(template ? { annotations: { [CLONED_FROM_NAME_ANNOTATION]: template } } : {}),
    machineOwners: [{ apiVersion: 'controlplane.cluster.x-k8s.io/v1beta1', kind: 'KubeadmControlPlane', name: kcp, uid: `uid-of-${kcp}`, controller: true }],
    ...extra,
  });
}
