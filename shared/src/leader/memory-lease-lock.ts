// An in-memory LeaseLock with the apiserver's optimistic-concurrency rules (create fails when the
// lease exists, update fails on a stale resourceVersion), for tests of leader election without a
// cluster. Several electors sharing one instance behave like candidates sharing one Lease.
import { AlreadyExistsError, ConflictError } from '@metal3-ts/generated';
import type { Lease } from '@metal3-ts/generated/coordination.k8s.io/v1';
import type { LeaseLock } from './lease-lock.ts';

export class MemoryLeaseLock implements LeaseLock {
  readonly name: string;
  readonly description: string;
  /** When set, every request fails with this error (an unreachable apiserver). */
  failWith: Error | undefined;
  /** The next this many requests never answer, until their signal aborts (a black-holed connection). */
  hangNext = 0;
  /** Successful writes so far. */
  writes = 0;
  #lease: Lease | undefined;
  #version = 0;

  constructor(name = 'test-lease', namespace = 'default') {
    this.name = name;
    this.description = `${namespace}/${name}`;
  }

  /** The stored lease (a copy). */
  get current(): Lease | undefined {
    return this.#lease && structuredClone(this.#lease);
  }

  async get(signal: AbortSignal): Promise<Lease | undefined> {
    await this.#check(signal);
    return this.current;
  }

  async create(lease: Lease, signal: AbortSignal): Promise<Lease> {
    await this.#check(signal);
    if (this.#lease) throw new AlreadyExistsError(409, { kind: 'Status', apiVersion: 'v1', metadata: {}, reason: 'AlreadyExists' }, this.#context('POST'));
    return this.#store(lease);
  }

  async update(lease: Lease, signal: AbortSignal): Promise<Lease> {
    await this.#check(signal);
    if (!this.#lease || lease.metadata.resourceVersion !== this.#lease.metadata.resourceVersion) {
      throw new ConflictError(409, undefined, this.#context('PUT'));
    }
    return this.#store(lease);
  }

  #store(lease: Lease): Lease {
    this.#version++;
    this.writes++;
    this.#lease = structuredClone({ ...lease, metadata: { ...lease.metadata, name: this.name, resourceVersion: String(this.#version) } });
    return structuredClone(this.#lease);
  }

  async #check(signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    if (this.hangNext > 0) {
      this.hangNext--;
      await new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
    }
    if (this.failWith) throw this.failWith;
  }

  #context(verb: string) {
    return { verb, path: `/apis/coordination.k8s.io/v1/namespaces/${this.description.split('/')[0]}/leases/${this.name}` };
  }
}
