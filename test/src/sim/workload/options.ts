// What the workload-cluster simulator is given: where apiservers come from, and its knobs.
import type { EtcdMember, EtcdMemberOptions } from '../../envtest/etcd-member.ts';
import type { NodeNetwork } from '../../envtest/node-network.ts';
import type { ProviderIdMode } from './names.ts';

/** A started workload apiserver, as the simulator needs it. */
export interface WorkloadApiserver {
  /** Admin kubeconfig YAML with everything inline (no file references). */
  readonly kubeconfig: string;
  // The rest is what control-plane Nodes need for port-forward and etcd membership (node-runtime.ts);
  // an environment without it gets Nodes and mirror Pods only.
  /** https://127.0.0.1:<port> of the apiserver. */
  readonly server?: string;
  readonly nodeNetwork?: Pick<NodeNetwork, 'attach' | 'detach'>;
  readonly etcdMembers?: ReadonlyMap<string, Pick<EtcdMember, 'name' | 'clientUrl' | 'localUrl'>>;
  startEtcdMember?(options: Pick<EtcdMemberOptions, 'name' | 'tls' | 'join'>): Promise<unknown>;
  stopEtcdMember?(name: string): Promise<void>;
}

/** The part of the test environment (`TestEnv`) that starts and stops workload apiservers. */
export interface WorkloadClusterEnv {
  readonly workloadClusters: ReadonlyMap<string, WorkloadApiserver>;
  /** `onKubeconfig` gets the kubeconfig before the apiserver is ready (clients are held until it is). */
  startWorkloadCluster(name: string, options?: { onKubeconfig?: (kubeconfig: string) => Promise<void> }): Promise<WorkloadApiserver>;
  stopWorkloadCluster(name: string): Promise<void>;
}

export interface WorkloadSimulatorOptions {
  readonly env: WorkloadClusterEnv;
  /** How joining Nodes get a providerID (default `default`: left for CAPM3). Per Cluster: PROVIDER_ID_MODE_ANNOTATION. */
  readonly mode?: ProviderIdMode;
  /**
   * How often a provisioned host's kubelet retries while its cluster cannot be joined yet (no
   * Metal3Machine label, no kubeconfig Secret, apiserver starting, user data Secret missing).
   * Default 250 ms.
   */
  readonly retryAfterMs?: number;
  /**
   * Time from the host being seen provisioned to its Node registering (boot, cloud-init, kubeadm
   * join). Default 0 ("instant"); some tens of seconds is realistic.
   */
  readonly joinDelayMs?: number;
  /**
   * Serve only Clusters and hosts of this namespace (like a manager's `--namespace`): tests sharing
   * one environment must not start apiservers for each other's Clusters. Default: all namespaces.
   */
  readonly namespace?: string;
  /**
   * Stop the workload apiservers this simulator served when it stops (default true), so a test file
   * that leaves its Clusters behind does not leave ~250 MB apiservers running for the next one. Their
   * objects stay in etcd: a simulator started later brings them back.
   */
  readonly stopApiserversOnStop?: boolean;
}
