// Admission cases for the v1beta2 schemas (the v1beta2 research note's webhook rules W2-2…W2-10), in v1beta2 shapes
// (AP-1…AP-30). Upstream enforces these in webhooks that, with matchPolicy Equivalent, also see v1beta1
// requests; ours are CEL rules and CRD defaults of the v1beta2 version.
// test/src/crds/validation-v1beta2.test.ts runs them in an apiserver of its own serving v1beta2 alone.
import type { AdmissionCase, Json, Resource } from './webhook-cases.ts';

const ns = 'metal3';
const meta = (name: string) => ({ name, namespace: ns });

const cluster = (spec: Json | undefined): Resource => ({ metadata: meta('m3cluster'), ...(spec === undefined ? {} : { spec }) });
const clusterTemplate = (spec: Json): Resource => ({ metadata: meta('m3ct'), spec: { template: { spec } } });

const image = { url: 'http://172.22.0.1/images/node.qcow2', checksum: 'http://172.22.0.1/images/node.qcow2.sha256sum', checksumType: 'sha256', diskFormat: 'qcow2' };
const machineSpec = {
  automatedCleaningMode: 'metadata',
  image,
  hostSelector: { matchLabels: { key1: 'value1' }, matchExpressions: [{ key: 'key2', operator: 'in', values: ['abc', '123'] }] },
  dataTemplate: { name: 'controlplane-metadata' },
};
const machine = (spec: Json | undefined, name = 'controlplane-0'): Resource => ({ metadata: meta(name), ...(spec === undefined ? {} : { spec }) });
const withImage = (changes: Record<string, Json>) => ({ ...machineSpec, image: { ...image, ...changes } });
const machineTemplate = (spec: Json): Resource => ({ metadata: meta('m3mt-0'), spec: { template: { spec } } });

const mac = (value: string) => ({ string: value });
const networkData = (v4: Record<string, Json>): Json => ({
  links: {
    ethernets: [{ type: 'phy', id: 'enp1s0', macAddress: { fromHostInterface: 'eth0' } }, { type: 'phy', id: 'enp2s0', name: 'data1', macAddress: { fromHostInterface: 'eth1' } }],
    bonds: [{ id: 'bond0', bondMode: '802.3ad', macAddress: mac('00:00:00:00:00:01'), bondLinks: ['enp1s0', 'enp2s0'], parameters: [{ name: 'miimon', value: 100 }] }],
    vlans: [{ id: 'vlan1', vlanID: 1, vlanLink: 'bond0', macAddress: mac('00:00:00:00:00:02') }],
  },
  networks: {
    ipv4: [{ id: 'baremetal', link: 'vlan1', ...v4, routes: [{ network: '0.0.0.0', prefix: 0, gateway: { fromIPPool: 'pool-1' } }] }],
    ipv6: [{ id: 'baremetal6', link: 'vlan1', fromPoolRef: { name: 'pool-6' } }],
  },
  services: { dns: ['8.8.8.8'] },
});
const metaData = (fromHostInterfaces: Json): Json => ({
  strings: [{ key: 'abc', value: 'def' }],
  indexes: [{ key: 'index', offset: 0 }],
  ipAddressesFromPool: [{ key: 'ip', name: 'pool-1' }],
  fromHostInterfaces,
});
const dataTemplate = (spec: Record<string, Json>, name = 'nodepool-1'): Resource => ({ metadata: meta(name), spec: { clusterName: 'cluster-1', ...spec } });
const seedDataTemplate = dataTemplate({ metaData: metaData([{ key: 'mac', interface: 'eth0' }]), networkData: networkData({ fromPoolRef: { name: 'pool-1' } }) });

const data = (name: string, spec: Record<string, Json>): Resource => ({ metadata: meta(name), spec: { index: 0, template: { name: 'nodepool-1' }, claim: { name: 'machine-1' }, ...spec } });
const claim = (spec: Json | undefined): Resource => ({ metadata: meta('machine-1'), ...(spec === undefined ? {} : { spec }) });
const remediation = (strategy: Json | undefined): Resource => ({ metadata: meta('worker-0'), spec: strategy === undefined ? {} : { strategy } });
const remediationTemplate = (strategy: Json): Resource => ({ metadata: meta('workers'), spec: { template: { spec: { strategy } } } });

export const admissionCasesV1beta2: readonly AdmissionCase[] = [
  // Metal3Cluster (W2-2, AP-1…AP-3)
  { title: 'W2-2 a Metal3Cluster with an endpoint is accepted and cloudProviderEnabled defaults to false', kind: 'Metal3Cluster', object: cluster({ controlPlaneEndpoint: { host: 'api.example', port: 6443 } }), defaults: { 'spec.cloudProviderEnabled': false } },
  { title: 'W2-2 an endpoint without port gets 6443', kind: 'Metal3Cluster', object: cluster({ controlPlaneEndpoint: { host: 'api.example' } }), defaults: { 'spec.controlPlaneEndpoint.port': 6443 } },
  { title: 'W2-2 an explicit cloudProviderEnabled true is kept', kind: 'Metal3Cluster', object: cluster({ controlPlaneEndpoint: { host: 'a' }, cloudProviderEnabled: true }), defaults: { 'spec.cloudProviderEnabled': true } },
  { title: 'W2-2 an endpoint without host is rejected, naming spec.controlPlaneEndpoint', kind: 'Metal3Cluster', object: cluster({ controlPlaneEndpoint: { port: 6443 } }), rejects: ['spec.controlPlaneEndpoint', 'controlPlaneEndpoint.host is required'] },
  { title: 'W2-2 a Metal3Cluster without spec is rejected', kind: 'Metal3Cluster', object: cluster(undefined), rejects: ['controlPlaneEndpoint.host is required'] },
  { title: 'AP-3 failure domains are a list keyed by name: a duplicate name is rejected', kind: 'Metal3Cluster', object: cluster({ controlPlaneEndpoint: { host: 'a' }, failureDomains: [{ name: 'fd1', controlPlane: true }, { name: 'fd1' }] }), rejects: ['spec.failureDomains[1]', 'Duplicate value'] },
  // Metal3ClusterTemplate (W2-3, AP-7)
  { title: 'W2-3 a template with host and port is accepted, its metadata kept (AP-7)', kind: 'Metal3ClusterTemplate', object: { metadata: meta('m3ct'), spec: { template: { metadata: { labels: { a: 'b' } }, spec: { controlPlaneEndpoint: { host: 'a', port: 6443 } } } } }, defaults: { 'spec.template.metadata.labels.a': 'b' } },
  { title: 'W2-3 a template without port is rejected (no defaulter for templates)', kind: 'Metal3ClusterTemplate', object: clusterTemplate({ controlPlaneEndpoint: { host: 'a' } }), rejects: ['missing fields from Spec: [ControlPlaneEndpoint.Port]'] },
  { title: 'W2-3 a template without endpoint lists both fields', kind: 'Metal3ClusterTemplate', object: clusterTemplate({ cloudProviderEnabled: true }), rejects: ['missing fields from Spec: [ControlPlaneEndpoint.Host ControlPlaneEndpoint.Port]'] },
  // Metal3Machine (W2-4, AP-8…AP-14)
  { title: 'W2-4 a Metal3Machine with a qcow2 image is accepted', kind: 'Metal3Machine', object: machine(machineSpec) },
  { title: 'W2-4 customDeploy.method makes the image optional', kind: 'Metal3Machine', object: machine({ customDeploy: { method: 'install_coreos' } }) },
  { title: 'W2-4 neither image nor customDeploy is rejected, naming spec.image', kind: 'Metal3Machine', object: machine({ automatedCleaningMode: 'disabled' }), rejects: ['spec.image', 'either image or customDeploy is required'] },
  { title: 'W2-4 a Metal3Machine without spec is rejected', kind: 'Metal3Machine', object: machine(undefined), rejects: ['spec is required'] },
  { title: 'W2-4 "test url" is refused by the schema (format uri)', kind: 'Metal3Machine', object: machine(withImage({ url: 'test url' })), rejects: ['spec.image.url', 'must be of type uri'] },
  { title: 'W2-4 an absolute path passes the uri format', kind: 'Metal3Machine', object: machine(withImage({ url: '/images/node.qcow2' })) },
  { title: 'W2-4 an empty checksum is rejected unless diskFormat is live-iso', kind: 'Metal3Machine', object: machine(withImage({ checksum: '' })), rejects: ['spec.image.checksum', 'image.checksum cannot be empty unless image.diskFormat is live-iso'] },
  { title: 'W2-4 live-iso needs no checksum', kind: 'Metal3Machine', object: machine(withImage({ url: 'http://x/a.iso', checksum: '', diskFormat: 'live-iso' })) },
  { title: 'W2-4 an http checksum must be a URL', kind: 'Metal3Machine', object: machine(withImage({ checksum: 'http://:invalid' })), rejects: ['spec.image.checksum', 'image.checksum is not a valid URL'] },
  { title: 'AP-9 diskFormat is an enum: "iso" is refused', kind: 'Metal3Machine', object: machine(withImage({ diskFormat: 'iso' })), rejects: ['spec.image.diskFormat', 'Unsupported value'] },
  { title: 'AP-11 two matchExpressions on one key are rejected', kind: 'Metal3Machine', object: machine({ ...machineSpec, hostSelector: { matchExpressions: [{ key: 'k', operator: 'in', values: ['a'] }, { key: 'k', operator: 'notin', values: ['b'] }] } }), rejects: ['Duplicate value'] },
  { title: 'issue 21: a 242-character Metal3Machine name is refused in v1beta2 too', kind: 'Metal3Machine', object: machine(machineSpec, 'm'.repeat(242)), rejects: ['metadata.name: must be no more than 241 characters'] },
  // Metal3MachineTemplate (W2-5, AP-15)
  { title: 'W2-5 a Metal3MachineTemplate is accepted and nodeReuse defaults to false', kind: 'Metal3MachineTemplate', object: machineTemplate(machineSpec), defaults: { 'spec.nodeReuse': false } },
  { title: 'W2-5 the template image url is validated', kind: 'Metal3MachineTemplate', object: machineTemplate(withImage({ url: 'test url' })), rejects: ['spec.template.spec.image.url', 'must be of type uri'] },
  { title: 'W2-5 a template without image or customDeploy is rejected', kind: 'Metal3MachineTemplate', object: machineTemplate({ automatedCleaningMode: 'disabled' }), rejects: ['spec.template.spec.image', 'either image or customDeploy is required'] },
  // Metal3DataTemplate (W2-7, AP-16…AP-24)
  {
    title: 'W2-7 a v1beta2 Metal3DataTemplate is accepted and defaulted (mtu 1500, step 1, pool kind IPPool)',
    kind: 'Metal3DataTemplate',
    object: seedDataTemplate,
    defaults: { 'spec.networkData.links.ethernets[0].mtu': 1500, 'spec.metaData.indexes[0].step': 1, 'spec.metaData.ipAddressesFromPool[0].kind': 'IPPool', 'spec.metaData.ipAddressesFromPool[0].apiGroup': 'ipam.metal3.io', 'spec.networkData.networks.ipv4[0].fromPoolRef.kind': 'IPPool' },
  },
  { title: 'W2-7 fromBootMAC alone is a MAC source', kind: 'Metal3DataTemplate', object: dataTemplate({ metaData: metaData([{ key: 'mac', fromBootMAC: true }]) }) },
  { title: 'W2-7 neither interface nor fromBootMAC is rejected', kind: 'Metal3DataTemplate', object: dataTemplate({ metaData: metaData([{ key: 'mac' }]) }), rejects: ['spec.metaData.fromHostInterfaces[0].interface', 'interface must be specified when fromBootMAC is false'] },
  { title: 'W2-7 fromBootMAC with an interface is rejected', kind: 'Metal3DataTemplate', object: dataTemplate({ metaData: metaData([{ key: 'mac', fromBootMAC: true, interface: 'eth0' }]) }), rejects: ['interface must be empty when fromBootMAC is true'] },
  { title: 'W2-7 an ipv4 network without an address source is rejected', kind: 'Metal3DataTemplate', object: dataTemplate({ networkData: networkData({}) }), rejects: ['spec.networkData.networks.ipv4[0].fromPoolRef.name', 'fromPoolRef needs to contain a reference to an IPPool'] },
  { title: 'W2-7 ipAddressFromIPPool is an address source', kind: 'Metal3DataTemplate', object: dataTemplate({ networkData: networkData({ ipAddressFromIPPool: 'pool-1' }) }) },
  { title: 'W2-7 metaData cannot be modified', kind: 'Metal3DataTemplate', old: seedDataTemplate, object: dataTemplate({ metaData: metaData([{ key: 'mac', interface: 'eth1' }]), networkData: networkData({ fromPoolRef: { name: 'pool-1' } }) }), rejects: ['spec.metaData', 'metaData cannot be modified'] },
  { title: 'W2-7 networkData cannot be removed', kind: 'Metal3DataTemplate', old: seedDataTemplate, object: dataTemplate({ metaData: metaData([{ key: 'mac', interface: 'eth0' }]) }), rejects: ['networkData cannot be modified'] },
  { title: 'W2-7 clusterName stays mutable', kind: 'Metal3DataTemplate', old: seedDataTemplate, object: { ...seedDataTemplate, spec: { ...(seedDataTemplate['spec'] as Record<string, Json>), clusterName: 'other' } } },
  { title: 'AP-17 two metadata entries with one key are rejected', kind: 'Metal3DataTemplate', object: dataTemplate({ metaData: { strings: [{ key: 'a', value: '1' }, { key: 'a', value: '2' }] } }), rejects: ['Duplicate value'] },
  { title: 'AP-21 bond option values are any JSON (a number here), as in v1beta1', kind: 'Metal3DataTemplate', object: seedDataTemplate, defaults: { 'spec.networkData.links.bonds[0].parameters[0].value': 100 } },
  { title: 'AP-21 a bond without parameters is rejected', kind: 'Metal3DataTemplate', object: dataTemplate({ networkData: { links: { bonds: [{ id: 'bond0', bondMode: '802.3ad', macAddress: mac('00:00:00:00:00:01') }] } } }), rejects: ['spec.networkData.links.bonds[0].parameters', 'Required value'] },
  { title: 'issue 21: a 243-character Metal3DataTemplate name is refused in v1beta2 too', kind: 'Metal3DataTemplate', object: dataTemplate({}, 't'.repeat(243)), rejects: ['metadata.name: must be no more than 242 characters'] },
  // Metal3Data (W2-6, AP-25)
  { title: 'W2-6 a Metal3Data named <template>-<index> is accepted', kind: 'Metal3Data', object: data('nodepool-1-0', {}) },
  { title: 'W2-6 the name must be <template>-<index>', kind: 'Metal3Data', object: data('nodepool-1-1', {}), rejects: ['metadata', 'should follow the convention <Metal3Template Name>-<index>'] },
  { title: 'W2-6 without template the name is not checked', kind: 'Metal3Data', object: { metadata: meta('anything'), spec: { index: 3 } } },
  { title: 'W2-6 a negative index is rejected by the schema', kind: 'Metal3Data', object: data('nodepool-1--1', { index: -1 }), rejects: ['spec.index'] },
  { title: 'W2-6 index cannot be modified', kind: 'Metal3Data', old: data('nodepool-1-0', {}), object: data('nodepool-1-0', { index: 1 }), rejects: ['spec.index', 'index cannot be modified'] },
  { title: 'W2-6 template cannot be modified', kind: 'Metal3Data', old: data('nodepool-1-0', {}), object: data('nodepool-1-0', { template: { name: 'nodepool-1', namespace: 'other' } }), rejects: ['spec.template', 'template name and namespace cannot be modified'] },
  { title: 'W2-6 claim cannot be modified', kind: 'Metal3Data', old: data('nodepool-1-0', {}), object: data('nodepool-1-0', { claim: { name: 'machine-2' } }), rejects: ['spec.claim', 'claim name and namespace cannot be modified'] },
  // Metal3DataClaim (W2-8, AP-26)
  { title: 'W2-8 a Metal3DataClaim is accepted', kind: 'Metal3DataClaim', object: claim({ template: { name: 'nodepool-1' } }) },
  { title: 'W2-8 a claim without template is rejected with a message (upstream dereferences nil, S-8)', kind: 'Metal3DataClaim', object: claim({}), rejects: ['spec.template.name must be set'] },
  { title: 'W2-8 a claim without spec is rejected', kind: 'Metal3DataClaim', object: claim(undefined), rejects: ['spec.template.name must be set'] },
  { title: 'W2-8 template.name cannot change', kind: 'Metal3DataClaim', old: claim({ template: { name: 'nodepool-1' } }), object: claim({ template: { name: 'nodepool-2' } }), rejects: ['spec.template', 'template name and namespace cannot be modified'] },
  // Metal3Remediation (W2-9, AP-28, AP-29)
  { title: 'W2-9 a Reboot remediation is accepted with retryLimit 1 and 600 seconds by default', kind: 'Metal3Remediation', object: remediation({ type: 'Reboot' }), defaults: { 'spec.strategy.retryLimit': 1, 'spec.strategy.timeoutSeconds': 600 } },
  { title: 'W2-9 a remediation without strategy is accepted', kind: 'Metal3Remediation', object: remediation(undefined) },
  { title: 'W2-9 a strategy without type is rejected, naming spec.strategy.type', kind: 'Metal3Remediation', object: remediation({ retryLimit: 2 }), rejects: ['spec.strategy.type', 'is only supported remediation strategy'] },
  { title: 'W2-9 a retryLimit below 1 is rejected', kind: 'Metal3Remediation', object: remediation({ type: 'Reboot', retryLimit: 0 }), rejects: ['spec.strategy.retryLimit', 'is minimum retrylimit'] },
  { title: 'W2-9 timeoutSeconds under 100 is rejected', kind: 'Metal3Remediation', object: remediation({ type: 'Reboot', timeoutSeconds: 99 }), rejects: ['spec.strategy.timeoutSeconds', 'min duration is 100 seconds'] },
  // Metal3RemediationTemplate (W2-10, AP-30)
  { title: 'W2-10 an empty template strategy is defaulted to Reboot, 600 seconds, retryLimit 1', kind: 'Metal3RemediationTemplate', object: remediationTemplate({}), defaults: { 'spec.template.spec.strategy.type': 'Reboot', 'spec.template.spec.strategy.timeoutSeconds': 600, 'spec.template.spec.strategy.retryLimit': 1 } },
  { title: 'W2-10 a template retryLimit below 1 is rejected, naming the field (upstream silently makes it 1)', kind: 'Metal3RemediationTemplate', object: remediationTemplate({ retryLimit: -1 }), rejects: ['spec.template.spec.strategy.retryLimit', 'minimum retry limit is 1'] },
  { title: 'W2-10 a template timeoutSeconds under 100 is rejected', kind: 'Metal3RemediationTemplate', object: remediationTemplate({ timeoutSeconds: 60 }), rejects: ['spec.template.spec.strategy.timeoutSeconds', 'min duration is 100 seconds'] },
];
