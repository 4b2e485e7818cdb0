// The I/O behind leader election: read, create and replace one Lease. Every write carries the
// resourceVersion it was based on (PUT), so of two candidates writing from the same version exactly
// one succeeds and the other gets a ConflictError. Requests honour an AbortSignal so a hung
// connection cannot hold a renewal past its deadline; a request cut short that way also drops the
// transport's idle connections, so the next attempt dials afresh instead of finding another dead one.
import { type Client, NotFoundError, type Transport } from '@metal3-ts/generated';
import { type Lease, LeaseResource } from '@metal3-ts/generated/coordination.k8s.io/v1';

export interface LeaseLock {
  /** `namespace/name`, for logs. */
  readonly description: string;
  readonly name: string;
  /** The current lease, or undefined when it does not exist. */
  get(signal: AbortSignal): Promise<Lease | undefined>;
  /** Creates the lease; rejects with AlreadyExistsError when another candidate was first. */
  create(lease: Lease, signal: AbortSignal): Promise<Lease>;
  /** Replaces the lease; rejects with ConflictError when `lease.metadata.resourceVersion` is stale. */
  update(lease: Lease, signal: AbortSignal): Promise<Lease>;
}

/** A LeaseLock on `namespace/name` through the client's transport (rate limiter and metrics included). */
export function leaseLock(client: Client, namespace: string, name: string): LeaseLock {
  return new TransportLeaseLock(client.transport, namespace, name);
}

class TransportLeaseLock implements LeaseLock {
  readonly name: string;
  readonly description: string;
  readonly #transport: Transport;
  readonly #collection: string;
  readonly #namespace: string;

  constructor(transport: Transport, namespace: string, name: string) {
    this.#transport = transport;
    this.#namespace = namespace;
    this.name = name;
    this.description = `${namespace}/${name}`;
    this.#collection = `/apis/${LeaseResource.group}/${LeaseResource.version}/namespaces/${encodeURIComponent(namespace)}/${LeaseResource.plural}`;
  }

  async get(signal: AbortSignal): Promise<Lease | undefined> {
    try {
      return await this.#send<Lease>('GET', 'get', `${this.#collection}/${encodeURIComponent(this.name)}`, undefined, signal);
    } catch (error) {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    }
  }

  create(lease: Lease, signal: AbortSignal): Promise<Lease> {
    const body: Lease = { ...lease, metadata: { ...lease.metadata, name: this.name, namespace: this.#namespace } };
    return this.#send('POST', 'create', this.#collection, body, signal);
  }

  update(lease: Lease, signal: AbortSignal): Promise<Lease> {
    if (!lease.metadata.resourceVersion) throw new Error(`lease ${this.description}: an update needs a resourceVersion precondition`);
    return this.#send('PUT', 'update', `${this.#collection}/${encodeURIComponent(this.name)}`, lease, signal);
  }

  #send<R>(method: 'GET' | 'POST' | 'PUT', verb: string, path: string, body: unknown, signal: AbortSignal): Promise<R> {
    const request = this.#transport.request<R>({ method, verb, path, body, resource: LeaseResource.plural, signal });
    const dropIdle = () => this.#transport.dropIdleConnections();
    signal.addEventListener('abort', dropIdle, { once: true });
    return abortable(request, signal).finally(() => signal.removeEventListener('abort', dropIdle));
  }
}

/**
 * Settles with `promise`, or rejects with the signal's reason as soon as it aborts (transport hooks
 * such as a rate limiter may not watch the signal; the caller must not wait on them).
 */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      promise.catch(() => {});
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
