// The objects a KubeadmControlPlane creates for one control-plane Machine (CAPI's
// cloneConfigsAndGenerateMachine), with no I/O: the labels, the KubeadmConfig built from
// `spec.kubeadmConfigSpec` (init configuration for the first Machine, join configuration with a
// controlPlane section for the others), and the Machine itself. The infrastructure machine is cloned
// from `spec.machineTemplate.infrastructureRef` by the caller (machineset-clone.ts) with the same
// labels and the KCP as on-create owner.
import type { OwnerReference } from '@metal3-ts/generated';
import { type KubeadmConfig, type KubeadmConfigSpec, newKubeadmConfig } from '@metal3-ts/generated/bootstrap.cluster.x-k8s.io/v1beta1';
import { type Machine, newMachine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type { KubeadmControlPlane } from '@metal3-ts/generated/controlplane.cluster.x-k8s.io/v1beta1';
import type { ObjectReference } from '@metal3-ts/generated';
import { clusterConfigurationJson } from './controlplane-plan.ts';
import {
  CLUSTER_NAME_LABEL,
  CONTROL_PLANE_LABEL,
  CONTROL_PLANE_NAME_LABEL,
  KUBEADM_CLUSTER_CONFIGURATION_ANNOTATION,
  MACHINE_FINALIZER,
} from './machineset-constants.ts';
import { controllerRef, labelValueFor, plainOwnerRef } from './machineset-machine.ts';

/** Labels of every control-plane Machine (and its KubeadmConfig and infrastructure machine). */
export function controlPlaneLabels(kcp: Readonly<KubeadmControlPlane>, clusterName: string): Record<string, string> {
  return {
    ...kcp.spec?.machineTemplate.metadata?.labels,
    [CLUSTER_NAME_LABEL]: clusterName,
    [CONTROL_PLANE_LABEL]: '',
    [CONTROL_PLANE_NAME_LABEL]: labelValueFor(kcp.metadata.name ?? ''),
  };
}

export function controlPlaneAnnotations(kcp: Readonly<KubeadmControlPlane>): Record<string, string> {
  return { ...kcp.spec?.machineTemplate.metadata?.annotations };
}

/** The KCP as the on-create owner of a Machine's infrastructure machine and KubeadmConfig. */
export function controlPlaneOwner(kcp: Readonly<KubeadmControlPlane>): OwnerReference {
  return plainOwnerRef(kcp);
}

/** The bootstrap spec of one Machine: init for the first, join (as control plane) for the rest. */
export function bootstrapSpecFor(kcp: Readonly<KubeadmControlPlane>, init: boolean): KubeadmConfigSpec {
  const spec = structuredClone(kcp.spec?.kubeadmConfigSpec ?? {}) as KubeadmConfigSpec;
  if (init) {
    delete spec.joinConfiguration;
    return spec;
  }
  delete spec.initConfiguration;
  delete spec.clusterConfiguration;
  spec.joinConfiguration = { ...spec.joinConfiguration, controlPlane: { ...spec.joinConfiguration?.controlPlane } };
  return spec;
}

export function kubeadmConfigFor(kcp: Readonly<KubeadmControlPlane>, name: string, clusterName: string, init: boolean): KubeadmConfig {
  const annotations = controlPlaneAnnotations(kcp);
  return newKubeadmConfig({
    metadata: {
      name,
      namespace: kcp.metadata.namespace ?? '',
      labels: controlPlaneLabels(kcp, clusterName),
      ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
      ownerReferences: [controlPlaneOwner(kcp)],
    },
    spec: bootstrapSpecFor(kcp, init),
  });
}

export function controlPlaneMachine(
  kcp: Readonly<KubeadmControlPlane>,
  name: string,
  clusterName: string,
  refs: { infrastructureRef: ObjectReference; bootstrapConfigRef: ObjectReference; failureDomain?: string | undefined },
): Machine {
  const template = kcp.spec?.machineTemplate;
  return newMachine({
    metadata: {
      name,
      namespace: kcp.metadata.namespace ?? '',
      labels: controlPlaneLabels(kcp, clusterName),
      annotations: { ...controlPlaneAnnotations(kcp), [KUBEADM_CLUSTER_CONFIGURATION_ANNOTATION]: clusterConfigurationJson(kcp) },
      ownerReferences: [controllerRef(kcp)],
      finalizers: [MACHINE_FINALIZER],
    },
    spec: {
      clusterName,
      version: kcp.spec?.version ?? '',
      infrastructureRef: refs.infrastructureRef,
      bootstrap: { configRef: refs.bootstrapConfigRef },
      ...(refs.failureDomain ? { failureDomain: refs.failureDomain } : {}),
      ...(template?.nodeDrainTimeout ? { nodeDrainTimeout: template.nodeDrainTimeout } : {}),
      ...(template?.nodeDeletionTimeout ? { nodeDeletionTimeout: template.nodeDeletionTimeout } : {}),
      ...(template?.nodeVolumeDetachTimeout ? { nodeVolumeDetachTimeout: template.nodeVolumeDetachTimeout } : {}),
      ...(template?.readinessGates ? { readinessGates: structuredClone(template.readinessGates) } : {}),
    },
  });
}
