// Cached objects are shared by every controller in the process. Freezing them makes an accidental
// `obj.status.ready = true` on a cached copy throw (in strict mode, i.e. every ES module) instead of
// silently corrupting what the next reconcile reads: the TS stand-in for client-go's DeepCopy rule.

/** Freezes `value` and everything reachable from it, in place; returns it typed read-only. */
export function deepFreeze<T>(value: T): Readonly<T> {
  freezeNode(value);
  return value;
}

function freezeNode(value: unknown): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const key of Object.keys(value)) freezeNode((value as Record<string, unknown>)[key]);
}
