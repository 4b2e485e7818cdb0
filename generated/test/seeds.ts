// The example objects of seed 003 ("the Metal3 objects with examples") as typed values. This file is
// a type-level test: it compiles only if every example fits the generated types, and every
// `@ts-expect-error` below proves a wrong field or value is refused. (The seed's prose copy lost its
// indentation and has a few typos, e.g. `Name:` and `IPAddressFromIPPool:`; the objects here are the
// valid manifests they describe.)
import { newCluster, newMachine, newMachineDeployment, type Cluster } from '../src/cluster.x-k8s.io/v1beta1.ts';
import { newKubeadmControlPlane } from '../src/controlplane.cluster.x-k8s.io/v1beta1.ts';
import { newKubeadmConfig, newKubeadmConfigTemplate } from '../src/bootstrap.cluster.x-k8s.io/v1beta1.ts';
import {
  newMetal3Cluster,
  newMetal3Data,
  newMetal3DataClaim,
  newMetal3DataTemplate,
  newMetal3Machine,
  newMetal3MachineTemplate,
  type Metal3DataTemplate,
  type Metal3Machine,
  type Metal3MachineSpec,
} from '../src/infrastructure.cluster.x-k8s.io/v1beta1.ts';
import { newIPPool } from '../src/ipam.metal3.io/v1alpha1.ts';
import { newBareMetalHost } from '../src/metal3.io/v1alpha1.ts';

const ns = 'metal3';

export const cluster = newCluster({
  metadata: { name: 'cluster', namespace: ns },
  spec: {
    clusterNetwork: { services: { cidrBlocks: ['10.96.0.0/12'] }, pods: { cidrBlocks: ['192.168.0.0/18'] } },
    infrastructureRef: { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Cluster', name: 'm3cluster', namespace: ns },
    controlPlaneRef: { kind: 'KubeadmControlPlane', apiVersion: 'controlplane.cluster.x-k8s.io/v1beta1', name: 'm3cluster-controlplane', namespace: ns },
  },
});

export const metal3Cluster = newMetal3Cluster({
  metadata: { name: 'm3cluster', namespace: ns },
  spec: { controlPlaneEndpoint: { host: '192.168.111.249', port: 6443 }, noCloudProvider: true },
});

export const controlPlane = newKubeadmControlPlane({
  metadata: { name: 'm3cluster-controlplane', namespace: ns },
  spec: {
    machineTemplate: {
      infrastructureRef: { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3MachineTemplate', name: 'm3cluster-controlplane', namespace: ns },
      nodeDrainTimeout: '0s',
    },
    replicas: 3,
    rolloutStrategy: { rollingUpdate: { maxSurge: 1 }, type: 'RollingUpdate' },
    version: 'v1.28.1',
    kubeadmConfigSpec: {
      joinConfiguration: {
        controlPlane: {},
        nodeRegistration: { name: '{{ ds.meta_data.name }}', kubeletExtraArgs: { 'node-labels': 'metal3.io/uuid={{ ds.meta_data.uuid }}' } },
      },
      initConfiguration: {
        nodeRegistration: { name: '{{ ds.meta_data.name }}', kubeletExtraArgs: { 'node-labels': 'metal3.io/uuid={{ ds.meta_data.uuid }}' } },
      },
    },
  },
});

export const kubeadmConfig = newKubeadmConfig({
  metadata: { name: 'controlplane-0', namespace: ns },
  spec: {
    initConfiguration: {
      nodeRegistration: { name: '{{ ds.meta_data.name }}', kubeletExtraArgs: { 'node-labels': 'metal3.io/uuid={{ ds.meta_data.uuid }}' } },
    },
    preKubeadmCommands: ['netplan apply', 'systemctl enable --now crio kubelet'],
    postKubeadmCommands: ['mkdir -p /home/metal3/.kube'],
  },
});

export const machine = newMachine({
  metadata: { name: 'controlplane-0', namespace: ns },
  spec: {
    clusterName: 'cluster',
    bootstrap: { configRef: { apiVersion: 'bootstrap.cluster.x-k8s.io/v1beta1', kind: 'KubeadmConfig', name: 'controlplane-0', namespace: ns } },
    infrastructureRef: { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Machine', name: 'controlplane-0', namespace: ns },
    nodeDrainTimeout: '0s',
    providerID: 'metal3://68be298f-ed11-439e-9d51-6c5260faede6',
    version: 'v1.28.1',
  },
});

const image = {
  checksum: 'http://172.22.0.1/images/UBUNTU_22.04_NODE_IMAGE_K8S_v1.28.1-raw.img.sha256sum',
  checksumType: 'sha256',
  format: 'raw',
  url: 'http://172.22.0.1/images/UBUNTU_22.04_NODE_IMAGE_K8S_v1.28.1-raw.img',
} as const;

const hostSelector = {
  matchLabels: { key1: 'value1' },
  matchExpressions: [{ key: 'key2', operator: 'in', values: ['abc', '123', 'value2'] }],
};

export const metal3Machine: Metal3Machine = newMetal3Machine({
  metadata: { name: 'controlplane-0', namespace: ns },
  spec: {
    automatedCleaningMode: 'metadata',
    image,
    hostSelector,
    dataTemplate: { name: 'controlplane-metadata' },
    metaData: { name: 'controlplane-0-metadata-0' },
  },
});

export const machineDeployment = newMachineDeployment({
  metadata: { name: 'md-0', namespace: ns, labels: { 'cluster.x-k8s.io/cluster-name': 'cluster', nodepool: 'nodepool-0' } },
  spec: {
    clusterName: 'cluster',
    replicas: 1,
    selector: { matchLabels: { 'cluster.x-k8s.io/cluster-name': 'cluster', nodepool: 'nodepool-0' } },
    strategy: { rollingUpdate: { maxSurge: 1, maxUnavailable: 0 }, type: 'RollingUpdate' },
    template: {
      metadata: { labels: { 'cluster.x-k8s.io/cluster-name': 'cluster', nodepool: 'nodepool-0' } },
      spec: {
        clusterName: 'cluster',
        bootstrap: { configRef: { name: 'md-0', apiVersion: 'bootstrap.cluster.x-k8s.io/v1beta1', kind: 'KubeadmConfigTemplate' } },
        infrastructureRef: { name: 'md-0', apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3MachineTemplate' },
        version: 'v1.28.1',
      },
    },
  },
});

export const kubeadmConfigTemplate = newKubeadmConfigTemplate({
  metadata: { name: 'md-0', namespace: ns },
  spec: {
    template: {
      spec: {
        joinConfiguration: {
          nodeRegistration: { name: '{{ ds.meta_data.name }}', kubeletExtraArgs: { 'node-labels': 'metal3.io/uuid={{ ds.meta_data.uuid }}' } },
        },
        preKubeadmCommands: ['netplan apply', 'systemctl enable --now crio kubelet'],
      },
    },
  },
});

export const machineTemplate = newMetal3MachineTemplate({
  metadata: { name: 'm3mt-0', namespace: ns },
  spec: {
    nodeReuse: false,
    template: { spec: { automatedCleaningMode: 'metadata', image, hostSelector, dataTemplate: { name: 'm3mt-0-metadata' } } },
  },
});

export const dataTemplate: Metal3DataTemplate = newMetal3DataTemplate({
  metadata: {
    name: 'nodepool-1',
    namespace: 'default',
    ownerReferences: [{ apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', controller: true, kind: 'Metal3Cluster', name: 'cluster-1', uid: 'a' }],
  },
  spec: {
    clusterName: 'cluster-1',
    templateReference: 'old-template',
    metaData: {
      strings: [{ key: 'abc', value: 'def' }],
      objectNames: [
        { key: 'name_m3m', object: 'metal3machine' },
        { key: 'name_machine', object: 'machine' },
        { key: 'name_bmh', object: 'baremetalhost' },
      ],
      indexes: [{ key: 'index', offset: 0, step: 1 }],
      ipAddressesFromIPPool: [{ key: 'ip', name: 'pool-1', apiGroup: 'ipam.metal3.io', kind: 'IPPool' }],
      prefixesFromIPPool: [{ key: 'ip', name: 'pool-1', apiGroup: 'ipam.metal3.io', kind: 'IPPool' }],
      gatewaysFromIPPool: [{ key: 'gateway', name: 'pool-1', apiGroup: 'ipam.metal3.io', kind: 'IPPool' }],
      dnsServersFromIPPool: [{ key: 'dns', name: 'pool-1', apiGroup: 'ipam.metal3.io', kind: 'IPPool' }],
      fromHostInterfaces: [{ key: 'mac', interface: 'eth0' }],
      fromLabels: [{ key: 'label-1', object: 'machine', label: 'mylabelkey' }],
      fromAnnotations: [{ key: 'annotation-1', object: 'machine', annotation: 'myannotationkey' }],
    },
    networkData: {
      links: {
        ethernets: [
          { type: 'phy', id: 'enp1s0', mtu: 1500, macAddress: { fromAnnotation: { object: 'machine', annotation: 'primary-mac' } } },
          { type: 'phy', id: 'enp2s0', mtu: 1500, macAddress: { fromHostInterface: 'eth1' } },
        ],
        bonds: [{ id: 'bond0', mtu: 1500, macAddress: { string: 'XX:XX:XX:XX:XX:XX' }, bondMode: '802.3ad', bondLinks: ['enp1s0', 'enp2s0'] }],
        vlans: [{ id: 'vlan1', mtu: 1500, macAddress: { string: 'YY:YY:YY:YY:YY:YY' }, vlanID: 1, vlanLink: 'bond0' }],
      },
      networks: {
        ipv4DHCP: [{ id: 'provisioning', link: 'bond0' }],
        ipv4: [
          {
            id: 'Baremetal',
            link: 'vlan1',
            ipAddressFromIPPool: 'pool-1',
            routes: [{ network: '0.0.0.0', prefix: 0, gateway: { fromIPPool: 'pool-1' }, services: { dns: ['8.8.4.4'], dnsFromIPPool: 'pool-1' } }],
          },
        ],
        ipv6DHCP: [{ id: 'provisioning6', link: 'bond0' }],
        ipv6SLAAC: [{ id: 'provisioning6slaac', link: 'bond0' }],
        ipv6: [
          {
            id: 'Baremetal6',
            link: 'vlan1',
            ipAddressFromIPPool: 'pool6-1',
            routes: [{ network: '0::0', prefix: 0, gateway: { string: '2001:0db8:85a3::8a2e:0370:1' }, services: { dns: ['2001:4860:4860::8844'], dnsFromIPPool: 'pool6-1' } }],
          },
        ],
      },
      services: { dns: ['8.8.8.8', '2001:4860:4860::8888'] },
    },
  },
  // The seed shows indexes as index → claim; the pinned v1beta1 schema (upstream's and ours) has them as
  // claim name → index. dataNames (claim → Metal3Data) is in ours, not in upstream's schema.
  status: { indexes: { 'machine-1': 0 }, dataNames: { 'machine-1': 'nodepool-1-0' }, lastUpdated: '2020-04-02T06:36:09Z' },
});

export const dataClaim = newMetal3DataClaim({
  metadata: { name: 'machine-1', namespace: 'default' },
  spec: { template: { name: 'nodepool-1' } },
  status: { renderedData: { name: 'nodepool-1-0' }, errorMessage: '' },
});

export const data = newMetal3Data({
  metadata: { name: 'nodepool-1-0', namespace: 'default' },
  spec: {
    templateReference: 'old-template',
    index: 0,
    template: { name: 'nodepool-1' },
    claim: { name: 'machine-1', namespace: 'metal3' },
    metaData: { name: 'machine-1-metadata', namespace: 'metal3' },
    networkData: { name: 'machine-1-networkdata', namespace: 'metal3' },
  },
});

export const ipPool = newIPPool({
  metadata: { name: 'pool-1', namespace: 'default' },
  spec: {
    clusterName: 'cluster-1',
    pools: [{ start: '192.168.0.10', end: '192.168.0.250', prefix: 24, gateway: '192.168.0.1' }],
    prefix: 24,
    gateway: '192.168.0.1',
    namePrefix: 'pool-1',
  },
});

export const host = newBareMetalHost({
  metadata: { name: 'node-0', namespace: ns, labels: { key1: 'value1' } },
  spec: { online: true, bootMACAddress: '00:11:22:33:44:55', bmc: { address: 'ipmi://192.168.111.1:6230', credentialsName: 'node-0-bmc-secret' } },
});

// ---- Wrong fields and values are refused at compile time. ----

// @ts-expect-error automatedCleaningMode is an enum: "metadata" | "disabled"
export const badCleaning: Metal3MachineSpec = { automatedCleaningMode: 'sometimes' };

// @ts-expect-error image.url is required
export const badImage: Metal3MachineSpec = { image: { checksum: 'x' } };

// @ts-expect-error unknown field: the seed's `IPAddressFromIPPool` casing is not a field
export const badPoolField: Metal3MachineSpec = { IPAddressFromIPPool: 'pool-1' };

// @ts-expect-error apiVersion and kind are literal types
export const badKind: Cluster = { ...cluster, kind: 'Machine' };

newMetal3Machine({
  metadata: { name: 'x' },
  // @ts-expect-error hostSelector.matchLabels values are strings
  spec: { hostSelector: { matchLabels: { key1: 1 } } },
});

newMetal3DataTemplate({
  metadata: { name: 'x' },
  // @ts-expect-error objectNames.object is machine | metal3machine | baremetalhost
  spec: { clusterName: 'c', metaData: { objectNames: [{ key: 'k', object: 'node' }] } },
});

// @ts-expect-error factories fill apiVersion and kind; they are not part of the init
newMetal3Cluster({ apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', metadata: { name: 'x' } });
