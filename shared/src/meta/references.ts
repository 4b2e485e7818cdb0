// Issue 21: every reference of a Metal3 object is resolved in the object's own namespace. This module
// is the one place that knows which fields are references (REFERENCE_FIELDS, per kind) and which of
// them name another namespace (foreignReferences); every controller asks it rather than checking
// fields by hand, so a reference field added to a kind is checked everywhere once it is in the table.
// The isolation suite (test/src/isolation) holds the table equal to the reference fields it reads from
// the generated types, so a new field missing here fails there. Pure.

/** The kinds of infrastructure.cluster.x-k8s.io with a reference that may name a namespace. */
export type ReferencingKind = 'Metal3Machine' | 'Metal3MachineTemplate' | 'Metal3Data' | 'Metal3DataClaim';

/**
 * Per kind, the path of every reference field with a `namespace` (an empty namespace means the object's
 * own). Paths are plain object keys: none of these fields sits in a list. The pool references of a
 * Metal3DataTemplate are local references (no namespace in the schema) and so are not here.
 */
export const REFERENCE_FIELDS: { readonly [K in ReferencingKind]: readonly string[] } = {
  Metal3Machine: [
    'spec.userData',
    'spec.metaData',
    'spec.networkData',
    'spec.dataTemplate',
    'status.userData',
    'status.metaData',
    'status.networkData',
    'status.renderedData',
  ],
  // Copied by Cluster API into each Metal3Machine, where the machine controller refuses a foreign one.
  Metal3MachineTemplate: [
    'spec.template.spec.userData',
    'spec.template.spec.metaData',
    'spec.template.spec.networkData',
    'spec.template.spec.dataTemplate',
  ],
  Metal3Data: ['spec.template', 'spec.claim', 'spec.metaData', 'spec.networkData'],
  Metal3DataClaim: ['spec.template', 'status.renderedData'],
};

export interface ForeignReference {
  /** The namespace field that is wrong, e.g. `spec.dataTemplate.namespace`. */
  readonly field: string;
  /** The namespace it names. */
  readonly namespace: string;
}

interface Namespaced {
  readonly metadata: { readonly namespace?: string | undefined };
}

/** The value at a dotted path, or undefined as soon as a step is missing or not an object. */
function at(object: unknown, path: string): unknown {
  let node = object;
  for (const key of path.split('.')) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/**
 * The references among `fields` that name a namespace other than the object's own, in the order of
 * `fields`. An absent reference, an empty namespace and the object's own namespace are all fine.
 */
export function foreignReferences(object: Readonly<Namespaced>, fields: readonly string[]): ForeignReference[] {
  const own = object.metadata.namespace ?? '';
  return fields.flatMap((path) => {
    const namespace = at(at(object, path), 'namespace');
    return typeof namespace === 'string' && namespace !== '' && namespace !== own ? [{ field: `${path}.namespace`, namespace }] : [];
  });
}
