// Admission cases for the rules upstream enforces in its webhooks (research §7, W-2…W-11), now carried by
// our CRDs. Each case is what a real apiserver must do with our CRDs installed: accept (and maybe default),
// or reject with our message. The seed examples (shared/seeds/003) are here with their typos fixed
// (`Name:` → `name:`, `IPAddressFromIPPool` → `ipAddressFromIPPool`, list syntax), since upstream prunes
// the misspelt fields and would reject them too.
import type { OurKind } from './crds.ts';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Resource = { apiVersion?: string; kind?: string; metadata: { name: string; namespace?: string }; [k: string]: Json | undefined };

export interface AdmissionCase {
  /** Title, starting with the behaviour ID. */
  readonly title: string;
  readonly kind: OurKind;
  /** Stored object for an update; absent for a create. */
  readonly old?: Resource;
  readonly object: Resource;
  /** Substrings every one of which must appear in the rejection; absent means the request is accepted. */
  readonly rejects?: readonly string[];
  /** Values the stored object must carry after defaulting: JSON path (dots, [n] for list items) → value. */
  readonly defaults?: Readonly<Record<string, Json>>;
}

const ns = 'metal3';
const meta = (name: string) => ({ name, namespace: ns });

const cluster = (spec: Json): Resource => ({ metadata: meta('m3cluster'), spec });
const clusterTemplate = (controlPlaneEndpoint: Json): Resource => ({
  metadata: meta('m3ct'),
  spec: { template: { spec: { controlPlaneEndpoint } } },
});

const seedImage = {
  checksum: 'http://172.22.0.1/images/UBUNTU_22.04_NODE_IMAGE_K8S_v1.28.1-raw.img.sha256sum',
  checksumType: 'sha256',
  format: 'raw',
  url: 'http://172.22.0.1/images/UBUNTU_22.04_NODE_IMAGE_K8S_v1.28.1-raw.img',
};
const seedMachineSpec = {
  automatedCleaningMode: 'metadata',
  image: seedImage,
  hostSelector: {
    matchLabels: { key1: 'value1' },
    matchExpressions: [{ key: 'key2', operator: 'in', values: ['abc', '123', 'value2'] }],
  },
  dataTemplate: { name: 'controlplane-metadata' },
  metaData: { name: 'controlplane-0-metadata-0' },
};
const machine = (spec: Json): Resource => ({ metadata: meta('controlplane-0'), spec });
const machineTemplate = (spec: Json): Resource => ({ metadata: meta('m3mt-0'), spec: { nodeReuse: false, template: { spec } } });
const withImage = (image: Json) => ({ ...seedMachineSpec, image });

const pool = { apiGroup: 'ipam.metal3.io', kind: 'IPPool', name: 'pool-1' };
const seedMetaData: Json = {
  strings: [{ key: 'abc', value: 'def' }],
  objectNames: [
    { key: 'name_m3m', object: 'metal3machine' },
    { key: 'name_machine', object: 'machine' },
    { key: 'name_bmh', object: 'baremetalhost' },
  ],
  indexes: [{ key: 'index', offset: 0, step: 1 }, { key: 'index2' }],
  ipAddressesFromIPPool: [{ key: 'ip', ...pool }],
  prefixesFromIPPool: [{ key: 'ip', ...pool }],
  gatewaysFromIPPool: [{ key: 'gateway', ...pool }],
  dnsServersFromIPPool: [{ key: 'dns', ...pool }],
  fromHostInterfaces: [{ key: 'mac', interface: 'eth0' }],
  fromLabels: [{ key: 'label-1', object: 'machine', label: 'mylabelkey' }],
  fromAnnotations: [{ key: 'annotation-1', object: 'machine', annotation: 'myannotationkey' }],
};
const ipv4 = (extra: Record<string, Json>) => ({
  id: 'Baremetal',
  link: 'vlan1',
  ...extra,
  routes: [{ network: '0.0.0.0', prefix: 0, gateway: { fromIPPool: 'pool-1' }, services: { dns: ['8.8.4.4'], dnsFromIPPool: 'pool-1' } }],
});
const ipv6 = (extra: Record<string, Json>) => ({
  id: 'Baremetal6',
  link: 'vlan1',
  ...extra,
  routes: [{ network: '0::0', prefix: 0, gateway: { string: '2001:db8:85a3::8a2e:370:1' } }],
});
const seedNetworkData = (v4: Json, v6: Json): Json => ({
  links: {
    ethernets: [
      { type: 'phy', id: 'enp1s0', mtu: 1500, macAddress: { fromAnnotation: { object: 'machine', annotation: 'primary-mac' } } },
      { type: 'phy', id: 'enp2s0', macAddress: { fromHostInterface: 'eth1' } },
    ],
    bonds: [{ id: 'bond0', mtu: 1500, macAddress: { string: 'XX:XX:XX:XX:XX:XX' }, bondMode: '802.3ad', bondLinks: ['enp1s0', 'enp2s0'] }],
    vlans: [{ id: 'vlan1', macAddress: { string: 'YY:YY:YY:YY:YY:YY' }, vlanID: 1, vlanLink: 'bond0' }],
  },
  networks: {
    ipv4DHCP: [{ id: 'provisioning', link: 'bond0' }],
    ipv4: [v4],
    ipv6DHCP: [{ id: 'provisioning6', link: 'bond0' }],
    ipv6SLAAC: [{ id: 'provisioning6slaac', link: 'bond0' }],
    ipv6: [v6],
  },
  services: { dns: ['8.8.8.8', '2001:4860:4860::8888'] },
});
const dataTemplate = (spec: Record<string, Json>): Resource => ({
  metadata: { name: 'nodepool-1', namespace: 'default' },
  spec: { clusterName: 'cluster-1', templateReference: 'old-template', ...spec },
});
const seedDataTemplate = dataTemplate({
  metaData: seedMetaData,
  networkData: seedNetworkData(ipv4({ ipAddressFromIPPool: 'pool-1' }), ipv6({ ipAddressFromIPPool: 'pool6-1' })),
});

const claim = (template: Json): Resource => ({ metadata: { name: 'machine-1', namespace: 'default' }, spec: { template } });
const data = (name: string, spec: Record<string, Json>): Resource => ({
  metadata: { name, namespace: 'default' },
  spec: {
    templateReference: 'old-template',
    index: 0,
    claim: { name: 'machine-1', namespace: 'default' },
    metaData: { name: 'machine-1-metadata', namespace: 'default' },
    networkData: { name: 'machine-1-networkdata', namespace: 'default' },
    template: { name: 'nodepool-1', namespace: 'default' },
    ...spec,
  },
});
const seedData = data('nodepool-1-0', {});

const remediation = (strategy: Json | undefined): Resource => ({ metadata: meta('worker-0'), spec: strategy === undefined ? {} : { strategy } });
const remediationTemplate = (strategy: Json): Resource => ({ metadata: meta('workers'), spec: { template: { spec: { strategy } } } });
const reboot = { type: 'Reboot', retryLimit: 2, timeout: '5m0s' };

export const admissionCases: readonly AdmissionCase[] = [
  // Metal3Cluster
  { title: 'W-3 seed Metal3Cluster is accepted', kind: 'Metal3Cluster', object: cluster({ controlPlaneEndpoint: { host: '192.168.111.249', port: 6443 }, noCloudProvider: true }) },
  { title: 'W-2 port 0 is accepted (the controller reads it as 6443)', kind: 'Metal3Cluster', object: cluster({ controlPlaneEndpoint: { host: 'api.example', port: 0 } }) },
  { title: 'W-3 a Metal3Cluster without spec is rejected', kind: 'Metal3Cluster', object: { metadata: meta('m3cluster') }, rejects: ['spec is required'] },
  { title: 'W-3 empty controlPlaneEndpoint.host is rejected', kind: 'Metal3Cluster', object: cluster({ controlPlaneEndpoint: { host: '', port: 6443 } }), rejects: ['spec.controlPlaneEndpoint.host', 'controlPlaneEndpoint.host is required'] },
  { title: 'W-3 missing controlPlaneEndpoint is rejected', kind: 'Metal3Cluster', object: cluster({ noCloudProvider: true }), rejects: ['controlPlaneEndpoint.host is required'] },
  { title: 'W-3 equal cloud flags are rejected', kind: 'Metal3Cluster', object: cluster({ controlPlaneEndpoint: { host: 'a', port: 1 }, cloudProviderEnabled: true, noCloudProvider: true }), rejects: ['spec.cloudProviderEnabled', 'cloudProviderEnabled conflicts the value of noCloudProvider'] },
  { title: 'W-3 opposite cloud flags are accepted', kind: 'Metal3Cluster', object: cluster({ controlPlaneEndpoint: { host: 'a', port: 1 }, cloudProviderEnabled: false, noCloudProvider: true }) },
  // Metal3ClusterTemplate
  { title: 'W-4 template with host and port is accepted', kind: 'Metal3ClusterTemplate', object: clusterTemplate({ host: 'a', port: 6443 }) },
  { title: 'W-4 template with port 0 is rejected', kind: 'Metal3ClusterTemplate', object: clusterTemplate({ host: 'a', port: 0 }), rejects: ['Missing fields from Spec: [ControlPlaneEndpoint.Port]'] },
  { title: 'W-4 template with empty host and port 0 is rejected', kind: 'Metal3ClusterTemplate', object: clusterTemplate({ host: '', port: 0 }), rejects: ['Missing fields from Spec: [ControlPlaneEndpoint.Host ControlPlaneEndpoint.Port]'] },
  // Metal3Machine
  { title: 'W-5 seed Metal3Machine is accepted', kind: 'Metal3Machine', object: machine(seedMachineSpec) },
  { title: 'W-5 customDeploy.method makes the image optional', kind: 'Metal3Machine', object: machine({ customDeploy: { method: 'install_coreos' } }) },
  { title: 'W-5 an empty customDeploy.method does not', kind: 'Metal3Machine', object: machine({ customDeploy: { method: '' } }), rejects: ['image.url cannot be empty', 'image.checksum cannot be empty'] },
  { title: 'W-10 missing image is rejected', kind: 'Metal3Machine', object: machine({ automatedCleaningMode: 'disabled' }), rejects: ['spec.image.url', 'image.url cannot be empty', 'image.checksum cannot be empty'] },
  { title: 'W-10 "test url" is not a valid URL', kind: 'Metal3Machine', object: machine(withImage({ ...seedImage, url: 'test url' })), rejects: ['image.url is not a valid URL'] },
  { title: 'W-10 an absolute path is a valid URL', kind: 'Metal3Machine', object: machine(withImage({ ...seedImage, url: '/images/node.img' })) },
  { title: 'W-10 empty checksum is rejected', kind: 'Metal3Machine', object: machine(withImage({ ...seedImage, checksum: '' })), rejects: ['image.checksum cannot be empty'] },
  { title: 'W-10 live-iso needs no checksum', kind: 'Metal3Machine', object: machine(withImage({ url: 'http://x/a.iso', checksum: '', format: 'live-iso' })) },
  { title: 'W-10 a plain checksum value is accepted', kind: 'Metal3Machine', object: machine(withImage({ ...seedImage, checksum: 'a3f1c2' })) },
  { title: 'W-10 checksum "http://:invalid" is rejected', kind: 'Metal3Machine', object: machine(withImage({ ...seedImage, checksum: 'http://:invalid' })), rejects: ['image.checksum is not a valid URL'] },
  // Metal3MachineTemplate
  { title: 'W-6 seed Metal3MachineTemplate is accepted and nodeReuse defaults to false', kind: 'Metal3MachineTemplate', object: { metadata: meta('m3mt-0'), spec: { template: { spec: seedMachineSpec } } }, defaults: { 'spec.nodeReuse': false } },
  { title: 'W-6 template image url is validated', kind: 'Metal3MachineTemplate', object: machineTemplate(withImage({ ...seedImage, url: 'test url' })), rejects: ['spec.template.spec.image.url', 'image.url is not a valid URL'] },
  { title: 'W-6 template customDeploy skips the image rules', kind: 'Metal3MachineTemplate', object: machineTemplate({ customDeploy: { method: 'x' } }) },
  // Metal3DataTemplate
  {
    title: 'W-7 seed Metal3DataTemplate is accepted and defaulted (mtu 1500, step 1)',
    kind: 'Metal3DataTemplate',
    object: seedDataTemplate,
    defaults: { 'spec.networkData.links.ethernets[1].mtu': 1500, 'spec.networkData.links.vlans[0].mtu': 1500, 'spec.metaData.indexes[1].step': 1 },
  },
  { title: 'W-7 ipv4 network without an address source is rejected', kind: 'Metal3DataTemplate', object: dataTemplate({ networkData: seedNetworkData(ipv4({}), ipv6({ ipAddressFromIPPool: 'p6' })) }), rejects: ['spec.networkData.networks.ipv4[0].fromPoolRef.name', 'fromPoolRef needs to contain a reference to an IPPool'] },
  { title: 'W-7 ipv6 network with an empty ipAddressFromIPPool and no pool is rejected', kind: 'Metal3DataTemplate', object: dataTemplate({ networkData: seedNetworkData(ipv4({ fromPoolAnnotation: { object: 'machine', annotation: 'pool' } }), ipv6({ ipAddressFromIPPool: '' })) }), rejects: ['spec.networkData.networks.ipv6[0].fromPoolRef.name'] },
  { title: 'W-7 fromPoolRef is an address source', kind: 'Metal3DataTemplate', object: dataTemplate({ networkData: seedNetworkData(ipv4({ fromPoolRef: { kind: 'IPPool', name: 'p4' } }), ipv6({ ipAddressFromIPPool: '', fromPoolRef: { kind: 'IPPool', name: 'p6' } })) }) },
  { title: 'W-8 metaData cannot be modified', kind: 'Metal3DataTemplate', old: seedDataTemplate, object: dataTemplate({ metaData: { strings: [{ key: 'abc', value: 'changed' }] }, networkData: (seedDataTemplate['spec'] as { networkData: Json }).networkData }), rejects: ['spec.metaData', 'metaData cannot be modified'] },
  { title: 'W-8 networkData cannot be removed', kind: 'Metal3DataTemplate', old: seedDataTemplate, object: dataTemplate({ metaData: seedMetaData }), rejects: ['networkData cannot be modified'] },
  { title: 'W-8 clusterName and templateReference stay mutable', kind: 'Metal3DataTemplate', old: seedDataTemplate, object: { ...seedDataTemplate, spec: { ...(seedDataTemplate['spec'] as Record<string, Json>), clusterName: 'other', templateReference: 'new' } } },
  // v1.13.2's additions to v1beta1 (AP-19, AP-20) and their one-of rule (W2-7)
  { title: 'W2-7/AP-19 v1beta1: fromBootMAC alone is a MAC source', kind: 'Metal3DataTemplate', object: dataTemplate({ metaData: { fromHostInterfaces: [{ key: 'boot_mac', fromBootMAC: true }] } }), defaults: { 'spec.metaData.fromHostInterfaces[0].fromBootMAC': true } },
  { title: 'W2-7/AP-19 v1beta1: neither interface nor fromBootMAC is rejected, naming the interface', kind: 'Metal3DataTemplate', object: dataTemplate({ metaData: { fromHostInterfaces: [{ key: 'mac' }] } }), rejects: ['spec.metaData.fromHostInterfaces[0].interface', 'interface must be specified when fromBootMAC is false'] },
  { title: 'W2-7/AP-19 v1beta1: fromBootMAC false with an empty interface is rejected', kind: 'Metal3DataTemplate', object: dataTemplate({ metaData: { fromHostInterfaces: [{ key: 'mac', interface: '', fromBootMAC: false }] } }), rejects: ['interface must be specified when fromBootMAC is false'] },
  { title: 'W2-7/AP-19 v1beta1: fromBootMAC with an interface is rejected', kind: 'Metal3DataTemplate', object: dataTemplate({ metaData: { fromHostInterfaces: [{ key: 'mac', fromBootMAC: true, interface: 'eth0' }] } }), rejects: ['spec.metaData.fromHostInterfaces[0].interface', 'interface must be empty when fromBootMAC is true'] },
  { title: 'AP-20 v1beta1: links carry a name', kind: 'Metal3DataTemplate', object: dataTemplate({ networkData: { links: { ethernets: [{ type: 'phy', id: 'enp1s0', name: 'data0', macAddress: { string: '00:11:22:33:44:55' } }] } } }), defaults: { 'spec.networkData.links.ethernets[0].name': 'data0' } },
  { title: 'AP-20 v1beta1: a link name longer than 15 characters is rejected', kind: 'Metal3DataTemplate', object: dataTemplate({ networkData: { links: { vlans: [{ id: 'v', name: 'a-very-long-name0', vlanID: 1, vlanLink: 'bond0', macAddress: { string: '00:11:22:33:44:55' } }] } } }), rejects: ['spec.networkData.links.vlans[0].name'] },
  { title: 'AP-20 v1beta1: a link name starting with a digit is rejected', kind: 'Metal3DataTemplate', object: dataTemplate({ networkData: { links: { bonds: [{ id: 'b', name: '0bond', bondMode: '802.3ad', macAddress: { string: '00:11:22:33:44:55' } }] } } }), rejects: ['spec.networkData.links.bonds[0].name'] },
  // Metal3DataClaim
  { title: 'W-9 seed Metal3DataClaim is accepted', kind: 'Metal3DataClaim', object: claim({ name: 'nodepool-1' }) },
  { title: 'W-9 a claim without template.name is rejected', kind: 'Metal3DataClaim', object: claim({ kind: 'Metal3DataTemplate' }), rejects: ['spec.template.name', 'spec.template.name must be set'] },
  { title: 'W-9 template.name cannot change', kind: 'Metal3DataClaim', old: claim({ name: 'nodepool-1' }), object: claim({ name: 'nodepool-2' }), rejects: ['spec.template', 'template name, namespace and kind cannot be modified'] },
  { title: 'W-9 template.kind cannot change', kind: 'Metal3DataClaim', old: claim({ name: 'nodepool-1' }), object: claim({ name: 'nodepool-1', kind: 'Other' }), rejects: ['template name, namespace and kind cannot be modified'] },
  { title: 'W-9 other template reference fields may change', kind: 'Metal3DataClaim', old: claim({ name: 'nodepool-1' }), object: claim({ name: 'nodepool-1', uid: 'u-1' }) },
  // Issue 21 point 4: names whose derived names cannot fit in 253 characters (create only).
  { title: 'issue 21: a 241-character Metal3Machine name is accepted (<name>-networkdata is 253)', kind: 'Metal3Machine', object: { ...machine(seedMachineSpec), metadata: meta('m'.repeat(241)) } },
  { title: 'issue 21: a 242-character Metal3Machine name is refused, saying why', kind: 'Metal3Machine', object: { ...machine(seedMachineSpec), metadata: meta('m'.repeat(242)) }, rejects: ['metadata.name: must be no more than 241 characters', '<name>-networkdata', '253'] },
  { title: 'issue 21: a 242-character Metal3DataTemplate name is accepted (<name>-<10 digits> is 253)', kind: 'Metal3DataTemplate', object: { ...seedDataTemplate, metadata: { name: 't'.repeat(242), namespace: 'default' } } },
  { title: 'issue 21: a 243-character Metal3DataTemplate name is refused, saying why', kind: 'Metal3DataTemplate', object: { ...seedDataTemplate, metadata: { name: 't'.repeat(243), namespace: 'default' } }, rejects: ['metadata.name: must be no more than 242 characters', '<name>-<index>', '253'] },
  // Metal3Data
  { title: 'W-11 seed Metal3Data is accepted', kind: 'Metal3Data', object: seedData },
  { title: 'W-11 the name must be <template>-<index>', kind: 'Metal3Data', object: data('nodepool-1-1', {}), rejects: ['metadata', 'should follow the convention <Metal3Template Name>-<index>'] },
  { title: 'W-11 a zero-padded index does not match', kind: 'Metal3Data', object: data('nodepool-1-07', { index: 7 }), rejects: ['should follow the convention'] },
  { title: 'W-11 an unrelated template name does not match', kind: 'Metal3Data', object: data('nodepool-1-0', { template: { name: 'test1-workers-template' } }), rejects: ['should follow the convention'] },
  { title: 'W-11 a negative index is rejected', kind: 'Metal3Data', object: data('nodepool-1--1', { index: -1 }), rejects: ['spec.index', 'index must be positive value'] },
  { title: 'W-11 index cannot be modified', kind: 'Metal3Data', old: seedData, object: data('nodepool-1-0', { index: 1 }), rejects: ['index cannot be modified'] },
  { title: 'W-11 claim cannot be modified', kind: 'Metal3Data', old: seedData, object: data('nodepool-1-0', { claim: { name: 'machine-2', namespace: 'default' } }), rejects: ['spec.claim', 'claim name, namespace and kind cannot be modified'] },
  { title: 'W-11 template cannot be modified', kind: 'Metal3Data', old: seedData, object: data('nodepool-1-0', { template: { name: 'nodepool-1', namespace: 'other' } }), rejects: ['template name, namespace and kind cannot be modified'] },
  // Metal3Remediation (W-12; a missing strategy is accepted, as v1.13.2 does)
  { title: 'W-12 a Reboot remediation is accepted', kind: 'Metal3Remediation', object: remediation(reboot) },
  { title: 'W-12 a remediation without strategy is accepted (the controller leaves it alone, R-7)', kind: 'Metal3Remediation', object: remediation(undefined) },
  { title: 'W-12 an unknown strategy type is rejected, naming spec.strategy.type', kind: 'Metal3Remediation', object: remediation({ ...reboot, type: 'Reprovision' }), rejects: ['spec.strategy.type', 'is only supported remediation strategy'] },
  { title: 'W-12 a retryLimit below 1 is rejected, naming spec.strategy.retryLimit', kind: 'Metal3Remediation', object: remediation({ ...reboot, retryLimit: 0 }), rejects: ['spec.strategy.retryLimit', 'is minimum retrylimit'] },
  { title: 'W-12 a timeout under 100s is rejected, naming spec.strategy.timeout', kind: 'Metal3Remediation', object: remediation({ ...reboot, timeout: '99s' }), rejects: ['spec.strategy.timeout', 'min duration is 100s'] },
  { title: 'W-12 a timeout that is no duration is rejected', kind: 'Metal3Remediation', object: remediation({ ...reboot, timeout: 'soon' }), rejects: ['spec.strategy.timeout', 'min duration is 100s'] },
  // Metal3RemediationTemplate (W-13)
  { title: 'W-13 an empty template strategy is defaulted to Reboot, 600s, retryLimit 1', kind: 'Metal3RemediationTemplate', object: remediationTemplate({}), defaults: { 'spec.template.spec.strategy.type': 'Reboot', 'spec.template.spec.strategy.timeout': '600s', 'spec.template.spec.strategy.retryLimit': 1 } },
  { title: 'W-13 an unknown template strategy type is rejected, naming the field', kind: 'Metal3RemediationTemplate', object: remediationTemplate({ type: 'Reprovision' }), rejects: ['spec.template.spec.strategy.type', 'only supported remediation strategy is reboot'] },
  { title: 'W-13 a negative template retryLimit is rejected, naming the field (upstream silently makes it 1)', kind: 'Metal3RemediationTemplate', object: remediationTemplate({ retryLimit: -1 }), rejects: ['spec.template.spec.strategy.retryLimit', 'minimum retry limit is 1'] },
  { title: 'W-13 a template timeout under 100s is rejected, naming the field', kind: 'Metal3RemediationTemplate', object: remediationTemplate({ timeout: '1m' }), rejects: ['spec.template.spec.strategy.timeout', 'min duration is 100s'] },
];
