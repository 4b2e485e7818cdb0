// DT-6: the template's ownerReference to its Cluster (`controller: false`), added once and never
// updated, as a JSON patch whose `test` op pins the list it was computed from: the allocation side
// and Cluster API write the same object, and none of their references may be lost.
import type { Api, JsonPatchOperation, OwnerReference } from '@metal3-ts/generated';
import { ignoreNotFound } from '@metal3-ts/generated/runtime/errors';
import type { Cluster } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type { Metal3DataTemplate } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { isStaleOrGuardFailed, retryOnConflict } from '@metal3-ts/shared/controller/retry-on-conflict';
import { appendGuarded } from '@metal3-ts/shared/patch/append-guarded';
import { apiGroupOf } from '@metal3-ts/shared/meta/owner-references';
import { CLUSTER_API_GROUP } from '../names.ts';

/** The reference upstream appends (DT-6). */
export function clusterOwnerReference(cluster: Readonly<Cluster>): OwnerReference {
  return { apiVersion: cluster.apiVersion, kind: 'Cluster', name: cluster.metadata.name ?? '', uid: cluster.metadata.uid ?? '', controller: false };
}

/** The JSON patch adding `ref` to `template`, or undefined when a reference to that Cluster (by group, kind and name) exists. */
export function ownerReferencePatch(template: Readonly<Metal3DataTemplate>, ref: OwnerReference): JsonPatchOperation[] | undefined {
  const refs = template.metadata.ownerReferences;
  if (refs?.some((r) => apiGroupOf(r.apiVersion) === CLUSTER_API_GROUP && r.kind === ref.kind && r.name === ref.name)) return undefined;
  return appendGuarded('/metadata/ownerReferences', refs, ref);
}

/** Adds the Cluster reference unless present; re-reads and retries when another writer got there first. */
export function ensureClusterOwnerReference(
  api: Pick<Api<Metal3DataTemplate>, 'get' | 'jsonPatch'>,
  template: Readonly<Metal3DataTemplate>,
  cluster: Readonly<Cluster>,
  attempts = 5,
): Promise<Metal3DataTemplate | undefined> {
  const ref = clusterOwnerReference(cluster);
  const name = template.metadata.name ?? '';
  return retryOnConflict(
    template,
    async (current) => {
      const ops = ownerReferencePatch(current, ref);
      return ops ? await api.jsonPatch(name, ops) : undefined;
    },
    {
      what: `Metal3DataTemplate ${template.metadata.namespace}/${name}: adding its Cluster owner reference`,
      reread: () => ignoreNotFound(api.get(name)),
      attempts,
      retryable: isStaleOrGuardFailed,
    },
  );
}
