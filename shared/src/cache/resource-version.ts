// resourceVersions are opaque strings by contract, but every apiserver backed by etcd serves etcd
// revisions: decimal integers that grow with every write to the keyspace. Read-your-own-writes needs
// "is this cached copy at least as new as what I wrote?", so we compare numerically when both sides
// are integers and report "unknown" otherwise; callers then fall back to arrival order.

const DECIMAL = /^[0-9]{1,30}$/;

/** The revision as a bigint, or undefined when the string is not a plain decimal integer. */
export function parseResourceVersion(rv: string | undefined): bigint | undefined {
  return rv !== undefined && DECIMAL.test(rv) ? BigInt(rv) : undefined;
}

/**
 * Negative when `a` is older than `b`, 0 when equal, positive when newer; undefined when either is
 * missing or not an integer (then only arrival order can tell which is newer).
 */
export function compareResourceVersions(a: string | undefined, b: string | undefined): number | undefined {
  const x = parseResourceVersion(a);
  const y = parseResourceVersion(b);
  if (x === undefined || y === undefined) return undefined;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** True when `rv` is known to be at least `floor` (both integers and rv >= floor). */
export function isAtLeast(rv: string | undefined, floor: string | undefined): boolean {
  const order = compareResourceVersions(rv, floor);
  return order !== undefined && order >= 0;
}
