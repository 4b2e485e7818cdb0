// Every simulator at once: what the local lab and end-to-end tests run beside the real Cluster API
// managers and metal3-ts, for the parts nothing real can play here: the baremetal-operator (Ironic and
// BMCs behind it), the IP address manager and workload clusters with their kubelets. Each module's
// header says which part of the real component it covers and which it does not.
import type { Runnable } from '@metal3-ts/shared/manager/runnable';
import { type BmoOptions, bmoSimulator } from './bmo/index.ts';
import { ipamSimulator } from './ipam/index.ts';
import type { SimulatorDeps } from './simulator.ts';
import { workloadSimulator, type WorkloadSimulatorOptions } from './workload/index.ts';

export { type RunningSimulators, type SimulatorDeps, simulatorDeps, startSimulators } from './simulator.ts';
export { bmoSimulator, ipamSimulator, workloadSimulator };

export interface AllSimulatorsOptions {
  /** Starts and stops workload apiservers (the test environment). */
  readonly workload: WorkloadSimulatorOptions;
  readonly bmo?: BmoOptions;
}

/** The controllers of every simulator, sharing one set of informers. */
export function allSimulators(deps: SimulatorDeps, options: AllSimulatorsOptions): Runnable[] {
  return [...bmoSimulator(deps, options.bmo), ...ipamSimulator(deps), ...workloadSimulator(deps, options.workload)];
}
