// The claim and acquire loops against a small in-memory BareMetalHost endpoint (GET, LIST, merge
// PATCH with the apiserver's resourceVersion precondition), so lost races can be staged exactly.
// The real apiserver version of these races is test/src/harness/host.test.ts.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { apiError, Client, type HttpRequest, type Transport } from '@metal3-ts/generated';
import { type BareMetalHost, BareMetalHostResource } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { acquireHost } from './acquire.ts';
import { claimHost } from './claim.ts';
import type { HostConsumer } from './consumer.ts';
import { machineRef, testHost } from './testing.ts';

const test = suite('host claim and acquire loops');

function merge(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> = typeof target === 'object' && target !== null && !Array.isArray(target)
    ? { ...(target as Record<string, unknown>) }
    : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = merge(out[key], value);
  }
  return out;
}

/** Serves BareMetalHosts of one namespace; `beforePatch` runs just before a PATCH is applied. */
class FakeHosts {
  readonly hosts = new Map<string, BareMetalHost>();
  readonly log: string[] = [];
  beforePatch: ((name: string) => void) | undefined;
  #rv = 100;

  put(host: BareMetalHost): BareMetalHost {
    const stored = structuredClone(host);
    stored.metadata.resourceVersion = String(++this.#rv);
    this.hosts.set(stored.metadata.name ?? '', stored);
    return structuredClone(stored);
  }

  client(): Client {
    const transport = { request: (r: HttpRequest) => this.#request(r) } as unknown as Transport;
    return new Client(transport);
  }

  // async: a scripted API error rejects, as the real transport's does.
  // deno-lint-ignore require-await
  async #request(request: HttpRequest): Promise<unknown> {
    const path = request.path.split('?')[0] ?? '';
    const name = path.split('/baremetalhosts/')[1];
    this.log.push(`${request.method} ${name ?? 'list'}`);
    const context = { verb: request.method, path };
    if (!name) return { apiVersion: 'v1', kind: 'List', metadata: {}, items: [...this.hosts.values()].map((h) => structuredClone(h)) };
    const current = this.hosts.get(name);
    if (!current) throw apiError(404, { reason: 'NotFound', message: `${name} not found` }, context);
    if (request.method === 'GET') return structuredClone(current);
    this.beforePatch?.(name);
    const latest = this.hosts.get(name) ?? current;
    const body = request.body as { metadata?: { resourceVersion?: string } };
    const wanted = body.metadata?.resourceVersion;
    if (wanted !== undefined && wanted !== latest.metadata.resourceVersion) {
      throw apiError(409, { reason: 'Conflict', message: 'the object has been modified' }, context);
    }
    return this.put(merge(latest, body) as BareMetalHost);
  }
}

const consumer = (name: string, extra: Partial<HostConsumer> = {}): HostConsumer => ({ ref: machineRef(name), ...extra });

test('claim: a copy made stale by another claimer is refused, re-read once and reported `taken` with the winner', async () => {
  const api = new FakeHosts();
  const stale = api.put(testHost('a'));
  const client = api.client();
  assert.ok((await claimHost(client, stale, { consumer: machineRef('m-a') })).claimed);
  api.log.length = 0;
  const lost = await claimHost(client, stale, { consumer: machineRef('m-b') });
  assert.ok(!lost.claimed && lost.reason === 'taken' && lost.host.spec?.consumerRef?.name === 'm-a');
  assert.equal(api.log, ['PATCH a', 'GET a']);
});

test('claim: a host held by another consumer in the given copy is refused without a request', async () => {
  const api = new FakeHosts();
  const held = api.put(testHost('a', { consumer: machineRef('m-a') }));
  const outcome = await claimHost(api.client(), held, { consumer: machineRef('m-b') });
  assert.ok(!outcome.claimed && outcome.reason === 'taken');
  assert.equal(api.log, []);
});

test('claim: a concurrent claim by the same consumer is finished on the fresh copy, not reported lost', async () => {
  const api = new FakeHosts();
  const stale = api.put(testHost('a'));
  api.beforePatch = (name) => {
    api.beforePatch = undefined;
    const host = structuredClone(api.hosts.get(name)!);
    host.spec = { ...host.spec!, consumerRef: { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Machine', name: 'm-a', namespace: 'ns' } };
    api.put(host);
  };
  const outcome = await claimHost(api.client(), stale, { consumer: machineRef('m-a'), labels: { 'cluster.x-k8s.io/cluster-name': 'c' } });
  assert.ok(outcome.claimed && outcome.changed);
  assert.is(api.hosts.get('a')?.metadata.labels?.['cluster.x-k8s.io/cluster-name'], 'c', 'the rest of the claim was applied on the fresh copy');
  assert.equal(api.log, ['PATCH a', 'GET a', 'PATCH a']);
});

test('claim: a host still free but changed since the decision is `conflict` with the fresh copy, not re-claimed (the selector decides again)', async () => {
  const api = new FakeHosts();
  const stale = api.put(testHost('a'));
  api.put({ ...structuredClone(api.hosts.get('a')!), metadata: { ...api.hosts.get('a')!.metadata, labels: { moved: 'yes' } } });
  const outcome = await claimHost(api.client(), stale, { consumer: machineRef('m-a') });
  assert.ok(!outcome.claimed && outcome.reason === 'conflict' && outcome.host.metadata.labels?.['moved'] === 'yes');
  assert.equal(api.log, ['PATCH a', 'GET a']);
});

test('claim: a host of ours that keeps changing is written `attempts` times, then `conflict` with the last copy read', async () => {
  const api = new FakeHosts();
  const ours = api.put(testHost('a', { consumer: machineRef('m-a') }));
  // Every write finds the host moved on (another writer of the same consumer's host).
  api.beforePatch = (name) => void api.put(structuredClone(api.hosts.get(name)!));
  const outcome = await claimHost(api.client(), ours, { consumer: machineRef('m-a'), labels: { extra: 'x' } }, { attempts: 2 });
  assert.ok(!outcome.claimed && outcome.reason === 'conflict' && outcome.host.spec?.consumerRef?.name === 'm-a');
  assert.equal(api.log, ['PATCH a', 'GET a', 'PATCH a', 'GET a']);
});

test('claim: a deleted host is `gone`', async () => {
  const api = new FakeHosts();
  const copy = api.put(testHost('a'));
  api.hosts.delete('a');
  assert.equal(await claimHost(api.client(), copy, { consumer: machineRef('m-a') }), { claimed: false, reason: 'gone' });
});

test('acquire: a cache that never catches up cannot make the loop retry a host it learned is taken', async () => {
  const api = new FakeHosts();
  const snapshot = [api.put(testHost('a')), api.put(testHost('b'))];
  await claimHost(api.client(), snapshot[0]!, { consumer: machineRef('other') });
  api.log.length = 0;
  const outcome = await acquireHost(api.client(), consumer('m-0'), {}, { candidates: () => snapshot, random: () => 0 });
  assert.ok(outcome.acquired && outcome.host.metadata.name === 'b' && outcome.choice === 'picked');
  assert.equal(api.log, ['PATCH a', 'GET a', 'PATCH b']);
});

test('acquire: every lost race is another winner, so with all hosts taken the answer is `none`', async () => {
  const api = new FakeHosts();
  const snapshot = ['a', 'b', 'c'].map((name) => api.put(testHost(name)));
  for (const [i, host] of snapshot.entries()) await claimHost(api.client(), host, { consumer: machineRef(`other-${i}`) });
  const outcome = await acquireHost(api.client(), consumer('m-0'), {}, { candidates: () => snapshot, random: () => 0 });
  assert.equal(outcome, { acquired: false, reason: 'none' });
});

test('acquire: a host that keeps changing under us ends in `contended` after the given attempts', async () => {
  const api = new FakeHosts();
  api.put(testHost('a'));
  let touches = 0;
  api.beforePatch = (name) => {
    const host = structuredClone(api.hosts.get(name)!);
    host.metadata.labels = { touched: String(++touches) };
    api.put(host);
  };
  const client = api.client();
  const live = async () => (await client.api(BareMetalHostResource, 'ns').list()).items;
  const outcome = await acquireHost(client, consumer('m-0'), {}, { candidates: live, attempts: 3 });
  assert.equal(outcome, { acquired: false, reason: 'contended' });
  assert.is(touches, 3);
});

test('acquire: node-reuse waits (`reuse-pending`), the held host is re-claimed (`owned`) without a write', async () => {
  const api = new FakeHosts();
  const reserved = api.put(testHost('r', { state: 'deprovisioning', labels: { 'infrastructure.cluster.x-k8s.io/node-reuse': 'md-a' } }));
  const free = api.put(testHost('f'));
  const waiting = await acquireHost(api.client(), consumer('m-0', { nodeReuseName: 'md-a' }), {}, { candidates: () => [reserved, free] });
  assert.ok(!waiting.acquired && waiting.reason === 'reuse-pending' && waiting.host.metadata.name === 'r');
  const held = api.put(testHost('h', { consumer: machineRef('m-0') }));
  api.log.length = 0;
  const owned = await acquireHost(api.client(), consumer('m-0'), {}, { candidates: () => [free, held] });
  assert.ok(owned.acquired && owned.choice === 'owned' && !owned.changed);
  assert.equal(api.log, []);
});

test.run();
