// Test support: checks a value against a CRD's structural openAPI schema the way the apiserver would,
// minus CEL: unknown fields (which the apiserver would prune: silent loss), types, required fields,
// enums, bounds, lengths, patterns, formats (date-time) and list-map/set uniqueness.
import type { Json, JsonMap } from '../json.ts';
import { isMap } from '../json.ts';
import type { Schema } from './schemas.ts';

export function validate(schema: Schema, value: Json | undefined, path = ''): string[] {
  if (value === undefined) return [];
  const errors: string[] = [];
  const fail = (what: string) => errors.push(`${path || '<root>'}: ${what}`);
  if (schema.enum && !schema.enum.includes(value)) fail(`${JSON.stringify(value)} not in enum`);
  if (schema['x-kubernetes-preserve-unknown-fields'] && !schema.properties) return errors;
  switch (schema.type) {
    case 'string':
      if (typeof value !== 'string') return [...errors, `${path}: not a string`];
      if (schema.maxLength !== undefined && [...value].length > schema.maxLength) fail('too long');
      if (schema.minLength !== undefined && [...value].length < schema.minLength) fail('too short');
      if (schema.pattern && !new RegExp(schema.pattern).test(value)) fail(`${JSON.stringify(value)} does not match ${schema.pattern}`);
      if (schema.format === 'date-time' && Number.isNaN(Date.parse(value))) fail('not a date-time');
      break;
    case 'integer':
      if (typeof value !== 'number' || !Number.isInteger(value)) return [...errors, `${path}: not an integer`];
      if (schema.maximum !== undefined && value > schema.maximum) fail('above maximum');
      if (schema.minimum !== undefined && value < schema.minimum) fail('below minimum');
      if (schema.format === 'int32' && (value > 2147483647 || value < -2147483648)) fail('not an int32');
      break;
    case 'boolean':
      if (typeof value !== 'boolean') fail('not a boolean');
      break;
    case 'array':
      if (!Array.isArray(value)) return [...errors, `${path}: not an array`];
      if (schema.maxItems !== undefined && value.length > schema.maxItems) fail('too many items');
      if (schema.minItems !== undefined && value.length < schema.minItems) fail('too few items');
      errors.push(...uniqueness(schema, value, path));
      value.forEach((item, i) => errors.push(...validate(schema.items ?? {}, item, `${path}[${i}]`)));
      break;
    default:
      if (!isMap(value)) return [...errors, `${path}: not an object`];
      errors.push(...validateObject(schema, value, path));
  }
  return errors;
}

function validateObject(schema: Schema, value: JsonMap, path: string): string[] {
  const errors: string[] = [];
  const top = path === '';
  for (const name of schema.required ?? []) if (!(name in value)) errors.push(`${path}.${name}: required`);
  if (schema.minProperties !== undefined && Object.keys(value).length < schema.minProperties) errors.push(`${path}: too few properties`);
  for (const [name, child] of Object.entries(value)) {
    if (top && ['apiVersion', 'kind', 'metadata'].includes(name)) continue;
    const known = schema.properties?.[name];
    const extra = schema.additionalProperties;
    if (known) errors.push(...validate(known, child, `${path}.${name}`));
    else if (typeof extra === 'object') errors.push(...validate(extra, child, `${path}{${name}}`));
    else if (!schema['x-kubernetes-preserve-unknown-fields'] && extra !== true) errors.push(`${path}.${name}: unknown field (pruned)`);
  }
  return errors;
}

function uniqueness(schema: Schema, value: Json[], path: string): string[] {
  const keys = schema['x-kubernetes-list-map-keys'];
  const seen = new Set<string>();
  for (const item of value) {
    const id = schema['x-kubernetes-list-type'] === 'set' ? JSON.stringify(item) : keys && isMap(item) ? JSON.stringify(keys.map((k) => item[k])) : undefined;
    if (id === undefined) continue;
    if (seen.has(id)) return [`${path}: duplicate ${id}`];
    seen.add(id);
  }
  return [];
}
