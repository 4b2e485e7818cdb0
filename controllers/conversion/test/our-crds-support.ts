// Test support for our-crds.test.ts: test-only copies of our nine CRDs (crds/*.yaml) serving v1beta1
// and v1beta2, v1beta2 the storage version, converting through the webhook at a URL (the install
// still serves v1beta1 only: this is the switch, tried in a test apiserver of its own), and the
// comparisons the test makes, which name every differing path so a failure says what was lost.
import { storingV1beta2 } from '@metal3-ts/test/envtest/conversion';
import { type CrdSource, loadOurCrds } from '@metal3-ts/test/envtest/crds';
import type { KubeObject } from '@metal3-ts/test/envtest/http';
import { canonical, isMap, type Json, type JsonMap } from '../src/convert/json.ts';
import { plurals, type Schema, schemaOf } from '../src/convert/testing/schemas.ts';
import type { Version } from '../src/convert/testing/samples.ts';

/** Our nine CRDs with both versions served, v1beta2 stored, conversion by the webhook at `url` trusting `caPem` (the test environment's switch). */
export function ourCrdsWithWebhook(url: string, caPem: string): CrdSource[] {
  const sources = loadOurCrds();
  if (sources.length !== 9) throw new Error(`expected our nine CRDs, found ${sources.length}`);
  return storingV1beta2(sources, url, caPem);
}

/** Whether `kind` has a status subresource at `version` in our CRD (a create then drops `status`). */
export function hasStatusSubresource(kind: string, version: Version): boolean {
  const crd = loadOurCrds().find((s) => s.crd.spec.names.kind === kind)?.crd;
  const v = crd?.spec.versions.find((x) => x.name === version) as { subresources?: { status?: unknown } } | undefined;
  return v?.subresources?.status !== undefined;
}

export const resourcePath = (version: Version, namespace: string, kind: string, name?: string) =>
  `/apis/infrastructure.cluster.x-k8s.io/${version}/namespaces/${namespace}/${plurals[kind]}${name ? `/${name}` : ''}`;

/**
 * What the apiserver sets on every object whatever was written: identity, version, bookkeeping. All
 * of the rest (name, namespace, labels, annotations, spec, status) must read back as written.
 */
const serverSet = ['uid', 'resourceVersion', 'generation', 'creationTimestamp', 'managedFields'];

export function asWritten(object: KubeObject | JsonMap): JsonMap {
  const o = object as JsonMap;
  const metadata = { ...(o['metadata'] as JsonMap) };
  for (const key of serverSet) delete metadata[key];
  return { ...o, metadata };
}

/** The paths at which `actual` differs from `expected` (`+` only in actual, `-` only in expected, `~` changed). */
export function differences(expected: Json | undefined, actual: Json | undefined, path = ''): string[] {
  if (canonical(expected) === canonical(actual)) return [];
  if (expected === undefined) return [`+${path}`];
  if (actual === undefined) return [`-${path}`];
  if (isMap(expected) && isMap(actual)) {
    const keys = [...new Set([...Object.keys(expected), ...Object.keys(actual)])].sort();
    return keys.flatMap((k) => differences(expected[k], actual[k], `${path}.${k}`));
  }
  if (Array.isArray(expected) && Array.isArray(actual) && expected.length === actual.length) {
    return expected.flatMap((item, i) => differences(item, actual[i], `${path}[${i}]`));
  }
  return [`~${path}`];
}

/**
 * The missing paths (`-`) of a read at `version` that our CRD's schema of that version has no field
 * for: the apiserver pruned them from the converted object (a schema gap, not a conversion fault).
 */
export function pruned(kind: string, version: Version, diffs: readonly string[]): string[] {
  const schema = schemaOf(kind, version, 'ours');
  return diffs.filter((d) => d.startsWith('-.spec') || d.startsWith('-.status')).map((d) => d.slice(1)).filter((p) => !holds(schema, p));
}

/** Whether `schema` has room for the value at `path` (`.a[0].b`): a property, a map value, or unknown fields kept. */
function holds(schema: Schema | undefined, path: string): boolean {
  const [, head, rest] = /^(\.[^.[]+|\[\d+\])(.*)$/.exec(path) ?? [];
  if (!schema || head === undefined) return schema !== undefined;
  if (head.startsWith('[')) return holds(schema.items, rest!);
  const child = schema.properties?.[head.slice(1)];
  if (child) return holds(child, rest!);
  if (typeof schema.additionalProperties === 'object') return holds(schema.additionalProperties, rest!);
  return schema['x-kubernetes-preserve-unknown-fields'] === true || schema.additionalProperties === true;
}

/** A failure message naming what differs, pruning first (the schema gap it reveals), then the objects. */
export function explain(where: string, kind: string, version: Version, expected: JsonMap, actual: JsonMap): string {
  const diffs = differences(expected, actual);
  const gaps = pruned(kind, version, diffs);
  return [
    `${where}: read at ${version} differs from what was written at ${diffs.join(', ')}`,
    ...(gaps.length > 0 ? [`  pruned by the apiserver (our ${version} CRD has no such field: a schema gap): ${gaps.join(', ')}`] : []),
    `  written ${canonical(expected)}`,
    `  read    ${canonical(actual)}`,
  ].join('\n');
}

export const quantile = (sorted: readonly number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
