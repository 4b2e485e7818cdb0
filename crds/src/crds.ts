// Loads our committed CRDs (crds/*.yaml) and the list of intended differences from upstream CAPM3 (the
// pinned upstream CRDs themselves are read by references.ts).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

/** A JSON-schema node as it appears in a CRD; properties are walked by name, never by keyword. */
export interface SchemaNode {
  description?: string;
  type?: string;
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  additionalProperties?: SchemaNode | boolean;
  required?: string[];
  'x-kubernetes-validations'?: ValidationRule[];
  [keyword: string]: unknown;
}

export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: 'FieldValueInvalid' | 'FieldValueRequired' | 'FieldValueForbidden' | 'FieldValueDuplicate';
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

export interface PrinterColumn {
  name: string;
  type: string;
  jsonPath: string;
  description?: string;
  format?: string;
  priority?: number;
}

export interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  subresources?: Record<string, unknown>;
  additionalPrinterColumns?: PrinterColumn[];
  schema: { openAPIV3Schema: SchemaNode };
}

export interface Crd {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: {
    group: string;
    names: { kind: string; listKind: string; plural: string; singular: string; shortNames?: string[]; categories?: string[] };
    scope: string;
    conversion?: { strategy: 'None' | 'Webhook'; webhook?: Record<string, unknown> };
    versions: CrdVersion[];
  };
}

export const group = 'infrastructure.cluster.x-k8s.io';
export const crdDirectory = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The kinds we serve, in the order of the issue. */
export const ourKinds = [
  'Metal3Cluster',
  'Metal3ClusterTemplate',
  'Metal3Machine',
  'Metal3MachineTemplate',
  'Metal3DataTemplate',
  'Metal3Data',
  'Metal3DataClaim',
  'Metal3Remediation',
  'Metal3RemediationTemplate',
] as const;
export type OurKind = (typeof ourKinds)[number];

export interface CrdFile {
  readonly file: string;
  readonly text: string;
  readonly crd: Crd;
}

/** Our CRDs, one file per kind, keyed by kind. */
export function loadOurCrds(directory = crdDirectory): Map<string, CrdFile> {
  const out = new Map<string, CrdFile>();
  for (const file of readdirSync(directory).sort()) {
    if (!/^infrastructure\.cluster\.x-k8s\.io_.*\.yaml$/.test(file)) continue;
    const text = readFileSync(join(directory, file), 'utf8');
    const crd = parse(text) as Crd;
    out.set(crd.spec.names.kind, { file, text, crd });
  }
  return out;
}

export function versionOf(crd: Crd, name = 'v1beta1'): CrdVersion | undefined {
  return crd.spec.versions.find((v) => v.name === name);
}

/** Every schema node with its path (`.spec.image.url`, `[]` for items, `{}` for map values). */
export function* walkSchema(node: SchemaNode, path = ''): Generator<[path: string, node: SchemaNode]> {
  yield [path, node];
  for (const [name, child] of Object.entries(node.properties ?? {})) yield* walkSchema(child, `${path}.${name}`);
  if (node.items) yield* walkSchema(node.items, `${path}[]`);
  if (typeof node.additionalProperties === 'object') yield* walkSchema(node.additionalProperties, `${path}{}`);
}

/** Every description in a CRD: schema nodes and printer columns. */
export function descriptionsOf(crd: Crd): { where: string; text: string }[] {
  const out: { where: string; text: string }[] = [];
  for (const version of crd.spec.versions) {
    for (const column of version.additionalPrinterColumns ?? []) {
      if (column.description) out.push({ where: `${version.name} printer column ${column.name}`, text: column.description });
    }
    for (const [path, node] of walkSchema(version.schema.openAPIV3Schema)) {
      if (typeof node.description === 'string') out.push({ where: `${version.name} ${path || '(root)'}`, text: node.description });
    }
  }
  return out;
}

export interface IntendedDifference {
  /** One kind, or every kind of ourKinds when the file says `'*'`. */
  readonly kind: string;
  /** API version of a schema difference; absent for CRD-level fields (names, the versions list). */
  readonly version?: string;
  readonly path: string;
  readonly keyword: string;
  /** CAPM3 releases (references.ts) the difference is from; absent means every release comparing it. */
  readonly against?: readonly string[];
  readonly reason: string;
}

/** crds/intended-differences.yaml: differences from upstream that we mean to have, `'*'` expanded. */
export function loadIntendedDifferences(directory = crdDirectory): IntendedDifference[] {
  const doc = parse(readFileSync(join(directory, 'intended-differences.yaml'), 'utf8')) as { differences?: IntendedDifference[] };
  return (doc.differences ?? []).flatMap((d) => (d.kind === '*' ? ourKinds.map((kind) => ({ ...d, kind })) : [d]));
}
