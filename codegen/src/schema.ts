// The structural OpenAPI v3 schema of a CRD version, and the checks codegen runs before trusting it.
// Properties are walked as names, never as keywords: CAPI and BMO have fields called `type`, `format`,
// `default` and `required`, which a naive walker would mistake for schema keywords.
import { CodegenError } from './errors.ts';

export interface Schema {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  description?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  additionalProperties?: Schema | boolean;
  enum?: unknown[];
  format?: string;
  default?: unknown;
  nullable?: boolean;
  anyOf?: Schema[];
  allOf?: Schema[];
  oneOf?: Schema[];
  not?: Schema;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  'x-kubernetes-validations'?: unknown[];
  [keyword: string]: unknown;
}

/** Every keyword a CRD schema may carry; anything else is an error, not a silent `any`. */
const KNOWN = new Set([
  'type',
  'description',
  'title',
  'properties',
  'required',
  'items',
  'additionalProperties',
  'enum',
  'format',
  'default',
  'nullable',
  'anyOf',
  'allOf',
  'oneOf',
  'not',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'example',
  'externalDocs',
  'x-kubernetes-int-or-string',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-map-type',
  'x-kubernetes-validations',
]);

const TYPES = new Set(['object', 'array', 'string', 'integer', 'number', 'boolean']);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A JSON path segment: `.name` when it is an identifier, `["a.b"]` otherwise. */
export function pathJoin(path: string, name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? `${path}.${name}` : `${path}[${JSON.stringify(name)}]`;
}

/**
 * Throws a CodegenError naming the file and JSON path of the first unknown keyword or
 * non-structural node. `junction` marks nodes inside anyOf/allOf/oneOf/not, which may omit `type`.
 */
export function checkSchema(schema: unknown, file: string, path: string, junction = false): void {
  if (!isPlainObject(schema)) throw new CodegenError('schema object expected', file, path);
  for (const key of Object.keys(schema)) {
    if (!KNOWN.has(key)) throw new CodegenError(`unknown schema keyword ${JSON.stringify(key)}`, file, path);
  }
  const s = schema as Schema;
  const typeless = s['x-kubernetes-int-or-string'] === true || s['x-kubernetes-preserve-unknown-fields'] === true;
  if (s.type === undefined) {
    if (!typeless && !junction) {
      throw new CodegenError('non-structural schema: node has no type (and is not int-or-string or preserve-unknown-fields)', file, path);
    }
  } else if (!TYPES.has(s.type)) {
    throw new CodegenError(`unknown type ${JSON.stringify(s.type)}`, file, `${path}.type`);
  }
  if (s.properties !== undefined) {
    if (!isPlainObject(s.properties)) throw new CodegenError('properties must be an object', file, `${path}.properties`);
    if (s.type !== undefined && s.type !== 'object') {
      throw new CodegenError(`properties on a node of type ${s.type}`, file, `${path}.properties`);
    }
    for (const [name, child] of Object.entries(s.properties)) checkSchema(child, file, pathJoin(`${path}.properties`, name));
  }
  if (s.required !== undefined && !(Array.isArray(s.required) && s.required.every((r) => typeof r === 'string'))) {
    throw new CodegenError('required must be a list of names', file, `${path}.required`);
  }
  if (s.type === 'array' && s.items === undefined) {
    throw new CodegenError('non-structural schema: array without items', file, path);
  }
  if (s.items !== undefined) checkSchema(s.items, file, `${path}.items`);
  if (isPlainObject(s.additionalProperties)) checkSchema(s.additionalProperties, file, `${path}.additionalProperties`);
  if (s.properties !== undefined && isPlainObject(s.additionalProperties)) {
    throw new CodegenError('non-structural schema: both properties and additionalProperties', file, path);
  }
  for (const key of ['anyOf', 'allOf', 'oneOf'] as const) {
    const list = s[key];
    if (list === undefined) continue;
    if (!Array.isArray(list)) throw new CodegenError(`${key} must be a list`, file, `${path}.${key}`);
    list.forEach((sub, i) => checkSchema(sub, file, `${path}.${key}[${i}]`, true));
  }
  if (s.not !== undefined) checkSchema(s.not, file, `${path}.not`, true);
  if (s.enum !== undefined && !Array.isArray(s.enum)) throw new CodegenError('enum must be a list', file, `${path}.enum`);
}
