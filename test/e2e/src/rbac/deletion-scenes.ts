// The deletion flows of the RBAC write suite: objects brought to the point where deleting them makes
// the controller write what only a deletion writes (a claim's finalizer and the claim itself for the
// Metal3Machine controller, the Metal3Data for the Metal3DataClaim controller), then deleted. The
// reported object is the one being deleted; converged means the deletion completed: every object of
// the flow gone, so no finalizer was left behind.
import type { Client, KubeObject, ResourceDescriptor } from '@metal3-ts/generated';
import { MachineResource } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { Metal3DataClaimResource, Metal3DataResource, Metal3MachineResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { eventually } from '@metal3-ts/test/testing/eventually';
import type { Scene } from './scenes.ts';

/** Whether `name` is gone (NotFound). */
export async function isGone<T extends KubeObject>(admin: Client, descriptor: ResourceDescriptor<T>, ns: string, name: string): Promise<boolean> {
  return !(await admin.api(descriptor, ns).list()).items.some((o) => o.metadata.name === name);
}

/**
 * the machine scene with a data template, once the Metal3Machine holds its claim (our finalizer on
 * it), is deleted with its Machine: the controller takes its finalizer off the claim and deletes it.
 */
export async function deleteMachineScene(base: Scene, admin: Client, ns: string): Promise<Scene> {
  await eventually('the Metal3Machine to hold its claim', async () => ((await base.converged()) ? true : undefined), { timeoutMs: 30_000, pollMs: 200 });
  await admin.api(MachineResource, ns).delete(base.name);
  await admin.api(Metal3MachineResource, ns).delete(base.name);
  return {
    ...base,
    converged: async () =>
      (await isGone(admin, Metal3MachineResource, ns, base.name)) && (await isGone(admin, Metal3DataClaimResource, ns, base.name)) &&
      (await isGone(admin, MachineResource, ns, base.name)),
  };
}

/** DT-15: the claim scene, once its Metal3Data is rendered, is deleted: the controller deletes the Metal3Data. */
export async function deleteClaimScene(base: Scene, admin: Client, ns: string): Promise<Scene> {
  await eventually('the claim to name its Metal3Data', async () => ((await base.converged()) ? true : undefined), { timeoutMs: 30_000, pollMs: 200 });
  await admin.api(Metal3DataClaimResource, ns).delete(base.name);
  return {
    ...base,
    converged: async () => (await isGone(admin, Metal3DataClaimResource, ns, base.name)) && (await admin.api(Metal3DataResource, ns).list()).items.length === 0,
  };
}
