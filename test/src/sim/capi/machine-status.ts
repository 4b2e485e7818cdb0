// The Machine controller's decisions, as pure functions over in-memory copies (CAPI v1beta1
// `machine_controller*.go`, v1.10): what a Machine takes from its bootstrap config, its
// infrastructure machine and its Node; its phase; whether it adopts itself to its Cluster; and the
// order in which a deleted Machine takes its objects down.
import type { Cluster, Machine, MachineStatus } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type { Node } from '@metal3-ts/generated/core/v1';
import { markFalse, markTrue, markUnknown } from '@metal3-ts/shared/conditions/set';
import { setReadySummary } from '@metal3-ts/shared/conditions/summary';
import { getControllerOf, hasOwner } from '@metal3-ts/shared/meta/owner-references';
import {
  addressesOf,
  CAPI_GROUP,
  CapiCondition,
  CapiReason,
  type ContractObject,
  ContractViolationError,
  dataSecretNameOf,
  failureDomainOf,
  failuresFrom,
  gvkString,
  isControlPlaneMachine,
  isReady,
  MACHINE_DEPLOYMENT_NAME_LABEL,
  MACHINE_SET_NAME_LABEL,
  mirrorReadyCondition,
  providerIdOf,
} from './contract.ts';

export type MachinePhase = NonNullable<MachineStatus['phase']>;

/** What a phase of the reconcile found: all done, waiting for a provider, or the object is not there. */
export type PhaseOutcome = 'done' | 'waiting' | 'missing';

/** The infrastructure machine disappeared after it was ready: CAPI fails the Machine for good. */
export class InfrastructureGoneError extends Error {
  override name = 'InfrastructureGoneError';
}

/** The Node the Machine had found is gone. CAPI retries (with backoff) and marks NodeHealthy False. */
export class NodeGoneError extends Error {
  override name = 'NodeGoneError';
}

const deleting = (m: Readonly<Machine>): boolean => m.metadata.deletionTimestamp !== undefined;

/** CAPI's reconcilePhase: later rules win; with no rule matching the phase is kept. */
export function machinePhase(machine: Readonly<Machine>): MachinePhase {
  const status = machine.status ?? {};
  let phase: MachinePhase = status.phase ?? 'Pending';
  if (status.bootstrapReady && !status.infrastructureReady) phase = 'Provisioning';
  if (machine.spec?.providerID) phase = 'Provisioned';
  if (status.nodeRef && status.infrastructureReady) phase = 'Running';
  if (status.failureReason || status.failureMessage) phase = 'Failed';
  if (deleting(machine)) phase = 'Deleting';
  return phase;
}

/** Terminal failures of a referenced object surface on the Machine, as CAPI words them. */
function surfaceFailures(machine: Machine, obj: Readonly<ContractObject>): void {
  const { reason, message } = failuresFrom(obj);
  const status = (machine.status ??= {});
  if (reason) status.failureReason = reason;
  if (message) status.failureMessage = `Failure detected from referenced resource ${gvkString(obj)} with name "${obj.metadata.name}": ${message}`;
}

/**
 * reconcileBootstrap. `config` is undefined when the Machine has no configRef (nothing happens then:
 * CAPI v1.10 leaves bootstrapReady alone for Machines that bring their own data secret), 'missing'
 * when the referenced config does not exist.
 *
 * @throws ContractViolationError when the config is ready without a `status.dataSecretName`.
 */
export function applyBootstrap(machine: Machine, config: Readonly<ContractObject> | 'missing' | undefined): PhaseOutcome {
  if (config === undefined) return 'done';
  if (config === 'missing') return deleting(machine) ? 'done' : 'missing';
  surfaceFailures(machine, config);
  const status = (machine.status ??= {});
  if (machine.spec?.bootstrap.dataSecretName) {
    status.bootstrapReady = true;
    markTrue(machine, CapiCondition.BootstrapReady);
    return 'done';
  }
  const ready = isReady(config);
  mirrorReadyCondition(machine, CapiCondition.BootstrapReady, config, {
    ready,
    reason: deleting(machine) ? CapiReason.Deleting : CapiReason.WaitingForDataSecret,
  });
  if (config.metadata.deletionTimestamp) return 'done';
  if (!ready) return 'waiting';
  const secretName = dataSecretNameOf(config);
  if (!secretName) throw new ContractViolationError(`${config.kind} ${config.metadata.name} is ready but has no status.dataSecretName`);
  machine.spec!.bootstrap.dataSecretName = secretName;
  status.bootstrapReady = true;
  return 'done';
}

/**
 * reconcileInfrastructure: readiness (never taken back once reached), providerID, addresses and
 * failure domain from the infrastructure machine.
 *
 * @throws InfrastructureGoneError when it vanished after being ready (the Machine is Failed);
 * @throws ContractViolationError when it is ready without `spec.providerID`.
 */
export function applyInfrastructure(machine: Machine, infra: Readonly<ContractObject> | 'missing'): PhaseOutcome {
  const status = (machine.status ??= {});
  if (infra === 'missing') {
    if (deleting(machine)) return 'done';
    if (!status.infrastructureReady) return 'missing';
    const ref = machine.spec?.infrastructureRef;
    status.failureReason = 'InvalidConfiguration';
    status.failureMessage = `Machine infrastructure resource ${ref?.apiVersion}, Kind=${ref?.kind} with name "${ref?.name}" has been deleted after being ready`;
    throw new InfrastructureGoneError(`${ref?.kind} ${ref?.name} of Machine ${machine.metadata.name} has been deleted after being ready`);
  }
  surfaceFailures(machine, infra);
  const ready = isReady(infra);
  mirrorReadyCondition(machine, CapiCondition.InfrastructureReady, infra, {
    ready,
    reason: deleting(machine) ? CapiReason.Deleting : CapiReason.WaitingForInfrastructure,
  });
  if (infra.metadata.deletionTimestamp) return 'done';
  if (!ready && !status.infrastructureReady) return 'waiting';
  const providerID = providerIdOf(infra);
  if (!providerID) throw new ContractViolationError(`${infra.kind} ${infra.metadata.name} is ready but has no spec.providerID`);
  const addresses = addressesOf(infra);
  if (addresses) status.addresses = addresses;
  const spec = machine.spec!;
  const failureDomain = failureDomainOf(infra);
  if (failureDomain !== undefined) spec.failureDomain = failureDomain;
  spec.providerID = providerID;
  status.infrastructureReady = true;
  return 'done';
}

/** CAPI's summarizeNodeConditions: pressure conditions must be False and Ready True. */
export function summarizeNodeConditions(node: Readonly<Node>): { status: 'True' | 'False' | 'Unknown'; message: string } {
  const conditions = node.status?.conditions ?? [];
  let bad = 0;
  let unknown = 0;
  let message = '';
  for (const c of conditions) {
    const pressure = c.type === 'MemoryPressure' || c.type === 'DiskPressure' || c.type === 'PIDPressure';
    const healthy = pressure ? c.status === 'False' : c.type === 'Ready' ? c.status === 'True' : true;
    if (healthy) continue;
    message += `Node condition ${c.type} is ${c.status}. `;
    if (c.status === 'Unknown') unknown++;
    else bad++;
  }
  if (bad > 0) return { status: 'False', message };
  if (bad + unknown < conditions.length) return { status: 'True', message };
  return { status: 'Unknown', message };
}

/** What the workload cluster answered: the Node with the Machine's providerID, or none. */
export interface NodeLookup {
  readonly node: Readonly<Node> | undefined;
}

/**
 * reconcileNode: the nodeRef (set once), nodeInfo and the NodeHealthy condition. 'waiting' while
 * there is no providerID or no Node with it yet; `lookup` undefined means the workload cluster could
 * not be asked (no kubeconfig yet, not reachable).
 *
 * @throws NodeGoneError when the Node behind an existing nodeRef is gone.
 */
export function applyNode(machine: Machine, lookup: NodeLookup | undefined): PhaseOutcome {
  const status = (machine.status ??= {});
  if (!machine.spec?.providerID || lookup === undefined) {
    if (!machine.spec?.providerID) markFalse(machine, CapiCondition.NodeHealthy, CapiReason.WaitingForNodeRef, 'Info');
    return 'waiting';
  }
  const node = lookup.node;
  if (!node) {
    if (status.nodeRef) {
      markFalse(machine, CapiCondition.NodeHealthy, CapiReason.NodeNotFound, 'Error');
      throw new NodeGoneError(`no matching Node for Machine ${machine.metadata.name} in namespace ${machine.metadata.namespace}`);
    }
    markFalse(machine, CapiCondition.NodeHealthy, CapiReason.NodeProvisioning, 'Warning');
    return 'waiting';
  }
  status.nodeRef ??= { apiVersion: 'v1', kind: 'Node', name: node.metadata.name ?? '', ...(node.metadata.uid ? { uid: node.metadata.uid } : {}) };
  const info = node.status?.nodeInfo;
  if (info) status.nodeInfo = { ...info, kubeProxyVersion: info.kubeProxyVersion ?? '' };
  const health = summarizeNodeConditions(node);
  if (health.status === 'True') markTrue(machine, CapiCondition.NodeHealthy);
  else if (health.status === 'False') markFalse(machine, CapiCondition.NodeHealthy, CapiReason.NodeConditionsFailed, 'Warning', health.message);
  else markUnknown(machine, CapiCondition.NodeHealthy, CapiReason.NodeConditionsFailed, health.message);
  return 'done';
}

/** Whether a stand-alone Machine gets its Cluster as (non-controller) owner, as CAPI's shouldAdopt. */
export function shouldAdopt(machine: Readonly<Machine>): boolean {
  if (getControllerOf(machine) || hasOwner(machine, CAPI_GROUP, 'Cluster')) return false;
  const labels = machine.metadata.labels ?? {};
  return !hasOwner(machine, CAPI_GROUP, 'MachineSet') && !labels[MACHINE_SET_NAME_LABEL] && !labels[MACHINE_DEPLOYMENT_NAME_LABEL];
}

/** The status every reconcile ends with: phase (and lastUpdated when it moves), Ready, observedGeneration. */
export function finishMachineStatus(machine: Machine, now: string): void {
  const status = (machine.status ??= {});
  const phase = machinePhase(machine);
  if (phase !== status.phase) status.lastUpdated = now;
  status.phase = phase;
  setReadySummary(machine, [CapiCondition.InfrastructureReady, CapiCondition.BootstrapReady]);
  if (!deleting(machine) && machine.metadata.generation !== undefined) status.observedGeneration = machine.metadata.generation;
}

// ---- deletion ---------------------------------------------------------------------------------------

export const PRE_DRAIN_HOOK_PREFIX = 'pre-drain.delete.hook.machine.cluster.x-k8s.io';
export const PRE_TERMINATE_HOOK_PREFIX = 'pre-terminate.delete.hook.machine.cluster.x-k8s.io';

/**
 * CAPI's isDeleteNodeAllowed: why the Machine's Node must be left alone, or undefined when it may be
 * deleted. `controlPlane` is the Cluster's control-plane object (undefined: no ref, or gone);
 * `machines` are the Cluster's Machines.
 */
export function nodeDeletionBlocker(
  cluster: Readonly<Cluster> | undefined,
  machine: Readonly<Machine>,
  controlPlane: Readonly<ContractObject> | undefined,
  machines: readonly Readonly<Machine>[],
): string | undefined {
  if (!cluster || cluster.metadata.deletionTimestamp) return 'cluster is being deleted';
  if (!machine.status?.nodeRef) return 'noderef is nil';
  if (cluster.spec?.controlPlaneRef && controlPlane) {
    if (controlPlane.metadata.deletionTimestamp) return 'control plane is being deleted';
    if (controlPlane.status?.['externalManagedControlPlane'] === true) return undefined;
  }
  const activeControlPlane = machines.filter((m) => !m.metadata.deletionTimestamp && isControlPlaneMachine(m));
  return activeControlPlane.length === 0 ? 'no control plane members' : undefined;
}

export type MachineDeletionStep =
  | { readonly step: 'wait'; readonly for: string }
  | { readonly step: 'delete'; readonly object: Readonly<ContractObject>; readonly for: string }
  | { readonly step: 'delete-node'; readonly node: string }
  | { readonly step: 'done' };

const hasHook = (machine: Readonly<Machine>, prefix: string): boolean => Object.keys(machine.metadata.annotations ?? {}).some((key) => key.startsWith(prefix));

/**
 * reconcileDelete, one step per call: wait for pre-drain hooks (when the Node may be deleted) and
 * pre-terminate hooks; delete the infrastructure machine and wait until it is gone; then the
 * bootstrap config; then the Node (when allowed); then done. `infra`/`bootstrap` are undefined
 * once gone (or never referenced). Node draining and volume detachment are not simulated.
 */
export function nextMachineDeletionStep(
  machine: Readonly<Machine>,
  nodeDeletionAllowed: boolean,
  infra: Readonly<ContractObject> | undefined,
  bootstrap: Readonly<ContractObject> | undefined,
  nodeDeleted: boolean,
): MachineDeletionStep {
  if (nodeDeletionAllowed && hasHook(machine, PRE_DRAIN_HOOK_PREFIX)) return { step: 'wait', for: 'pre-drain hooks' };
  if (hasHook(machine, PRE_TERMINATE_HOOK_PREFIX)) return { step: 'wait', for: 'pre-terminate hooks' };
  for (const [what, obj] of [['infrastructure', infra], ['bootstrap', bootstrap]] as const) {
    if (!obj) continue;
    return obj.metadata.deletionTimestamp
      ? { step: 'wait', for: `${what} ${obj.metadata.name}` }
      : { step: 'delete', object: obj, for: `${what} ${obj.metadata.name}` };
  }
  if (nodeDeletionAllowed && !nodeDeleted && machine.status?.nodeRef?.name) return { step: 'delete-node', node: machine.status.nodeRef.name };
  return { step: 'done' };
}

/**
 * Whether a failed Node deletion may be given up on: `spec.nodeDeletionTimeout` (a Go duration,
 * 10 s when unset, as CAPI's defaulting webhook writes; `0s` means retry forever) has passed since
 * the Machine's deletionTimestamp.
 */
export function nodeDeletionTimedOut(machine: Readonly<Machine>, nowMs: number): boolean {
  const timeoutMs = parseDuration(machine.spec?.nodeDeletionTimeout ?? '10s');
  const since = Date.parse(machine.metadata.deletionTimestamp ?? '');
  if (timeoutMs === 0 || Number.isNaN(since)) return false;
  return nowMs >= since + timeoutMs;
}

const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** A Go duration string (`1h2m3.5s`, `250ms`, `0`) in milliseconds. */
export function parseDuration(text: string): number {
  if (text === '0') return 0;
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== text) throw new RangeError(`invalid duration ${JSON.stringify(text)}`);
  return parts.reduce((ms, p) => ms + Number(p[1]) * UNIT_MS[p[2]!]!, 0);
}
