// Test support: the edit property. An object is converted to the other version (now carrying an
// annotation about its old content), edited there (its spec and status replaced by those of a fresh
// sample of that version, or, for every other seed, one field at any depth replaced by the fresh
// sample's), read back into the first version and written back unchanged. Converted once more, the
// edited version must see exactly its edit: a stale annotation never leaks into it.
import type { KubeObject } from '@metal3-ts/generated';
import { convertObject, hubVersion, spokeVersion } from '../index.ts';
import { canonical, isMap, type Json, type JsonMap } from '../json.ts';
import { Random } from './random.ts';
import { sample } from './property.ts';
import type { Source } from './schemas.ts';

const convert = (o: JsonMap, to: string) => convertObject(o as unknown as KubeObject, to) as unknown as JsonMap;
const body = (o: JsonMap) => canonical({ spec: o['spec'] ?? null, status: o['status'] ?? null });

export function editTrip(kind: string, from: 'v1beta1' | 'v1beta2', source: Source, samples: number, firstSeed: number): string[] {
  const failures: string[] = [];
  const [there, thereVersion] = from === 'v1beta1' ? ['v1beta2' as const, hubVersion] : ['v1beta1' as const, spokeVersion];
  const home = from === 'v1beta1' ? spokeVersion : hubVersion;
  for (let seed = firstSeed; seed < firstSeed + samples && failures.length < 3; seed++) {
    const original = sample(kind, from, source, seed);
    const converted = convert(original, thereVersion);
    const edit = sample(kind, there, there === 'v1beta2' ? 'capm3-v1.13.2' : source, seed + 1_000_000);
    const edited = seed % 2 === 0 ? wholeEdit(converted, edit) : fieldEdit(converted, edit, new Random(seed));
    const readBack = convert(edited, home);
    const seen = convert(readBack, thereVersion);
    if (body(seen) !== body(edited)) {
      failures.push(
        `${kind} ${from} (${source}) seed ${seed}: the edit did not survive\n  edited ${body(edited)}\n  seen   ${body(seen)}\n  home   ${canonical(readBack)}`,
      );
    }
  }
  return failures;
}

function wholeEdit(converted: JsonMap, edit: JsonMap): JsonMap {
  const edited: JsonMap = { ...converted, spec: edit['spec'] ?? null, status: edit['status'] ?? null };
  if (edit['status'] === undefined) delete edited['status'];
  return edited;
}

/** Paths (through objects, not lists) present in both `a` and `b`. */
function sharedPaths(a: Json | undefined, b: Json | undefined, path: string[], out: string[][]): string[][] {
  if (!isMap(a) || !isMap(b)) return out;
  for (const key of Object.keys(a)) {
    if (!(key in b) || (path.length === 0 && !['spec', 'status'].includes(key))) continue;
    out.push([...path, key]);
    sharedPaths(a[key], b[key], [...path, key], out);
  }
  return out;
}

function fieldEdit(converted: JsonMap, edit: JsonMap, rng: Random): JsonMap {
  const edited = structuredClone(converted);
  const paths = sharedPaths(converted, edit, [], []).filter((p) => canonical(at(converted, p)) !== canonical(at(edit, p)));
  if (paths.length === 0) return wholeEdit(converted, edit);
  const path = rng.pick(paths);
  const parent = at(edited, path.slice(0, -1)) as JsonMap;
  parent[path[path.length - 1]!] = structuredClone(at(edit, path)) as Json;
  return edited;
}

function at(value: Json | undefined, path: string[]): Json | undefined {
  return path.reduce<Json | undefined>((v, key) => (isMap(v) ? v[key] : undefined), value);
}
