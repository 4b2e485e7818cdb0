// How soon to look at a workload cluster again while this machine's Node is awaited. The Node's
// arrival normally wakes the machine through its wait on workload Nodes (awaited-nodes.ts); this poll is
// what is left if that watch cannot run (the workload apiserver still starting, a watch refused):
// first after `firstMs`, doubling up to `maxMs` (upstream polls every 30 s from the start, E-36,
// E-37, which makes every new machine wait ~15 s on average for nothing).
export class AwaitedNodePoll {
  readonly #attempts = new Map<string, number>();
  readonly #firstMs: number;
  readonly #maxMs: number;

  constructor(firstMs: number, maxMs: number) {
    this.#firstMs = Math.max(1, firstMs);
    this.#maxMs = Math.max(this.#firstMs, maxMs);
  }

  /** The delay before the next look for `key`, growing with each call. */
  next(key: string): number {
    const attempt = this.#attempts.get(key) ?? 0;
    this.#attempts.set(key, attempt + 1);
    return Math.min(this.#maxMs, this.#firstMs * 2 ** Math.min(attempt, 30));
  }

  /** The Node was found (or the machine is gone): the next wait starts short again. */
  forget(key: string): void {
    this.#attempts.delete(key);
  }
}
