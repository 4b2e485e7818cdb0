// What a host reports about itself reaches the Metal3Machine filtered (M-31 as changed here, issue 21
// point 4): inspection data comes from the machine, so a hostname the schema refuses (over 256
// characters) must not fail every status patch of the machine for good, and NIC "addresses" that are
// no IP must not be handed on as addresses. Real apiserver, simulated BMO (hardware overridden through
// its annotation), the real Cluster API and a workload cluster.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MachineResource } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { HARDWARE_ANNOTATION } from '@metal3-ts/test/sim/bmo/index';
import { createMachine, eventsFor, eventually, IMAGE, machineTestScene, metal3MachineWhen, PROVISION_MS, v1, when } from './support.ts';

const LONG_HOSTNAME = 'x'.repeat(5_000);
const hardware = {
  hostname: LONG_HOSTNAME,
  nics: [
    { name: 'eth0', mac: '52:54:00:aa:bb:01', ip: 'not-an-ip-7' },
    { name: 'eth1', mac: '52:54:00:aa:bb:02', ip: '192.168.111.77' },
    { name: 'eth2', mac: '52:54:00:aa:bb:03', ip: '999.1.1.1' },
    { name: 'eth3', mac: '52:54:00:aa:bb:04', ip: 'fd00::77' },
  ],
};

const test = suite('Metal3Machine addresses from untrusted inspection data (M-31 changed)');
const scene = machineTestScene(test, {
  prefix: 'machine-host-data',
  hosts: { 'junk-host': { group: 'junk' } },
  hostOptions: { annotations: { [HARDWARE_ANNOTATION]: JSON.stringify(hardware) } },
});

test('M-31 (changed): a 5 000-character hostname and junk NIC addresses are dropped and reported once; the machine still becomes ready with only the valid addresses', async () => {
  assert.is(scene.host('junk-host').status?.hardware?.hostname, LONG_HOSTNAME, 'precondition: the host reports it (schema-valid for BareMetalHost)');
  await createMachine(scene.client, scene.ns, 'm-junk', { spec: { image: IMAGE, hostSelector: { matchLabels: { group: 'junk' } } } });
  const m3m = await metal3MachineWhen(
    scene.client,
    scene.ns,
    'm-junk',
    'm-junk ready with a provider ID',
    (m) => m.status?.ready === true && !!m.spec?.providerID,
    PROVISION_MS,
  );
  assert.equal(m3m.status?.addresses, [
    { type: 'InternalIP', address: '192.168.111.77' },
    { type: 'InternalIP', address: 'fd00::77' },
  ]);
  // The conditions moved all the way: the status patches were accepted. KubernetesNodeReady turns True
  // when the machine finds its Node (E-5), which may be a pass after Ready: wait for both.
  const ready = await metal3MachineWhen(
    scene.client,
    scene.ns,
    'm-junk',
    'm-junk Ready with its Node found',
    (m) => v1(m, 'Ready') === 'True//' && v1(m, 'KubernetesNodeReady') === 'True//',
    PROVISION_MS,
  );
  assert.is(v1(ready, 'AssociateBMH'), 'True//');
  assert.is(v1(ready, 'KubernetesNodeReady'), 'True//');
  const machine = await when(
    scene.client,
    MachineResource,
    scene.ns,
    'm-junk',
    'the Machine with the addresses',
    (m) => (m.status?.addresses ?? []).length > 0,
    PROVISION_MS,
  );
  assert.equal(machine.status?.addresses?.map((a) => a.address), ['192.168.111.77', 'fd00::77'], 'Cluster API got only the valid ones');

  const events = await eventually('a HostAddressesDropped event', async () => {
    const found = await eventsFor(scene.client, scene.ns, 'm-junk', 'HostAddressesDropped');
    return found.length > 0 ? found : undefined;
  });
  assert.is(events.length, 1);
  assert.is(events[0]?.type, 'Warning');
  assert.is(events[0]?.count ?? 1, 1, 'told once, though every pass since the claim read the host again');
  const message = events[0]?.message ?? '';
  assert.ok(message.startsWith(`Not copied from the inspection data of BareMetalHost ${scene.ns}/junk-host: `), message);
  for (const part of ['hostname of 5000 characters', 'NIC "eth0" address "not-an-ip-7"', 'NIC "eth2" address "999.1.1.1"']) {
    assert.ok(message.includes(part), `names ${part}: ${message}`);
  }
  assert.not.ok(message.includes(LONG_HOSTNAME), 'the long value itself is not repeated');
  const logged = scene.controller.problems().filter((line) => line.includes('Not copied from the inspection data'));
  assert.is(logged.length, 1, `one log line: ${logged.join('\n')}`);
  assert.is(scene.controller.errors(), 0, 'no status patch failed');
});

test.run();
