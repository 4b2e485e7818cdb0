// A timeline of what objects of one kind said while a scenario ran: every change of a one-line
// summary of each object (and its deletion), stamped with the time since the timeline started. Built
// on a watch, not on polling, so a state that lasts less than a poll (a host's node-reuse label
// between release and claim, a Machine's unhealthy condition before its deletion) is not missed; a
// scenario waits on it with `eventually` and prints it.
import type { Api, KubeObject } from '@metal3-ts/generated';

export interface Entry {
  /** Milliseconds since the timeline started. */
  readonly ms: number;
  readonly name: string;
  /** The summary, or `deleted`. */
  readonly line: string;
}

export interface Timeline {
  readonly entries: readonly Entry[];
  /** The entries of one object, in order. */
  of(name: string): Entry[];
  /** The first entry matching, if any. */
  find(match: (entry: Entry) => boolean): Entry | undefined;
  /** Lines to print: `+12.3 s name: summary`. */
  lines(): string[];
  stop(): void;
}

/**
 * Starts recording `summary(object)` for every object `api` lists and watches. Resolves once the
 * initial list is recorded. A watch the server ends is resumed from the last resourceVersion seen; one
 * that fails is replaced by a fresh list and watch.
 */
export async function startTimeline<T extends KubeObject>(api: Api<T>, summary: (object: T) => string): Promise<Timeline> {
  const t0 = performance.now();
  const entries: Entry[] = [];
  const last = new Map<string, string>();
  const abort = new AbortController();
  const record = (name: string, line: string) => {
    if (last.get(name) === line) return;
    last.set(name, line);
    entries.push({ ms: performance.now() - t0, name, line });
  };
  let resourceVersion = '';
  /** Lists and records everything; an object gone since the last look is recorded deleted. */
  const relist = async () => {
    const list = await api.list();
    const names = new Set(list.items.map((o) => o.metadata.name ?? ''));
    for (const [name, line] of last) if (!names.has(name) && line !== 'deleted') record(name, 'deleted');
    for (const object of list.items) record(object.metadata.name ?? '', summary(object));
    resourceVersion = list.metadata?.resourceVersion ?? '';
  };
  await relist();
  const follow = async () => {
    while (!abort.signal.aborted) {
      try {
        if (!resourceVersion) await relist();
        for await (const event of api.watch({ resourceVersion, signal: abort.signal, allowWatchBookmarks: true })) {
          resourceVersion = event.object.metadata.resourceVersion ?? resourceVersion;
          if (event.type === 'BOOKMARK') continue;
          record(event.object.metadata.name ?? '', event.type === 'DELETED' ? 'deleted' : summary(event.object));
        }
      } catch {
        // An expired resourceVersion or a dropped connection: list again, after a moment so a failing
        // apiserver is not hammered. The list shows only the present: a state that came and went
        // meanwhile is missing from the timeline, and a wait on it times out showing what was seen.
        resourceVersion = '';
        if (!abort.signal.aborted) await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  };
  follow().catch(() => {});
  return {
    entries,
    of: (name) => entries.filter((e) => e.name === name),
    find: (match) => entries.find(match),
    lines: () => entries.map((e) => `+${(e.ms / 1000).toFixed(1)} s ${e.name}: ${e.line}`),
    stop: () => abort.abort(),
  };
}
