// Hardware that inspection reports: deterministic per host, different between hosts, overridable.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type BareMetalHost, newBareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { generatedHardware, HardwareOverrideError, inspectedHardware, ironicNodeId } from './hardware.ts';
import { HARDWARE_ANNOTATION } from './names.ts';

const test = suite('simulated hardware');

const host = (name: string, extra: { annotations?: Record<string, string>; bootMACAddress?: string; architecture?: string } = {}): BareMetalHost =>
  newBareMetalHost({
    metadata: { name, namespace: 'ns', ...(extra.annotations ? { annotations: extra.annotations } : {}) },
    spec: {
      online: true,
      ...(extra.bootMACAddress ? { bootMACAddress: extra.bootMACAddress } : {}),
      ...(extra.architecture ? { architecture: extra.architecture } : {}),
    },
  });

test('the same host always inspects the same; other hosts get other MACs, IPs and serials', () => {
  assert.equal(generatedHardware(host('node-0')), generatedHardware(host('node-0')));
  const names = Array.from({ length: 20 }, (_, i) => `node-${i}`);
  const hw = names.map((n) => generatedHardware(host(n)));
  assert.is(new Set(hw.flatMap((h) => h.nics!.map((n) => n.mac))).size, 40);
  assert.is(new Set(hw.map((h) => h.systemVendor?.serialNumber)).size, 20);
  assert.is(new Set(hw.map((h) => h.nics![1]!.ip)).size, 20);
  assert.is(new Set(names.map((n) => ironicNodeId(host(n)))).size, 20);
});

test('the boot NIC carries bootMACAddress; the CPU arch follows spec.architecture; hostname is the host name', () => {
  const hw = generatedHardware(host('h', { bootMACAddress: '00:aa:bb:cc:dd:ee', architecture: 'aarch64' }));
  assert.is(hw.nics![0]!.mac, '00:aa:bb:cc:dd:ee');
  assert.is(hw.nics![0]!.pxe, true);
  assert.is(hw.cpu?.arch, 'aarch64');
  assert.is(hw.hostname, 'h');
});

test('overrides are a JSON merge patch: objects merge, arrays replace, null removes', () => {
  const over = { cpu: { count: 2 }, storage: [{ name: '/dev/vda', sizeBytes: 1 }], systemVendor: null };
  const hw = inspectedHardware(host('h', { annotations: { [HARDWARE_ANNOTATION]: JSON.stringify(over) } }));
  assert.is(hw.cpu?.count, 2);
  assert.is(hw.cpu?.arch, 'x86_64');
  assert.equal(hw.storage, [{ name: '/dev/vda', sizeBytes: 1 }]);
  assert.is(hw.systemVendor, undefined);
});

test('malformed overrides are refused with a reason', () => {
  const cases: [string, RegExp][] = [
    ['{', /not valid JSON/],
    ['"x"', /JSON object/],
    ['{"gpu":{}}', /unknown field "gpu"/],
    ['{"hostname":3}', /"hostname" must be a string/],
    ['{"ramMebibytes":1.5}', /"ramMebibytes" must be an integer/],
    ['{"nics":[1]}', /"nics" must be an array of objects/],
    ['{"cpu":[]}', /"cpu" must be an object/],
  ];
  for (const [text, message] of cases) {
    assert.throws(
      () => inspectedHardware(host('h', { annotations: { [HARDWARE_ANNOTATION]: text } })),
      (e: unknown) => e instanceof HardwareOverrideError && message.test(e.message),
      text,
    );
  }
});

test.run();
