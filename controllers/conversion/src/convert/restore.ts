// The three-way restore that makes conversion lossless: given what the field-by-field rules produce
// from the object as it was stored (`base`), the exact object that was stored (`saved`, from the
// annotation) and what the rules produce from the object as it is now (`current`), every part the
// other version did not change comes back exactly as saved, and every part it did change is taken as
// it is now. So an untouched object round-trips byte for byte, and an edit made through the other
// version (a spec change, a controller's status write) wins over the saved copy of that part only.
// Lists and atomic paths (object references) come back whole or not at all: list items have no
// identity the rules could match across versions (a list-map sorted from a map, an item renamed), so
// a saved item's fields are never glued onto another item, nor a saved `uid` onto a renamed reference.
import { deepEqual, isMap, type Json, type JsonMap } from './json.ts';

export function restore(base: Json | undefined, saved: Json | undefined, current: Json | undefined, atomic: ReadonlySet<string>, path = ''): Json | undefined {
  if (deepEqual(base, current)) return saved;
  if (atomic.has(path)) return current;
  if (isMap(base) && isMap(saved) && isMap(current)) {
    const out: JsonMap = {};
    for (const key of new Set([...Object.keys(saved), ...Object.keys(current)])) {
      const value = restore(base[key], saved[key], current[key], atomic, path ? `${path}.${key}` : key);
      if (value !== undefined) out[key] = value;
    }
    return out;
  }
  return current;
}
