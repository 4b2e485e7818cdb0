// Test support: random objects built from a CRD's openAPI schema. Every optional field is present in
// some samples and absent in others; enums, formats, patterns, lengths, integer ranges, maps and lists
// (unique list-map keys and set items) are honoured, so a sample is valid for its schema. Patterns are
// met by picking from a pool of example values that match them; durations by a pool of Go durations.
import type { Json, JsonMap } from '../json.ts';
import type { Random } from './random.ts';
import type { Schema } from './schemas.ts';

const patternPool = [
  '10.0.0.1',
  '192.168.1.254',
  '0.0.0.0',
  '255.255.255.0',
  '172.16.0.10',
  '2001:db8::1',
  'fe80::1',
  '2001:db8:0:0:0:0:0:1',
  '::1',
  'fd00::a:b',
  'eth0',
  'bond0',
  'vlan.100',
  'ens3_1',
  'Ready',
  'IPPool',
  'ipam.metal3.io',
  'pool-1',
  'a.b-c',
  'InfrastructureReady',
  'Provisioned',
  'example.com/Ready',
  'BMH_OK',
  'x',
];

const durations = ['600s', '10m', '1h', '100s', '1h2m3.5s', '2h30m', '150000ms', '1.5h', '3m20s', '101.9s', '86400s'];
const words = ['alpha', 'beta', 'node', 'pool', 'rack-1', 'zone.a', 'x', 'Ünïcode', 'with space', '0'];

export interface GenerateOptions {
  /** Probability that an optional field is present at depth 0 (falls with depth). */
  readonly presence?: number;
}

export function generate(schema: Schema, rng: Random, path = '', depth = 0): Json {
  if (schema.enum && schema.enum.length > 0) return rng.pick(schema.enum) as Json;
  if (schema['x-kubernetes-preserve-unknown-fields'] && !schema.properties) return anyJson(schema.type, rng);
  switch (schema.type) {
    case 'string':
      return stringFor(schema, rng, path);
    case 'integer':
      return integerFor(schema, rng);
    case 'number':
      return rng.int(0, 1000) / 4;
    case 'boolean':
      return rng.chance(0.5);
    case 'array':
      return arrayFor(schema, rng, path, depth);
    default:
      return objectFor(schema, rng, path, depth);
  }
}

function stringFor(schema: Schema, rng: Random, path: string): string {
  if (path.endsWith('.timeout')) return rng.pick(durations);
  if (schema.format === 'date-time') {
    return new Date(Date.UTC(2026, rng.int(0, 11), rng.int(1, 28), rng.int(0, 23), rng.int(0, 59), rng.int(0, 59))).toISOString().replace('.000', '');
  }
  if (schema.format === 'uri' || path.endsWith('.url')) {
    return rng.pick(['http://img.example/ubuntu.qcow2', 'https://10.0.0.2/img/rhel.raw', 'http://h:8080/a?b=c']);
  }
  if (schema.pattern) {
    const re = new RegExp(schema.pattern);
    const fits = patternPool.filter((s) => re.test(s) && s.length >= (schema.minLength ?? 0) && s.length <= (schema.maxLength ?? Infinity));
    if (fits.length === 0) throw new Error(`no pool value matches ${path} pattern ${schema.pattern}`);
    return rng.pick(fits);
  }
  const min = schema.minLength ?? 0;
  const max = Math.min(schema.maxLength ?? 24, 24);
  if (min === 0 && rng.chance(0.1)) return '';
  let s = rng.chance(0.5) ? rng.pick(words) : '';
  while (s.length < min || (s.length === 0 && max > 0 && rng.chance(0.7))) s += rng.pick(words);
  return s.slice(0, max).padEnd(min, 'z');
}

function integerFor(schema: Schema, rng: Random): number {
  const min = schema.minimum ?? (rng.chance(0.1) ? -5 : 0);
  const max = schema.maximum ?? (schema.format === 'int32' ? 2147483647 : 100000);
  const edges = [min, max, min + 1].filter((n) => n <= max);
  return rng.chance(0.2) ? rng.pick(edges) : rng.int(min, Math.min(max, min + 5000));
}

function anyJson(type: string | undefined, rng: Random): Json {
  if (type === 'object' || rng.chance(0.3)) return { [rng.pick(words)]: rng.pick([1, 'two', true, null, [1, 2]]) };
  return rng.pick(['802.3ad', 100, true, ['a', 'b'], 1.5]);
}

function arrayFor(schema: Schema, rng: Random, path: string, depth: number): Json[] {
  const min = schema.minItems ?? 0;
  const max = Math.min(schema.maxItems ?? 3, 3);
  const count = rng.int(min, Math.max(min, max));
  const keys = schema['x-kubernetes-list-map-keys'] ?? [];
  const set = schema['x-kubernetes-list-type'] === 'set';
  const out: Json[] = [];
  for (let tries = 0; out.length < count && tries < count * 10; tries++) {
    const item = generate(schema.items ?? {}, rng, `${path}[]`, depth + 1);
    const clash = out.some((other) =>
      set
        ? JSON.stringify(other) === JSON.stringify(item)
        : keys.length > 0 && keys.every((k) => JSON.stringify((other as JsonMap)[k]) === JSON.stringify((item as JsonMap)[k]))
    );
    if (!clash) out.push(item);
  }
  if (out.length < min) throw new Error(`could not make ${min} distinct items for ${path}`);
  return out;
}

function objectFor(schema: Schema, rng: Random, path: string, depth: number): JsonMap {
  const out: JsonMap = {};
  const required = new Set(schema.required ?? []);
  const presence = Math.max(0.3, 0.7 - depth * 0.07);
  const properties = Object.entries(schema.properties ?? {}).filter(([name]) => !(depth === 0 && ['apiVersion', 'kind', 'metadata'].includes(name)));
  for (const [name, child] of properties) {
    // Every real object has a spec; a sample without one would test nothing.
    if (required.has(name) || (depth === 0 && name === 'spec') || rng.chance(presence)) out[name] = generate(child, rng, `${path}.${name}`, depth + 1);
  }
  const extra = schema.additionalProperties;
  if (typeof extra === 'object') {
    for (let i = rng.int(0, 3); i > 0; i--) out[rng.pick(words) + String(rng.int(0, 99))] = generate(extra, rng, `${path}{}`, depth + 1);
  }
  // minProperties: add optional properties until there are enough.
  for (const [name, child] of properties) {
    if (Object.keys(out).length >= (schema.minProperties ?? 0)) break;
    if (!(name in out)) out[name] = generate(child, rng, `${path}.${name}`, depth + 1);
  }
  if (Object.keys(out).length < (schema.minProperties ?? 0) && typeof extra === 'object') out['k'] = generate(extra, rng, `${path}{}`, depth + 1);
  return out;
}
