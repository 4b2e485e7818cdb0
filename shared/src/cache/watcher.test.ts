import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError, type KubeObject } from '@metal3-ts/generated';
import { ManualClock } from '../clock/clock.ts';
import { Backoff } from './backoff.ts';
import { configMap, FakeListWatch, gone, serverError } from './testing/fake-list-watch.ts';
import { type RestartReason, watcher, type WatcherEvent, type WatcherOptions } from './watcher.ts';

const test = suite('watcher');

const fast: WatcherOptions = { backoff: { initialMs: 1, maxMs: 4 } };

/** Runs the watcher in the background and records everything it yields. */
function start(source: FakeListWatch<KubeObject>, options: WatcherOptions = fast) {
  const aborter = new AbortController();
  const events: WatcherEvent<KubeObject>[] = [];
  const restarts: RestartReason[] = [];
  const done = (async () => {
    for await (const event of watcher(source, aborter.signal, { ...options, onRestart: (r) => restarts.push(r) })) events.push(event);
  })();
  return {
    events,
    restarts,
    stop: async () => {
      aborter.abort();
      await done;
    },
  };
}

async function until(what: string, check: () => boolean, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) assert.unreachable(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

const summary = (events: WatcherEvent<KubeObject>[]) =>
  events.map((
    e,
  ) => (e.type === 'replace'
    ? `replace:${e.objects.map((o) => o.metadata.name).join(',')}`
    : e.type === 'bookmark'
    ? 'bookmark'
    : `${e.type}:${e.object.metadata.name}`)
  );

test('lists page by page, then watches from the list revision with bookmarks and a randomised timeout', async () => {
  const source = new FakeListWatch<KubeObject>();
  for (const n of ['a', 'b', 'c', 'd', 'e']) source.create(configMap(n));
  const listRv = source.resourceVersion;
  const w = start(source, { ...fast, pageSize: 2, random: () => 0.999 });
  await until('the watch', () => source.openWatches === 1);
  assert.equal(summary(w.events), ['replace:a,b,c,d,e']);
  assert.equal(source.listCalls.map((c) => [c.limit, c.continue]), [
    [2, undefined],
    [2, '2'],
    [2, '4'],
  ]);
  const call = source.watchCalls[0];
  assert.is(call?.allowWatchBookmarks, true);
  assert.is(call?.resourceVersion, listRv);
  assert.is(call?.timeoutSeconds, 600);
  await w.stop();
  assert.is(source.openWatches, 0, 'aborting closes the watch');
});

test('the server timeout is drawn from [300, 600] seconds', async () => {
  const source = new FakeListWatch<KubeObject>();
  const w = start(source, { ...fast, random: () => 0 });
  await until('the watch', () => source.openWatches === 1);
  assert.is(source.watchCalls[0]?.timeoutSeconds, 300);
  await w.stop();
});

test('tracks the revision of every event and bookmark and resumes from it after a clean close', async () => {
  const source = new FakeListWatch<KubeObject>();
  const w = start(source);
  await until('the watch', () => source.openWatches === 1);
  source.create(configMap('a'));
  source.update(configMap('a', { k: 'v' }));
  await until('two events', () => w.events.length === 3);
  source.bookmark();
  await until('the bookmark', () => w.events.length === 4);
  const rvAfterBookmark = source.resourceVersion;
  source.closeWatches();
  await until('a second watch', () => source.watchCalls.length === 2 && source.openWatches === 1);
  assert.is(source.watchCalls[1]?.resourceVersion, rvAfterBookmark);
  source.remove('a');
  await until('the delete', () => w.events.length === 5);
  assert.equal(summary(w.events), ['replace:', 'apply:a', 'apply:a', 'bookmark', 'delete:a']);
  assert.is(source.listCalls.length, 1, 'a clean close does not relist');
  assert.equal(w.restarts, ['closed']);
  await w.stop();
});

test('410 Gone (HTTP or ERROR event) relists; the replace carries exactly the surviving objects', async () => {
  const source = new FakeListWatch<KubeObject>();
  source.create(configMap('keep'));
  source.create(configMap('vanish'));
  const w = start(source);
  await until('the watch', () => source.openWatches === 1);
  source.breakWatches(gone());
  await until('the relist', () => source.listCalls.length === 2 && source.openWatches === 1);
  // Deleted while no watch could see it, and history compacted: only a relist can notice.
  source.silent = true;
  source.remove('vanish');
  source.create(configMap('new'));
  source.compact();
  source.silent = false;
  source.closeWatches();
  await until('a third list', () => source.listCalls.length === 3 && source.openWatches === 1);
  assert.equal(summary(w.events), ['replace:keep,vanish', 'replace:keep,vanish', 'replace:keep,new']);
  assert.equal(w.restarts, ['gone', 'closed', 'gone']);
  await w.stop();
});

test('errors are retried with backoff for ever: 40 failed lists and 40 failed watches, then it works', async () => {
  const source = new FakeListWatch<KubeObject>();
  for (let i = 0; i < 40; i++) source.listFailures.push(i % 2 ? serverError(500) : new Error('connect ECONNREFUSED 127.0.0.1:6443'));
  for (let i = 0; i < 40; i++) source.watchFailures.push(i % 2 ? serverError(503) : new Error('read ECONNRESET'));
  const w = start(source);
  await until('a healthy watch', () => source.openWatches === 1, 5000);
  assert.is(source.listCalls.length, 41);
  assert.is(source.watchCalls.length, 41);
  assert.is(w.restarts.filter((r) => r === 'error').length, 80);
  source.create(configMap('after'));
  await until('the event', () => w.events.length === 2);
  await w.stop();
});

test('each step is reported: the list works, a refused watch fails at once, a watch open a second works', async () => {
  const source = new FakeListWatch<KubeObject>();
  const refused = serverError(403);
  source.watchFailures.push(refused, refused);
  const steps: string[] = [];
  const aborter = new AbortController();
  const done = (async () => {
    for await (
      const _ of watcher(source, aborter.signal, {
        ...fast,
        onStep: (verb, error) => steps.push(`${verb}:${error === undefined ? 'ok' : (error as ApiError).code}`),
      })
    ) {
      // only the steps matter here
    }
  })();
  await until('the watch to count as working', () => steps.includes('watch:ok'), 4000);
  assert.equal(steps, ['list:ok', 'watch:403', 'watch:403', 'watch:ok']);
  aborter.abort();
  await done;
});

test('a watch that stays silent past the inactivity timeout is abandoned and reopened', async () => {
  const source = new FakeListWatch<KubeObject>();
  source.silent = true;
  const w = start(source, { ...fast, inactivityTimeoutMs: 30 });
  await until('three watches', () => source.watchCalls.length >= 3);
  assert.ok(w.restarts.slice(0, 2).every((r) => r === 'inactive'));
  source.silent = false;
  await until('a live watch', () => source.openWatches === 1);
  await w.stop();
});

test('429 waits at least the Retry-After the server asked for', async () => {
  const source = new FakeListWatch<KubeObject>();
  source.listFailures.push(new ApiError(429, { kind: 'Status', code: 429, details: { retryAfterSeconds: 0.15 } }, { verb: 'GET', path: '/x' }));
  const started = Date.now();
  const w = start(source);
  await until('the list', () => w.events.length === 1);
  assert.ok(Date.now() - started >= 140, `retried after ${Date.now() - started} ms`);
  await w.stop();
});

test('a slow list page is not cut by the watcher: the transport deadline (--kube-api-list-timeout) alone governs it', async () => {
  const clock = new ManualClock();
  const source = new FakeListWatch<KubeObject>();
  source.create(configMap('a'));
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  // A list that honours its AbortSignal, as the transport does: an abort by the watcher would fail it.
  const aborted = (signal?: AbortSignal) => new Promise<never>((_, reject) => signal?.addEventListener('abort', () => reject(signal.reason), { once: true }));
  let lists = 0;
  const slow = {
    list: async (o: Parameters<typeof source.list>[0]) => (lists++, await Promise.race([held, aborted(o.signal)]), source.list(o)),
    watch: (o: Parameters<typeof source.watch>[0]) => source.watch(o),
  };
  const aborter = new AbortController();
  const events: WatcherEvent<KubeObject>[] = [];
  const done = (async () => {
    for await (const event of watcher(slow, aborter.signal, { ...fast, clock })) events.push(event);
  })();
  await clock.advance(10 * 60_000); // far past the 60 s the watcher's own timer used to allow
  release();
  await until('the list', () => events.length === 1);
  assert.equal(summary(events), ['replace:a']);
  assert.is(lists, 1, 'one list, never aborted and retried');
  aborter.abort();
  await done;
});

test('backoff doubles from the initial delay up to the cap and resets after a healthy period', async () => {
  const clock = new ManualClock();
  const backoff = new Backoff(clock, { initialMs: 100, maxMs: 1000, resetAfterMs: 5000, jitter: 0.5 }, () => 0);
  const delays = Array.from({ length: 6 }, () => backoff.next());
  assert.equal(delays, [100, 200, 400, 800, 1000, 1000]);
  await clock.advance(4999);
  assert.is(backoff.next(), 1000, 'failures closer together than resetAfterMs keep growing');
  await clock.advance(5000);
  assert.is(backoff.next(), 100);
  const jittered = new Backoff(clock, { initialMs: 100, jitter: 0.5 }, () => 1);
  assert.is(jittered.next(), 50, 'jitter removes up to the given fraction');
});

test.run();
