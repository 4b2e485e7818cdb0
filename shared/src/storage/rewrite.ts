// The writes of a storage migration (plan.ts): every object of a CRD written again unchanged, so the
// apiserver re-encodes it at the storage version, then the CRD's storedVersions trimmed to it. An
// empty merge patch carries no resourceVersion, so it cannot conflict with a controller's write and
// changes no field; an object deleted meanwhile needs nothing. One object that cannot be written
// (refused by validation, say) does not stop the others: every failure is collected and reported.
import { type Client, defineResource, isConflict, isNotFound, type KubeObject, type ResourceDescriptor } from '@metal3-ts/generated';
import { type CustomResourceDefinition, CustomResourceDefinitionResource } from './crd.ts';

/** How one pass over a CRD's objects went. */
export interface Rewrite {
  readonly rewritten: number;
  /** Deleted between the list and their write. */
  readonly gone: number;
  /** `namespace/name: message` of each object that could not be written. */
  readonly failures: readonly string[];
}

/** The objects of `crd` at served version `version`, as an untyped resource. */
export function objectsOf(crd: Readonly<CustomResourceDefinition>, version: string): ResourceDescriptor<KubeObject> {
  const kind = crd.spec?.names?.kind ?? '';
  return defineResource<KubeObject>({
    group: crd.spec?.group ?? '',
    version,
    kind,
    listKind: `${kind}List`,
    plural: crd.spec?.names?.plural ?? '',
    singular: kind.toLowerCase(),
    namespaced: crd.spec?.scope !== 'Cluster',
    statusSubresource: false,
    scaleSubresource: false,
    shortNames: [],
    categories: [],
  });
}

/** Writes every object of `crd` again, through `version`. A failed list throws; failed writes are collected. */
export async function rewriteObjects(client: Client, crd: Readonly<CustomResourceDefinition>, version: string, signal?: AbortSignal): Promise<Rewrite> {
  const resource = objectsOf(crd, version);
  let rewritten = 0;
  let gone = 0;
  const failures: string[] = [];
  for await (const object of client.all(resource).listAll(signal ? { signal } : {})) {
    signal?.throwIfAborted();
    const { namespace, name } = object.metadata;
    try {
      await client.api(resource, namespace).mergePatch(name!, {});
      rewritten++;
    } catch (error) {
      if (isNotFound(error)) gone++;
      else failures.push(`${namespace ? `${namespace}/` : ''}${name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return { rewritten, gone, failures };
}

/**
 * Trims storedVersions to `storage`, on condition that the CRD is still the one the plan was made
 * from (its resourceVersion): false when it changed meanwhile, whose event brings a new plan.
 */
export async function trimStoredVersions(client: Client, crd: Readonly<CustomResourceDefinition>, storage: string): Promise<boolean> {
  try {
    await client.all(CustomResourceDefinitionResource).mergePatchStatus(crd.metadata.name!, {
      metadata: { resourceVersion: crd.metadata.resourceVersion },
      status: { storedVersions: [storage] },
    });
    return true;
  } catch (error) {
    if (isConflict(error)) return false;
    throw error;
  }
}
