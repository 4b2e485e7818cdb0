// Index functions most controllers need. Add them with `informer.addIndex(OWNER_UID_INDEX, byOwnerUid)`
// and read with `informer.store.byIndex(OWNER_UID_INDEX, uid)`; custom keys (a host's consumer, a
// node's providerID) are plain IndexFns written beside the controller that needs them.
import type { KubeObject } from '@metal3-ts/generated';
import type { IndexFn } from './types.ts';

export const OWNER_UID_INDEX = 'ownerUid';

/** Files an object under the uid of every owner reference it carries. */
export const byOwnerUid: IndexFn<KubeObject> = (object) => (object.metadata.ownerReferences ?? []).map((ref) => ref.uid);

/** The conventional index name for `byLabel(key)`. */
export function labelIndexName(key: string): string {
  return `label:${key}`;
}

/** Files an object under the value of its label `key`; objects without the label are not filed. */
export function byLabel(key: string): IndexFn<KubeObject> {
  return (object) => {
    const value = object.metadata.labels?.[key];
    return value === undefined ? [] : [value];
  };
}
