// A binary min-heap of (deadline, key) entries: the delaying queue's timer only ever needs the
// earliest deadline, and thousands of keys may be waiting on requeueAfter at once.

export interface Deadline {
  readonly at: number;
  readonly key: string;
  /** Tells entries apart when a key is rescheduled: superseded entries are skipped, not removed. */
  readonly seq: number;
}

const before = (a: Deadline, b: Deadline) => a.at < b.at || (a.at === b.at && a.seq < b.seq);

export class DeadlineHeap {
  readonly #items: Deadline[] = [];

  get size(): number {
    return this.#items.length;
  }

  peek(): Deadline | undefined {
    return this.#items[0];
  }

  push(entry: Deadline): void {
    const items = this.#items;
    items.push(entry);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(items[i]!, items[parent]!)) break;
      [items[i], items[parent]] = [items[parent]!, items[i]!];
      i = parent;
    }
  }

  pop(): Deadline | undefined {
    const items = this.#items;
    const top = items[0];
    const last = items.pop();
    if (top === undefined || last === undefined || items.length === 0) return top;
    items[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let min = i;
      if (l < items.length && before(items[l]!, items[min]!)) min = l;
      if (r < items.length && before(items[r]!, items[min]!)) min = r;
      if (min === i) break;
      [items[i], items[min]] = [items[min]!, items[i]!];
      i = min;
    }
    return top;
  }

  clear(): void {
    this.#items.length = 0;
  }
}
