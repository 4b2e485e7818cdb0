import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { BareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import type { HostConsumer } from './consumer.ts';
import { InvalidHostSelectorError } from './label-selector.ts';
import {
  chooseHost,
  cryptoRandomIndex,
  type Exclusion,
  exclusionOf,
  exclusionText,
  type HostChoice,
  nodeReuseLabelMatches,
  type RandomIndex,
} from './selection.ts';
import { machineRef, testHost } from './testing.ts';

const test = suite('host selection');

const REUSE = 'infrastructure.cluster.x-k8s.io/node-reuse';
const DOMAIN = 'infrastructure.cluster.x-k8s.io/failure-domain';
const me: HostConsumer = { ref: machineRef('m-0') };
const first: RandomIndex = () => 0;
const last: RandomIndex = (n) => n - 1;

/** `outcome:hostName` (or just the outcome), to compare choices in tables. */
const describe = (choice: HostChoice): string => ('host' in choice ? `${choice.outcome}:${choice.host.metadata.name ?? ''}` : choice.outcome);
const choose = (hosts: BareMetalHost[], consumer: HostConsumer = me, random: RandomIndex = first): string => describe(chooseHost(hosts, consumer, { random }));

test('H-1: only hosts of the consumer namespace count', () => {
  assert.is(choose([testHost('a', { namespace: 'other' })]), 'none');
  assert.is(choose([testHost('a', { namespace: 'other' }), testHost('b')]), 'picked:b');
});

test('H-4, E-31: the host already claimed by this consumer wins over everything, whatever its marks', () => {
  const mine = testHost('z', {
    consumer: machineRef('m-0'),
    state: 'provisioned',
    errorMessage: 'boom',
    deleting: true,
    annotations: { 'baremetalhost.metal3.io/paused': 'x', 'capi.metal3.io/unhealthy': '' },
  });
  assert.is(choose([testHost('a'), mine]), 'owned:z');
  const otherVersion = testHost('y', { consumer: { ...machineRef('m-0'), apiVersion: 'infrastructure.cluster.x-k8s.io/v1alpha5' } });
  assert.is(choose([testHost('a'), otherVersion]), 'owned:y', 'the version of the consumerRef is ignored');
});

test('H-4 (deliberate difference): the held host is found even when it no longer matches the selector', () => {
  const consumer: HostConsumer = { ...me, hostSelector: { matchLabels: { pool: 'new' } } };
  assert.is(choose([testHost('a', { labels: { pool: 'new' } }), testHost('b', { consumer: me.ref, labels: { pool: 'old' } })], consumer), 'owned:b');
});

test('H-5, H-6, H-8: hosts that are claimed, deleting, errored, paused, unhealthy or not ready/available are skipped', () => {
  const skipped: [label: string, host: BareMetalHost][] = [
    ['claimed by another machine', testHost('a', { consumer: machineRef('m-1') })],
    ['claimed by another kind', testHost('a', { consumer: { apiVersion: 'example.com/v1', kind: 'Metal3Machine', name: 'm-0', namespace: 'ns' } })],
    ['deleting', testHost('a', { deleting: true })],
    ['error message', testHost('a', { errorMessage: 'power failure' })],
    ['paused by CAPM3', testHost('a', { annotations: { 'baremetalhost.metal3.io/paused': 'metal3.io/capm3' } })],
    ['paused by a user', testHost('a', { annotations: { 'baremetalhost.metal3.io/paused': '' } })],
    ['unhealthy', testHost('a', { annotations: { 'capi.metal3.io/unhealthy': 'capm3/UnhealthyNode' } })],
    ...[
      '',
      'unmanaged',
      'registering',
      'match profile',
      'preparing',
      'provisioning',
      'provisioned',
      'externally provisioned',
      'deprovisioning',
      'inspecting',
      'powering off before delete',
      'deleting',
      'some future state',
    ].map(
      (state): [string, BareMetalHost] => [`state "${state}"`, testHost('a', { state })],
    ),
  ];
  for (const [label, host] of skipped) assert.is(choose([host]), 'none', label);
  assert.is(choose([testHost('a', { state: 'ready' })]), 'picked:a', 'ready');
  assert.is(choose([testHost('a', { state: 'available' })]), 'picked:a', 'available');
});

test('H-9: online, power, operational status, detached, an image already set and externallyProvisioned are not filters', () => {
  const host = testHost('a', {
    poweredOn: true,
    annotations: { 'baremetalhost.metal3.io/detached': '' },
    spec: { online: true, externallyProvisioned: true, image: { url: 'http://x/img' } },
  });
  assert.is(choose([host]), 'picked:a');
});

test('H-2, H-3: the host selector filters candidates (labels AND expressions)', () => {
  const hosts = [
    testHost('a', { labels: { pool: 'a', rack: 'r1', cpus: '16' } }),
    testHost('b', { labels: { pool: 'a', rack: 'r2', cpus: '8' } }),
    testHost('c', { labels: { pool: 'b', rack: 'r1', cpus: '32' } }),
  ];
  const pick = (hostSelector: HostConsumer['hostSelector']) => choose(hosts, { ...me, hostSelector });
  assert.is(pick({ matchLabels: { pool: 'a' }, matchExpressions: [{ key: 'rack', operator: 'In', values: ['r2'] }] }), 'picked:b');
  assert.is(pick({ matchExpressions: [{ key: 'cpus', operator: 'Gt', values: ['20'] }] }), 'picked:c');
  assert.is(pick({ matchExpressions: [{ key: 'pool', operator: 'NotIn', values: ['a'] }] }), 'picked:c');
  assert.is(pick({ matchExpressions: [{ key: 'gpu', operator: 'Exists' }] }), 'none');
  assert.is(pick({ matchExpressions: [{ key: 'gpu', operator: '!' }] }), 'picked:a');
  assert.is(pick({ matchExpressions: [{ key: 'gpu', operator: 'DoesNotExist' }] }), 'picked:a', 'E-33 changed');
});

test('H-3: an invalid selector or failure domain throws InvalidHostSelectorError (not retryable)', () => {
  for (
    const consumer of [
      { ...me, hostSelector: { matchExpressions: [{ key: 'pool', operator: 'pancakes' }] } },
      { ...me, hostSelector: { matchLabels: { 'bad key!': 'a' } } },
      { ...me, failureDomain: 'rack 1' },
    ]
  ) {
    assert.throws(() => chooseHost([testHost('a')], consumer), (e: unknown) => e instanceof InvalidHostSelectorError);
  }
});

test('N-5, H-6: a node-reuse label for another owner excludes the host; an empty label matches nobody', () => {
  const consumer: HostConsumer = { ...me, nodeReuseName: 'md-workers' };
  assert.is(choose([testHost('a', { labels: { [REUSE]: 'md-other' } })], consumer), 'none');
  assert.is(choose([testHost('a', { labels: { [REUSE]: '' } })], consumer), 'none');
  assert.is(choose([testHost('a', { labels: { [REUSE]: 'md-workers' } })], { ...me }), 'none', 'a consumer without a reuse name');
  assert.is(nodeReuseLabelMatches(testHost('a', { labels: { [REUSE]: '' } }), ''), false);
});

test('H-7, H-10, E-32: reserved hosts shut out every other host; the last ready one wins; a non-ready one blocks', () => {
  const consumer: HostConsumer = { ...me, nodeReuseName: 'cp-kcp', failureDomain: 'fd-2' };
  const reserved = (name: string, state: string, extra: Record<string, string> = {}) => testHost(name, { state, labels: { [REUSE]: 'cp-kcp', ...extra } });
  const free = testHost('f', { labels: { [DOMAIN]: 'fd-2' } });
  const table: [label: string, hosts: BareMetalHost[], expected: string][] = [
    ['one ready reserved host beats free hosts and failure domains', [free, reserved('r1', 'ready', { [DOMAIN]: 'fd-1' })], 'reused:r1'],
    ['the last ready reserved host (name order) wins', [reserved('r2', 'available'), reserved('r1', 'ready'), free], 'reused:r2'],
    ['a reserved host still deprovisioning blocks selection', [reserved('r1', 'deprovisioning'), free], 'reuse-pending:r1'],
    ['…even after a ready one was seen', [reserved('r1', 'ready'), reserved('r2', 'deprovisioning'), free], 'reuse-pending:r2'],
    ['a ready one seen after a pending one does not help', [reserved('r1', 'provisioned'), reserved('r2', 'ready')], 'reuse-pending:r1'],
    ['unhealthy reserved hosts are skipped like any host', [{
      ...reserved('r1', 'deprovisioning'),
      metadata: { ...reserved('r1', 'deprovisioning').metadata, annotations: { 'capi.metal3.io/unhealthy': '' } },
    }, free], 'picked:f'],
    ['reserved hosts must match the selector too', [reserved('r1', 'ready', { pool: 'x' })], 'reused:r1'],
  ];
  for (const [label, hosts, expected] of table) assert.is(choose(hosts, consumer, last), expected, label);
  assert.is(choose([reserved('r1', 'ready', { pool: 'x' })], { ...consumer, hostSelector: { matchLabels: { pool: 'y' } } }), 'none', 'selector excludes it');
});

test('H-12: a failure domain restricts the pick to its hosts when it has any, otherwise any candidate', () => {
  const hosts = [
    testHost('a', { labels: { [DOMAIN]: 'fd-1' } }),
    testHost('b', { labels: { [DOMAIN]: 'fd-2' } }),
    testHost('c'),
    testHost('d', { labels: { [DOMAIN]: 'fd-2' } }),
  ];
  const seen = new Set<string>();
  for (let i = 0; i < 4; i++) seen.add(choose(hosts, { ...me, failureDomain: 'fd-2' }, (n) => i % n));
  assert.equal([...seen].sort(), ['picked:b', 'picked:d']);
  assert.is(choose(hosts, { ...me, failureDomain: 'fd-9' }, last), 'picked:d', 'no host in fd-9: any candidate');
  assert.is(choose(hosts, me, last), 'picked:d', 'no failure domain: any candidate');
});

test('H-12: the default pick is uniformly random over candidates (crypto RNG)', () => {
  const hosts = ['a', 'b', 'c', 'd'].map((name) => testHost(name));
  const counts = new Map<string, number>();
  for (let i = 0; i < 4000; i++) {
    const choice = describe(chooseHost(hosts, me));
    counts.set(choice, (counts.get(choice) ?? 0) + 1);
  }
  assert.equal([...counts.keys()].sort(), ['picked:a', 'picked:b', 'picked:c', 'picked:d']);
  for (const [choice, count] of counts) assert.ok(count > 800 && count < 1200, `${choice} picked ${count} times of 4000`);
  assert.throws(() => cryptoRandomIndex(0), RangeError);
});

test('H-11: no candidates at all is `none`', () => {
  assert.is(choose([]), 'none');
});

test('name order is used whatever order the hosts arrive in (reuse: last ready wins)', () => {
  const consumer: HostConsumer = { ...me, nodeReuseName: 'md-a' };
  const r = (name: string) => testHost(name, { labels: { [REUSE]: 'md-a' } });
  assert.is(choose([r('h-3'), r('h-1'), r('h-2')], consumer), 'reused:h-3');
  assert.is(choose([r('h-2'), r('h-3'), r('h-1')], consumer), 'reused:h-3');
});

test('exclusionOf, B2-11: the first rule that keeps a host from the consumer, in the order chooseHost applies them; the deprecated unhealthy key is named', () => {
  const consumer: HostConsumer = { ref: machineRef('m-0'), hostSelector: { matchLabels: { pool: 'a' } }, nodeReuseName: 'md-0' };
  const pool = { pool: 'a' };
  const rows: [label: string, host: BareMetalHost, expected: Exclusion | undefined][] = [
    ['a candidate', testHost('h', { labels: pool }), undefined],
    ['reserved for us, in any state (H-7)', testHost('h', { labels: { ...pool, [REUSE]: 'md-0' }, state: 'deprovisioning' }), undefined],
    ['other namespace (H-1)', testHost('h', { namespace: 'other', labels: pool }), 'other namespace'],
    ['off-selector, though paused too (H-2)', testHost('h', { annotations: { 'baremetalhost.metal3.io/paused': '' } }), 'selector'],
    ['claimed (H-5)', testHost('h', { labels: pool, consumer: machineRef('m-1') }), 'claimed'],
    ['reserved for another (H-6)', testHost('h', { labels: { ...pool, [REUSE]: 'md-1' } }), 'reserved for another consumer'],
    ['deleting (H-6)', testHost('h', { labels: pool, deleting: true }), 'being deleted'],
    ['errored (H-6)', testHost('h', { labels: pool, errorMessage: 'boom' }), 'in error'],
    ['paused (H-6)', testHost('h', { labels: pool, annotations: { 'baremetalhost.metal3.io/paused': 'x' } }), 'paused'],
    ['unhealthy (H-6)', testHost('h', { labels: pool, annotations: { 'capi.metal3.io/unhealthy': '' } }), 'unhealthy'],
    ['unhealthy (H-6, B2-11: v1.13 key)', testHost('h', { labels: pool, annotations: { 'capm3.metal3.io/unhealthy': '' } }), 'unhealthy'],
    ['provisioned (H-8)', testHost('h', { labels: pool, state: 'provisioned' }), 'state'],
  ];
  for (const [label, host, expected] of rows) assert.is(exclusionOf(host, consumer), expected, label);
  assert.is(exclusionText('state', testHost('h', { state: 'provisioned' })), 'is "provisioned", not ready or available');
  assert.is(exclusionText('paused', testHost('h')), 'is paused');
  // B2-11: the deprecated key still excludes, and the message says what to write instead.
  assert.is(exclusionText('unhealthy', testHost('h', { annotations: { 'capm3.metal3.io/unhealthy': '' } })), 'is marked unhealthy');
  assert.is(
    exclusionText('unhealthy', testHost('h', { annotations: { 'capi.metal3.io/unhealthy': '' } })),
    'is marked unhealthy by the deprecated annotation capi.metal3.io/unhealthy (use capm3.metal3.io/unhealthy)',
  );
});

test('issue 20: hosts another worker is claiming are picked last, only when nothing else is left; the outcome never changes', () => {
  const hosts = [testHost('h1'), testHost('h2'), testHost('h3')];
  const claiming = new Set(['h1', 'h2']);
  const avoid = (host: Readonly<BareMetalHost>) => claiming.has(host.metadata.name ?? '');
  assert.is(describe(chooseHost(hosts, me, { random: first, avoid })), 'picked:h3');
  assert.is(describe(chooseHost(hosts.slice(0, 2), me, { random: first, avoid })), 'picked:h1', 'only avoided hosts left: one of them, as without');
  const reserved = testHost('r1', { labels: { [REUSE]: 'md-workers' } });
  const reuse: HostConsumer = { ...me, nodeReuseName: 'md-workers' };
  assert.is(
    describe(chooseHost([reserved, testHost('h3')], reuse, { random: first, avoid: () => true })),
    'reused:r1',
    'H-10: a reservation is not a preference',
  );
});

test.run();
