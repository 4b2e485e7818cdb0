// Which Metal3Remediations an event concerns. MHC names a remediation after its Machine, in the
// Machine's namespace (RS-1), and owns it by the Machine; a host leads there through its consumer
// Metal3Machine's owner Machine. Pure over the informers' stores.
import type { Machine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type { Metal3Machine, Metal3Remediation } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { BareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import type { Store as ObjectStore } from '@metal3-ts/shared/cache/types';
import { CLUSTER_API_GROUP } from '@metal3-ts/shared/meta/cluster-api-names';
import { getOwnerByKind } from '@metal3-ts/shared/meta/owner-references';
import type { Request } from '@metal3-ts/shared/reconcile/reconcile';

/** The remediation named after the Machine, if there is one. */
export const machineToRemediation = (remediations: ObjectStore<Metal3Remediation>) => (machine: Readonly<Machine>): Request[] => {
  const key = { namespace: machine.metadata.namespace!, name: machine.metadata.name! };
  return remediations.get(key) ? [key] : [];
};

/** The remediation of the Machine owning the host's consumer Metal3Machine. */
export const hostToRemediation =
  (metal3Machines: ObjectStore<Metal3Machine>, remediations: ObjectStore<Metal3Remediation>) => (host: Readonly<BareMetalHost>): Request[] => {
    const consumer = host.spec?.consumerRef;
    if (consumer?.kind !== 'Metal3Machine' || !consumer.name) return [];
    const namespace = consumer.namespace || host.metadata.namespace!;
    const m3m = metal3Machines.get({ namespace, name: consumer.name });
    const owner = m3m && getOwnerByKind(m3m, CLUSTER_API_GROUP, 'Machine');
    if (!owner) return [];
    const key = { namespace, name: owner.name };
    return remediations.get(key) ? [key] : [];
  };
