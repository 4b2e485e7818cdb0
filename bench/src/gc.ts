// Heap measurements need a collection first; the bench runs with --expose-gc (node) or --v8-flags.
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';

const gc = (globalThis as { gc?: () => void }).gc;

export function canCollect(): boolean {
  return gc !== undefined;
}

/** Heap in use after full collections (a few rounds, letting finalisers and weak refs settle). */
export async function settledHeap(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc?.();
    await sleep(20);
  }
  return process.memoryUsage().heapUsed;
}
