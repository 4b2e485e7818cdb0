// Plain-JSON helpers for the conversion rules: the rules work on the objects as the apiserver sends
// them (Record<string, unknown>), never on typed copies, so a field the rules do not know survives
// untouched in the annotation instead of being dropped by a type.

export type Json = null | boolean | number | string | Json[] | JsonMap;
export type JsonMap = { [key: string]: Json };
/** A JSON object under construction: undefined members are left out by `compact`. */
export type Draft = { [key: string]: Json | undefined };

export function isMap(value: unknown): value is JsonMap {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The object without its undefined members; undefined when nothing is left and `dropEmpty`. */
export function compact(draft: Draft): JsonMap {
  const out: JsonMap = {};
  for (const [key, value] of Object.entries(draft)) if (value !== undefined) out[key] = value;
  return out;
}

/** `compact`, but an object with no members is undefined (v1beta2: "empty means unset"). */
export function nonEmpty(draft: Draft | undefined): JsonMap | undefined {
  if (draft === undefined) return undefined;
  const out = compact(draft);
  return Object.keys(out).length > 0 ? out : undefined;
}

export function map(value: Json | undefined): JsonMap | undefined {
  return isMap(value) ? value : undefined;
}

export function list(value: Json | undefined): Json[] | undefined {
  return Array.isArray(value) ? value : undefined;
}

export function str(value: Json | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** A string that v1beta2 may carry: "" means unset there. */
export function filled(value: Json | undefined): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export function int(value: Json | undefined): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) ? value : undefined;
}

/** An integer that fits an int32 field between `min` and `max`, else undefined. */
export function int32(value: Json | undefined, min = -2147483648, max = 2147483647): number | undefined {
  const n = int(value);
  return n !== undefined && n >= min && n <= max ? n : undefined;
}

export function bool(value: Json | undefined): boolean | undefined {
  return typeof value === 'boolean' ? value : undefined;
}

/** A list with at least one item mapped by `each` (v1beta2 lists have minItems 1), else undefined. */
export function items(value: Json | undefined, each: (item: JsonMap) => Json): Json[] | undefined {
  const all = list(value)?.map((item) => (isMap(item) ? each(item) : item));
  return all !== undefined && all.length > 0 ? all : undefined;
}

/** The same list mapped by `each`, empty lists kept (v1beta1 keeps `[]`). */
export function every(value: Json | undefined, each: (item: JsonMap) => Json): Json[] | undefined {
  return list(value)?.map((item) => (isMap(item) ? each(item) : item));
}

export function deepEqual(a: Json | undefined, b: Json | undefined): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isMap(a) && isMap(b)) {
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

/** JSON text with object keys sorted at every depth: equal objects give equal bytes. */
export function canonical(value: Json | undefined): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (!isMap(v)) return v;
    const sorted: JsonMap = {};
    for (const key of Object.keys(v).sort()) sorted[key] = v[key] as Json;
    return sorted;
  });
}

/** `convert(value)` when value is an object; anything else passes as it is. */
export function via(value: Json | undefined, convert: (value: JsonMap) => JsonMap): Json | undefined {
  return isMap(value) ? convert(value) : value;
}
