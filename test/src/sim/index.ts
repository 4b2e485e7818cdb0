// Every simulator at once: what the local lab and end-to-end tests run around metal3-ts so that it
// meets a Cluster API core, a kubeadm bootstrap provider, a baremetal-operator, an IP address manager
// and workload clusters, each playing its part of the contract on the real test apiserver. Each
// module's header says which part of the real component it covers and which it does not.
import type { Runnable } from '@metal3-ts/shared/manager/runnable';
import { type BmoOptions, bmoSimulator } from './bmo/index.ts';
import { bootstrapSimulator } from './bootstrap/index.ts';
import { clusterSimulator } from './capi/cluster.ts';
import { controlPlaneSimulator } from './capi/controlplane.ts';
import { machineSimulator } from './capi/machine.ts';
import { machineDeploymentSimulator } from './capi/machinedeployment.ts';
import { machineSetSimulator } from './capi/machineset.ts';
import { ipamSimulator } from './ipam/index.ts';
import type { SimulatorDeps } from './simulator.ts';
import { workloadSimulator, type WorkloadSimulatorOptions } from './workload/index.ts';

export { type RunningSimulators, type SimulatorDeps, simulatorDeps, startSimulators } from './simulator.ts';
export {
  bmoSimulator,
  bootstrapSimulator,
  clusterSimulator,
  controlPlaneSimulator,
  ipamSimulator,
  machineDeploymentSimulator,
  machineSetSimulator,
  machineSimulator,
  workloadSimulator,
};

export interface AllSimulatorsOptions {
  /** Starts and stops workload apiservers (the test environment). */
  readonly workload: WorkloadSimulatorOptions;
  readonly bmo?: BmoOptions;
}

/** The controllers of every simulator, sharing one set of informers. */
export function allSimulators(deps: SimulatorDeps, options: AllSimulatorsOptions): Runnable[] {
  return [
    ...bmoSimulator(deps, options.bmo),
    ...clusterSimulator(deps),
    ...machineSimulator(deps),
    ...machineSetSimulator(deps),
    ...machineDeploymentSimulator(deps),
    ...controlPlaneSimulator(deps),
    ...bootstrapSimulator(deps),
    ...ipamSimulator(deps),
    ...workloadSimulator(deps, options.workload),
  ];
}
