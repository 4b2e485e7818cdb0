// coordination.k8s.io/v1 Lease, for leader election. Hand-maintained: core types do not come from CRDs.
import type { ListMeta, ObjectMeta, Time } from '../runtime/meta.ts';
import { defineResource, factoryFor, guardFor, type ResourceDescriptor, type ResourceInit } from '../runtime/resource.ts';

export interface Lease {
  apiVersion: 'coordination.k8s.io/v1';
  kind: 'Lease';
  metadata: ObjectMeta;
  spec?: {
    holderIdentity?: string | null;
    leaseDurationSeconds?: number;
    /** MicroTime: RFC 3339 with microseconds. */
    acquireTime?: Time | null;
    renewTime?: Time | null;
    leaseTransitions?: number;
  };
}

export interface LeaseList {
  apiVersion: 'coordination.k8s.io/v1';
  kind: 'LeaseList';
  metadata: ListMeta;
  items: Lease[];
}

export const LeaseResource: ResourceDescriptor<Lease> = defineResource<Lease>({
  group: 'coordination.k8s.io',
  version: 'v1',
  kind: 'Lease',
  listKind: 'LeaseList',
  plural: 'leases',
  singular: 'lease',
  namespaced: true,
  statusSubresource: false,
  scaleSubresource: false,
  shortNames: [],
  categories: [],
});
export const newLease: (init: ResourceInit<Lease>) => Lease = factoryFor(LeaseResource);
export const isLease: (obj: unknown) => obj is Lease = guardFor(LeaseResource);

/** Every kind of coordination.k8s.io/v1 in this package. */
export const resources: readonly ResourceDescriptor[] = [LeaseResource];
