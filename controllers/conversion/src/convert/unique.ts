// One item per key in the Metal3DataTemplate lists v1beta2 makes list-maps and sets (CV-11 … CV-17).
// v1beta1's lists are atomic and allow duplicates (two metaData entries with the key "", two routes
// to one network); v1beta2 cannot hold them, and a hub that did would be unusable: the apiserver does
// not validate conversion output, but CEL's list-map equality pairs items by key, so the immutability
// rules on `metaData` and `networkData` refuse even an unchanged write-back by a v1beta2 client (422
// "metaData cannot be modified"). So the hub keeps one item per key, the same ones every time: the
// last for list-maps (a later metaData entry overrides an earlier one when v1beta1 renders), the first
// for sets (a DNS server is used from where it first appears). The v1beta1 list stays whole in the
// annotation (lossless.ts), so v1beta1 readers still see every item.
import { canonical, isMap, type Json } from './json.ts';

/** `list` with only the last item of each `keys` value (items that are not objects are their own key). */
export function lastPerKey(list: Json[] | undefined, keys: readonly string[]): Json[] | undefined {
  if (list === undefined) return undefined;
  const keyOf = (item: Json) => canonical(isMap(item) ? keys.map((k) => item[k] ?? null) : item);
  const last = new Map(list.map((item, i) => [keyOf(item), i]));
  return list.filter((item, i) => last.get(keyOf(item)) === i);
}

/** `list` with only the first of equal items (a list-type set). */
export function firstOfEqual(list: Json[] | undefined): Json[] | undefined {
  if (list === undefined) return undefined;
  const seen = new Set<string>();
  return list.filter((item) => {
    const key = canonical(item);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
