// Structural comparison of two CRDs: everything that decides which objects the apiserver accepts and how it
// defaults them, plus names, scope, versions, subresources and printer columns. Descriptions and our own
// x-kubernetes-validations are left out on purpose: the first are prose, the second are the point of our CRDs.
import { isDeepStrictEqual } from 'node:util';
import { walkSchema, type Crd, type SchemaNode } from './crds.ts';

export interface Difference {
  readonly kind: string;
  /** API version of a schema difference; absent for CRD-level fields. */
  readonly version?: string;
  /** Schema path (`.spec.image.url`, `[]` items, `{}` map values) or a CRD field (`names.shortNames`). */
  readonly path: string;
  /** Schema keyword or `property` when a property exists on one side only; `-` for non-schema fields. */
  readonly keyword: string;
  readonly ours: unknown;
  readonly upstream: unknown;
}

/** Keywords not compared, and child keywords walked separately (by name, never as keywords). */
const ignored = new Set(['description', 'x-kubernetes-validations', 'properties', 'items']);
/** Keywords whose order carries no meaning. */
const unordered = new Set(['required', 'enum', 'x-kubernetes-list-map-keys']);

export function keyOf(d: Pick<Difference, 'kind' | 'version' | 'path' | 'keyword'>): string {
  return `${d.kind}${d.version ? ` ${d.version}` : ''} ${d.path || '(root)'} ${d.keyword}`;
}

function comparable(keyword: string, value: unknown): unknown {
  if (unordered.has(keyword) && Array.isArray(value)) return [...value].map((v) => JSON.stringify(v)).sort();
  return value;
}

function compareNode(kind: string, version: string, path: string, ours: SchemaNode, upstream: SchemaNode, out: Difference[]): void {
  const keywords = new Set([...Object.keys(ours), ...Object.keys(upstream)]);
  for (const keyword of [...keywords].sort()) {
    if (ignored.has(keyword)) continue;
    const a = ours[keyword];
    const b = upstream[keyword];
    // Map values are nodes, walked like properties; a boolean additionalProperties is compared as a value.
    if (keyword === 'additionalProperties' && typeof a === 'object' && typeof b === 'object') {
      compareNode(kind, version, `${path}{}`, a as SchemaNode, b as SchemaNode, out);
      continue;
    }
    if (!isDeepStrictEqual(comparable(keyword, a), comparable(keyword, b))) out.push({ kind, version, path, keyword, ours: a, upstream: b });
  }
  const names = new Set([...Object.keys(ours.properties ?? {}), ...Object.keys(upstream.properties ?? {})]);
  for (const name of [...names].sort()) {
    const a = ours.properties?.[name];
    const b = upstream.properties?.[name];
    if (a && b) compareNode(kind, version, `${path}.${name}`, a, b, out);
    else out.push({ kind, version, path: `${path}.${name}`, keyword: 'property', ours: a ? 'present' : 'absent', upstream: b ? 'present' : 'absent' });
  }
  if (ours.items && upstream.items) compareNode(kind, version, `${path}[]`, ours.items, upstream.items, out);
  else if (ours.items || upstream.items) out.push({ kind, version, path, keyword: 'items', ours: ours.items ? 'present' : 'absent', upstream: upstream.items ? 'present' : 'absent' });
}

/** Every difference between our CRD and upstream's: CRD-level fields, and the schema of one version. */
export function diffCrds(ours: Crd, upstream: Crd, version = 'v1beta1'): Difference[] {
  const kind = upstream.spec.names.kind;
  const out: Difference[] = [];
  const field = (path: string, a: unknown, b: unknown) => {
    if (!isDeepStrictEqual(a, b)) out.push({ kind, path, keyword: '-', ours: a, upstream: b });
  };
  field('group', ours.spec.group, upstream.spec.group);
  field('scope', ours.spec.scope, upstream.spec.scope);
  for (const key of ['kind', 'listKind', 'plural', 'singular', 'shortNames', 'categories'] as const) {
    field(`names.${key}`, ours.spec.names[key], upstream.spec.names[key]);
  }
  const summary = (crd: Crd) => crd.spec.versions.map((v) => ({ name: v.name, served: v.served, storage: v.storage, deprecated: v.deprecated ?? false }));
  field('versions', summary(ours), summary(upstream));
  const a = ours.spec.versions.find((v) => v.name === version);
  const b = upstream.spec.versions.find((v) => v.name === version);
  if (!a || !b) return out;
  field(`versions[${version}].subresources`, a.subresources ?? {}, b.subresources ?? {});
  const columns = (cols: typeof a.additionalPrinterColumns) =>
    (cols ?? []).map(({ name, type, jsonPath, format, priority }) => ({ name, type, jsonPath, format, priority: priority ?? 0 }));
  field(`versions[${version}].additionalPrinterColumns`, columns(a.additionalPrinterColumns), columns(b.additionalPrinterColumns));
  compareNode(kind, version, '', a.schema.openAPIV3Schema, b.schema.openAPIV3Schema, out);
  return out;
}

/** Number of schema nodes, to show the walk really went through the tree. */
export function nodeCount(node: SchemaNode): number {
  let n = 0;
  for (const _ of walkSchema(node)) n++;
  return n;
}
