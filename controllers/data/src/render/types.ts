// Inputs and outputs of the Metal3Data renderer (research §5.3 – §5.5).
// The controller fetches everything first; rendering itself does no I/O.

import type { Machine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type { Metal3Data, Metal3DataTemplate, Metal3Machine, Metal3MachineSpec } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { BareMetalHost, BareMetalHostSpec, BareMetalHostStatusHardware } from '@metal3-ts/generated/metal3.io/v1alpha1';

/** API group of Metal3 IPAM pools; the default for a pool reference without a group (DR-20). */
export const METAL3_IPAM_GROUP = 'ipam.metal3.io';
/** Kind of Metal3 IPAM pools; the default for a pool reference without a kind (DR-20). */
export const METAL3_IPAM_POOL_KIND = 'IPPool';

/** A pool reference as written in a template: group and kind may be empty. */
export interface PoolRefInput {
  name: string;
  apiGroup?: string;
  kind?: string;
}

/** A pool reference after defaulting (DR-20): group and kind are always set. */
export interface PoolRef {
  name: string;
  apiGroup: string;
  kind: string;
}

/** What an IP claim against a pool yielded (D-19). */
export interface PoolAllocation {
  address: string;
  /** Prefix length of the allocated address. */
  prefix: number;
  /** Empty or absent when the pool has no gateway. */
  gateway?: string;
  /** Always empty for CAPI IPAddressClaims (they carry no DNS). */
  dnsServers?: readonly string[];
}

/**
 * Looks up the allocation for a pool. Upstream keys allocations by pool name
 * only (DR-20), so implementations may ignore group and kind.
 */
export type PoolLookup = (poolRef: PoolRef) => PoolAllocation | undefined;

/**
 * What rendering and the association read of the Metal3Machine, Machine and host: their metadata
 * (names, labels, annotations, owners), the template the Metal3Machine names, the host's boot MAC and
 * NICs. The data controller caches exactly this of each (projections.ts), the full objects are wider.
 */
type Identity<T extends { apiVersion: string; kind: string; metadata: unknown }> = Pick<T, 'apiVersion' | 'kind' | 'metadata'>;
export type RelatedMetal3Machine = Identity<Metal3Machine> & { spec?: Pick<Metal3MachineSpec, 'dataTemplate'> };
export type RelatedMachine = Identity<Machine>;
export type RelatedHost = Identity<BareMetalHost> & {
  spec?: Pick<BareMetalHostSpec, 'bootMACAddress'>;
  status?: { hardware?: Pick<BareMetalHostStatusHardware, 'nics'> };
};

/** The objects whose names, labels, annotations and NICs the template may read. */
export interface RelatedObjects {
  metal3Machine: RelatedMetal3Machine;
  machine: RelatedMachine;
  host: RelatedHost;
}

/** Everything rendering needs, already fetched by the controller. */
export interface RenderContext extends RelatedObjects {
  /** Supplies namespace (DR-9) and `spec.index` (DR-8). */
  data: Metal3Data;
  /** Informative only: the spec to render is passed separately. */
  template?: Metal3DataTemplate;
  allocationFor: PoolLookup;
  /**
   * Value of the `providerid` metadata key. Defaults to upstream's
   * `<metal3machine namespace>/<host name>/<metal3machine name>` (DR-12).
   */
  providerID?: string;
}

/** Why rendering failed; stable identifiers for callers and tests. */
export type RenderErrorCode =
  | 'NotRequested'
  | 'NicsNotPopulated'
  | 'NicNotFound'
  | 'NoBootMac'
  | 'PoolNotFound'
  | 'UnknownObjectType'
  | 'AnnotationMissing'
  | 'NoMacAddress'
  | 'BadMacAddress'
  | 'IllegalBondParameters'
  | 'PoolTypeConflict'
  | 'BadPrefix';

/**
 * A template that cannot be rendered for this machine. `message` keeps
 * upstream's wording (users see it in status.errorMessage); `field` names the
 * template field at fault, e.g. `spec.networkData.links.ethernets[0].macAddress`.
 */
export class RenderError extends Error {
  override readonly name = 'RenderError';
  readonly field: string;
  readonly code: RenderErrorCode;

  constructor(code: RenderErrorCode, field: string, message: string) {
    super(message);
    this.code = code;
    this.field = field;
  }
}
