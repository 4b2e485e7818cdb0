// What storage migration reads of a CustomResourceDefinition, and nothing more: its names, which
// version is stored now, and which versions objects may still be stored at (status.storedVersions).
// A CRD's schemas are most of its bytes (Metal3DataTemplate's is over 100 KiB), so the informer keeps
// only these fields; it watches one CRD by name, which RBAC can grant by resourceNames.
import { defineResource, type KubeObject } from '@metal3-ts/generated';
import type { InformerSelection } from '../cache/types.ts';

export interface CrdVersion {
  readonly name: string;
  readonly served?: boolean;
  readonly storage?: boolean;
}

export interface CustomResourceDefinition extends KubeObject {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  spec?: {
    readonly group?: string;
    readonly names?: { readonly kind?: string; readonly plural?: string };
    readonly scope?: string;
    readonly versions?: readonly CrdVersion[];
  };
  status?: { readonly storedVersions?: readonly string[] };
}

export const CustomResourceDefinitionResource = defineResource<CustomResourceDefinition>({
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  listKind: 'CustomResourceDefinitionList',
  plural: 'customresourcedefinitions',
  singular: 'customresourcedefinition',
  namespaced: false,
  statusSubresource: true,
  scaleSubresource: false,
  shortNames: ['crd', 'crds'],
  categories: [],
});

/** The CRD as the migration needs it: names, versions' flags, storedVersions; schemas dropped. */
export function storageFields(crd: CustomResourceDefinition): CustomResourceDefinition {
  const { name, uid, resourceVersion, generation } = crd.metadata;
  const spec = crd.spec ?? {};
  return {
    apiVersion: crd.apiVersion,
    kind: crd.kind,
    metadata: { name, uid, resourceVersion, generation },
    spec: {
      ...(spec.group === undefined ? {} : { group: spec.group }),
      ...(spec.names === undefined ? {} : { names: { kind: spec.names.kind, plural: spec.names.plural } }),
      ...(spec.scope === undefined ? {} : { scope: spec.scope }),
      versions: (spec.versions ?? []).map(({ name, served, storage }) => ({ name, served, storage })),
    },
    status: { storedVersions: [...(crd.status?.storedVersions ?? [])] },
  };
}

/** The informer selection of one CRD, by name. */
export function crdSelection(name: string): InformerSelection<CustomResourceDefinition> {
  return { fieldSelector: `metadata.name=${name}`, transform: storageFields, transformName: 'storage-fields' };
}
