// The Node a provisioned host's kubelet registers, decided from the host, its consumer and the data
// cloud-init ran with. Pure: the controller reads the inputs and writes the result.
//
// Covered (kubelet `initialNode` and kubeadm): the node name (kubeadm's `nodeRegistration.name`, else
// the cloud-init hostname; lower-cased), the kubelet's default labels (`kubernetes.io/hostname`,
// os, arch and their beta twins) overwritten by `--node-labels`, a control-plane node's role label,
// load-balancer exclusion label and NoSchedule taint (kubeadm's mark-control-plane phase), the
// providerID per ProviderIdMode (or the kubelet's `--provider-id`), addresses from the host's NICs, capacity from its hardware, a Ready
// condition. Not covered: heartbeats (the Node is written once, as a kubelet that keeps running; a
// stopped or NotReady kubelet is kubelet-state.ts), images, volumes, daemon endpoints.
import type { Node, NodeAddress, NodeCondition, Taint } from '@metal3-ts/generated/core/v1';
import type { BareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { cloudInitHostname, type HostIdentity, hostMetaData, parseMetaDataSecret, renderJinja } from './cloud-init.ts';
import { kubeletJoinFromUserData } from './kubeadm-config.ts';
import { NODE_HOST_ANNOTATION, NODE_HOST_UID_ANNOTATION, type ProviderIdMode } from './names.ts';
import { isValidNodeName, NodeLabelError, parseNodeLabels } from './node-labels.ts';

export const PROVISIONED = 'provisioned';
const CONTROL_PLANE_ROLE = 'node-role.kubernetes.io/control-plane';

/**
 * A kubelet runs on the host: BMO reports it provisioned (the image is written and the host booted
 * it) and a consumer holds it. Every other state (deprovisioning, available, …) means the OS that
 * ran the kubelet is gone or being wiped.
 */
export function shouldNodeExist(host: Readonly<BareMetalHost>): boolean {
  return host.status?.provisioning?.state === PROVISIONED && !!host.spec?.consumerRef?.name;
}

/** The Metal3Machine (or other consumer) holding the host, as named in CAPM3's providerIDs. */
export interface ConsumerName {
  readonly namespace: string;
  readonly name: string;
}

/**
 * The providerID the Node starts with; undefined leaves it for CAPM3 to set (research P-1, P-7, P-8).
 * In `default` mode the kubelet sets only what its `--provider-id` argument says (upstream templates
 * pass `metal3://{{ ds.meta_data.providerid }}`); the other two modes are a test's explicit choice and
 * win over the bootstrap data.
 */
export function providerIdFor(mode: ProviderIdMode, host: HostIdentity, consumer: ConsumerName, kubeletFlag?: string): string | undefined {
  switch (mode) {
    case 'default':
      return kubeletFlag || undefined;
    case 'cloud-provider':
      return `metal3://${consumer.namespace}/${host.name}/${consumer.name}`;
    case 'legacy':
      return `metal3://${host.uid}`;
  }
}

/** Kubernetes' GOARCH names for the architectures ironic reports. */
export function kubeArch(arch: string | undefined): string {
  switch ((arch ?? '').toLowerCase()) {
    case '':
    case 'x86_64':
    case 'amd64':
      return 'amd64';
    case 'aarch64':
    case 'arm64':
      return 'arm64';
    default:
      return arch!.toLowerCase();
  }
}

/** InternalIP for every NIC address the host reports (first occurrence kept), then the Hostname. */
export function nodeAddresses(host: Readonly<BareMetalHost>, nodeName: string): NodeAddress[] {
  const seen = new Set<string>();
  const addresses: NodeAddress[] = [];
  for (const nic of host.status?.hardware?.nics ?? []) {
    const ip = nic.ip?.trim();
    if (!ip || seen.has(ip)) continue;
    seen.add(ip);
    addresses.push({ type: 'InternalIP', address: ip });
  }
  addresses.push({ type: 'Hostname', address: nodeName });
  return addresses;
}

/** The conditions a running kubelet posts: no pressure, Ready (all changed at `now`). */
export function kubeletConditions(now: string): NodeCondition[] {
  return [
    ...(['MemoryPressure', 'DiskPressure', 'PIDPressure'] as const).map((type) => ({
      type,
      status: 'False' as const,
      lastHeartbeatTime: now,
      lastTransitionTime: now,
      reason: `KubeletHasNo${type}`,
      message: `kubelet has no ${type.replace('Pressure', '').toLowerCase()} pressure`,
    })),
    { type: 'Ready', status: 'True', lastHeartbeatTime: now, lastTransitionTime: now, reason: 'KubeletReady', message: 'kubelet is posting ready status' },
  ];
}

export interface NodeInputs {
  readonly host: Readonly<BareMetalHost>;
  readonly consumer: ConsumerName;
  readonly mode: ProviderIdMode;
  /** The `metaData` value of the host's `spec.metaData` Secret, if it has one. */
  readonly metaData?: string | undefined;
  /** The user data of the host's `spec.userData` Secret (key `userData`, else `value`), if any. */
  readonly userData?: string | undefined;
  /** The Machine's `spec.version`, reported as the kubelet version. */
  readonly kubeletVersion?: string | undefined;
  /** RFC 3339 time for the conditions. */
  readonly now: string;
}

/**
 * A control-plane node also gets its static pods and makes sure the cluster's kubeadm-config exists
 * (with the ClusterConfiguration of `kubeadm init` data; a join finds it there already).
 */
export interface ControlPlanePlan {
  readonly clusterConfiguration?: Readonly<Record<string, unknown>> | undefined;
}

export type NodePlan =
  | { readonly join: true; readonly node: Node; readonly controlPlane?: ControlPlanePlan }
  | { readonly join: false; readonly reason: string };

function identity(host: Readonly<BareMetalHost>): HostIdentity {
  return { namespace: host.metadata.namespace ?? '', name: host.metadata.name ?? '', uid: host.metadata.uid ?? '' };
}

/**
 * The Node the kubelet would register, or why it would not start (bad meta_data, an invalid node
 * name, a `--node-labels` entry the kubelet rejects). Throws nothing.
 */
export function plannedNode(inputs: NodeInputs): NodePlan {
  const { host, now } = inputs;
  const id = identity(host);
  let fromSecret;
  try {
    fromSecret = parseMetaDataSecret(inputs.metaData ?? '');
  } catch (error) {
    return { join: false, reason: (error as Error).message };
  }
  const rendered = renderJinja(inputs.userData ?? '', hostMetaData(id, fromSecret));
  const kubeadm = kubeletJoinFromUserData(rendered);
  const nodeName = (kubeadm.nodeName ?? cloudInitHostname(id, fromSecret)).trim().toLowerCase();
  if (!isValidNodeName(nodeName)) return { join: false, reason: `node name ${JSON.stringify(nodeName)} is not a valid DNS subdomain` };
  let extraLabels: Record<string, string>;
  try {
    extraLabels = parseNodeLabels(kubeadm.nodeLabels);
  } catch (error) {
    if (error instanceof NodeLabelError) return { join: false, reason: `kubelet refuses to start: ${error.message}` };
    throw error;
  }

  const arch = kubeArch(host.spec?.architecture || host.status?.hardware?.cpu?.arch);
  const labels: Record<string, string> = {
    'beta.kubernetes.io/arch': arch,
    'beta.kubernetes.io/os': 'linux',
    'kubernetes.io/arch': arch,
    'kubernetes.io/hostname': nodeName,
    'kubernetes.io/os': 'linux',
    ...extraLabels,
  };
  const taints: Taint[] = [...(kubeadm.taints ?? (kubeadm.controlPlane ? [{ key: CONTROL_PLANE_ROLE, effect: 'NoSchedule' as const }] : []))];
  if (kubeadm.controlPlane) {
    labels[CONTROL_PLANE_ROLE] = '';
    labels['node.kubernetes.io/exclude-from-external-load-balancers'] = '';
  }
  const providerID = providerIdFor(inputs.mode, id, inputs.consumer, kubeadm.providerId);
  const cpus = String(host.status?.hardware?.cpu?.count || 1);
  const memory = `${(host.status?.hardware?.ramMebibytes || 1024) * 1024}Ki`;
  const resources = { cpu: cpus, memory, pods: '110', 'ephemeral-storage': '100Gi' };
  const machineId = id.uid.replace(/-/g, '').toLowerCase();

  const node: Node = {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: nodeName,
      labels,
      annotations: {
        [NODE_HOST_ANNOTATION]: `${id.namespace}/${id.name}`,
        [NODE_HOST_UID_ANNOTATION]: id.uid,
        'node.alpha.kubernetes.io/ttl': '0',
        'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
      },
    },
    spec: {
      ...(providerID ? { providerID } : {}),
      ...(taints.length > 0 ? { taints } : {}),
    },
    status: {
      addresses: nodeAddresses(host, nodeName),
      capacity: resources,
      allocatable: resources,
      conditions: kubeletConditions(now),
      nodeInfo: {
        machineID: machineId,
        systemUUID: id.uid.toUpperCase(),
        bootID: machineId,
        kernelVersion: '6.8.0-metal3-sim',
        osImage: 'metal3-ts simulated node',
        containerRuntimeVersion: 'containerd://1.7.0',
        kubeletVersion: inputs.kubeletVersion || 'v1.31.0',
        operatingSystem: 'linux',
        architecture: arch,
      },
    },
  };
  const controlPlane: ControlPlanePlan | undefined = kubeadm.controlPlane ? { clusterConfiguration: kubeadm.clusterConfiguration } : undefined;
  return { join: true, node, ...(controlPlane ? { controlPlane } : {}) };
}
