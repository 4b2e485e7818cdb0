// Test support: which schema paths a set of samples exercised, so the property tests can show that
// every optional field was present in some samples and absent in others.
import { isMap, type Json } from '../json.ts';
import type { Schema } from './schemas.ts';

/** Every field path of a schema (`[]` list items, `{}` map values), with whether it is required. */
export function schemaPaths(schema: Schema, path = '', required = false, out = new Map<string, boolean>()): Map<string, boolean> {
  if (path !== '') out.set(path, required);
  for (const [name, child] of Object.entries(schema.properties ?? {})) {
    if (path === '' && ['apiVersion', 'kind', 'metadata'].includes(name)) continue;
    schemaPaths(child, `${path}.${name}`, (schema.required ?? []).includes(name), out);
  }
  if (schema.items) schemaPaths(schema.items, `${path}[]`, false, out);
  if (typeof schema.additionalProperties === 'object') schemaPaths(schema.additionalProperties, `${path}{}`, false, out);
  return out;
}

/** Adds the paths present in `value` to `seen` (once per sample). */
export function presentPaths(value: Json, schema: Schema, path = '', seen = new Set<string>()): Set<string> {
  if (path !== '') seen.add(path);
  if (Array.isArray(value)) { for (const item of value) presentPaths(item, schema.items ?? {}, `${path}[]`, seen); }
  else if (isMap(value) && !(schema['x-kubernetes-preserve-unknown-fields'] && !schema.properties)) {
    for (const [name, child] of Object.entries(value)) {
      if (path === '' && ['apiVersion', 'kind', 'metadata'].includes(name)) continue;
      const known = schema.properties?.[name];
      const extra = typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
      if (known) presentPaths(child, known, `${path}.${name}`, seen);
      else if (extra) presentPaths(child, extra, `${path}{}`, seen);
    }
  }
  return seen;
}
