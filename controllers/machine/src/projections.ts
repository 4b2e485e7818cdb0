// What the machine controller caches of the Machines and hosts it reads: the fields a reconcile reads
// and nothing else. A thousand of each at fleet scale: a Machine's status (node info, two generations
// of conditions, addresses) is most of it and a real host's hardware inventory is kilobytes, where the
// reconcile reads M-2's fields of one and the addresses of the other. Hosts keep everything the
// controller writes from (metadata, spec: patchHost sends the difference of those two) and all of
// their status but the hardware details the addresses do not need (the status annotation of M-14
// leaves `hardware` out anyway). In the all-in-one process the full informers serve instead.
import type { Machine, MachineSpec, MachineStatus } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type { BareMetalHost, BareMetalHostStatus, BareMetalHostStatusHardware, BareMetalHostStatusHardwareNics } from '@metal3-ts/generated/metal3.io/v1alpha1';
import type { Projection } from '@metal3-ts/shared/cache/types';

/** The Machine conditions a reconcile reads (M-20's BootstrapReady); the others are not cached. */
export const MACHINE_CONDITIONS_READ: readonly string[] = ['BootstrapReady'];

/**
 * M-2: a Machine's metadata (cluster name, owners, deletion), its bootstrap, cluster name, failure
 * domain, infrastructureRef and provider ID, its nodeRef and bootstrap readiness.
 */
export interface CachedMachine {
  readonly apiVersion: Machine['apiVersion'];
  readonly kind: Machine['kind'];
  readonly metadata: Machine['metadata'];
  readonly spec?: Pick<MachineSpec, 'bootstrap' | 'clusterName' | 'failureDomain' | 'infrastructureRef' | 'providerID'>;
  readonly status?: Pick<MachineStatus, 'bootstrapReady' | 'conditions' | 'nodeRef'>;
}

/** The addresses' source (host-addresses.ts): the hostname, and each NIC's name and IP. */
export type CachedHostHardware = Pick<BareMetalHostStatusHardware, 'hostname'> & { nics?: Pick<BareMetalHostStatusHardwareNics, 'ip' | 'name'>[] };

/** A host as the machine controller caches it: whole but for the hardware details. */
export interface CachedHost extends Omit<BareMetalHost, 'status'> {
  status?: Omit<BareMetalHostStatus, 'hardware'> & { hardware?: CachedHostHardware };
}

/** The fields that are set: an absent field stays absent, as the watch would have cached it. */
function defined<T extends object>(fields: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> };
}

export const machineProjection: Projection<Machine, CachedMachine> = {
  name: 'machine:m2-fields',
  project: ({ apiVersion, kind, metadata, spec, status }) => {
    const conditions = status?.conditions?.filter((c) => MACHINE_CONDITIONS_READ.includes(c.type));
    const cachedStatus = defined({ bootstrapReady: status?.bootstrapReady, conditions, nodeRef: status?.nodeRef });
    return {
      apiVersion,
      kind,
      metadata,
      ...(spec
        ? {
          spec: {
            ...defined({ failureDomain: spec.failureDomain, providerID: spec.providerID }),
            bootstrap: spec.bootstrap,
            clusterName: spec.clusterName,
            infrastructureRef: spec.infrastructureRef,
          },
        }
        : {}),
      ...(Object.keys(cachedStatus).length > 0 ? { status: cachedStatus } : {}),
    };
  },
};

export const hostProjection: Projection<BareMetalHost, CachedHost> = {
  name: 'machine:without-hardware-details',
  project: (host) => {
    const status = host.status;
    const hardware = status?.hardware;
    if (!status || !hardware) return host;
    const nics = hardware.nics?.map((nic) => defined({ ip: nic.ip, name: nic.name }));
    return { ...host, status: { ...status, hardware: defined({ hostname: hardware.hostname, nics }) } };
  },
};
