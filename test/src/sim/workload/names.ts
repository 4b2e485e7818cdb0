// The strings and names the workload-cluster simulator reads and writes: its annotations (a test's
// way to steer one Cluster), its finalizer, and the name of the workload apiserver of a Cluster.
import { createHash } from 'node:crypto';

const PREFIX = 'workload.sim.metal3-ts.dev';

/**
 * On a Cluster: how the simulated kubelet (and cloud provider) fill a Node's `spec.providerID`
 * (`default`, `cloud-provider` or `legacy`, see ProviderIdMode). Overrides the simulator option.
 */
export const PROVIDER_ID_MODE_ANNOTATION = `${PREFIX}/provider-id-mode`;

/**
 * On a Cluster, value `"true"`: start no workload apiserver and write no kubeconfig Secret for it
 * (the test brings its own). Hosts of that Cluster still join it if a kubeconfig Secret exists.
 */
export const SKIP_ANNOTATION = `${PREFIX}/skip`;

/** Keeps a Cluster until its kubeconfig Secret is deleted and its apiserver stopped, in that order. */
export const CLUSTER_FINALIZER = `${PREFIX}/apiserver`;

/** On a Node we registered: which BareMetalHost runs this "kubelet" (`<namespace>/<name>`, and its uid). */
export const NODE_HOST_ANNOTATION = `${PREFIX}/bare-metal-host`;
export const NODE_HOST_UID_ANNOTATION = `${PREFIX}/bare-metal-host-uid`;

/**
 * How a Node gets its providerID:
 * - `default`: the kubelet leaves it empty; CAPM3 finds the Node by its `metal3.io/uuid` label and
 *   writes `metal3://<namespace>/<host>/<metal3machine>` (research P-8, P-11);
 * - `cloud-provider`: an external cloud provider sets that same new-format ID itself (P-7);
 * - `legacy`: the kubelet was started with `--provider-id=metal3://<host uid>` (P-1).
 */
export type ProviderIdMode = 'default' | 'cloud-provider' | 'legacy';

export const PROVIDER_ID_MODES: readonly ProviderIdMode[] = ['default', 'cloud-provider', 'legacy'];

export function isProviderIdMode(value: string): value is ProviderIdMode {
  return (PROVIDER_ID_MODES as readonly string[]).includes(value);
}

const MAX_NAME = 40;

/** Lower-case letters, digits and '-', no leading or trailing '-', at most `max` characters. */
function dnsPart(text: string, max: number): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .slice(0, max)
    .replace(/^-+|-+$/g, '');
}

/**
 * The workload apiserver's name for a Cluster: a DNS label (the test environment requires one) built
 * from the namespace and name for humans, made unique by a hash of namespace, name and uid. The uid
 * is in the hash so a Cluster deleted and created again gets a fresh, empty apiserver rather than
 * the old one's objects (a stopped apiserver's data stays in etcd under its name).
 */
export function workloadClusterName(cluster: { namespace: string; name: string; uid?: string | undefined }): string {
  const hash = createHash('sha256').update(`${cluster.namespace}/${cluster.name}/${cluster.uid ?? ''}`).digest('hex').slice(0, 8);
  const readable = [dnsPart(cluster.namespace, 14), dnsPart(cluster.name, MAX_NAME - 14 - 8 - 2)].filter((p) => p !== '').join('-');
  return readable ? `${readable}-${hash}` : `wl-${hash}`;
}
