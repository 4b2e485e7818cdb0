// Watching provider objects whose kinds are only known at run time (CAPI's external.ObjectTracker):
// a Cluster or Machine may reference any registered kind, so the first reconcile that meets a kind
// subscribes the controller to that kind's shared informer. Reads then come from the informer's
// store, like every other read of the simulators.
import { type Client, gvkKey, type KubeObject, type ResourceDescriptor } from '@metal3-ts/generated';
import { isConflict, isNotFound } from '@metal3-ts/generated/runtime/errors';
import type { Informer, InformerSource } from '@metal3-ts/shared/cache/types';
import type { Controller } from '@metal3-ts/shared/controller/controller';
import type { Runnable } from '@metal3-ts/shared/manager/runnable';
import type { Request } from '@metal3-ts/shared/reconcile/reconcile';
import { type ContractObject, descriptorForRef, type FullReference } from './contract.ts';

/** The informer of a referenced kind did not sync in time (its CRD is probably not installed). */
export class KindNotServedError extends Error {
  override name = 'KindNotServedError';
}

export interface ExternalWatchesOptions {
  /** Which requests an event on a provider object makes (its owner, the objects referring to it). */
  readonly map: (obj: Readonly<KubeObject>) => readonly Request[];
  /** Give up waiting for a new kind's first list after this long (default 10 s). */
  readonly syncTimeoutMs?: number;
}

export class ExternalWatches {
  readonly #informers: InformerSource;
  readonly #options: ExternalWatchesOptions;
  readonly #unsubscribe = new Map<string, () => void>();
  #enqueue: ((request: Request) => void) | undefined;
  #stopped = false;

  constructor(informers: InformerSource, options: ExternalWatchesOptions) {
    this.#informers = informers;
    this.#options = options;
  }

  /** Where requests go: the controller, which exists only after the reconcile using us was built. */
  deliverTo(controller: Pick<Controller, 'enqueue'>): void {
    this.#enqueue = (request) => controller.enqueue(request);
  }

  /** The synced informer of `descriptor`'s kind, watched on behalf of the controller from now on. */
  async informer(descriptor: ResourceDescriptor, signal: AbortSignal): Promise<Informer<KubeObject>> {
    const informer = this.#informers.informerFor(descriptor);
    const key = gvkKey(descriptor.group, descriptor.version, descriptor.kind);
    if (!this.#stopped && !this.#unsubscribe.has(key)) {
      this.#unsubscribe.set(
        key,
        informer.subscribe((event) => {
          const objects = event.type === 'update' ? [event.old, event.object] : [event.object];
          for (const obj of objects) for (const request of this.#options.map(obj)) this.#enqueue?.(request);
        }),
      );
    }
    await waitWithTimeout(informer, signal, this.#options.syncTimeoutMs ?? 10_000);
    return informer;
  }

  /** The object `ref` points at, from the cache; undefined when it does not exist. */
  async get(ref: FullReference, signal: AbortSignal): Promise<Readonly<ContractObject> | undefined> {
    const informer = await this.informer(descriptorForRef(ref), signal);
    return informer.store.get({ namespace: ref.namespace, name: ref.name }) as Readonly<ContractObject> | undefined;
  }

  stop(): void {
    this.#stopped = true;
    for (const unsubscribe of this.#unsubscribe.values()) unsubscribe();
    this.#unsubscribe.clear();
  }
}

async function waitWithTimeout(informer: Informer<KubeObject>, signal: AbortSignal, timeoutMs: number): Promise<void> {
  if (informer.hasSynced()) return;
  const ac = new AbortController();
  const onAbort = () => ac.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(
    () => ac.abort(new KindNotServedError(`${informer.descriptor.kind}: no list within ${timeoutMs} ms (is its CRD installed?)`)),
    timeoutMs,
  );
  try {
    await informer.waitForSync(ac.signal);
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
  }
}

/** A controller plus what must be released when it stops (watches, workload clients). */
export function runnableWithCleanup(controller: Controller, cleanup: () => void): Runnable {
  return {
    name: controller.name,
    needsLeaderElection: controller.needsLeaderElection,
    async start(signal) {
      try {
        await controller.start(signal);
      } finally {
        cleanup();
      }
    },
  };
}

/** Deletes a provider (or any registered) object; one already gone is not an error. */
export async function deleteObject(client: Client, obj: Readonly<KubeObject>): Promise<void> {
  const { name, namespace } = obj.metadata;
  if (!name) return;
  try {
    await client.api(descriptorForRef(obj), namespace).delete(name, { preconditions: obj.metadata.uid ? { uid: obj.metadata.uid } : {} });
  } catch (error) {
    if (!isNotFound(error) && !isConflict(error)) throw error;
  }
}
