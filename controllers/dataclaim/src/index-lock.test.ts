import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { apiError } from '@metal3-ts/generated';
import type { Metal3Data as M3D } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { RetryExhaustedError } from '@metal3-ts/shared/controller/retry-on-conflict';
import { IndexReservations } from './reservations.ts';
import { claim, data, template } from './testing.ts';
import { allocateIndex, type AllocationPort, createMetal3Data, type CreateOutcome } from './index-lock.ts';

const test = suite('allocateIndex: the create is the lock, a lost race moves on at once (A11)');

const rejects = async (promise: Promise<unknown>): Promise<unknown> => {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
};

/** allocateIndex, where the namespace is never gone. */
async function allocated(port: AllocationPort, options: Parameters<typeof allocateIndex>[1]) {
  const got = await allocateIndex(port, options);
  if (!got) throw new Error('unexpected: gone');
  return got;
}

/** A fake apiserver: names taken by claim; the informer view can lag behind it. */
function world(initial: Record<number, string> = {}) {
  const server = new Map<number, string>(Object.entries(initial).map(([i, c]) => [Number(i), c]));
  const view = new Map(server);
  const reservations = new IndexReservations();
  const creates: number[] = [];
  const port = (claimName: string, options: { lagging?: boolean } = {}): AllocationPort => ({
    taken: () => new Set([...(options.lagging ? view : server).keys(), ...reservations.reserved('t')]),
    reserve: (index) => reservations.reserve('t', index),
    async create(index): Promise<CreateOutcome> {
      creates.push(index);
      await Promise.resolve();
      const holder = server.get(index);
      if (holder === undefined) {
        server.set(index, claimName);
        return { kind: 'Created', data: { metadata: { name: `t-${index}` } } as M3D };
      }
      return holder === claimName ? { kind: 'Adopted', data: { metadata: { name: `t-${index}` } } as M3D } : { kind: 'TakenByOther' };
    },
  });
  return { server, port, creates };
}

test('DT-12: the lowest free index, created at the first try', async () => {
  const w = world({ 0: 'a', 2: 'b' });
  const got = await allocated(w.port('c'), { template: 'ns/t' });
  assert.equal([got.index, got.adopted, got.conflicts], [1, false, 0]);
});

test('A11 (changed): an index taken behind our back (stale cache) is a conflict answered by the next free index, not a 30 s wait', async () => {
  const w = world();
  w.server.set(0, 'x');
  w.server.set(1, 'y');
  const got = await allocated(w.port('c', { lagging: true }), { template: 'ns/t' });
  assert.equal([got.index, got.conflicts], [2, 2]);
  assert.equal(w.creates, [0, 1, 2]);
});

test('a Metal3Data already made for this claim (another replica won the race) is adopted, not duplicated', async () => {
  const w = world();
  w.server.set(0, 'c');
  const got = await allocated(w.port('c', { lagging: true }), { template: 'ns/t' });
  assert.equal([got.index, got.adopted, got.conflicts], [0, true, 0]);
});

test('concurrent workers of one process pick different indexes (reservations): 50 claims, 50 dense indexes, no conflict', async () => {
  const w = world();
  const results = await Promise.all(Array.from({ length: 50 }, (_, i) => allocated(w.port(`c${i}`), { template: 'ns/t' })));
  assert.equal(results.map((r) => r.index).sort((a, b) => a - b), Array.from({ length: 50 }, (_, i) => i));
  assert.is(results.reduce((n, r) => n + r.conflicts, 0), 0);
});

test('a preferred index (the one a vanished Metal3Data had) is tried first when free', async () => {
  const w = world({ 0: 'a' });
  assert.is((await allocated(w.port('c'), { template: 'ns/t', preferred: 4 })).index, 4);
  assert.is((await allocated(w.port('d'), { template: 'ns/t', preferred: 0 })).index, 1, 'taken: lowest free instead');
});

test('gives up after maxAttempts lost races with a typed, retryable error', async () => {
  const port: AllocationPort = { taken: () => new Set(), reserve: () => () => undefined, create: () => Promise.resolve({ kind: 'TakenByOther' }) };
  const error = await rejects(allocateIndex(port, { template: 'ns/t', maxAttempts: 3 }));
  assert.instance(error, RetryExhaustedError);
  assert.is((error as RetryExhaustedError).attempts, 3);
});

test('createMetal3Data: AlreadyExists is told apart by reading the holder; other errors are thrown', async () => {
  const t = template('t');
  const me = claim('me');
  const mine = data(t, me, 0);
  const theirs = data(t, claim('other'), 0);
  const already = () =>
    apiError(409, { apiVersion: 'v1', kind: 'Status', status: 'Failure', reason: 'AlreadyExists', code: 409 }, { verb: 'create', path: '/x' });
  const api = (existing: M3D | undefined | 'fail') => ({
    create: (
      d: M3D,
    ) => (existing === undefined
      ? Promise.resolve(d)
      : Promise.reject(existing === 'fail' ? apiError(500, undefined, { verb: 'create', path: '/x' }) : already())),
    get: () => (existing && existing !== 'fail' ? Promise.resolve(existing) : Promise.reject(apiError(404, undefined, { verb: 'get', path: '/x' }))),
  });
  assert.is((await createMetal3Data(api(undefined), mine, me)).kind, 'Created');
  assert.is((await createMetal3Data(api(mine), mine, me)).kind, 'Adopted');
  assert.is((await createMetal3Data(api(theirs), mine, me)).kind, 'TakenByOther');
  assert.ok(await rejects(createMetal3Data(api('fail'), mine, me)));
});

test.run();
