// Lossless both ways, for every kind. v1beta2 → v1beta1 keeps the whole v1beta2 body (minus metadata)
// in `cluster.x-k8s.io/conversion-data`, the annotation and format Cluster API and CAPM3 use (CV-2);
// v1beta1 → v1beta2 keeps the whole v1beta1 body in `metal3-ts.dev/v1beta1-data`, so v1beta1-only
// content (noCloudProvider, templateReference, status.phase, ObjectReference kind/uid, ...) survives a
// trip through the hub, which upstream drops (CV-4). Each annotation is written only when the rules
// alone would lose something, and removed on the way back, so it never reaches the version it
// describes. Reading one back is the three-way restore (restore.ts), keeping only the grafts that leave
// the object reading as its writer wrote it. `status` is restored whole or not at all. A /status write
// keeps the stored metadata: at v1beta1 the apiserver converts the whole object, its status new, so
// the annotation is rewritten to match; at v1beta2 (the storage version, no conversion) the annotation
// keeps the v1beta1 status of before. A saved status that no longer matches would hand back stale
// v1beta1-only fields (a phase the controller has since moved past), so a status changed at v1beta2
// converts by the rules alone, as upstream's does. Hubs carry v1beta2's CRD defaults (defaults.ts).
import { canonical, compact, deepEqual, isMap, type Json, type JsonMap } from './json.ts';
import type { KindRules } from './kind.ts';
import { applyGrafts, differences, grafts } from './restore.ts';

/** On v1beta1 objects: the v1beta2 body they were converted from (Cluster API's key, CV-2). */
export const hubDataAnnotation = 'cluster.x-k8s.io/conversion-data';
/** On v1beta2 objects: the v1beta1 body they were converted from (ours). */
export const spokeDataAnnotation = 'metal3-ts.dev/v1beta1-data';

type Direction = 'toHub' | 'toSpoke';

/** Converts `object` (whole, with metadata) the given way, lossless. */
export function convertLossless(rules: KindRules, object: JsonMap, direction: Direction, apiVersion: string): JsonMap {
  const back: Direction = direction === 'toHub' ? 'toSpoke' : 'toHub';
  const readKey = direction === 'toHub' ? hubDataAnnotation : spokeDataAnnotation;
  const writeKey = direction === 'toHub' ? spokeDataAnnotation : hubDataAnnotation;
  // Our key for the other direction means nothing on this version (copied by hand): it is dropped.
  const { metadata, saved } = takeAnnotation(rules.kind, { ...object, metadata: without(object['metadata'], writeKey) }, readKey);
  const source = bodyOf(object);
  let body = rules[direction](source);
  if (saved !== undefined) {
    // What the rules would have made of the saved object after one trip through this version.
    const base = rules[direction](rules[back](saved));
    // A graft that makes the object read back, in the version it came from, less like what was written
    // there is an edit the rules could not tell apart (`""` for unset): the edit wins.
    const before = differences(rules[back](body), source);
    const kept = grafts(base, saved, body, new Set([...rules.atomic, 'status']))
      .filter((g) => [...differences(rules[back](applyGrafts(body, [g])), source)].every((path) => before.has(path)));
    body = applyGrafts(body, kept);
  }
  const out: JsonMap = { ...body, apiVersion, kind: rules.kind, metadata };
  if (!deepEqual(withoutType(rules[back](body)), withoutType(source))) {
    const value = canonical({ ...source, apiVersion: String(object['apiVersion']), kind: rules.kind });
    if (fits(metadata, writeKey, value)) out['metadata'] = withAnnotation(metadata, writeKey, value);
  }
  return out;
}

/** The apiserver refuses objects whose annotations pass 256 KiB (keys and values, UTF-8). */
export const annotationBudget = 256 * 1024;
const utf8 = new TextEncoder();

/**
 * Whether the annotation fits beside the others. One that does not is left out: the object then
 * converts as upstream's would (lossy where v1beta2 cannot say it) instead of being refused.
 */
function fits(metadata: JsonMap, key: string, value: string): boolean {
  const others = isMap(metadata['annotations']) ? Object.entries(metadata['annotations']) : [];
  const size = [[key, value], ...others].reduce((n, [k, v]) => n + utf8.encode(k).length + utf8.encode(String(v)).length, 0);
  return size <= annotationBudget;
}

function bodyOf(object: JsonMap): JsonMap {
  const { metadata: _m, apiVersion: _a, kind: _k, ...body } = object;
  return body;
}

function withoutType(body: JsonMap): JsonMap {
  const { apiVersion: _a, kind: _k, ...rest } = body;
  return rest;
}

/** `metadata` without the annotation `key`; an annotations map left empty goes too. */
function without(metadata: Json | undefined, key: string): JsonMap {
  const m = isMap(metadata) ? metadata : {};
  const annotations = isMap(m['annotations']) ? m['annotations'] : undefined;
  if (annotations === undefined || !(key in annotations)) return m;
  const { [key]: _gone, ...rest } = annotations;
  return compact({ ...m, annotations: Object.keys(rest).length > 0 ? rest : undefined });
}

function takeAnnotation(kind: string, object: JsonMap, key: string): { metadata: JsonMap; saved: JsonMap | undefined } {
  const metadata = isMap(object['metadata']) ? object['metadata'] : {};
  const text = isMap(metadata['annotations']) ? metadata['annotations'][key] : undefined;
  if (text === undefined) return { metadata, saved: undefined };
  const trimmed = without(metadata, key);
  let parsed: Json;
  try {
    parsed = typeof text === 'string' ? JSON.parse(text) as Json : null;
  } catch {
    parsed = null;
  }
  // A damaged annotation loses only what it would have restored; the object itself still converts.
  // So does one copied from an object of another kind.
  if (!isMap(parsed) || (parsed['kind'] !== undefined && parsed['kind'] !== kind)) return { metadata: trimmed, saved: undefined };
  return { metadata: trimmed, saved: bodyOf(parsed) };
}

function withAnnotation(metadata: JsonMap, key: string, value: string): JsonMap {
  const annotations = isMap(metadata['annotations']) ? metadata['annotations'] : {};
  return { ...metadata, annotations: { ...annotations, [key]: value } };
}
