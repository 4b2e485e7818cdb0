// The first stage of an informer: list, then watch from the list's resourceVersion, for ever.
// It yields what the store must do (`replace` after every list, then `apply`/`delete`/`bookmark`)
// and hides every failure behind retries:
// - a watch the server closes (its `timeoutSeconds`, randomised per watch so clients do not reconnect
//   in step) is reopened at once from the last resourceVersion seen;
// - a watch that stays silent past the inactivity timeout (a half-open connection) is aborted and
//   reopened the same way;
// - 410 Gone (the revision was compacted away), as HTTP status or as a watch ERROR event, and a
//   "resourceVersion too large" answer, lead to a fresh list whose `replace` lets the store synthesise
//   deletes for everything that vanished meanwhile;
// - anything else (500, refused or reset connections, 429) waits a jittered exponential backoff and
//   retries the same step. Nothing stops the loop but the AbortSignal.
// Each step's success or failure is also reported (`onStep`), so the informer can tell a working
// watch from one that keeps failing (list-watch-health.ts) instead of only retrying.
// A list page has no timer here: the transport's per-verb deadline (`--kube-api-list-timeout`,
// runtime/deadline.ts) ends a page that hangs, and destroys its connection, which a timer here could
// not; a second timer would only cap that flag at its own value.
import { ApiError, GoneError, type KubeList, type KubeObject, type ListOptions, type WatchEvent, type WatchOptions } from '@metal3-ts/generated';
import { type Clock, realClock } from '../clock/clock.ts';
import { type Logger, silentLogger } from '../log/logger.ts';
import { Backoff, type BackoffOptions } from './backoff.ts';
import type { ListWatchVerb } from './list-watch-health.ts';

/** What the watcher needs from a client: `Api<T>` fits, and so does a scripted fake in tests. */
export interface ListWatchSource<T extends KubeObject> {
  list(options: ListOptions): Promise<KubeList<T>>;
  watch(options: WatchOptions): AsyncIterable<WatchEvent<T>>;
}

export type WatcherEvent<T extends KubeObject> =
  /** A complete list: the store's content becomes exactly `objects`. */
  | { readonly type: 'replace'; readonly objects: T[]; readonly resourceVersion: string | undefined }
  | { readonly type: 'apply'; readonly object: T }
  | { readonly type: 'delete'; readonly object: T }
  | { readonly type: 'bookmark'; readonly resourceVersion: string };

/** Why the watcher went back to the apiserver; for logs and metrics. */
export type RestartReason = 'gone' | 'error' | 'inactive' | 'closed';

export interface WatcherOptions {
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** Objects per list page. */
  readonly pageSize?: number;
  /** Range for the server-side watch timeout, picked at random per watch. */
  readonly watchTimeoutSeconds?: { readonly min: number; readonly max: number };
  /** Silence (no event, no bookmark) after which a watch is presumed dead; default timeoutSeconds + 30 s. */
  readonly inactivityTimeoutMs?: number;
  readonly backoff?: BackoffOptions;
  readonly clock?: Clock;
  readonly random?: () => number;
  readonly log?: Logger;
  /** Called on every return to the apiserver other than the first list. */
  readonly onRestart?: (reason: RestartReason, error?: unknown) => void;
  /**
   * How each step went: a list that completed, a watch that delivered an event or stayed open for a
   * second (`error` undefined), or a failed list or watch (`error` set). 410 Gone is not a failure.
   */
  readonly onStep?: (verb: ListWatchVerb, error?: unknown) => void;
}

const DEFAULTS = { pageSize: 500, watchTimeoutSeconds: { min: 300, max: 600 }, inactivityGraceMs: 30_000 };
/** A watch that ends this quickly without a single event counts as a failure (no hot reconnect loop). */
const SHORT_WATCH_MS = 1000;

/** Lists and watches `source` until `signal` aborts; never throws for apiserver trouble. */
export async function* watcher<T extends KubeObject>(
  source: ListWatchSource<T>,
  signal: AbortSignal,
  options: WatcherOptions = {},
): AsyncGenerator<WatcherEvent<T>, void> {
  const clock = options.clock ?? realClock;
  const random = options.random ?? Math.random;
  const log = options.log ?? silentLogger;
  const backoff = new Backoff(clock, options.backoff, random);
  const selectors = {
    ...(options.labelSelector ? { labelSelector: options.labelSelector } : {}),
    ...(options.fieldSelector ? { fieldSelector: options.fieldSelector } : {}),
  };
  // undefined: the next step is a list. A list is consistent (no resourceVersion): "0" would be
  // cheaper but may serve a cache older than what this process already saw.
  let rv: string | undefined;
  const onStep = options.onStep ?? (() => {});
  const pause = async (verb: ListWatchVerb, reason: RestartReason, error: unknown, retryAfterMs = 0): Promise<void> => {
    const ms = Math.max(backoff.next(), retryAfterMs);
    log.warn('list/watch failed; retrying', { verb, reason, error: String(error), retryInMs: Math.round(ms), attempt: backoff.attempt });
    await clock.sleep(ms, signal).catch(() => {});
  };

  while (!signal.aborted) {
    if (rv === undefined) {
      try {
        const list = await listAll(source, selectors, options.pageSize ?? DEFAULTS.pageSize, signal);
        rv = list.resourceVersion ?? '';
        onStep('list');
        yield { type: 'replace', objects: list.objects, resourceVersion: list.resourceVersion };
      } catch (error) {
        if (signal.aborted) return;
        options.onRestart?.('error', error);
        onStep('list', error);
        await pause('list', 'error', error, retryAfterMs(error));
      }
      continue;
    }

    const range = options.watchTimeoutSeconds ?? DEFAULTS.watchTimeoutSeconds;
    const timeoutSeconds = range.min + Math.floor(random() * (range.max - range.min + 1));
    const inactivityMs = options.inactivityTimeoutMs ?? timeoutSeconds * 1000 + DEFAULTS.inactivityGraceMs;
    const aborter = new AbortController();
    const stopOnAbort = () => aborter.abort(signal.reason);
    signal.addEventListener('abort', stopOnAbort, { once: true });
    let last = clock.now();
    let inactive = false;
    const watchdog = startWatchdog(clock, inactivityMs, () => last, () => {
      inactive = true;
      aborter.abort(new Error(`watch silent for ${inactivityMs} ms`));
    });
    const started = clock.now();
    let events = 0;
    // A watch counts as working once it delivers something or stays open past SHORT_WATCH_MS: an open
    // watch on a quiet kind says nothing for minutes, and a refused one fails at once.
    let working = false;
    const markWorking = () => {
      if (working) return;
      working = true;
      onStep('watch');
    };
    const openTimer = new AbortController();
    clock.sleep(SHORT_WATCH_MS, openTimer.signal).then(markWorking, () => {});
    let outcome: { reason: RestartReason; error?: unknown };
    try {
      const stream = source.watch({ ...selectors, resourceVersion: rv, allowWatchBookmarks: true, timeoutSeconds, signal: aborter.signal });
      for await (const event of stream) {
        last = clock.now();
        events++;
        markWorking();
        const next = event.object.metadata.resourceVersion;
        if (next) rv = next;
        if (event.type === 'BOOKMARK') {
          if (next) yield { type: 'bookmark', resourceVersion: next };
        } else if (event.type === 'DELETED') {
          yield { type: 'delete', object: event.object };
        } else {
          yield { type: 'apply', object: event.object };
        }
      }
      outcome = { reason: inactive ? 'inactive' : 'closed' };
    } catch (error) {
      outcome = { reason: inactive ? 'inactive' : needsRelist(error) ? 'gone' : 'error', error };
    } finally {
      openTimer.abort();
      watchdog.stop();
      signal.removeEventListener('abort', stopOnAbort);
    }
    if (signal.aborted) return;

    options.onRestart?.(outcome.reason, outcome.error);
    if (outcome.reason === 'gone') {
      log.info('watch expired; relisting', { resourceVersion: rv, error: String(outcome.error) });
      rv = undefined;
    } else if (outcome.reason === 'inactive') {
      log.warn('watch went silent; reconnecting', { resourceVersion: rv, inactivityMs });
      continue;
    } else if (outcome.reason === 'closed') {
      log.debug('watch closed; resuming', { resourceVersion: rv, events });
    }
    const suspicious = events === 0 && clock.now() - started < SHORT_WATCH_MS;
    if (outcome.reason === 'error' || suspicious) {
      const error = outcome.error ?? new Error('watch closed at once');
      if (!working) onStep('watch', error);
      await pause('watch', outcome.reason, error, retryAfterMs(outcome.error));
    }
  }
}

/** 410 Gone, or the apiserver saying our revision is ahead of it (e.g. after an etcd restore). */
function needsRelist(error: unknown): boolean {
  if (error instanceof GoneError) return true;
  return error instanceof ApiError && (error.status?.details?.causes ?? []).some((c) => c.reason === 'ResourceVersionTooLarge');
}

function retryAfterMs(error: unknown): number {
  const seconds = error instanceof ApiError ? error.status?.details?.retryAfterSeconds : undefined;
  return seconds ? seconds * 1000 : 0;
}

async function listAll<T extends KubeObject>(
  source: ListWatchSource<T>,
  selectors: { labelSelector?: string; fieldSelector?: string },
  limit: number,
  signal: AbortSignal,
): Promise<{ objects: T[]; resourceVersion: string | undefined }> {
  const objects: T[] = [];
  let token: string | undefined;
  let resourceVersion: string | undefined;
  do {
    const page = await source.list({ ...selectors, limit, ...(token ? { continue: token } : {}), signal });
    for (const item of page.items) objects.push(item);
    token = page.metadata.continue || undefined;
    resourceVersion = page.metadata.resourceVersion;
  } while (token);
  return { objects, resourceVersion };
}

/** Calls `expire` once `timeoutMs` have passed since `lastActivity()`, unless stopped first. */
function startWatchdog(clock: Clock, timeoutMs: number, lastActivity: () => number, expire: () => void): { stop(): void } {
  const stopper = new AbortController();
  void (async () => {
    for (;;) {
      const wait = lastActivity() + timeoutMs - clock.now();
      if (wait <= 0) return expire();
      try {
        await clock.sleep(wait, stopper.signal);
      } catch {
        return;
      }
    }
  })();
  return { stop: () => stopper.abort() };
}
