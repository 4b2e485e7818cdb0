// Test support: a small seeded PRNG (mulberry32), so every property-test sample is reproducible from
// the seed printed on failure.

export class Random {
  #state: number;
  readonly seed: number;
  constructor(seed: number) {
    this.seed = seed;
    this.#state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(options: readonly T[]): T {
    return options[Math.floor(this.next() * options.length)]!;
  }
}
