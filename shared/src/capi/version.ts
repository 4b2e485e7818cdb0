// Which version of Cluster API's own kinds (group cluster.x-k8s.io) the controllers read, chosen once
// at start-up from discovery (research S-10, CT-29): v1beta2 wherever it is served (Cluster API
// v1.11 and later; the only version from v1.16), v1beta1 where it is the only one (v1.10). Reading
// v1beta2 where it is served also spares every list and watch Cluster API's conversion webhook.
// read.ts points the informers at the chosen version.
import { ApiError, type Transport } from '@metal3-ts/generated';
import type { Clock } from '../clock/clock.ts';
import { CLUSTER_API_GROUP } from '../meta/cluster-api-names.ts';

export type ClusterApiVersion = 'v1beta1' | 'v1beta2';

/** Pure: the version to read among those served; undefined when neither is. */
export function chooseClusterApiVersion(served: readonly string[]): ClusterApiVersion | undefined {
  if (served.includes('v1beta2')) return 'v1beta2';
  if (served.includes('v1beta1')) return 'v1beta1';
  return undefined;
}

/** Cluster API is not installed (or serves no version we read) after the start-up's attempts. */
export class ClusterApiNotServedError extends Error {
  override readonly name = 'ClusterApiNotServedError';
}

export interface DiscoveryOptions {
  readonly clock: Clock;
  /** Attempts before giving up, `intervalMs` apart (default 6 × 5 s: a core being installed alongside). */
  readonly attempts?: number;
  readonly intervalMs?: number;
}

interface ApiGroup {
  readonly versions?: readonly { readonly version?: string }[];
}

/** The served versions of the group; [] when the group is not served at all (404). */
async function servedVersions(transport: Transport): Promise<string[]> {
  try {
    const group = await transport.request<ApiGroup>({ method: 'GET', path: `/apis/${CLUSTER_API_GROUP}`, verb: 'get', resource: 'discovery' });
    return (group.versions ?? []).flatMap((v) => (v.version ? [v.version] : []));
  } catch (error) {
    if (error instanceof ApiError && error.code === 404) return [];
    throw error;
  }
}

/**
 * Asks the apiserver which versions of cluster.x-k8s.io it serves and picks one. A group not served
 * yet is asked again; after the last attempt the error says what to install, so the process exits
 * with a reason instead of watching a version that will never appear.
 */
export async function discoverClusterApiVersion(transport: Transport, options: DiscoveryOptions): Promise<ClusterApiVersion> {
  const { clock, attempts = 6, intervalMs = 5_000 } = options;
  let served: string[] = [];
  for (let attempt = 1; attempt <= attempts; attempt++) {
    served = await servedVersions(transport);
    const version = chooseClusterApiVersion(served);
    if (version) return version;
    if (attempt < attempts) await clock.sleep(intervalMs);
  }
  throw new ClusterApiNotServedError(
    `the apiserver serves ${
      served.length ? `only ${served.join(', ')} of` : 'no version of'
    } ${CLUSTER_API_GROUP} (want v1beta2 or v1beta1): install Cluster API's core provider first`,
  );
}
