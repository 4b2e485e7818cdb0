// The I/O half of control-plane.ts: once a control-plane Node is registered, its kubelet starts the
// static pods (their mirror Pods appear, Running and Ready) and kubeadm makes sure `kubeadm-config`
// exists; when the Node goes, its mirror Pods go with it (the pod GC of a real controller-manager,
// which these apiservers do not run). Idempotent: existing objects are kept as they are.
import { type Client, isAlreadyExists, isNotFound } from '@metal3-ts/generated';
import { ConfigMapResource, type Node } from '@metal3-ts/generated/core/v1';
import type { Logger } from '@metal3-ts/shared/log/logger';
import { CONTROL_PLANE_COMPONENTS, KUBE_SYSTEM, kubeadmConfigMap, mirrorPodName, mirrorPods, PodResource } from './control-plane.ts';
import type { ControlPlanePlan } from './node.ts';

export async function startControlPlane(client: Client, node: Readonly<Node>, plan: ControlPlanePlan, version: string, log: Logger): Promise<void> {
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const pods = client.api(PodResource, KUBE_SYSTEM);
  for (const pod of mirrorPods(node, version, now)) {
    try {
      await pods.create(pod);
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
    }
    // Status is dropped on create; the kubelet reports it afterwards.
    await pods.mergePatchStatus(pod.metadata.name!, { status: pod.status ?? {} });
  }
  try {
    await client.api(ConfigMapResource, KUBE_SYSTEM).create(kubeadmConfigMap(plan.clusterConfiguration, version));
    log.info('kubeadm-config uploaded', { node: node.metadata.name });
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
  }
  log.info('static pods running', { node: node.metadata.name, pods: CONTROL_PLANE_COMPONENTS.length });
}

export async function removeMirrorPods(client: Client, nodeName: string): Promise<void> {
  const pods = client.api(PodResource, KUBE_SYSTEM);
  for (const component of CONTROL_PLANE_COMPONENTS) {
    try {
      // Grace 0, as the kubelet confirms a deletion: a bound Pod otherwise waits for that kubelet.
      await pods.delete(mirrorPodName(component, nodeName), { gracePeriodSeconds: 0 });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
}
