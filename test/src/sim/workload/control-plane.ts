// What `kubeadm init` / `kubeadm join --control-plane` leave in a workload cluster besides the Node,
// and what KubeadmControlPlane reads there before it calls the control plane initialized, healthy and
// ready to scale: the static pods' mirror Pods and the `kube-system/kubeadm-config` ConfigMap. Pure.
//
// Covered: one mirror Pod per control-plane component (`<component>-<nodeName>` in kube-system, as
// the kubelet names mirror pods), owned by the Node, labelled `component`/`tier: control-plane`,
// Running with every condition True (KCP's <Component>PodHealthy conditions want Running + Ready);
// `kubeadm-config` with the ClusterConfiguration of the init data (kubeadm uploads it; KCP marks the
// control plane Available once it exists, and later rewrites it on upgrades), kubernetesVersion set.
// Not covered: containers that run (so no etcd to answer KCP's membership checks, no logs, no exec or
// port-forward), kubelet-config, kube-proxy and CoreDNS (KCP skips those it does not find).
import type { ConfigMap, Node } from '@metal3-ts/generated/core/v1';
import type { ObjectMeta } from '@metal3-ts/generated/runtime/meta';
import { defineResource, type ResourceDescriptor } from '@metal3-ts/generated/runtime/resource';
import { stringify } from 'yaml';

/** The part of a core/v1 Pod the simulator writes (core Pods are not in the product's generated API). */
export interface Pod {
  apiVersion: 'v1';
  kind: 'Pod';
  metadata: ObjectMeta;
  spec?: Record<string, unknown>;
  status?: { phase?: string; conditions?: { type: string; status: string; lastTransitionTime?: string }[]; [key: string]: unknown };
}

export const PodResource: ResourceDescriptor<Pod> = defineResource<Pod>({
  group: '',
  version: 'v1',
  kind: 'Pod',
  listKind: 'PodList',
  plural: 'pods',
  singular: 'pod',
  namespaced: true,
  statusSubresource: true,
  scaleSubresource: false,
  categories: ['all'],
  shortNames: ['po'],
});

export const CONTROL_PLANE_COMPONENTS = ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'etcd'] as const;
export const KUBE_SYSTEM = 'kube-system';
export const KUBEADM_CONFIG = 'kubeadm-config';
const ETCD_IMAGE = 'registry.k8s.io/etcd:3.5.21-0';

/** Mirror pods are named by the kubelet `<pod name>-<node name>`; KCP looks them up by that name. */
export const mirrorPodName = (component: string, nodeName: string): string => `${component}-${nodeName}`;

export function mirrorPods(node: Readonly<Node>, version: string, now: string): Pod[] {
  const nodeName = node.metadata.name!;
  const ip = node.status?.addresses?.find((a) => a.type === 'InternalIP')?.address;
  return CONTROL_PLANE_COMPONENTS.map((component) => {
    const hash = `${component}-${node.metadata.uid ?? nodeName}`.replace(/[^a-z0-9]/g, '').slice(0, 32);
    const image = component === 'etcd' ? ETCD_IMAGE : `registry.k8s.io/${component}:${version}`;
    return {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: mirrorPodName(component, nodeName),
        namespace: KUBE_SYSTEM,
        labels: { component, tier: 'control-plane' },
        annotations: {
          'kubernetes.io/config.mirror': hash,
          'kubernetes.io/config.hash': hash,
          'kubernetes.io/config.source': 'file',
          'kubernetes.io/config.seen': now,
        },
        ...(node.metadata.uid ? { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: nodeName, uid: node.metadata.uid, controller: true }] } : {}),
      },
      spec: {
        nodeName,
        hostNetwork: true,
        priorityClassName: 'system-node-critical',
        containers: [{ name: component, image }],
        tolerations: [{ operator: 'Exists', effect: 'NoExecute' }],
      },
      status: {
        phase: 'Running',
        conditions: ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((type) => ({
          type,
          status: 'True',
          lastTransitionTime: now,
        })),
        ...(ip ? { hostIP: ip, podIP: ip } : {}),
        startTime: now,
        containerStatuses: [{ name: component, ready: true, started: true, restartCount: 0, image, imageID: '', state: { running: { startedAt: now } } }],
      },
    };
  });
}

/** `kube-system/kubeadm-config` as `kubeadm init` uploads it: the ClusterConfiguration, its version set. */
export function kubeadmConfigMap(clusterConfiguration: Readonly<Record<string, unknown>> | undefined, version: string): ConfigMap {
  const config = { apiVersion: 'kubeadm.k8s.io/v1beta4', kind: 'ClusterConfiguration', ...clusterConfiguration, kubernetesVersion: version };
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: KUBEADM_CONFIG, namespace: KUBE_SYSTEM },
    data: { ClusterConfiguration: stringify(config) },
  };
}
