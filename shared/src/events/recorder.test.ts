// The recorder against a fake transport that stores Events as the apiserver would (create, merge
// patch, NotFound for unknown names): aggregation, coalescing of repeats during a write, truncation,
// recovery from an expired Event, and failures that are only logged.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError, Client, type HttpRequest, NotFoundError, type Transport } from '@metal3-ts/generated';
import type { Event } from '@metal3-ts/generated/core/v1';
import { newConfigMap } from '@metal3-ts/generated/core/v1';
import { newLogger } from '../log/logger.ts';
import { EventRecorder, MAX_MESSAGE_LENGTH, referenceTo } from './recorder.ts';

const test = suite('event recorder');

class FakeEvents {
  readonly events = new Map<string, Event>();
  readonly requests: string[] = [];
  failWith: Error | undefined;
  delayMs = 0;

  client(): Client {
    // Api only calls transport.request; a structural fake stands in for the class.
    return new Client({ request: (r: HttpRequest) => this.#handle(r) } as unknown as Transport);
  }

  async #handle(r: HttpRequest): Promise<unknown> {
    this.requests.push(`${r.method} ${r.path}`);
    if (this.delayMs) await new Promise((res) => setTimeout(res, this.delayMs));
    if (this.failWith) throw this.failWith;
    const name = decodeURIComponent(r.path.split('/events/')[1] ?? '');
    if (r.method === 'POST') {
      const event = structuredClone(r.body as Event);
      this.events.set(event.metadata.name!, event);
      return event;
    }
    const existing = this.events.get(name);
    if (!existing) throw new NotFoundError(404, undefined, { verb: r.method, path: r.path });
    Object.assign(existing, r.body);
    return existing;
  }
}

const cm = newConfigMap({ metadata: { name: 'cm-1', namespace: 'ns-a', uid: 'u-1', resourceVersion: '7' } });

test('the first event creates one Event with the involved object, type, reason, message and component', async () => {
  const fake = new FakeEvents();
  const r = new EventRecorder({ client: fake.client(), component: 'example-controller', instance: 'pod-1' });
  r.normal(cm, 'Reconciled', 'set the annotation');
  await r.flush();
  assert.is(fake.events.size, 1);
  const [event] = [...fake.events.values()];
  assert.match(event!.metadata.name!, /^cm-1\.[0-9a-f]+$/);
  assert.is(event!.metadata.namespace, 'ns-a');
  assert.equal(event!.involvedObject, { apiVersion: 'v1', kind: 'ConfigMap', name: 'cm-1', namespace: 'ns-a', uid: 'u-1', resourceVersion: '7' });
  assert.is(event!.type, 'Normal');
  assert.is(event!.reason, 'Reconciled');
  assert.is(event!.count, 1);
  assert.is(event!.reportingComponent, 'example-controller');
  assert.is(event!.reportingInstance, 'pod-1');
  assert.equal(event!.source, { component: 'example-controller', host: 'pod-1' });
  assert.match(event!.firstTimestamp!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
});

test('repeats of the same event are one Event with a count; a different message is a new Event', async () => {
  const fake = new FakeEvents();
  const r = new EventRecorder({ client: fake.client(), component: 'c' });
  r.warning(cm, 'Failed', 'boom');
  await r.flush();
  r.warning(cm, 'Failed', 'boom');
  await r.flush();
  r.warning(cm, 'Failed', 'boom');
  await r.flush();
  r.warning(cm, 'Failed', 'other');
  await r.flush();
  const counts = [...fake.events.values()].map((e) => [e.message, e.count]);
  assert.equal(counts, [['boom', 3], ['other', 1]]);
  assert.equal(fake.requests.map((x) => x.split(' ')[0]), ['POST', 'PATCH', 'PATCH', 'POST']);
});

test('a storm of 500 identical events while writes are slow costs a handful of requests', async () => {
  const fake = new FakeEvents();
  fake.delayMs = 20;
  const r = new EventRecorder({ client: fake.client(), component: 'c' });
  for (let i = 0; i < 500; i++) {
    r.warning(cm, 'Failed', 'boom');
    if (i % 100 === 0) await new Promise((res) => setTimeout(res, 5));
  }
  await r.flush();
  assert.is(fake.events.size, 1);
  assert.is([...fake.events.values()][0]!.count, 500);
  assert.ok(fake.requests.length <= 10, `${fake.requests.length} requests`);
});

test('an Event that expired on the server is created anew', async () => {
  const fake = new FakeEvents();
  const r = new EventRecorder({ client: fake.client(), component: 'c' });
  r.normal(cm, 'Synced', 'ok');
  await r.flush();
  fake.events.clear();
  r.normal(cm, 'Synced', 'ok');
  await r.flush();
  assert.is(fake.events.size, 1);
  assert.is([...fake.events.values()][0]!.count, 1);
});

test('long messages are truncated to 1024 characters; cluster-scoped objects report into default', async () => {
  const fake = new FakeEvents();
  const r = new EventRecorder({ client: fake.client(), component: 'c' });
  r.normal({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } }, 'Big', 'x'.repeat(5000));
  await r.flush();
  const [event] = [...fake.events.values()];
  assert.is(event!.message!.length, MAX_MESSAGE_LENGTH);
  assert.ok(event!.message!.endsWith('...'));
  assert.is(event!.metadata.namespace, 'default');
  assert.is(event!.involvedObject.namespace, undefined);
});

test('API failures and unnamed objects are logged, never thrown', async () => {
  const fake = new FakeEvents();
  fake.failWith = new ApiError(500, undefined, { verb: 'POST', path: '/x' });
  const lines: string[] = [];
  const r = new EventRecorder({ client: fake.client(), component: 'c', log: newLogger({ sink: (l) => lines.push(l) }) });
  r.normal(cm, 'Synced', 'ok');
  r.normal({ apiVersion: 'v1', kind: 'ConfigMap', metadata: {} }, 'Synced', 'ok');
  await r.flush();
  assert.ok(lines.some((l) => l.includes('cannot create event')));
  assert.ok(lines.some((l) => l.includes('cannot record event')));
});

test('the aggregation cache is bounded', async () => {
  const fake = new FakeEvents();
  const r = new EventRecorder({ client: fake.client(), component: 'c', cacheSize: 3 });
  for (let i = 0; i < 10; i++) r.normal(cm, 'R', `m${i}`);
  await r.flush();
  r.normal(cm, 'R', 'm0'); // forgotten: a new Event rather than a patch of the first
  await r.flush();
  assert.is(fake.events.size, 11);
  assert.equal(referenceTo(cm).name, 'cm-1');
});

test.run();
