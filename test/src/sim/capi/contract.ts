// The Cluster API v1beta1 provider contract as Cluster API core reads it (seeds 002 and 004): the
// names it uses, how a reference becomes a kind we can read, which fields of a provider object it
// looks at (`status.ready`, `spec.providerID`, `status.dataSecretName`, …) and how it takes ownership
// of the objects a Cluster or Machine points at. Shared by every CAPI core simulator (Cluster,
// Machine, MachineSet, MachineDeployment, KubeadmControlPlane). Pure functions only.
//
// Provider objects are read "unstructured": any registered kind may stand behind a reference, so the
// contract fields are picked out by path and checked for type, as CAPI's contract package does.
import {
  type Condition,
  type KubeObject,
  type ObjectReference,
  registry as generatedRegistry,
  type ResourceDescriptor,
  type ResourceRegistry,
} from '@metal3-ts/generated';
import { markFalse, markTrue, setCondition } from '@metal3-ts/shared/conditions/set';
import type { ConditionSeverity, ConditionStatus, V1Beta1ConditionHolder } from '@metal3-ts/shared/conditions/types';
import { apiGroupOf, setOwnerReference } from '@metal3-ts/shared/meta/owner-references';

export const CAPI_GROUP = 'cluster.x-k8s.io';
export const CLUSTER_NAME_LABEL = 'cluster.x-k8s.io/cluster-name';
/** Any value (even empty) marks a control-plane Machine. */
export const CONTROL_PLANE_LABEL = 'cluster.x-k8s.io/control-plane';
export const MACHINE_SET_NAME_LABEL = 'cluster.x-k8s.io/set-name';
export const MACHINE_DEPLOYMENT_NAME_LABEL = 'cluster.x-k8s.io/deployment-name';
export const CLUSTER_FINALIZER = 'cluster.cluster.x-k8s.io';
export const MACHINE_FINALIZER = 'machine.cluster.x-k8s.io';

/** v1beta1 condition types CAPI core sets on Clusters and Machines. */
export const CapiCondition = {
  Ready: 'Ready',
  InfrastructureReady: 'InfrastructureReady',
  BootstrapReady: 'BootstrapReady',
  ControlPlaneReady: 'ControlPlaneReady',
  ControlPlaneInitialized: 'ControlPlaneInitialized',
  NodeHealthy: 'NodeHealthy',
} as const;

/** v1beta1 condition reasons CAPI core uses (clusterv1.*Reason). */
export const CapiReason = {
  WaitingForInfrastructure: 'WaitingForInfrastructure',
  WaitingForDataSecret: 'WaitingForDataSecret',
  WaitingForControlPlane: 'WaitingForControlPlane',
  WaitingForControlPlaneProviderInitialized: 'WaitingForControlPlaneProviderInitialized',
  MissingNodeRef: 'MissingNodeRef',
  WaitingForNodeRef: 'WaitingForNodeRef',
  NodeProvisioning: 'NodeProvisioning',
  NodeNotFound: 'NodeNotFound',
  NodeConditionsFailed: 'NodeConditionsFailed',
  Deleting: 'Deleting',
  Deleted: 'Deleted',
  DeletionFailed: 'DeletionFailed',
} as const;

/** A provider object seen through the contract: spec and status are whatever the kind defines. */
export interface ContractObject extends KubeObject {
  spec?: { [key: string]: unknown };
  status?: { [key: string]: unknown };
}

/** A reference names no kind we can serve: a bad apiVersion/kind, or one the registry lacks. */
export class UnknownKindError extends Error {
  override name = 'UnknownKindError';
}

/** A reference lacks a field CAPI needs (apiVersion, kind or name). */
export class InvalidReferenceError extends Error {
  override name = 'InvalidReferenceError';
}

/**
 * A provider broke the contract (e.g. `status.ready` without `spec.providerID`). CAPI returns an
 * error and retries with backoff: the provider is expected to fix it.
 */
export class ContractViolationError extends Error {
  override name = 'ContractViolationError';
}

/** A reference complete enough to follow. */
export interface FullReference {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace: string;
}

/** The reference with the namespace filled in (CAPI refs live in the referrer's namespace). */
export function completeRef(ref: ObjectReference | undefined, namespace: string): FullReference {
  if (!ref?.apiVersion || !ref.kind || !ref.name) {
    throw new InvalidReferenceError(`reference ${JSON.stringify(ref ?? null)} needs apiVersion, kind and name`);
  }
  return { apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, namespace: ref.namespace || namespace };
}

/** The descriptor of the kind a reference points at, from the generated registry (or another). */
export function descriptorForRef(ref: Pick<ObjectReference, 'apiVersion' | 'kind'>, registry: ResourceRegistry = generatedRegistry): ResourceDescriptor {
  if (!ref.apiVersion || !ref.kind) throw new InvalidReferenceError(`reference needs apiVersion and kind, got ${JSON.stringify(ref)}`);
  const descriptor = registry.forObject({ apiVersion: ref.apiVersion, kind: ref.kind });
  if (!descriptor) throw new UnknownKindError(`no resource is registered for ${ref.apiVersion} ${ref.kind}`);
  if (!descriptor.namespaced) throw new UnknownKindError(`${ref.apiVersion} ${ref.kind} is cluster-scoped; CAPI references namespaced objects`);
  return descriptor;
}

/**
 * A version-free key for "this object": `group/Kind/namespace/name`. CAPI compares references by
 * group and kind, so a ref written at an older version still names the same object.
 */
export function referenceKey(ref: Pick<FullReference, 'apiVersion' | 'kind' | 'name' | 'namespace'>): string {
  return `${apiGroupOf(ref.apiVersion)}/${ref.kind}/${ref.namespace}/${ref.name}`;
}

/** The referenceKey of an object itself. */
export function objectKey(obj: Readonly<KubeObject>): string {
  return referenceKey({ apiVersion: obj.apiVersion, kind: obj.kind, name: obj.metadata.name ?? '', namespace: obj.metadata.namespace ?? '' });
}

/** The group/version/kind as Go prints a GroupVersionKind, for messages CAPI formats with it. */
export function gvkString(obj: Pick<KubeObject, 'apiVersion' | 'kind'>): string {
  return `${obj.apiVersion}, Kind=${obj.kind}`;
}

// ---- contract fields ------------------------------------------------------------------------------

function field(obj: Readonly<ContractObject>, part: 'spec' | 'status', name: string): unknown {
  return obj[part]?.[name];
}

function optionalString(obj: Readonly<ContractObject>, part: 'spec' | 'status', name: string): string | undefined {
  const value = field(obj, part, name);
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new ContractViolationError(`${obj.kind} ${obj.metadata.name}: ${part}.${name} must be a string`);
  return value;
}

/** `status.ready`: the provider finished its part (infrastructure, bootstrap data, control plane). */
export function isReady(obj: Readonly<ContractObject>): boolean {
  return field(obj, 'status', 'ready') === true;
}

/** `status.initialized` of a control plane: its API server answered for the first time. */
export function isInitialized(obj: Readonly<ContractObject>): boolean {
  return field(obj, 'status', 'initialized') === true;
}

/** `status.failureReason` / `status.failureMessage`: terminal failures the referrer surfaces. */
export function failuresFrom(obj: Readonly<ContractObject>): { reason?: string; message?: string } {
  const reason = optionalString(obj, 'status', 'failureReason');
  const message = optionalString(obj, 'status', 'failureMessage');
  return { ...(reason ? { reason } : {}), ...(message ? { message } : {}) };
}

/** `spec.providerID` of an infrastructure machine. */
export function providerIdOf(obj: Readonly<ContractObject>): string | undefined {
  return optionalString(obj, 'spec', 'providerID');
}

/** `spec.failureDomain` of an infrastructure machine. */
export function failureDomainOf(obj: Readonly<ContractObject>): string | undefined {
  return optionalString(obj, 'spec', 'failureDomain');
}

/** `status.dataSecretName` of a bootstrap config. */
export function dataSecretNameOf(obj: Readonly<ContractObject>): string | undefined {
  return optionalString(obj, 'status', 'dataSecretName');
}

export const MACHINE_ADDRESS_TYPES = ['Hostname', 'ExternalIP', 'InternalIP', 'ExternalDNS', 'InternalDNS'] as const;
export type MachineAddressType = (typeof MACHINE_ADDRESS_TYPES)[number];
export interface MachineAddress {
  type: MachineAddressType;
  address: string;
}

/** `status.addresses` of an infrastructure machine; undefined when the field is absent. */
export function addressesOf(obj: Readonly<ContractObject>): MachineAddress[] | undefined {
  const value = field(obj, 'status', 'addresses');
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw new ContractViolationError(`${obj.kind} ${obj.metadata.name}: status.addresses must be a list`);
  return value.map((entry: unknown) => {
    const { type, address } = (entry ?? {}) as { type?: unknown; address?: unknown };
    if (typeof address !== 'string' || !MACHINE_ADDRESS_TYPES.includes(type as MachineAddressType)) {
      throw new ContractViolationError(`${obj.kind} ${obj.metadata.name}: invalid address ${JSON.stringify(entry)}`);
    }
    return { type: type as MachineAddressType, address };
  });
}

export interface ApiEndpoint {
  host: string;
  port: number;
}

/** CAPI's APIEndpoint.IsValid: a host and a non-zero port. */
export function isValidEndpoint(endpoint: Partial<ApiEndpoint> | undefined): endpoint is ApiEndpoint {
  return typeof endpoint?.host === 'string' && endpoint.host !== '' && typeof endpoint.port === 'number' && endpoint.port !== 0;
}

/** `spec.controlPlaneEndpoint` of an infrastructure cluster or control plane, when valid. */
export function controlPlaneEndpointOf(obj: Readonly<ContractObject>): ApiEndpoint | undefined {
  const value = field(obj, 'spec', 'controlPlaneEndpoint') as Partial<ApiEndpoint> | undefined;
  return isValidEndpoint(value) ? { host: value.host, port: value.port } : undefined;
}

/** `status.failureDomains` of an infrastructure cluster; undefined when absent. */
export function failureDomainsOf(obj: Readonly<ContractObject>): Record<string, { controlPlane?: boolean; attributes?: Record<string, string> }> | undefined {
  const value = field(obj, 'status', 'failureDomains');
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new ContractViolationError(`${obj.kind} ${obj.metadata.name}: status.failureDomains must be a map`);
  }
  return structuredClone(value) as Record<string, { controlPlane?: boolean; attributes?: Record<string, string> }>;
}

/** The provider's own v1beta1 Ready condition, which CAPI mirrors. */
export function readyConditionOf(obj: Readonly<ContractObject>): Condition | undefined {
  const conditions = field(obj, 'status', 'conditions');
  if (!Array.isArray(conditions)) return undefined;
  return (conditions as Condition[]).find((c) => c?.type === 'Ready');
}

/**
 * CAPI's conditions.SetMirror with a fallback: `type` on `target` copies the provider's own Ready
 * condition when it has one; otherwise it is True when `fallback.ready`, else False with
 * `fallback.reason` and severity Info.
 */
export function mirrorReadyCondition(
  target: V1Beta1ConditionHolder,
  type: string,
  source: Readonly<ContractObject>,
  fallback: { ready: boolean; reason: string },
): void {
  const ready = readyConditionOf(source);
  if (ready) {
    const status: ConditionStatus = ready.status === 'True' || ready.status === 'False' ? ready.status : 'Unknown';
    setCondition(target, {
      type,
      status,
      ...(status === 'False' && ready.severity ? { severity: ready.severity as ConditionSeverity } : {}),
      ...(ready.reason ? { reason: ready.reason } : {}),
      ...(ready.message ? { message: ready.message } : {}),
    });
  } else if (fallback.ready) {
    markTrue(target, type);
  } else {
    markFalse(target, type, fallback.reason, 'Info');
  }
}

/** A Machine carrying the control-plane label (any value). */
export function isControlPlaneMachine(machine: Readonly<KubeObject>): boolean {
  return machine.metadata.labels?.[CONTROL_PLANE_LABEL] !== undefined;
}

// ---- ownership ------------------------------------------------------------------------------------

/** Owner-reference kinds a creator puts on an object before its Machine exists (removed on adoption). */
export interface OnCreateOwner {
  readonly group: string;
  readonly kind: string;
}

/**
 * Takes ownership of a referenced provider object, in memory, as CAPI core does: drops the owner
 * references its creator put there on creation (`onCreateOwners`: a MachineSet, the control plane),
 * makes `owner` the controller (blockOwnerDeletion too) and sets the cluster-name label.
 * Returns whether the object changed.
 *
 * @throws AlreadyOwnedError (from shared/meta) when another object is already its controller.
 */
export function takeOwnership(obj: KubeObject, owner: KubeObject, clusterName: string, onCreateOwners: readonly OnCreateOwner[] = []): boolean {
  let changed = false;
  const refs = obj.metadata.ownerReferences ?? [];
  const kept = refs.filter((ref) => !onCreateOwners.some((o) => o.kind === ref.kind && o.group === apiGroupOf(ref.apiVersion)));
  if (kept.length !== refs.length) {
    changed = true;
    if (kept.length === 0) delete obj.metadata.ownerReferences;
    else obj.metadata.ownerReferences = kept;
  }
  changed = setOwnerReference(obj, owner, { controller: true }) || changed;
  if (obj.metadata.labels?.[CLUSTER_NAME_LABEL] !== clusterName) {
    obj.metadata.labels = { ...obj.metadata.labels, [CLUSTER_NAME_LABEL]: clusterName };
    changed = true;
  }
  return changed;
}
