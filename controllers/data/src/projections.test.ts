import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Metal3DataTemplateSpec } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { BareMetalHostStatus } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { hostProjection, machineProjection, metal3MachineProjection } from './projections.ts';
import { renderMetaData, renderNetworkData } from './render/index.ts';
import { renderContext } from './render/testing.ts';
import { host, machine, metal3Machine } from './testing.ts';

const test = suite('data controller projections (DR-4, DR-10, B2-21, D-9)');

const labels = { role: 'worker' };
const annotations = { note: 'a' };

/** An inspected host's status: the NICs the renderer reads among what it never reads. */
const inspectedStatus = (): BareMetalHostStatus => ({
  errorCount: 0,
  errorMessage: '',
  operationalStatus: 'OK',
  poweredOn: true,
  provisioning: { state: 'provisioned', ID: 'node-1', image: { url: 'http://x/img' } },
  hardware: {
    hostname: 'h',
    cpu: { arch: 'x86_64', model: 'CPU', clockMegahertz: 2400, count: 8, flags: ['avx2', 'sse4_2'] },
    ramMebibytes: 16384,
    storage: [{ name: '/dev/sda', sizeBytes: 1e12, rotational: false }],
    nics: [
      { name: 'enp1s0', mac: '52:54:00:00:00:01', ip: '172.22.0.2', speedGbps: 10, pxe: true },
      { name: 'enp2s0', mac: '52:54:00:00:00:02', ip: '192.168.0.2', speedGbps: 25, pxe: false },
    ],
  },
} as BareMetalHostStatus);

test('each projection keeps exactly what the renderer and the association read', () => {
  const m3m = metal3Machine((m) => (m.status = { ready: true, addresses: [{ type: 'InternalIP', address: '10.0.0.1' }] }));
  assert.equal(metal3MachineProjection.project(structuredClone(m3m)), {
    apiVersion: m3m.apiVersion,
    kind: m3m.kind,
    metadata: m3m.metadata,
    spec: { dataTemplate: { name: 'tmpl' } },
  });
  const withoutTemplate = metal3Machine((m) => delete m.spec?.dataTemplate);
  assert.equal(Object.keys(metal3MachineProjection.project(withoutTemplate)), ['apiVersion', 'kind', 'metadata'], 'no template: no spec');
  const owned = machine();
  assert.equal(machineProjection.project(structuredClone(owned)), { apiVersion: owned.apiVersion, kind: owned.kind, metadata: owned.metadata });
  const inspected = host();
  inspected.spec = { online: true, bootMACAddress: '52:54:00:00:00:01', image: { url: 'http://x/img' } };
  inspected.status = inspectedStatus();
  assert.equal(hostProjection.project(structuredClone(inspected)), {
    apiVersion: inspected.apiVersion,
    kind: inspected.kind,
    metadata: inspected.metadata,
    spec: { bootMACAddress: '52:54:00:00:00:01' },
    status: { hardware: { nics: inspected.status.hardware?.nics } },
  });
  assert.equal(Object.keys(hostProjection.project(host())), ['apiVersion', 'kind', 'metadata'], 'not inspected, no boot MAC: metadata only');
});

// Every way a template reads the three objects: names, labels, annotations of each, NIC MACs, the boot MAC.
const objects = ['metal3machine', 'machine', 'baremetalhost'];
const spec: Metal3DataTemplateSpec = {
  metaData: {
    objectNames: objects.map((object) => ({ key: `name-${object}`, object })),
    fromLabels: objects.map((object) => ({ key: `label-${object}`, object, label: 'role' })),
    fromAnnotations: objects.map((object) => ({ key: `annotation-${object}`, object, annotation: 'note' })),
    fromHostInterfaces: [{ key: 'nic', interface: 'enp2s0' }, { key: 'boot', fromBootMAC: true }],
  },
  networkData: {
    links: {
      ethernets: [
        { type: 'phy', id: 'by-nic', macAddress: { fromHostInterface: 'enp1s0' } },
        { type: 'phy', id: 'by-annotation', macAddress: { fromAnnotation: { object: 'baremetalhost', annotation: 'mac' } } },
      ],
    },
  },
} as Metal3DataTemplateSpec;

test('a template renders the same from the projected objects as from the full ones', () => {
  const full = renderContext({
    m3m: { labels, annotations },
    machine: { labels, annotations },
    host: { labels, annotations: { ...annotations, mac: '52:54:00:aa:bb:cc' } },
    bootMAC: '52:54:00:00:00:01',
  });
  full.host.status = inspectedStatus();
  const projected = {
    ...full,
    metal3Machine: metal3MachineProjection.project(structuredClone(full.metal3Machine) as never),
    machine: machineProjection.project(structuredClone(full.machine) as never),
    host: hostProjection.project(structuredClone(full.host) as never),
  };
  assert.is(renderMetaData(spec, projected), renderMetaData(spec, full));
  assert.is(renderNetworkData(spec, projected), renderNetworkData(spec, full));
  assert.match(renderMetaData(spec, full), 'label-machine: worker', 'the template did read the objects');
});

test.run();
