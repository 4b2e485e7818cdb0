// Test support: the round-trip property. A seeded sample of one version is converted to the other and
// back; the result must be byte-identical (canonical key order) to the sample, the intermediate object
// valid for its version's schema (nothing the apiserver would prune or reject), and the failure
// message names the seed that reproduces it.
import { applyHubDefaults, convertObject, hubDefaults, hubVersion, spokeVersion } from '../index.ts';
import { canonical, type Json, type JsonMap } from '../json.ts';
import { v1beta1Rules } from './cel.ts';
import { presentPaths, schemaPaths } from './coverage.ts';
import { generate } from './generate.ts';
import { Random } from './random.ts';
import { schemaOf, type Source } from './schemas.ts';
import { validate } from './validate.ts';
import type { KubeObject } from '@metal3-ts/generated';

export interface Trip {
  readonly kind: string;
  readonly from: 'v1beta1' | 'v1beta2';
  /** Where the sample's schema comes from (v1beta2 is always CAPM3 v1.13.2's). */
  readonly source: Source;
  readonly samples: number;
  readonly firstSeed: number;
}

export interface TripResult {
  readonly failures: string[];
  /** Samples whose trip needed the annotation (the rules alone would have lost something). */
  readonly annotated: number;
  /** Optional schema paths present in no sample, and paths present in every sample though optional. */
  readonly neverPresent: string[];
  readonly alwaysPresent: string[];
}

function metadata(rng: Random): JsonMap {
  const meta: JsonMap = { name: `obj-${rng.int(0, 999)}`, namespace: rng.pick(['default', 'metal3']) };
  if (rng.chance(0.3)) meta['labels'] = { 'cluster.x-k8s.io/cluster-name': 'c1' };
  if (rng.chance(0.3)) meta['annotations'] = { 'example.com/note': rng.pick(['a', '{"json":true}']) };
  return meta;
}

/**
 * What v1beta2 forbids that v1beta1 allows and no rule can mend without inventing data: "" where v1beta2
 * wants a non-empty string, duplicate list-map keys or set items, values outside v1beta2's patterns or
 * minima (an MTU under 1280), a bond without parameters. The converted object keeps the v1beta1 value
 * (the apiserver does not validate conversion output); every other check (unknown fields, types, enums,
 * required fields, maxima) must pass.
 */
const tightened = /: (too short|duplicate .*|.* does not match .*|below minimum|too few items)$|\.parameters: required$/;

/**
 * A seeded sample of `kind` at `version`. A v1beta2 one has our v1beta2 CRD defaults in place: every
 * v1beta2 object the apiserver stores or returns has them (it defaults what it reads from etcd), and the
 * conversion's hubs carry them too (defaults.ts).
 */
export function sample(kind: string, version: 'v1beta1' | 'v1beta2', source: Source, seed: number): JsonMap {
  const rng = new Random(seed);
  let body = generate(schemaOf(kind, version, source), rng) as JsonMap;
  if (version === 'v1beta1') v1beta1Rules[kind]?.(body, rng);
  else body = applyHubDefaults(kind, body);
  return { apiVersion: version === 'v1beta1' ? spokeVersion : hubVersion, kind, metadata: metadata(rng), ...body };
}

export function roundTrip(trip: Trip): TripResult {
  const failures: string[] = [];
  let annotated = 0;
  const schema = schemaOf(trip.kind, trip.from, trip.source);
  const presence = new Map<string, number>();
  const [to, toSchema] = trip.from === 'v1beta1' ? [hubVersion, 'v1beta2' as const] : [spokeVersion, 'v1beta1' as const];
  const back = trip.from === 'v1beta1' ? spokeVersion : hubVersion;
  for (let seed = trip.firstSeed; seed < trip.firstSeed + trip.samples && failures.length < 3; seed++) {
    const where = `${trip.kind} ${trip.from} (${trip.source}) seed ${seed}`;
    const original = sample(trip.kind, trip.from, trip.source, seed);
    for (const path of presentPaths(original as Json, schema)) presence.set(path, (presence.get(path) ?? 0) + 1);
    const invalid = validate(schema, original as Json);
    if (invalid.length > 0) failures.push(`${where}: the sample is invalid: ${invalid.join('; ')}`);
    const there = convertObject(original as unknown as KubeObject, to) as unknown as JsonMap;
    const errors = validate(schemaOf(trip.kind, toSchema, 'capm3-v1.13.2'), there as Json).filter((e) => trip.from === 'v1beta2' || !tightened.test(e));
    if (errors.length > 0) failures.push(`${where}: converted object invalid: ${errors.join('; ')}\n${canonical(there)}`);
    const annotations = (there['metadata'] as JsonMap)['annotations'] as JsonMap | undefined;
    if (annotations && Object.keys(annotations).some((k) => k.endsWith('conversion-data') || k.endsWith('v1beta1-data'))) annotated++;
    const returned = convertObject(there as unknown as KubeObject, back) as unknown as JsonMap;
    if (canonical(returned) !== canonical(original)) {
      failures.push(`${where}: not lossless\n  original ${canonical(original)}\n  there    ${canonical(there)}\n  back     ${canonical(returned)}`);
    }
  }
  const paths = [...schemaPaths(schema)];
  const neverPresent = paths.filter(([path]) => !presence.has(path)).map(([path]) => path);
  const defaulted = new Set(trip.from === 'v1beta2' ? (hubDefaults[trip.kind] ?? []).map(([path]) => `.${path}`) : []);
  const alwaysPresent = paths.filter(([path, required]) => !required && path !== '.spec' && !defaulted.has(path) && presence.get(path) === trip.samples)
    .map(([path]) => path);
  return { failures, annotated, neverPresent, alwaysPresent };
}
