// The three-way restore that makes conversion lossless: given what the field-by-field rules produce
// from the object as it was saved (`base`), the exact object that was saved (`saved`, from the
// annotation) and what the rules produce from the object as it is now (`current`), every part the
// other version did not change is a graft: the saved part put back exactly. Parts the other version
// changed are taken as they are now. Lists and atomic paths (object references) are grafted whole or
// not at all: list items have no identity the rules could match across versions (a list-map sorted
// from a map, an item renamed), so a saved item's fields are never glued onto another item, nor a
// saved `uid` onto a renamed reference. The caller keeps only the grafts that do not make the object
// read back differently from what its writer wrote (lossless.ts), so an edit the rules cannot tell
// apart (`""` for unset) still wins.
import { deepEqual, isMap, type Json, type JsonMap } from './json.ts';

export interface Graft {
  readonly path: readonly string[];
  /** The saved value; undefined removes the key. */
  readonly value: Json | undefined;
}

export function grafts(base: Json | undefined, saved: Json | undefined, current: Json | undefined, atomic: ReadonlySet<string>, path: string[] = []): Graft[] {
  if (deepEqual(base, current)) return deepEqual(saved, current) ? [] : [{ path, value: saved }];
  if (atomic.has(path.join('.')) || !isMap(base) || !isMap(saved) || !isMap(current)) return [];
  const keys = new Set([...Object.keys(saved), ...Object.keys(current)]);
  return [...keys].flatMap((key) => grafts(base[key], saved[key], current[key], atomic, [...path, key]));
}

/** `body` with the grafts applied (a copy; `body` is not changed). */
export function applyGrafts(body: JsonMap, all: readonly Graft[]): JsonMap {
  let out = structuredClone(body);
  for (const { path, value } of all) {
    if (path.length === 0) {
      out = isMap(value) ? structuredClone(value) : {};
      continue;
    }
    let parent: Json | undefined = out;
    for (const key of path.slice(0, -1)) parent = isMap(parent) ? parent[key] : undefined;
    if (!isMap(parent)) continue;
    const last = path[path.length - 1]!;
    if (value === undefined) delete parent[last];
    else parent[last] = value;
  }
  return out;
}

/** Dotted paths (through objects; lists compared whole) where `a` and `b` differ. */
export function differences(a: Json | undefined, b: Json | undefined, path = '', out = new Set<string>()): Set<string> {
  if (deepEqual(a, b)) return out;
  if (!isMap(a) || !isMap(b)) return out.add(path);
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) differences(a[key], b[key], `${path}.${key}`, out);
  return out;
}
