// Where a controller's requests come from: an informer, the predicates its events must pass, and the
// handler that maps a passing event to requests. The controller only sees this narrow interface, so
// a test can feed it any source.
import type { KubeObject } from '@metal3-ts/generated';
import type { Informer } from '../cache/types.ts';
import type { Logger } from '../log/logger.ts';
import type { Request } from '../reconcile/reconcile.ts';
import type { EventHandler } from './handlers.ts';
import { admits, type Predicate } from './predicates.ts';

export interface EventSource {
  /** The watched kind, for logs. */
  readonly kind: string;
  /** Resolves once the source has delivered its initial state; rejects if `signal` aborts first. */
  waitForSync(signal: AbortSignal): Promise<void>;
  /** Starts delivering requests to `enqueue`; returns the function that stops it. */
  subscribe(enqueue: (request: Request) => void, log: Logger): () => void;
}

/** A source fed by a shared informer: every event passing all `predicates` is mapped by `handler`. */
export function informerSource<T extends KubeObject>(
  informer: Informer<T>,
  handler: EventHandler<T>,
  predicates: readonly Predicate<T>[] = [],
): EventSource {
  return {
    kind: informer.descriptor.kind,
    waitForSync: (signal) => informer.waitForSync(signal),
    subscribe(enqueue, log) {
      return informer.subscribe((event) => {
        // A throwing predicate or map function must not break the informer's delivery to other
        // subscribers: it costs this one event, loudly.
        try {
          if (!predicates.every((p) => admits(p, event))) return;
          for (const request of handler(event)) enqueue(request);
        } catch (error) {
          const { namespace, name } = event.object.metadata;
          log.error('event handler failed', { kind: informer.descriptor.kind, namespace, name, event: event.type, error });
        }
      });
    },
  };
}
