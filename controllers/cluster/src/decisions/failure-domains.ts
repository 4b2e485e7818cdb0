// Failure domains (research C-7): Cluster API reads them from the infrastructure cluster's status,
// users write them in its spec; the controller copies spec to status when they differ.
import type { Metal3Cluster } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { deepEqual } from '@metal3-ts/shared/patch/diff';

/** Copies `spec.failureDomains` to `status.failureDomains` (removing it when the spec has none). */
export function copyFailureDomains(m3c: Metal3Cluster): void {
  const wanted = m3c.spec?.failureDomains;
  const current = m3c.status?.failureDomains;
  if (deepEqual(wanted ?? null, current ?? null)) return;
  const status = (m3c.status ??= {});
  if (wanted === undefined) delete status.failureDomains;
  else status.failureDomains = structuredClone(wanted);
}
