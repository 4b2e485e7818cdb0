// Host selection end to end (research section 2, H-1…H-13, V-10, E-31, E-33 changed), through the
// Metal3Machine controller with the simulated BMO and workload cluster and the real Cluster API: which host
// each machine ends up holding, and what the machine says while it cannot get one. One namespace,
// Cluster and workload apiserver for the file; every test labels its hosts with its own group and
// selects on it, so machines of one test never see the hosts of another. Node reuse (H-7, H-10,
// E-32) and deleting hosts (H-6) are in selection-reuse.test.ts.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { LabelSelector } from '@metal3-ts/generated';
import { BareMetalHostResource } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { getCondition } from '@metal3-ts/shared/conditions/get';
import { cryptoRandomIndex, type RandomIndex } from '@metal3-ts/baremetal/selection';
import { HOST_ANNOTATION } from '../src/names.ts';
import {
  associatedHost,
  consumerOf as hostConsumer,
  consumers,
  createAvailableHosts,
  createHosts,
  createMachine,
  eventsFor,
  eventually,
  type HostList,
  hostWhen,
  IMAGE,
  machineTestScene,
  metal3MachineWhen,
  settled,
  sleep,
  v1,
  v1Message,
  v2,
  v2Message,
} from './support.ts';

// The random seam (H-12): the controller picks through `random`, which records how many candidates it
// was offered and delegates to the current strategy (crypto by default, as in production).
let strategy: RandomIndex = cryptoRandomIndex;
const offered: number[] = [];
const random: RandomIndex = (n) => {
  offered.push(n);
  return strategy(n);
};

/** Every pick since `offered` was cleared chose among exactly `n` candidates. */
const offeredOnly = (n: number): boolean => offered.length > 0 && offered.every((k) => k === n);

const test = suite('Metal3Machine host selection (simulated BMO, real Cluster API)');
const scene = machineTestScene(test, { prefix: 'machine-selection', controller: { random } });

test.before.each(() => {
  strategy = cryptoRandomIndex;
});

/** Creates one host per entry (name → labels) and waits until BMO made every one available. */
const availableHosts = (hosts: HostList) => createAvailableHosts(scene.client, scene.ns, hosts);
/** The host `name` ends up with (the name part of its host annotation). */
const hostOf = (name: string, timeoutMs?: number) => associatedHost(scene.client, scene.ns, name, timeoutMs);
const consumerOf = (host: string) => hostConsumer(scene.client, scene.ns, host);

/** A worker Metal3Machine (and its Machine) with `selector`. */
function machine(name: string, hostSelector: LabelSelector, extra: { failureDomain?: string } = {}) {
  return createMachine(scene.client, scene.ns, name, { spec: { image: IMAGE, hostSelector }, ...extra });
}

test('H-11, V-10 (matchLabels boguskey ⇒ none), M-7: a selector matching nothing waits (Info, no error); a matching host added later is taken at once', async () => {
  assert.is(scene.controller.errors(), 0);
  await machine('waiter', { matchLabels: { boguskey: 'value' } });
  const waiting = await metal3MachineWhen(
    scene.client,
    scene.ns,
    'waiter',
    'waiter waiting for a host',
    (m) => getCondition(m, 'AssociateBMH')?.reason === 'AssociateBMHFailed',
  );
  assert.is(v1(waiting, 'AssociateBMH'), 'False/AssociateBMHFailed/Info');
  assert.is(v2(waiting, 'AssociateBareMetalHost'), 'False/AssociateBareMetalHostFailed');
  assert.match(v1Message(waiting, 'AssociateBMH'), /waiting for an available BareMetalHost matching boguskey=value/);
  assert.is(v2Message(waiting, 'AssociateBareMetalHost'), v1Message(waiting, 'AssociateBMH'));
  assert.is(waiting.status?.failureReason, undefined, 'a wait is not a failure');
  await sleep(1_000);
  assert.is(scene.controller.errors(), 0, 'waiting is not an error');

  // The host's own events wake the machine: the safety-net requeue is 120 s, so seconds prove it.
  await availableHosts({ 'bogus-host': { boguskey: 'value' } });
  const available = performance.now();
  assert.is(await hostOf('waiter', 15_000), 'bogus-host');
  const ms = performance.now() - available;
  assert.ok(ms < 10_000, `associated ${Math.round(ms)} ms after the host became available`);
  const m3m = await metal3MachineWhen(scene.client, scene.ns, 'waiter', 'waiter AssociateBMH True', (m) => v1(m, 'AssociateBMH') === 'True//');
  assert.is(v2(m3m, 'AssociateBareMetalHost'), 'True/AssociateBareMetalHostSuccess');
  assert.is(scene.controller.errors(), 0);
});

test('H-3, seed 002: an invalid host selector (operator pancakes, gt with a non-integer) is InvalidConfiguration with a Warning event, and no retry loop', async () => {
  const errors = scene.controller.errors();
  const reconciles = scene.controller.reconciles();
  await machine('bad-op', { matchExpressions: [{ key: 'key1', operator: 'pancakes', values: ['value1'] }] });
  await machine('bad-gt', { matchExpressions: [{ key: 'num', operator: 'gt', values: ['five'] }] });
  for (const [name, problem] of [['bad-op', "operator 'pancakes' is not recognized"], ['bad-gt', 'the value must be an integer']] as const) {
    const m3m = await metal3MachineWhen(scene.client, scene.ns, name, `${name} failed`, (m) => !!m.status?.failureReason);
    assert.is(m3m.status?.failureReason, 'InvalidConfiguration', name);
    assert.ok(m3m.status?.failureMessage?.includes(problem), `${name}: failureMessage names the problem: ${m3m.status?.failureMessage}`);
    assert.is(v1(m3m, 'AssociateBMH'), 'False/AssociateBMHFailed/Error', name);
    assert.is(v1Message(m3m, 'AssociateBMH'), m3m.status?.failureMessage, name);
    assert.is(v2(m3m, 'AssociateBareMetalHost'), 'False/AssociateBareMetalHostFailed', name);
    assert.ok(v2Message(m3m, 'AssociateBareMetalHost').includes(problem), name);
    assert.is(m3m.metadata.annotations?.[HOST_ANNOTATION], undefined, `${name}: no host`);
    const events = await eventually(`${name} InvalidConfiguration event`, async () => {
      const found = await eventsFor(scene.client, scene.ns, name, 'InvalidConfiguration');
      return found.length > 0 ? found : undefined;
    });
    assert.is(events[0]?.type, 'Warning', name);
    assert.is(events[0]?.message, m3m.status?.failureMessage, name);
  }
  // No retry loop: one terminal error each (a retry with backoff would add errors; reconciles woken by
  // other objects' events, such as Cluster API copying the failure, are no retry).
  await settled(scene.controller, reconciles, 1_000);
  assert.is(scene.controller.errors() - errors, 2, 'exactly one (terminal) error per invalid machine');
  const held = await consumers(scene.client, scene.ns);
  assert.ok(!held.has('bad-op') && !held.has('bad-gt'), 'no host claimed');
});

test("V-10, H-5, H-6, H-8: a worker skips the host in error, the paused, the unhealthy and the other machine's host, and takes the available one", async () => {
  strategy = () => 0; // the first candidate in name order: any skipped host would sort before the right one
  const group = { group: 'v10' };
  await createHosts(scene.client, scene.ns, ['v10-b-errored'], { labels: group, annotations: { 'sim.metal3-ts.dev/fail': 'power' } });
  await availableHosts({ 'v10-a-consumed': group, 'v10-c-paused': group, 'v10-d-unhealthy': group, 'v10-e-available': group });
  // BMO reaches `available`, then fails to power the host on: available with an errorMessage.
  const errored = await hostWhen(
    scene.client,
    scene.ns,
    'v10-b-errored',
    'v10-b-errored available with an error',
    (h) => h.status?.provisioning?.state === 'available' && !!h.status.errorMessage,
    30_000,
  );
  assert.match(errored.status?.errorMessage ?? '', /simulated power failure/);
  const hosts = scene.client.api(BareMetalHostResource, scene.ns);
  await hosts.mergePatch('v10-a-consumed', {
    spec: { consumerRef: { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Machine', name: 'someothermachine', namespace: scene.ns } },
  });
  await hosts.mergePatch('v10-c-paused', { metadata: { annotations: { 'baremetalhost.metal3.io/paused': 'user' } } });
  await hosts.mergePatch('v10-d-unhealthy', { metadata: { annotations: { 'capi.metal3.io/unhealthy': 'capm3/UnhealthyNode' } } });

  offered.length = 0;
  await machine('v10-worker', { matchLabels: group });
  assert.is(await hostOf('v10-worker'), 'v10-e-available');
  assert.ok(offeredOnly(1), `one candidate was left to pick from (${offered.join(',')})`);
  await settled(scene.controller, 0);
  for (const skipped of ['v10-b-errored', 'v10-c-paused', 'v10-d-unhealthy']) assert.is(await consumerOf(skipped), undefined, `${skipped} not taken`);
  assert.is(await consumerOf('v10-a-consumed'), 'someothermachine', 'H-5: another claim is never overwritten');
});

test('H-4, E-31: a host already naming the Metal3Machine (crash after the claim) is taken again though paused, unhealthy and off-selector; no second host', async () => {
  await availableHosts({ 'e31-held': { group: 'e31-other' }, 'e31-free': { group: 'e31' } });
  await scene.client.api(BareMetalHostResource, scene.ns).mergePatch('e31-held', {
    metadata: { annotations: { 'baremetalhost.metal3.io/paused': 'user', 'capi.metal3.io/unhealthy': 'capm3/UnhealthyNode' } },
    spec: { consumerRef: { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Machine', name: 'e31', namespace: scene.ns } },
  });
  const { metal3Machine } = await machine('e31', { matchLabels: { group: 'e31' } });
  assert.is(await hostOf('e31'), 'e31-held');
  // The claim is completed on the held host: controller owner and cluster label (H-13).
  const held = await hostWhen(scene.client, scene.ns, 'e31-held', 'e31-held owned', (h) => !!h.metadata.ownerReferences?.length);
  assert.equal(held.metadata.ownerReferences?.map((r) => [r.kind, r.name, r.uid, r.controller]), [['Metal3Machine', 'e31', metal3Machine.metadata.uid, true]]);
  assert.is(held.metadata.labels?.['cluster.x-k8s.io/cluster-name'], 'test1');
  await settled(scene.controller, 0);
  assert.is(await consumerOf('e31-free'), undefined, 'the free host matching the selector is left alone');
  assert.equal((await consumers(scene.client, scene.ns)).get('e31'), ['e31-held'], 'the machine holds exactly one host');
});

test('H-12, M-10: the failure domain is copied from the Machine and its hosts are preferred; with none in the domain any host is taken', async () => {
  strategy = () => 0; // from the whole pool this would be fd-a: only the preference gives fd-z
  await availableHosts({
    'fd-a': { group: 'fd', 'infrastructure.cluster.x-k8s.io/failure-domain': 'fd-2' },
    'fd-b': { group: 'fd' },
    'fd-z': { group: 'fd', 'infrastructure.cluster.x-k8s.io/failure-domain': 'fd-1' },
  });
  offered.length = 0;
  await machine('fd-one', { matchLabels: { group: 'fd' } }, { failureDomain: 'fd-1' });
  assert.is(await hostOf('fd-one'), 'fd-z');
  assert.ok(offeredOnly(1), `only the host in fd-1 was offered (${offered.join(',')})`);
  // The host is claimed mid-reconcile; the copied domain is written by the reconcile's closing patch.
  await metal3MachineWhen(scene.client, scene.ns, 'fd-one', 'M-10: fd-one carries failureDomain fd-1', (m) => m.spec?.failureDomain === 'fd-1');
  offered.length = 0;
  await machine('fd-nine', { matchLabels: { group: 'fd' } }, { failureDomain: 'fd-9' });
  assert.is(await hostOf('fd-nine'), 'fd-a', 'no host in fd-9: falls back to the first of all candidates');
  assert.ok(offeredOnly(2), `both hosts left were offered (${offered.join(',')})`);
});

test('H-12: machines on equal hosts end on distinct hosts; the pick is the index the injected random returns', async () => {
  const equal = ['rnd-1', 'rnd-2', 'rnd-3', 'rnd-4'];
  await availableHosts(Object.fromEntries(equal.map((name) => [name, { group: 'rnd' }])));
  const names = ['rnd-m1', 'rnd-m2', 'rnd-m3', 'rnd-m4'];
  await Promise.all(names.map((name) => machine(name, { matchLabels: { group: 'rnd' } })));
  const got = await Promise.all(names.map((name) => hostOf(name)));
  assert.equal([...got].sort(), equal, `distinct hosts: ${got.join(', ')}`);
  const held = await consumers(scene.client, scene.ns);
  for (const name of names) assert.is(held.get(name)?.length, 1, `${name} holds one host`);

  // Always the last candidate: seam-d, then seam-c, then seam-b (random would do so once in 24).
  strategy = (n) => n - 1;
  offered.length = 0;
  await availableHosts(Object.fromEntries(['seam-a', 'seam-b', 'seam-c', 'seam-d'].map((name) => [name, { group: 'seam' }])));
  for (const [name, expected] of [['seam-m1', 'seam-d'], ['seam-m2', 'seam-c'], ['seam-m3', 'seam-b']] as const) {
    await machine(name, { matchLabels: { group: 'seam' } });
    assert.is(await hostOf(name), expected, name);
  }
  for (const n of [4, 3, 2]) assert.ok(offered.includes(n), `the random function was offered ${n} candidates (${offered.join(',')})`);
  assert.is(await consumerOf('seam-a'), undefined);
});

// H-2, H-3, E-33 (changed), V-10: one machine per selector. Each row's hosts carry the row label
// `r-<id>`: the one host that matches (`sel-<id>`) and decoys that must not; decoys are shared.
const DECOYS: Record<string, Record<string, string>> = {
  a: { key1: 'value1', num: 'abc' },
  b: { num: '5' },
  c: { key1: 'value2', num: '0' },
};
const expr = (operator: string, values: string[] = [], key = 'key1'): LabelSelector => ({ matchExpressions: [{ key, operator, values }] });
const ROWS: readonly { id: string; selector: LabelSelector; match: Record<string, string>; decoys: string }[] = [
  { id: 'ml', selector: { matchLabels: { key1: 'value1' } }, match: { key1: 'value1' }, decoys: 'bc' },
  { id: 'eq', selector: expr('=', ['value1']), match: { key1: 'value1' }, decoys: 'bc' },
  { id: 'eqeq', selector: expr('==', ['value1']), match: { key1: 'value1' }, decoys: 'bc' },
  { id: 'in', selector: expr('in', ['abc', 'value1', '123']), match: { key1: 'value1' }, decoys: 'bc' },
  { id: 'in-uc', selector: expr('In', ['abc', 'value1']), match: { key1: 'value1' }, decoys: 'bc' },
  { id: 'ne', selector: expr('!=', ['value1']), match: { key1: 'value2' }, decoys: 'a' },
  { id: 'notin', selector: expr('notin', ['value1', 'abc']), match: {}, decoys: 'a' },
  { id: 'notin-uc', selector: expr('NotIn', ['value1']), match: { key1: 'value3' }, decoys: 'a' },
  { id: 'exists', selector: expr('exists'), match: { key1: 'anything' }, decoys: 'b' },
  { id: 'exists-uc', selector: expr('Exists'), match: { key1: 'x' }, decoys: 'b' },
  { id: 'dne', selector: expr('!'), match: {}, decoys: 'ac' },
  { id: 'dne-k8s', selector: expr('DoesNotExist'), match: {}, decoys: 'ac' },
  { id: 'gt', selector: expr('gt', ['5'], 'num'), match: { num: '10' }, decoys: 'abc' },
  { id: 'gt-uc', selector: expr('Gt', ['5'], 'num'), match: { num: '6' }, decoys: 'abc' },
  { id: 'lt', selector: expr('lt', ['5'], 'num'), match: { num: '3' }, decoys: 'ab' },
  { id: 'lt-uc', selector: expr('LT', ['5'], 'num'), match: { num: '04' }, decoys: 'ab' },
  { id: 'and', selector: { matchLabels: { key1: 'value1' }, ...expr('exists', [], 'key2') }, match: { key1: 'value1', key2: 'x' }, decoys: 'abc' },
];

test('H-2, H-3, E-33 (DoesNotExist accepted), V-10: matchLabels and every matchExpressions operator, any letter case, AND-ed', async () => {
  const hosts: Record<string, Record<string, string>> = {};
  for (const row of ROWS) hosts[`sel-${row.id}`] = { [`r-${row.id}`]: 'y', ...row.match };
  for (const [decoy, labels] of Object.entries(DECOYS)) {
    hosts[`sel-decoy-${decoy}`] = { ...labels, ...Object.fromEntries(ROWS.filter((r) => r.decoys.includes(decoy)).map((r) => [`r-${r.id}`, 'y'])) };
  }
  await availableHosts(hosts);
  const errors = scene.controller.errors();
  await Promise.all(ROWS.map((row) => machine(`sel-m-${row.id}`, { ...row.selector, matchLabels: { [`r-${row.id}`]: 'y', ...row.selector.matchLabels } })));
  const got = await Promise.all(ROWS.map((row) => hostOf(`sel-m-${row.id}`)));
  ROWS.forEach((row, i) => assert.is(got[i], `sel-${row.id}`, `row ${row.id}: ${JSON.stringify(row.selector)}`));
  for (const decoy of Object.keys(DECOYS)) assert.is(await consumerOf(`sel-decoy-${decoy}`), undefined, `decoy ${decoy} matches no row`);
  assert.is(scene.controller.errors(), errors, 'no selector of the table is an error');
});

test.run();
