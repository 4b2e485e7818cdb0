// Well-known Kubernetes and Cluster API shapes that controller-gen inlines into every CRD. Where a
// schema node has exactly one of these shapes, codegen references the shared type from
// runtime/meta.ts instead of declaring a per-kind copy, so a Condition from a Machine and one from a
// Metal3Machine are the same TypeScript type.
import type { Schema } from './schema.ts';

interface Shape {
  /** Name of the shared type in runtime/meta.ts. */
  readonly name: string;
  /** property name → JSON type ('' for typeless, e.g. int-or-string). */
  readonly properties: Readonly<Record<string, string>>;
  readonly required: readonly string[];
}

const SHAPES: readonly Shape[] = [
  {
    name: 'ObjectReference',
    properties: { apiVersion: 'string', fieldPath: 'string', kind: 'string', name: 'string', namespace: 'string', resourceVersion: 'string', uid: 'string' },
    required: [],
  },
  {
    name: 'Condition',
    properties: { lastTransitionTime: 'string', message: 'string', reason: 'string', severity: 'string', status: 'string', type: 'string' },
    required: ['lastTransitionTime', 'status', 'type'],
  },
  {
    name: 'MetaV1Condition',
    properties: { lastTransitionTime: 'string', message: 'string', observedGeneration: 'integer', reason: 'string', status: 'string', type: 'string' },
    required: ['lastTransitionTime', 'message', 'reason', 'status', 'type'],
  },
  {
    name: 'LabelSelector',
    properties: { matchExpressions: 'array', matchLabels: 'object' },
    required: [],
  },
  {
    name: 'TypedLocalObjectReference',
    properties: { apiGroup: 'string', kind: 'string', name: 'string' },
    required: ['kind', 'name'],
  },
  {
    name: 'ObjectMetaTemplate',
    properties: { annotations: 'object', labels: 'object' },
    required: [],
  },
];

function signature(properties: Readonly<Record<string, string>>, required: readonly string[]): string {
  const props = Object.keys(properties).sort().map((k) => `${k}:${properties[k]}`).join(',');
  return `${props}|${[...required].sort().join(',')}`;
}

const BY_SIGNATURE = new Map(SHAPES.map((s) => [signature(s.properties, s.required), s.name]));

/** The shared type name for a schema node, or undefined when it is not a well-known shape. */
export function sharedShape(schema: Schema): string | undefined {
  if (schema.type !== 'object' || !schema.properties || schema['x-kubernetes-preserve-unknown-fields']) return undefined;
  const types: Record<string, string> = {};
  for (const [name, child] of Object.entries(schema.properties)) types[name] = child.type ?? '';
  const name = BY_SIGNATURE.get(signature(types, schema.required ?? []));
  if (name === 'LabelSelector' && !isLabelSelectorRequirement(schema.properties['matchExpressions']?.items)) return undefined;
  if (name === 'ObjectMetaTemplate' && !isStringMap(schema.properties['labels'])) return undefined;
  return name;
}

function isStringMap(schema: Schema | undefined): boolean {
  const value = schema?.additionalProperties;
  return typeof value === 'object' && value.type === 'string';
}

function isLabelSelectorRequirement(schema: Schema | undefined): boolean {
  const p = schema?.properties;
  return !!p && Object.keys(p).sort().join(',') === 'key,operator,values' && p['values']?.type === 'array';
}

export const SHARED_TYPE_NAMES: readonly string[] = SHAPES.map((s) => s.name);
