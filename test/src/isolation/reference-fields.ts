// Every reference field of our kinds, read from the generated types (issue 21), so a reference field a
// CRD change adds shows up here without anyone listing it. The generated module is plain codegen output
// with one `export interface` per schema object, which this reads as text: a field is a reference when
// its type has a `namespace` property (ObjectReference, the Secret references) and a local reference
// when its type is a `*LocalObjectReference` (no namespace to name: resolved in the object's own).
// ObjectMeta is not a reference (metadata.namespace is the object's own), nor are ownerReferences.
import { readFileSync } from 'node:fs';
import { resources } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';

export interface ReferenceField {
  readonly kind: string;
  /** The field path, `[]` for list items (`spec.template`, `status.renderedData`). */
  readonly path: string;
  /** False for a *LocalObjectReference: the schema gives it no namespace at all. */
  readonly namespaced: boolean;
}

type Fields = Map<string, string>;

const GENERATED = new URL('../../../generated/src/', import.meta.url);
const NOT_REFERENCES = new Set(['ObjectMeta', 'ListMeta', 'ObjectMetaTemplate', 'OwnerReference']);

/** `export interface Name { prop?: Type; … }` blocks of a generated module, as name → prop → type. */
export function interfacesOf(source: string): Map<string, Fields> {
  const out = new Map<string, Fields>();
  for (const block of source.matchAll(/^export interface (\w+)(?:<[^>]*>)? \{\n([\s\S]*?)^\}/gm)) {
    const fields: Fields = new Map();
    for (const line of (block[2] ?? '').matchAll(/^ {2}(\w+)\??: (.+);$/gm)) fields.set(line[1] ?? '', line[2] ?? '');
    out.set(block[1] ?? '', fields);
  }
  return out;
}

/** The interface a property type leads to, and the path suffix it adds (`[]` lists, `{}` maps). */
function element(type: string): { name: string; suffix: string } {
  const list = /^(\w+)\[\]$/.exec(type);
  if (list) return { name: list[1] ?? '', suffix: '[]' };
  const map = /^Record<string, (\w+)>$/.exec(type);
  if (map) return { name: map[1] ?? '', suffix: '{}' };
  return { name: type, suffix: '' };
}

/** Walks spec and status of every kind of infrastructure.cluster.x-k8s.io/v1beta1. */
export function referenceFields(): ReferenceField[] {
  const read = (file: string) => readFileSync(new URL(file, GENERATED), 'utf8');
  const types = new Map([...interfacesOf(read('runtime/meta.ts')), ...interfacesOf(read('infrastructure.cluster.x-k8s.io/v1beta1.ts'))]);
  const found: ReferenceField[] = [];
  const walk = (kind: string, typeName: string, path: string, depth: number): void => {
    const fields = types.get(typeName);
    if (!fields || depth > 12) return;
    for (const [prop, type] of fields) {
      const { name, suffix } = element(type);
      const target = types.get(name);
      if (!target || NOT_REFERENCES.has(name)) continue;
      const at = `${path}.${prop}${suffix}`;
      if (target.has('namespace')) found.push({ kind, path: at, namespaced: true });
      else if (name.endsWith('LocalObjectReference')) found.push({ kind, path: at, namespaced: false });
      else walk(kind, name, at, depth + 1);
    }
  };
  for (const resource of resources) {
    const root = types.get(resource.kind);
    for (const part of ['spec', 'status']) {
      const type = root?.get(part);
      if (type) walk(resource.kind, element(type).name, part, 0);
    }
  }
  return found;
}
