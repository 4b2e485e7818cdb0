// JSON merge patches (RFC 7386) computed from a before/after pair. Two traps this guards against:
// JSON.stringify drops `undefined`, so a deleted key must be sent as an explicit `null`; and merge
// patches replace arrays whole, so an array is either sent complete or not at all.

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonMap = { [key: string]: Json };

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Structural equality of JSON-like values; an `undefined` property counts as absent. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  if (!isMap(a) || !isMap(b)) return false;
  const ka = Object.keys(a).filter((k) => a[k] !== undefined);
  const kb = Object.keys(b).filter((k) => b[k] !== undefined);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
}

/** A JSON copy of `value`, without `undefined` properties (so it can be compared and sent). */
function toJson(value: unknown): Json {
  if (Array.isArray(value)) return value.map((v) => (v === undefined ? null : toJson(v)));
  if (isMap(value)) {
    const out: JsonMap = {};
    for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = toJson(v);
    return out;
  }
  return value as Json;
}

/**
 * The merge patch that turns `before` into `after`, or undefined when they are equal. Removed keys
 * (missing, `undefined` or `null` in after) become `null`; changed arrays and scalars are sent whole;
 * nested objects are diffed key by key.
 */
export function createMergePatch(before: unknown, after: unknown): JsonMap | undefined {
  const b = isMap(before) ? before : {};
  const a = isMap(after) ? after : {};
  const patch: JsonMap = {};
  let changed = false;
  for (const key of new Set([...Object.keys(b), ...Object.keys(a)])) {
    const bv = b[key] ?? undefined;
    const av = a[key] ?? undefined;
    if (av === undefined) {
      if (bv !== undefined) {
        patch[key] = null;
        changed = true;
      }
    } else if (isMap(av) && isMap(bv)) {
      const nested = createMergePatch(bv, av);
      if (nested) {
        patch[key] = nested;
        changed = true;
      }
    } else if (!deepEqual(av, bv)) {
      patch[key] = toJson(av);
      changed = true;
    }
  }
  return changed ? patch : undefined;
}

/** Applies a merge patch to a copy of `target`, as the apiserver does (RFC 7386). */
export function applyMergePatch<T>(target: T, patch: unknown): T {
  if (!isMap(patch)) return structuredClone(patch) as T;
  const out: Record<string, unknown> = isMap(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = isMap(value) ? applyMergePatch(out[key], value) : structuredClone(value);
  }
  return out as T;
}

/** Recursively merges `b` into `a` (both patches), returning a new object; b wins on scalars. */
export function mergePatches(a: JsonMap | undefined, b: JsonMap | undefined): JsonMap | undefined {
  if (!a) return b;
  if (!b) return a;
  const out: JsonMap = { ...a };
  for (const [key, value] of Object.entries(b)) {
    const existing = out[key];
    out[key] = isMap(existing) && isMap(value) ? mergePatches(existing, value)! : value;
  }
  return out;
}
