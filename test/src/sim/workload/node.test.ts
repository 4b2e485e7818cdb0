// The Node a host's kubelet registers: whether it exists, its name, labels, providerID per mode.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import type { Node } from '@metal3-ts/generated/core/v1';
import type { BareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { NODE_HOST_UID_ANNOTATION, type ProviderIdMode } from './names.ts';
import { kubeArch, nodeAddresses, type NodeInputs, plannedNode, providerIdFor, shouldNodeExist } from './node.ts';

const test = suite('simulated kubelet: the Node it registers');
const UID = '4d25a2c2-46e4-11ec-81d3-0242ac130003';
const joinData = readFileSync(new URL('./testdata/capbk-join.yaml', import.meta.url), 'utf8');
const initData = readFileSync(new URL('./testdata/capbk-init.yaml', import.meta.url), 'utf8');

function host(state: string, overrides: { consumer?: boolean; nics?: { name: string; mac: string; ip?: string }[] } = {}): BareMetalHost {
  return {
    apiVersion: 'metal3.io/v1alpha1',
    kind: 'BareMetalHost',
    metadata: { namespace: 'metal3', name: 'node-0', uid: UID },
    spec: {
      online: true,
      ...(overrides.consumer === false
        ? {}
        : { consumerRef: { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Machine', name: 'm3m-a', namespace: 'metal3' } }),
    },
    status: {
      errorCount: 0,
      errorMessage: '',
      operationalStatus: 'OK',
      poweredOn: true,
      provisioning: { ID: '', state },
      hardware: {
        cpu: { arch: 'x86_64', count: 8 },
        ramMebibytes: 16384,
        nics: overrides.nics ?? [{ name: 'eth0', mac: '00:00:00:00:00:01', ip: '192.168.111.20' }],
      },
    },
  };
}

const inputs = (extra: Partial<NodeInputs> = {}): NodeInputs => ({
  host: host('provisioned'),
  consumer: { namespace: 'metal3', name: 'm3m-a' },
  mode: 'default',
  now: '2026-01-01T00:00:00Z',
  ...extra,
});

function node(extra: Partial<NodeInputs> = {}): Node {
  const plan = plannedNode(inputs(extra));
  if (!plan.join) throw new Error(`expected a Node, got: ${plan.reason}`);
  return plan.node;
}

test('a Node exists only while the host is provisioned and consumed', () => {
  const cases: [BareMetalHost, boolean][] = [
    [host('provisioned'), true],
    [host('provisioned', { consumer: false }), false],
    [host('provisioning'), false],
    [host('deprovisioning'), false],
    [host('available'), false],
    [host('externally provisioned'), false],
    [host(''), false],
  ];
  for (const [h, want] of cases) assert.is(shouldNodeExist(h), want, `${h.status?.provisioning.state} consumer=${!!h.spec?.consumerRef}`);
});

test('providerID per mode (research P-1): none, new format, legacy', () => {
  const id = { namespace: 'metal3', name: 'node-0', uid: UID };
  const consumer = { namespace: 'metal3', name: 'm3m-a' };
  const cases: [ProviderIdMode, string | undefined][] = [
    ['default', undefined],
    ['cloud-provider', 'metal3://metal3/node-0/m3m-a'],
    ['legacy', `metal3://${UID}`],
  ];
  for (const [mode, want] of cases) {
    assert.is(providerIdFor(mode, id, consumer), want, mode);
    assert.is(node({ mode }).spec?.providerID, want, mode);
  }
});

test("the kubelet's --provider-id from the bootstrap data counts in default mode; explicit modes win", () => {
  const userData = [
    '#cloud-config',
    'write_files:',
    '- path: /run/kubeadm/kubeadm-join-config.yaml',
    '  content: |',
    '    kind: JoinConfiguration',
    '    nodeRegistration:',
    '      kubeletExtraArgs:',
    "        provider-id: 'metal3://{{ ds.meta_data.providerid }}'",
  ].join('\n');
  const metaData = 'providerid: metal3/node-0/m3m-a\n';
  const cases: [ProviderIdMode, string][] = [
    ['default', 'metal3://metal3/node-0/m3m-a'],
    ['cloud-provider', 'metal3://metal3/node-0/m3m-a'],
    ['legacy', `metal3://${UID}`],
  ];
  for (const [mode, want] of cases) assert.is(node({ mode, userData, metaData }).spec?.providerID, want, mode);
  // Without the providerid key the template renders cloud-init's missing-variable marker, as on a real host.
  assert.is(node({ userData }).spec?.providerID, 'metal3://CI_MISSING_JINJA_VAR/providerid');
});

test('node name: kubeadm nodeRegistration.name, else local-hostname from metaData, else the host name', () => {
  const cases: [Partial<NodeInputs>, string][] = [
    [{}, 'node-0'],
    [{ metaData: 'local-hostname: worker-7\n' }, 'worker-7'],
    [{ metaData: 'local_hostname: Worker-8\n' }, 'worker-8'],
    [{ userData: joinData }, 'node-0'], // {{ ds.meta_data.name }} defaults to the host name
    [{ userData: joinData, metaData: 'name: m3m-a\nlocal-hostname: other\n' }, 'm3m-a'],
    [{ userData: initData, metaData: 'local-hostname: cp-0\n' }, 'cp-0'],
  ];
  for (const [extra, want] of cases) assert.is(node(extra).metadata.name, want, JSON.stringify(extra.metaData ?? ''));
});

test('labels: kubelet defaults, hostname = node name, metal3.io/uuid only when the bootstrap data asks', () => {
  const plain = node({ metaData: 'local-hostname: worker-7\n' }).metadata.labels ?? {};
  assert.equal(plain, {
    'beta.kubernetes.io/arch': 'amd64',
    'beta.kubernetes.io/os': 'linux',
    'kubernetes.io/arch': 'amd64',
    'kubernetes.io/hostname': 'worker-7',
    'kubernetes.io/os': 'linux',
  });
  const asked = node({ userData: joinData }).metadata.labels ?? {};
  assert.is(asked['metal3.io/uuid'], UID);
  assert.is(asked['kubernetes.io/hostname'], 'node-0');
  assert.is(asked['node-role.kubernetes.io/control-plane'], undefined);
  const literal = node({ userData: '#cloud-config\nkubelet:\n  node-labels: metal3.io/uuid={{ ds.meta_data.uuid }}\n' }).metadata.labels ?? {};
  assert.is(literal['metal3.io/uuid'], UID);
});

test('a control-plane node gets the role label and NoSchedule taint; explicit taints replace the default', () => {
  const cp = node({ userData: initData });
  assert.is(cp.metadata.labels?.['node-role.kubernetes.io/control-plane'], '');
  assert.equal(cp.spec?.taints, [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }]);
  const worker = node({ userData: joinData });
  assert.is(worker.spec?.taints, undefined);
  const untainted = node({
    userData: '#cloud-config\nwrite_files:\n- path: /k\n  content: |\n    kind: InitConfiguration\n    nodeRegistration:\n      taints: []\n',
  });
  assert.is(untainted.spec?.taints, undefined);
  assert.is(untainted.metadata.labels?.['node-role.kubernetes.io/control-plane'], '');
});

test('status: Ready, addresses from NICs, capacity from hardware; the host is recorded on the Node', () => {
  const n = node({ kubeletVersion: 'v1.30.2' });
  const ready = n.status?.conditions?.find((c) => c.type === 'Ready');
  assert.equal([ready?.status, ready?.reason], ['True', 'KubeletReady']);
  assert.equal(n.status?.addresses, [
    { type: 'InternalIP', address: '192.168.111.20' },
    { type: 'Hostname', address: 'node-0' },
  ]);
  assert.equal([n.status?.capacity?.['cpu'], n.status?.capacity?.['memory']], ['8', '16777216Ki']);
  assert.is(n.status?.nodeInfo?.kubeletVersion, 'v1.30.2');
  assert.is(n.metadata.annotations?.[NODE_HOST_UID_ANNOTATION], UID);
});

test('addresses: one InternalIP per distinct NIC address, NICs without one skipped', () => {
  const h = host('provisioned', {
    nics: [
      { name: 'eth0', mac: '00:00:00:00:00:01', ip: '10.0.0.1' },
      { name: 'eth1', mac: '00:00:00:00:00:02' },
      { name: 'eth2', mac: '00:00:00:00:00:03', ip: 'fd00::1' },
      { name: 'eth3', mac: '00:00:00:00:00:04', ip: '10.0.0.1' },
    ],
  });
  assert.equal(nodeAddresses(h, 'n'), [
    { type: 'InternalIP', address: '10.0.0.1' },
    { type: 'InternalIP', address: 'fd00::1' },
    { type: 'Hostname', address: 'n' },
  ]);
});

test('architectures map to GOARCH names', () => {
  const cases: [string | undefined, string][] = [[undefined, 'amd64'], ['x86_64', 'amd64'], ['aarch64', 'arm64'], ['ARM64', 'arm64'], ['ppc64le', 'ppc64le']];
  for (const [arch, want] of cases) assert.is(kubeArch(arch), want, String(arch));
});

test('no Node when the kubelet could not start: bad metaData, bad node name, rejected label', () => {
  const cases: [Partial<NodeInputs>, RegExp][] = [
    [{ metaData: '- not\n- a map\n' }, /not a YAML mapping/],
    [{ metaData: 'local-hostname: under_score\n' }, /not a valid DNS subdomain/],
    [{ userData: '#cloud-config\nkubelet:\n  node-labels: node-role.kubernetes.io/worker=\n' }, /kubelet refuses to start/],
    [{ userData: '#cloud-config\nkubelet:\n  node-labels: x={{ ds.meta_data.missing }}\n' }, /kubelet refuses to start/],
  ];
  for (const [extra, reason] of cases) {
    const plan = plannedNode(inputs(extra));
    assert.is(plan.join, false);
    if (!plan.join) assert.match(plan.reason, reason);
  }
});

test.run();
