// The Cluster API v1beta1 names (labels, annotations, finalizers) that MachineSets,
// MachineDeployments and KubeadmControlPlanes write or read. Values are CAPI's exact strings: other
// components (CAPM3's node reuse, label sync, the Machine controller) match on them. Names the Cluster
// and Machine simulators share come from contract.ts. The Machine finalizer is put on Machines at
// creation by their MachineSet or control plane; the Machine controller removes it.

export { CLUSTER_NAME_LABEL, CONTROL_PLANE_LABEL, MACHINE_DEPLOYMENT_NAME_LABEL, MACHINE_FINALIZER, MACHINE_SET_NAME_LABEL } from './contract.ts';
/** The template revision a MachineSet (and its Machines) was made from, within its MachineDeployment. */
export const MACHINE_TEMPLATE_HASH_LABEL = 'machine-template-hash';
export const CONTROL_PLANE_NAME_LABEL = 'cluster.x-k8s.io/control-plane-name';

export const CLONED_FROM_NAME_ANNOTATION = 'cluster.x-k8s.io/cloned-from-name';
export const CLONED_FROM_GROUPKIND_ANNOTATION = 'cluster.x-k8s.io/cloned-from-groupkind';
/** A Machine carrying it is deleted first when its MachineSet scales down. */
export const DELETE_MACHINE_ANNOTATION = 'cluster.x-k8s.io/delete-machine';
export const REVISION_ANNOTATION = 'machinedeployment.clusters.x-k8s.io/revision';
export const DESIRED_REPLICAS_ANNOTATION = 'machinedeployment.clusters.x-k8s.io/desired-replicas';
export const MAX_REPLICAS_ANNOTATION = 'machinedeployment.clusters.x-k8s.io/max-replicas';
/** JSON of the KCP's clusterConfiguration a control-plane Machine was made with (rollout detection). */
export const KUBEADM_CLUSTER_CONFIGURATION_ANNOTATION = 'controlplane.cluster.x-k8s.io/kubeadm-cluster-configuration';

export const MACHINE_SET_FINALIZER = 'cluster.x-k8s.io/machineset';
export const MACHINE_DEPLOYMENT_FINALIZER = 'cluster.x-k8s.io/machinedeployment';
export const KUBEADM_CONTROL_PLANE_FINALIZER = 'kubeadm.controlplane.cluster.x-k8s.io';
