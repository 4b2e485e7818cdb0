// Whether a CRD's objects need rewriting (research S-11): the apiserver writes every object at the
// CRD's storage version, but objects written before the storage version changed stay encoded at the
// old one until something writes them again, and `status.storedVersions` keeps listing every version
// that may still be in etcd. A version can only be dropped from the CRD once it is no longer listed
// there, and reading an object stored at a version the CRD no longer knows fails. So: rewrite every
// object (a write re-encodes at the storage version), then trim storedVersions to the storage version.
import type { CustomResourceDefinition } from './crd.ts';

export type StoragePlan =
  /** Every object is stored at `storage` (or none was ever stored). */
  | { readonly kind: 'Current'; readonly storage: string }
  /** Objects may still be stored at `stale`: rewrite each through served version `via`, then trim. */
  | { readonly kind: 'Migrate'; readonly storage: string; readonly stale: readonly string[]; readonly via: string }
  /** Nothing can be done: the CRD says why (the apiserver validates CRDs, so only a partial object gets here). */
  | { readonly kind: 'Invalid'; readonly message: string };

export function storagePlan(crd: Readonly<CustomResourceDefinition>): StoragePlan {
  const versions = crd.spec?.versions ?? [];
  const stored = versions.filter((v) => v.storage === true);
  if (stored.length !== 1 || !crd.spec?.group || !crd.spec.names?.plural) {
    return { kind: 'Invalid', message: `CRD ${crd.metadata.name}: needs a group, a plural and exactly one storage version (has ${stored.length})` };
  }
  const storage = stored[0]!.name;
  const stale = (crd.status?.storedVersions ?? []).filter((v) => v !== storage);
  if (stale.length === 0) return { kind: 'Current', storage };
  // Any served version will do: whatever version a write comes in at, etcd gets the storage version.
  const via = stored[0]!.served === false ? versions.find((v) => v.served === true)?.name : storage;
  if (via === undefined) return { kind: 'Invalid', message: `CRD ${crd.metadata.name}: no version is served, so its objects cannot be rewritten` };
  return { kind: 'Migrate', storage, stale, via };
}
