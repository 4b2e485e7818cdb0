// A CustomResourceDefinition read from YAML, reduced to what codegen needs: names, scope and the
// served versions with their schemas. Unserved versions (CAPI's v1alpha3/v1alpha4) are dropped here so
// that nothing downstream can emit them, unless the caller keeps them: our own CRDs carry a version
// before it is served (v1beta2 lands unserved, then is switched on), and its types are wanted first.
import { parseAllDocuments } from 'yaml';
import { CodegenError } from './errors.ts';
import type { Schema } from './schema.ts';

export interface CrdNames {
  readonly kind: string;
  readonly listKind: string;
  readonly plural: string;
  readonly singular: string;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
}

export interface CrdVersion {
  readonly name: string;
  /** False only for a version kept on request (our own CRDs' version before it is switched on). */
  readonly served: boolean;
  readonly storage: boolean;
  readonly deprecated: boolean;
  readonly statusSubresource: boolean;
  readonly scaleSubresource: boolean;
  readonly schema: Schema;
  /** JSON path of the schema inside the file, for error messages. */
  readonly schemaPath: string;
}

export interface Crd {
  /** The file (or URL) it came from. */
  readonly file: string;
  readonly group: string;
  readonly names: CrdNames;
  readonly namespaced: boolean;
  readonly versions: readonly CrdVersion[];
}

/** Where a CRD's bytes came from, for the generated file headers. */
export interface CrdSource {
  readonly label: string;
  /** The upstream release the file comes from; empty for our own crds/ (one file holds every version). */
  readonly version: string;
  readonly sha256: string;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function field<T>(obj: Json, key: string, file: string, path: string, check: (v: unknown) => v is T, what: string): T {
  const value = obj[key];
  if (!check(value)) throw new CodegenError(`${what} expected`, file, `${path}.${key}`);
  return value;
}

const isString = (v: unknown): v is string => typeof v === 'string' && v.length > 0;
const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');

/** Parses every CustomResourceDefinition document in a YAML text. */
export function parseCrds(text: string, file: string, options: { readonly unserved?: boolean } = {}): Crd[] {
  let docs;
  try {
    docs = parseAllDocuments(text, { uniqueKeys: true });
  } catch (cause) {
    throw new CodegenError(`not YAML: ${(cause as Error).message}`, file);
  }
  if (!Array.isArray(docs)) docs = [docs];
  const out: Crd[] = [];
  for (const doc of docs) {
    if (doc.errors.length > 0) throw new CodegenError(`not YAML: ${doc.errors[0]?.message}`, file);
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: 1000 });
    } catch (cause) {
      throw new CodegenError(`not YAML: ${(cause as Error).message}`, file);
    }
    if (value === null || value === undefined) continue;
    if (!isObject(value) || value['kind'] !== 'CustomResourceDefinition') {
      throw new CodegenError('not a CustomResourceDefinition', file, 'kind');
    }
    out.push(readCrd(value, file, options.unserved === true));
  }
  if (out.length === 0) throw new CodegenError('no CustomResourceDefinition in file', file);
  return out;
}

function readCrd(doc: Json, file: string, unserved: boolean): Crd {
  const spec = field(doc, 'spec', file, '', isObject, 'object');
  const group = field(spec, 'group', file, 'spec', isString, 'string');
  const rawNames = field(spec, 'names', file, 'spec', isObject, 'object');
  const kind = field(rawNames, 'kind', file, 'spec.names', isString, 'string');
  const plural = field(rawNames, 'plural', file, 'spec.names', isString, 'string');
  const names: CrdNames = {
    kind,
    plural,
    listKind: isString(rawNames['listKind']) ? rawNames['listKind'] : `${kind}List`,
    singular: isString(rawNames['singular']) ? rawNames['singular'] : kind.toLowerCase(),
    shortNames: isStringArray(rawNames['shortNames']) ? rawNames['shortNames'] : [],
    categories: isStringArray(rawNames['categories']) ? rawNames['categories'] : [],
  };
  const scope = field(spec, 'scope', file, 'spec', isString, 'string');
  if (scope !== 'Namespaced' && scope !== 'Cluster') {
    throw new CodegenError(`scope must be Namespaced or Cluster, got ${JSON.stringify(scope)}`, file, 'spec.scope');
  }
  const rawVersions = field(spec, 'versions', file, 'spec', Array.isArray, 'array');
  const versions: CrdVersion[] = [];
  rawVersions.forEach((raw: unknown, i: number) => {
    const at = `spec.versions[${i}]`;
    if (!isObject(raw)) throw new CodegenError('object expected', file, at);
    const name = field(raw, 'name', file, at, isString, 'string');
    if (raw['served'] !== true && !unserved) return;
    const schemaHolder = field(raw, 'schema', file, at, isObject, 'object');
    const schema = field(schemaHolder, 'openAPIV3Schema', file, `${at}.schema`, isObject, 'object');
    const subresources = isObject(raw['subresources']) ? raw['subresources'] : {};
    versions.push({
      name,
      served: raw['served'] === true,
      storage: raw['storage'] === true,
      deprecated: raw['deprecated'] === true,
      statusSubresource: isObject(subresources['status']),
      scaleSubresource: isObject(subresources['scale']),
      schema: schema as Schema,
      schemaPath: `${at}.schema.openAPIV3Schema`,
    });
  });
  if (versions.length === 0) throw new CodegenError(`no ${unserved ? '' : 'served '}version of ${kind}`, file, 'spec.versions');
  return { file, group, names, namespaced: scope === 'Namespaced', versions };
}
