// Watches on the fake: the changes of one resource after a resourceVersion (or, without one, an
// ADDED event per current object first, as the apiserver's "get state and start at most recent"),
// seen through the watch's namespace and selectors (an object that stops matching is DELETED for
// this watch, one that starts matching ADDED), as newline-delimited JSON, until closed, aborted or
// the server-side timeout. No bookmarks and no 410: the fake keeps its whole change log.
import { Buffer } from 'node:buffer';
import type { KubeObject } from '@metal3-ts/generated';
import type { Route } from './routes.ts';
import type { FakeApiServer } from './server.ts';
import { type Change, resourceKey } from './store.ts';

export interface WatchStream {
  readonly body: AsyncIterable<Buffer>;
  close(): void;
}

type Event = { type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: KubeObject };

export function openWatch(server: FakeApiServer, route: Route, signal?: AbortSignal): WatchStream {
  const matches = server.matcher(route);
  const resource = resourceKey(route.descriptor);
  const withKind = (obj: KubeObject): KubeObject => ({ ...obj, apiVersion: route.descriptor.apiVersion, kind: route.descriptor.kind });
  const seen = (change: Change): Event | undefined => {
    const now = matches(change.object);
    const was = change.type === 'MODIFIED' ? change.previous !== undefined && matches(change.previous) : now;
    if (!now && !was) return undefined;
    const type = change.type === 'MODIFIED' && now !== was ? (now ? 'ADDED' : 'DELETED') : change.type;
    return { type, object: withKind(change.object) };
  };

  const queue: Event[] = [];
  let wake: (() => void) | undefined;
  let closed = false;
  const push = (event: Event | undefined) => {
    if (!event || closed) return;
    queue.push(event);
    wake?.();
  };
  const rv = route.query.get('resourceVersion');
  const unsubscribe = server.store.subscribe((change) => change.resource === resource && push(seen(change)));
  if (!rv || rv === '0') {
    for (const obj of server.store.list(route.descriptor, route.namespace).filter(matches)) push({ type: 'ADDED', object: withKind(obj) });
  } else {
    for (const change of server.store.changesAfter(resource, Number(rv))) push(seen(change));
  }

  const close = () => {
    closed = true;
    unsubscribe();
    clearTimeout(timer);
    signal?.removeEventListener('abort', close);
    wake?.();
  };
  const timeout = Number(route.query.get('timeoutSeconds') ?? 0);
  const timer = timeout > 0 ? setTimeout(close, timeout * 1000) : undefined;
  (timer as { unref?: () => void } | undefined)?.unref?.();
  signal?.addEventListener('abort', close, { once: true });

  async function* lines(): AsyncGenerator<Buffer> {
    while (true) {
      const event = queue.shift();
      if (event) {
        yield Buffer.from(`${JSON.stringify(event)}\n`);
        continue;
      }
      if (closed) return;
      await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
    }
  }
  return { body: lines(), close };
}
