import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../clock/clock.ts';
import { KindRateLimiter, newKindRateLimiter } from './kind-rate-limiter.ts';

const test = suite('KindRateLimiter');

const flush = async () => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};

const HOST = '/apis/metal3.io/v1alpha1/namespaces/ns/baremetalhosts/h';
const SECRET = '/api/v1/namespaces/ns/secrets/s';

test('each kind spends from its own bucket of qps/burst: a spent kind does not hold up another', async () => {
  const clock = new ManualClock();
  const limiter = new KindRateLimiter(1, 1, clock);
  const done: string[] = [];
  const send = (name: string, path: string) => void limiter.wait(path).then(() => done.push(`${name}@${clock.now()}`));
  send('host', HOST);
  send('host status', `${HOST}/status`);
  send('secret', SECRET);
  send('secret list', '/api/v1/namespaces/ns/secrets?limit=1');
  await flush();
  // The clock never moved: the first request of each kind went at once, the second of each waits.
  assert.equal(done, ['host@0', 'secret@0']);
  assert.is(limiter.bucket('metal3.io/v1alpha1/baremetalhosts').tokens(), -1);
  assert.is(limiter.bucket('core/v1/secrets').tokens(), -1);
  await clock.advance(1000);
  await flush();
  assert.equal(done, ['host@0', 'secret@0', 'host status@1000', 'secret list@1000']);
  assert.equal(limiter.keys(), ['core/v1/secrets', 'metal3.io/v1alpha1/baremetalhosts']);
});

test('a kind gets the whole burst and qps, however many kinds are busy', async () => {
  const clock = new ManualClock();
  const limiter = new KindRateLimiter(10, 3, clock);
  const kinds = ['/api/v1/secrets', '/api/v1/configmaps', '/api/v1/events', HOST];
  const times = new Map<string, number[]>();
  for (const path of kinds) {
    for (let i = 0; i < 5; i++) void limiter.wait(path).then(() => times.set(path, [...(times.get(path) ?? []), clock.now()]));
  }
  await flush();
  await clock.advance(1000);
  await flush();
  for (const path of kinds) assert.equal(times.get(path), [0, 0, 0, 100, 200], path);
});

test('qps <= 0 means no limiter; a burst below 1 is one request at a time', () => {
  const clock = new ManualClock();
  assert.is(newKindRateLimiter(0, 10), undefined);
  assert.is(newKindRateLimiter(-1, 10), undefined);
  assert.is(newKindRateLimiter(3, 0, clock)?.bucket('core/v1/secrets').burst, 1);
  assert.throws(() => new KindRateLimiter(0, 1), /qps/);
});

test.run();
