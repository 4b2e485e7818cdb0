// For controllers' unit tests of issue 21: a copy of an object whose reference at a field path of the
// shared table (REFERENCE_FIELDS) names another namespace, so a test can run every field of a kind's
// table through its controller's check and a field added to the table is tested without a new row.

/** A deep copy of `object` with `{ name, namespace }` at the dotted `path` (parents created as needed). */
export function withReferenceAt<T extends object>(object: T, path: string, namespace: string, name = 'x'): T {
  const copy = structuredClone(object) as Record<string, unknown>;
  const keys = path.split('.');
  let node = copy;
  for (const key of keys.slice(0, -1)) node = (node[key] ??= {}) as Record<string, unknown>;
  node[keys[keys.length - 1] ?? ''] = { name, namespace };
  return copy as T;
}
