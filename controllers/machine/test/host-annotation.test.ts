// The host annotation `metal3.io/BareMetalHost` set before the controller chose a host (M-40, M-41,
// E-29, H-4 as changed here, issue 21 point 4): it keeps its jobs (a machine moved with its host by
// `clusterctl move`, a host already consumed by this machine) without being a way around selection.
// A record of a free host is claimed only if selection would choose that host; otherwise it is
// forgotten, with a HostAnnotationIgnored Warning event, and the machine waits like any other. A
// record naming another namespace is terminal InvalidConfiguration. Every test selects its own group.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SecretResource } from '@metal3-ts/generated/core/v1';
import { type Metal3Machine, Metal3MachineResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { BareMetalHostResource } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { getCondition } from '@metal3-ts/shared/conditions/get';
import { NODE_REUSE_LABEL } from '@metal3-ts/baremetal/names';
import { FAIL_ANNOTATION } from '@metal3-ts/test/sim/bmo/index';
import { CLUSTER_NAME_LABEL, HOST_ANNOTATION } from '../src/names.ts';
import {
  CLUSTER,
  consumerOf as hostConsumer,
  createAvailableHosts,
  createHosts,
  createMachine,
  EVENT_MS,
  eventsFor,
  eventually,
  gone,
  HOLD_FINALIZER,
  hostWhen,
  IMAGE,
  machineTestScene,
  machineWithNode,
  metal3MachineWhen,
  PROVISION_MS,
  v1,
  v1Message,
  v2,
  v2Message,
} from './support.ts';

const test = suite('Metal3Machine host annotation set in advance (M-40, M-41, H-4, E-29)');
const scene = machineTestScene(test, { prefix: 'machine-host-annotation' });

const consumerOf = (host: string) => hostConsumer(scene.client, scene.ns, host);
const machine = (name: string, group: string, annotation: string) =>
  createMachine(scene.client, scene.ns, name, {
    spec: { image: IMAGE, hostSelector: { matchLabels: { group } } },
    annotations: { [HOST_ANNOTATION]: annotation },
  });

/** The machine once it waits for a host with the usual "No available host found" wait (H-11), record gone. */
async function waitingWithoutRecord(name: string): Promise<Metal3Machine> {
  const m3m = await metal3MachineWhen(
    scene.client,
    scene.ns,
    name,
    `${name} waiting for a host, its record forgotten`,
    (m) => !m.metadata.annotations?.[HOST_ANNOTATION] && getCondition(m, 'AssociateBMH')?.reason === 'AssociateBMHFailed',
    EVENT_MS,
  );
  assert.is(v1(m3m, 'AssociateBMH'), 'False/AssociateBMHFailed/Info', `${name}: a wait, not an error`);
  assert.match(v1Message(m3m, 'AssociateBMH'), /^No available host found: waiting for an available BareMetalHost matching group=/, name);
  assert.is(v2(m3m, 'AssociateBareMetalHost'), 'False/AssociateBareMetalHostFailed', name);
  assert.is(m3m.status?.failureReason, undefined, `${name}: not a failure`);
  return m3m;
}

/** The HostAnnotationIgnored Warning event of `name`, whose message must match `why`. */
async function ignoredEvent(name: string, why: RegExp): Promise<void> {
  const events = await eventually(`${name} HostAnnotationIgnored event`, async () => {
    const found = await eventsFor(scene.client, scene.ns, name, 'HostAnnotationIgnored');
    return found.length > 0 ? found : undefined;
  });
  assert.is(events.length, 1, `${name}: told once`);
  assert.is(events[0]?.type, 'Warning', name);
  assert.match(events[0]?.message ?? '', why, name);
}

test('M-40 (changed), H-11: a selector matching nothing and an annotation naming a free host outside it: the host is not claimed, the record is forgotten with a Warning, the machine waits as usual', async () => {
  await createAvailableHosts(scene.client, scene.ns, { 'out-free': { group: 'out-other' } });
  await machine('out', 'out-nothing', `${scene.ns}/out-free`);
  await waitingWithoutRecord('out');
  await ignoredEvent('out', new RegExp(`BareMetalHost ${scene.ns}/out-free does not match the host selector`));
  assert.is(await consumerOf('out-free'), undefined, 'not claimed');
  // A bare name (no namespace part) is the same record (M-40).
  await createAvailableHosts(scene.client, scene.ns, { 'out-bare': { group: 'out-other' } });
  await machine('out-bare-m', 'out-nothing', 'out-bare');
  await waitingWithoutRecord('out-bare-m');
  assert.is(await consumerOf('out-bare'), undefined, 'not claimed either');
  assert.is(scene.controller.errors(), 0, 'a wait, no error loop');
});

test("M-40 (changed), H-6: an annotation naming a host in error, paused, unhealthy, being deleted or reserved for another machine's node reuse claims nothing", async () => {
  const group = { group: 'flt' };
  await createHosts(scene.client, scene.ns, ['flt-errored'], { labels: group, annotations: { [FAIL_ANNOTATION]: 'power' } });
  await createAvailableHosts(scene.client, scene.ns, {
    'flt-paused': group,
    'flt-unhealthy': group,
    'flt-reserved': { ...group, [NODE_REUSE_LABEL]: 'md-someone-else' },
  });
  const hosts = scene.client.api(BareMetalHostResource, scene.ns);
  await createAvailableHosts(scene.client, scene.ns, { 'flt-deleting': group });
  await hosts.mergePatch('flt-deleting', { metadata: { finalizers: [...((await hosts.get('flt-deleting')).metadata.finalizers ?? []), HOLD_FINALIZER] } });
  await hosts.delete('flt-deleting');
  await hostWhen(
    scene.client,
    scene.ns,
    'flt-deleting',
    'flt-deleting held in deletion',
    (h) => !!h.metadata.deletionTimestamp && (h.metadata.finalizers ?? []).join() === HOLD_FINALIZER,
    30_000,
  );
  await hostWhen(
    scene.client,
    scene.ns,
    'flt-errored',
    'flt-errored available with an error',
    (h) => h.status?.provisioning?.state === 'available' && !!h.status.errorMessage,
    30_000,
  );
  await hosts.mergePatch('flt-paused', { metadata: { annotations: { 'baremetalhost.metal3.io/paused': 'user' } } });
  await hosts.mergePatch('flt-unhealthy', { metadata: { annotations: { 'capi.metal3.io/unhealthy': 'capm3/UnhealthyNode' } } });

  const cases = [
    ['flt-errored', /is in error/],
    ['flt-paused', /is paused/],
    ['flt-unhealthy', /is marked unhealthy/],
    ['flt-deleting', /is being deleted/],
    ['flt-reserved', /is reserved for node reuse by another machine/],
  ] as const;
  for (const [host] of cases) await machine(`m-${host}`, 'flt', `${scene.ns}/${host}`);
  for (const [host, why] of cases) {
    await waitingWithoutRecord(`m-${host}`);
    await ignoredEvent(`m-${host}`, why);
  }
  for (const [host] of cases) assert.is(await consumerOf(host), undefined, `${host} not claimed`);
  await hosts.mergePatch('flt-deleting', { metadata: { finalizers: null } } as never);
  assert.is(scene.controller.errors(), 0);
});

test('M-40, M-41, M-26 (crash between record and claim): a record of a free host selection would choose is claimed, that host and no other, with its BMC Secret labelled', async () => {
  await createAvailableHosts(scene.client, scene.ns, { 'rec-a': { group: 'rec' }, 'rec-b': { group: 'rec' }, 'rec-c': { group: 'rec' } });
  await machine('rec', 'rec', `${scene.ns}/rec-b`);
  const m3m = await metal3MachineWhen(scene.client, scene.ns, 'rec', 'rec associated', (m) => v1(m, 'AssociateBMH') === 'True//', EVENT_MS);
  assert.is(m3m.metadata.annotations?.[HOST_ANNOTATION], `${scene.ns}/rec-b`);
  assert.is(await consumerOf('rec-b'), 'rec', 'the recorded host, not a random pick among three');
  assert.is(await consumerOf('rec-a'), undefined);
  assert.is(await consumerOf('rec-c'), undefined);
  const bmc = await scene.client.api(SecretResource, scene.ns).get('rec-b-bmc-secret');
  assert.is(bmc.metadata.labels?.[CLUSTER_NAME_LABEL], CLUSTER, 'M-26 on this path too');
  assert.equal(await eventsFor(scene.client, scene.ns, 'rec', 'HostAnnotationIgnored'), []);
});

test('M-40, M-41, H-4: a host already consumed by this machine (clusterctl move, a re-association) is adopted through its annotation though off-selector and unhealthy, and the record is never rewritten', async () => {
  await createAvailableHosts(scene.client, scene.ns, { 'pivot-host': { group: 'pivot-other' } });
  await scene.client.api(BareMetalHostResource, scene.ns).mergePatch('pivot-host', {
    metadata: { annotations: { 'capi.metal3.io/unhealthy': 'capm3/UnhealthyNode' } },
    spec: { consumerRef: { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Machine', name: 'pivot', namespace: scene.ns } },
  });
  // Every version of the Metal3Machine from its creation on: the record must stay as it arrived.
  const abort = new AbortController();
  const versions: (string | undefined)[] = [];
  const { metal3Machine } = await machine('pivot', 'pivot-nothing', `${scene.ns}/pivot-host`);
  const watching = (async () => {
    const events = scene.client.api(Metal3MachineResource, scene.ns).watch({
      resourceVersion: metal3Machine.metadata.resourceVersion ?? '',
      fieldSelector: 'metadata.name=pivot',
      signal: abort.signal,
    });
    for await (const event of events) if (event.type !== 'BOOKMARK') versions.push((event.object as Metal3Machine).metadata.annotations?.[HOST_ANNOTATION]);
  })().catch(() => undefined);
  const adopted = await metal3MachineWhen(scene.client, scene.ns, 'pivot', 'pivot associated', (m) => v1(m, 'AssociateBMH') === 'True//', EVENT_MS);
  assert.is(v2(adopted, 'AssociateBareMetalHost'), 'True/AssociateBareMetalHostSuccess');
  const host = await hostWhen(
    scene.client,
    scene.ns,
    'pivot-host',
    'pivot-host owned by pivot',
    (h) => (h.metadata.ownerReferences ?? []).some((o) => o.name === 'pivot' && o.controller),
  );
  assert.is(host.spec?.consumerRef?.name, 'pivot');
  await eventually('the watch saw the machine', () => (versions.length > 0 ? true : undefined));
  abort.abort();
  await watching;
  assert.ok(versions.every((value) => value === `${scene.ns}/pivot-host`), `the record never changed: ${JSON.stringify(versions)}`);
  assert.equal(await eventsFor(scene.client, scene.ns, 'pivot', 'HostAnnotationIgnored'), []);
  assert.is(scene.controller.errors(), 0);
});

test('M-19, M-40 (changed): the annotation of a running machine edited to name a free host outside its selector claims nothing; the machine keeps its host and its record', async () => {
  await createAvailableHosts(scene.client, scene.ns, { 'run-held': { group: 'run' }, 'run-free': { group: 'run-other' } });
  await createMachine(scene.client, scene.ns, 'run', { spec: { image: IMAGE, hostSelector: { matchLabels: { group: 'run' } } } });
  await metal3MachineWhen(scene.client, scene.ns, 'run', 'run ready', (m) => m.status?.ready === true && !!m.spec?.providerID, PROVISION_MS);
  await machineWithNode(scene.client, scene.ns, 'run', PROVISION_MS);
  await scene.client.api(Metal3MachineResource, scene.ns).mergePatch('run', { metadata: { annotations: { [HOST_ANNOTATION]: `${scene.ns}/run-free` } } });
  await ignoredEvent('run', new RegExp(`BareMetalHost ${scene.ns}/run-free is not the host this machine holds \\(${scene.ns}/run-held\\)`));
  const m3m = await metal3MachineWhen(
    scene.client,
    scene.ns,
    'run',
    'run recording its host again',
    (m) => m.metadata.annotations?.[HOST_ANNOTATION] === `${scene.ns}/run-held`,
    EVENT_MS,
  );
  assert.is(m3m.status?.ready, true);
  assert.is(await consumerOf('run-free'), undefined, 'not claimed');
  const held = await scene.client.api(BareMetalHostResource, scene.ns).get('run-held');
  assert.is(held.spec?.consumerRef?.name, 'run');
  assert.is(held.status?.provisioning?.state, 'provisioned', 'not released');
});

test('M-40 (changed), E-29, seed 002: an annotation naming a host in another namespace is terminal InvalidConfiguration with a Warning event; the same-named host of our namespace is not taken; deletion works', async () => {
  const errors = scene.controller.errors();
  await createAvailableHosts(scene.client, scene.ns, { 'ns-host': { group: 'nsx' } });
  await machine('foreign', 'nsx', 'elsewhere/ns-host');
  const m3m = await metal3MachineWhen(scene.client, scene.ns, 'foreign', 'foreign failed', (m) => !!m.status?.failureReason, EVENT_MS);
  assert.is(m3m.status?.failureReason, 'InvalidConfiguration');
  assert.match(m3m.status?.failureMessage ?? '', /names BareMetalHost "elsewhere\/ns-host" in another namespace/);
  assert.is(v1(m3m, 'AssociateBMH'), 'False/AssociateBMHFailed/Error');
  assert.is(v2Message(m3m, 'AssociateBareMetalHost'), m3m.status?.failureMessage);
  assert.is(m3m.metadata.annotations?.[HOST_ANNOTATION], 'elsewhere/ns-host', 'left for the user to fix');
  const events = await eventually('foreign InvalidConfiguration event', async () => {
    const found = await eventsFor(scene.client, scene.ns, 'foreign', 'InvalidConfiguration');
    return found.length > 0 ? found : undefined;
  });
  assert.is(events[0]?.type, 'Warning');
  assert.is(events[0]?.message, m3m.status?.failureMessage);
  await eventually('the terminal error counted', () => (scene.controller.errors() > errors ? true : undefined));
  assert.is(scene.controller.errors() - errors, 1, 'one terminal error, not retried');
  assert.is(await consumerOf('ns-host'), undefined, 'never mapped to our namespace');
  // Deletion still works (seed 002), and releases nothing it never held.
  await scene.client.api(Metal3MachineResource, scene.ns).delete('foreign');
  await gone(scene.client, Metal3MachineResource, scene.ns, 'foreign', EVENT_MS);
  assert.is(await consumerOf('ns-host'), undefined);
});

test.run();
