// The BareMetalHost driver against the real kube-apiserver (no BMO: the test plays it by writing
// host status through /status). The claim race is the point: 20 claimers, each with its own client
// and connection, on 5 hosts; exactly 5 win and every host names the one winner that was told it won.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, type LabelSelector, Transport } from '@metal3-ts/generated';
import { Metal3MachineResource, newMetal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { type BareMetalHost, BareMetalHostResource, newBareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { InformerFactory } from '@metal3-ts/shared/cache/informer-factory';
import { acquireHost, type AcquireOutcome, type HostCandidates, listedCandidates } from '@metal3-ts/baremetal/acquire';
import { claimHost } from '@metal3-ts/baremetal/claim';
import { type ConsumerReference, type HostConsumer, metal3MachineConsumer } from '@metal3-ts/baremetal/consumer';
import { hostInventory } from '@metal3-ts/baremetal/inventory';
import { hostSelectorRequirements, matchesRequirements, selectorString } from '@metal3-ts/baremetal/label-selector';
import { pauseHost, unpauseHost } from '@metal3-ts/baremetal/pause';
import { metal3MachineProvisioning, provisionHost } from '@metal3-ts/baremetal/provision';
import { releaseHost } from '@metal3-ts/baremetal/release';
import { chooseHost } from '@metal3-ts/baremetal/selection';
import { freshNamespace, withSharedEnv } from '../envtest/suite.ts';

const test = suite('BareMetalHost driver on the real apiserver');
const env = withSharedEnv(test);

const CLUSTER = 'cluster.x-k8s.io/cluster-name';
const REUSE = 'infrastructure.cluster.x-k8s.io/node-reuse';
const PAUSED = 'baremetalhost.metal3.io/paused';
const STATUS = 'baremetalhost.metal3.io/status';

let admin: Client;
test.before(() => {
  admin = new Client(Transport.fromConnection(env().admin));
});
test.after(() => admin.transport.close());

const hostsOf = (ns: string) => admin.api(BareMetalHostResource, ns);
const machineRef = (ns: string, name: string): ConsumerReference => ({
  apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
  kind: 'Metal3Machine',
  name,
  namespace: ns,
});

/** Plays BMO: writes the provisioning state (and the other required status fields) through /status. */
function setState(ns: string, name: string, state: string, extra: Record<string, unknown> = {}): Promise<BareMetalHost> {
  return hostsOf(ns).mergePatchStatus(name, {
    status: { errorCount: 0, errorMessage: '', operationalStatus: 'OK', poweredOn: false, provisioning: { ID: `ironic-${name}`, state }, ...extra },
  });
}

async function createHosts(ns: string, names: readonly string[], labels: (name: string) => Record<string, string> = () => ({})): Promise<void> {
  await Promise.all(
    names.map(async (name) => {
      await hostsOf(ns).create(newBareMetalHost({ metadata: { name, labels: labels(name) }, spec: { online: false } }));
      await setState(ns, name, 'available');
    }),
  );
}

/** Counts the 409s a client receives (lost races). */
function countConflicts(client: Client): { readonly count: () => number } {
  let conflicts = 0;
  client.transport.hooks = { after: (record) => void (record.code === 409 && conflicts++) };
  return { count: () => conflicts };
}

/** Holds every claimer's first candidate read until all have read: all decide on the same snapshot. */
function startingLine(claimers: number, candidates: (i: number) => HostCandidates): (i: number) => HostCandidates {
  let arrived = 0;
  let release: () => void = () => {};
  const allThere = new Promise<void>((resolve) => (release = resolve));
  return (i) => {
    let first = true;
    return async (consumer) => {
      const hosts = await candidates(i)(consumer);
      if (first) {
        first = false;
        if (++arrived === claimers) release();
        await allThere;
      }
      return hosts;
    };
  };
}

/** Checks the outcome of a race: exactly `hosts` winners on distinct hosts, each host naming its winner. */
async function assertOneWinnerPerHost(ns: string, consumers: readonly HostConsumer[], outcomes: readonly AcquireOutcome[], hosts: number): Promise<void> {
  const told = new Map<string, string>();
  outcomes.forEach((outcome, i) => {
    if (outcome.acquired) told.set(outcome.host.metadata.name ?? '', consumers[i]?.ref.name ?? '');
  });
  const winners = outcomes.filter((o) => o.acquired).length;
  assert.is(winners, hosts, `winners: ${winners}`);
  assert.is(told.size, hosts, 'every winner was told a different host');
  const losers = outcomes.filter((o) => !o.acquired).map((o) => (o.acquired ? '' : o.reason));
  assert.equal([...new Set(losers)], ['none'], 'every loser ends with "no host available"');
  for (const host of (await hostsOf(ns).list()).items) {
    const name = host.metadata.name ?? '';
    assert.is(host.spec?.consumerRef?.name, told.get(name), `host ${name} names the claimer that was told it won`);
    assert.is(host.metadata.labels?.[CLUSTER], 'race');
  }
}

test('claim race: 20 claimers with separate clients and live lists on 5 hosts — exactly 5 win, one consumer per host', async () => {
  const ns = await freshNamespace(env().admin.client, 'host-race');
  await createHosts(ns, ['h-0', 'h-1', 'h-2', 'h-3', 'h-4']);
  const clients = Array.from({ length: 20 }, () => new Client(Transport.fromConnection(env().admin)));
  const conflicts = clients.map(countConflicts);
  try {
    const consumers = clients.map((_, i): HostConsumer => ({ ref: machineRef(ns, `m-${String(i).padStart(2, '0')}`) }));
    const candidates = startingLine(clients.length, (i) => listedCandidates(clients[i]!));
    const outcomes = await Promise.all(
      clients.map((client, i) => acquireHost(client, consumers[i]!, { labels: { [CLUSTER]: 'race' } }, { candidates: candidates(i) })),
    );
    await assertOneWinnerPerHost(ns, consumers, outcomes, 5);
    const lost = conflicts.reduce((sum, c) => sum + c.count(), 0);
    // All 20 chose from the same snapshot of 5 free hosts, so at least 15 claims were refused.
    assert.ok(lost >= 15, `lost races (409 Conflict): ${lost}`);
  } finally {
    for (const client of clients) client.transport.close();
  }
});

test('claim race through caches: 4 replicas (InformerFactory + inventory each), 5 claimers each, on 5 hosts — exactly 5 win', async () => {
  const ns = await freshNamespace(env().admin.client, 'host-race-cache');
  await createHosts(ns, ['h-0', 'h-1', 'h-2', 'h-3', 'h-4']);
  const stop = new AbortController();
  const replicas = Array.from({ length: 4 }, () => {
    const client = new Client(Transport.fromConnection(env().admin));
    const factory = new InformerFactory(client, { namespace: ns });
    const inventory = hostInventory(factory.informerFor(BareMetalHostResource));
    const running = factory.start(stop.signal);
    return { client, factory, inventory, running };
  });
  try {
    await Promise.all(replicas.map((r) => r.factory.waitForSync()));
    const claimers = Array.from(
      { length: 20 },
      (_, i) => ({ replica: replicas[i % 4]!, consumer: { ref: machineRef(ns, `m-${String(i).padStart(2, '0')}`) } }),
    );
    const outcomes = await Promise.all(
      claimers.map(({ replica, consumer }) =>
        acquireHost(replica.client, consumer, { labels: { [CLUSTER]: 'race' } }, {
          candidates: (c) => replica.inventory.candidates(c),
          onWrite: (host) => replica.inventory.noteWrite(host),
        })
      ),
    );
    await assertOneWinnerPerHost(ns, claimers.map((c) => c.consumer), outcomes, 5);
    for (const replica of replicas) {
      for (const { consumer } of claimers) {
        const owned = replica.inventory.ownedBy(consumer.ref);
        assert.ok(owned.length <= 1, `${consumer.ref.name} holds ${owned.length} hosts in a replica's cache`);
      }
    }
  } finally {
    stop.abort();
    await Promise.all(replicas.map((r) => r.running));
    for (const replica of replicas) replica.client.transport.close();
  }
});

test('a claim from a stale copy never overwrites another consumer; a same-consumer re-claim is idempotent and sends nothing', async () => {
  const ns = await freshNamespace(env().admin.client, 'host-claim');
  await createHosts(ns, ['h-0', 'h-1', 'h-2']);
  const client = new Client(Transport.fromConnection(env().admin));
  const requests: string[] = [];
  client.transport.hooks = { after: (r) => void requests.push(`${r.verb} ${r.code}`) };
  try {
    const stale = await hostsOf(ns).get('h-0');
    const won = await claimHost(client, stale, { consumer: machineRef(ns, 'm-a') });
    assert.ok(won.claimed && won.changed);
    const lost = await claimHost(client, stale, { consumer: machineRef(ns, 'm-b') });
    assert.equal(lost.claimed ? 'claimed' : [lost.reason, lost.reason === 'gone' ? '' : lost.host.spec?.consumerRef?.name], ['taken', 'm-a']);
    assert.is((await hostsOf(ns).get('h-0')).spec?.consumerRef?.name, 'm-a');

    requests.length = 0;
    const again = await claimHost(client, won.claimed ? won.host : stale, { consumer: machineRef(ns, 'm-a') });
    assert.ok(again.claimed && !again.changed);
    assert.equal(requests, [], 'no request for a claim already in place');
    const fromStale = await claimHost(client, stale, { consumer: machineRef(ns, 'm-a') });
    assert.ok(fromStale.claimed && !fromStale.changed, 'a concurrent same-consumer claim is recognised, not a loss');

    const before = await hostsOf(ns).get('h-1');
    await hostsOf(ns).mergePatch('h-1', { metadata: { labels: { rack: 'r1' } } });
    const changed = await claimHost(client, before, { consumer: machineRef(ns, 'm-c') });
    assert.ok(!changed.claimed && changed.reason === 'conflict', 'changed but still free: decide again');
    assert.is(changed.host.metadata.labels?.['rack'], 'r1', 'with the current copy');
    assert.ok((await claimHost(client, changed.host, { consumer: machineRef(ns, 'm-c') })).claimed);

    const doomed = await hostsOf(ns).get('h-2');
    await hostsOf(ns).delete('h-2');
    assert.equal(await claimHost(client, doomed, { consumer: machineRef(ns, 'm-d') }), { claimed: false, reason: 'gone' });
  } finally {
    client.transport.close();
  }
});

test('provision then release: deployment written once, removed for deprovisioning, claim dropped after BMO is done, node-reuse label left', async () => {
  const ns = await freshNamespace(env().admin.client, 'host-life');
  await createHosts(ns, ['h-0'], () => ({ pool: 'a' }));
  const machine = await admin.api(Metal3MachineResource, ns).create(
    newMetal3Machine({
      metadata: { name: 'm-0' },
      spec: {
        image: { url: 'http://172.22.0.1/images/node.img', checksum: 'http://172.22.0.1/images/node.img.sha256sum', checksumType: 'sha256', format: 'raw' },
        hostSelector: { matchLabels: { pool: 'a' } },
        automatedCleaningMode: 'disabled',
      },
    }),
  );
  machine.status = { userData: { name: 'm-0-bootstrap' }, metaData: { name: 'm-0-metadata', namespace: ns } };
  const consumer = metal3MachineConsumer(machine, 'md-workers');

  const acquired = await acquireHost(admin, consumer, { labels: { [CLUSTER]: 'c1' } }, { candidates: listedCandidates(admin) });
  assert.ok(acquired.acquired && acquired.choice === 'picked');
  let host = acquired.host;
  assert.equal(host.metadata.ownerReferences?.map((o) => [o.kind, o.name, o.uid, o.controller]), [['Metal3Machine', 'm-0', machine.metadata.uid, true]]);

  const provisioned = await provisionHost(admin, host, metal3MachineProvisioning(machine));
  assert.ok(provisioned.changed);
  host = provisioned.host;
  assert.equal(host.spec?.image, machine.spec?.image);
  assert.equal([host.spec?.userData, host.spec?.metaData, host.spec?.online, host.spec?.automatedCleaningMode], [
    { name: 'm-0-bootstrap', namespace: ns },
    { name: 'm-0-metadata', namespace: ns },
    true,
    'disabled',
  ]);
  assert.is((await provisionHost(admin, host, metal3MachineProvisioning(machine))).changed, false, 'idempotent');

  host = await setState(ns, 'h-0', 'provisioned', { poweredOn: true });
  const release = { consumer: consumer.ref, clusterName: 'c1', nodeReuseName: 'md-workers' };
  const started = await releaseHost(admin, host, release);
  assert.equal(started.step === 'deprovisioning' && [started.started, started.state], [true, 'provisioned']);
  host = await hostsOf(ns).get('h-0');
  assert.equal([host.spec?.image, host.spec?.userData, host.spec?.metaData, host.spec?.online], [undefined, undefined, undefined, false]);
  assert.is(host.spec?.consumerRef?.name, 'm-0', 'the claim stays while BMO deprovisions');

  host = await setState(ns, 'h-0', 'deprovisioning');
  const waiting = await releaseHost(admin, host, release);
  assert.equal(waiting.step === 'deprovisioning' && [waiting.started, waiting.state], [false, 'deprovisioning']);

  host = await setState(ns, 'h-0', 'available');
  const released = await releaseHost(admin, host, release);
  assert.is(released.step, 'released');
  host = await hostsOf(ns).get('h-0');
  assert.equal([host.spec?.consumerRef, host.metadata.ownerReferences, host.metadata.labels], [undefined, undefined, { pool: 'a', [REUSE]: 'md-workers' }]);
  assert.is((await releaseHost(admin, host, release)).step, 'not-ours');

  const stranger = await acquireHost(admin, { ref: machineRef(ns, 'm-1'), nodeReuseName: 'md-other' }, {}, { candidates: listedCandidates(admin) });
  assert.equal(stranger, { acquired: false, reason: 'none' }, 'a host reserved for md-workers is not for others');
  const successor = await acquireHost(admin, { ref: machineRef(ns, 'm-2'), nodeReuseName: 'md-workers' }, {}, { candidates: listedCandidates(admin) });
  assert.ok(successor.acquired && successor.choice === 'reused');
  assert.equal(successor.host.metadata.labels, { pool: 'a' }, 'the reservation is consumed by the claim');
});

test('pause: our value plus the status annotation; a user pause is never lifted; unpause keeps the status annotation', async () => {
  const ns = await freshNamespace(env().admin.client, 'host-pause');
  await createHosts(ns, ['h-0'], () => ({ [CLUSTER]: 'c1' }));
  let host = await setState(ns, 'h-0', 'provisioned', { poweredOn: true, hardware: { hostname: 'node-0' } });
  const paused = await pauseHost(admin, host);
  assert.ok(paused.changed);
  host = paused.host;
  assert.is(host.metadata.annotations?.[PAUSED], 'metal3.io/capm3');
  const saved = JSON.parse(host.metadata.annotations?.[STATUS] ?? '{}') as Record<string, unknown>;
  assert.equal([saved['provisioning'], saved['poweredOn'], 'hardware' in saved], [{ ID: 'ironic-h-0', state: 'provisioned' }, true, false]);
  assert.is((await pauseHost(admin, host)).changed, false, 'already paused');
  assert.is((await unpauseHost(admin, host, { clusterName: 'c2' })).changed, false, 'not our cluster');
  const unpaused = await unpauseHost(admin, host, { clusterName: 'c1' });
  assert.ok(unpaused.changed);
  assert.equal([unpaused.host.metadata.annotations?.[PAUSED], typeof unpaused.host.metadata.annotations?.[STATUS]], [undefined, 'string']);

  host = await hostsOf(ns).mergePatch('h-0', { metadata: { annotations: { [PAUSED]: 'maintenance' } } });
  assert.is((await unpauseHost(admin, host, { clusterName: 'c1' })).changed, false);
  assert.is((await pauseHost(admin, host)).changed, false);
  assert.is((await hostsOf(ns).get('h-0')).metadata.annotations?.[PAUSED], 'maintenance');
});

test("selectors: the in-memory match equals the apiserver's label selector for every operator", async () => {
  const ns = await freshNamespace(env().admin.client, 'host-selector');
  const labels: Record<string, Record<string, string>> = {
    'h-0': { pool: 'a', cpus: '8' },
    'h-1': { pool: 'a', cpus: '32', gpu: 'yes' },
    'h-2': { pool: 'b', cpus: '16', rack: 'r1' },
    'h-3': { pool: 'c', rack: 'r2' },
    'h-4': {},
  };
  await createHosts(ns, Object.keys(labels), (name) => labels[name] ?? {});
  const all = (await hostsOf(ns).list()).items;
  const selectors: LabelSelector[] = [
    { matchLabels: { pool: 'a' } },
    { matchExpressions: [{ key: 'pool', operator: 'In', values: ['a', 'c'] }] },
    { matchExpressions: [{ key: 'pool', operator: 'NotIn', values: ['a'] }] },
    { matchExpressions: [{ key: 'gpu', operator: 'Exists' }] },
    { matchExpressions: [{ key: 'gpu', operator: '!' }] },
    { matchExpressions: [{ key: 'cpus', operator: 'Gt', values: ['10'] }] },
    { matchExpressions: [{ key: 'cpus', operator: 'lt', values: ['20'] }] },
    { matchExpressions: [{ key: 'rack', operator: '!=', values: ['r1'] }] },
    { matchExpressions: [{ key: 'rack', operator: '==', values: ['r2'] }] },
    { matchLabels: { pool: 'b' }, matchExpressions: [{ key: 'rack', operator: '=', values: ['r1'] }, { key: 'cpus', operator: 'Gt', values: ['9'] }] },
  ];
  for (const selector of selectors) {
    const requirements = hostSelectorRequirements(selector);
    const server = (await hostsOf(ns).list({ labelSelector: selectorString(requirements) })).items.map((h) => h.metadata.name).sort();
    const local = all.filter((h) => matchesRequirements(requirements, h.metadata.labels)).map((h) => h.metadata.name).sort();
    assert.equal(local, server, selectorString(requirements));
    const choice = chooseHost(all, { ref: machineRef(ns, 'm'), hostSelector: selector });
    assert.ok(choice.outcome === 'none' ? server.length === 0 : 'host' in choice && server.includes(choice.host.metadata.name), selectorString(requirements));
  }
});

test.run();
