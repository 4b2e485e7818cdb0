// What the end-to-end scenarios share: polling the lab until a condition holds (with the lab's
// progress and the controllers' warnings in the failure message), the workload cluster's Nodes, and
// small readers over the lab's objects; which Cluster API they run against.
import process from 'node:process';
import type { Client } from '@metal3-ts/generated';
import { type Node, SecretResource } from '@metal3-ts/generated/core/v1';
import { type Metal3Machine, Metal3MachineResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { type BareMetalHost, BareMetalHostResource } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { type Eventually, eventually as pollUntil, eventuallyWith } from '@metal3-ts/test/testing/eventually';
import { workloadNodes } from '@metal3-ts/test/testing/workload';
import { CAPI_VERSIONS } from '@metal3-ts/test/envtest/capi-binaries';
import { DEFAULT_CAPI, type Lab } from '../lab/lab.ts';
import { describe, isClusterRunning, type Snapshot, snapshot } from '../lab/progress.ts';
import { METAL3_VERSIONS, type Metal3Version, metal3VersionOf } from '../lab/manifests.ts';

export const CLUSTER = 'cluster';

/**
 * The Cluster API every scenario runs against: `CAPI_VERSION` (a release build-capi.sh knows), else
 * the lab's default, the newest release. CI runs the contract scenarios once per release (package.json).
 */
export const CAPI: string = capiFromEnv(process.env['CAPI_VERSION']);

export function capiFromEnv(value: string | undefined): string {
  if (!value) return DEFAULT_CAPI;
  if (!CAPI_VERSIONS.includes(value)) {
    throw new Error(`CAPI_VERSION must be one of ${CAPI_VERSIONS.join(', ')}, got "${value}"`);
  }
  return value;
}

/**
 * The version every scenario writes its manifests' Metal3 objects at: `METAL3_VERSION`, else as the
 * YAML is written (v1beta1, seed 003 unchanged). CI runs the scenarios with v1beta2 on the newest
 * Cluster API and with v1beta1 on the previous one (package.json), so each runs from both (issue 18).
 */
export const METAL3: Metal3Version = metal3FromEnv(process.env['METAL3_VERSION']);

/** What a suite's title names of the run: the Cluster API release and the Metal3 objects' version. */
export const RUN = `Cluster API ${CAPI}, Metal3 objects at ${METAL3}`;

export function metal3FromEnv(value: string | undefined): Metal3Version {
  if (!value) return 'v1beta1';
  const version = metal3VersionOf(value);
  if (!version) throw new Error(`METAL3_VERSION must be one of ${METAL3_VERSIONS.join(', ')}, got "${value}"`);
  return version;
}

/**
 * KubeadmControlPlane replicas of the seed 003 cluster the scenarios and chaos start from
 * (manifests/cluster.yaml); their labs get exactly as many control-plane hosts.
 */
export const CONTROL_PLANE_REPLICAS = 3;

/** Warnings and errors the controllers logged, for failure messages. */
export function controllerProblems(lab: Lab): string[] {
  return [...lab.controllers.values()].flatMap((c) =>
    c.lines().filter((l) => l.level === 'warn' || l.level === 'error').map((l) => `[${c.name}] ${l.msg} ${JSON.stringify(l)}`.slice(0, 400))
  );
}

/** Polls the lab's snapshot until `check` accepts it; a timeout shows the progress lines and controller warnings. */
export function labUntil(lab: Lab, what: string, check: (s: Snapshot) => boolean, timeoutMs = 120_000): Promise<Snapshot> {
  let last: Snapshot | undefined;
  return pollUntil(
    what,
    async () => {
      last = await snapshot(lab.client, lab.namespace);
      return check(last) ? last : undefined;
    },
    { timeoutMs, pollMs: 250, explain: () => [...(last ? describe(last) : []), ...controllerProblems(lab).slice(-20)] },
  );
}

export const running = (lab: Lab, timeoutMs?: number) => labUntil(lab, 'the cluster Running', (s) => isClusterRunning(s, CLUSTER), timeoutMs);

/** Polls `probe` until it returns something other than undefined (60 s unless told, every 200 ms: a lab is slow). */
export const eventually: Eventually = eventuallyWith({ timeoutMs: 60_000, pollMs: 200 });

/** The workload cluster's Nodes, through a ClusterCache as a controller would reach them. */
export const nodes = (client: Client, namespace: string): Promise<Node[]> => workloadNodes(client, { namespace, name: CLUSTER });

export async function metal3Machines(lab: Lab): Promise<Metal3Machine[]> {
  return (await lab.client.api(Metal3MachineResource, lab.namespace).list()).items;
}

export async function hosts(lab: Lab): Promise<BareMetalHost[]> {
  return (await lab.client.api(BareMetalHostResource, lab.namespace).list()).items;
}

/** Machine name → host name, from the hosts' consumerRefs (Metal3Machines are named like their Machines). */
export function hostsByMachine(s: Snapshot): Map<string, string> {
  const map = new Map<string, string>();
  for (const h of s.hosts) if (h.spec?.consumerRef?.name) map.set(h.spec.consumerRef.name, h.metadata.name ?? '');
  return map;
}

/** The hosts the Machines of one owner (a name prefix) run on. */
export function hostsOf(s: Snapshot, prefix: string): string[] {
  const byMachine = hostsByMachine(s);
  return s.machines
    .filter((m) => (m.metadata.name ?? '').startsWith(prefix) && !m.metadata.deletionTimestamp)
    .map((m) => byMachine.get(m.spec?.infrastructureRef.name ?? '') ?? '?')
    .sort();
}

export async function secretKeys(client: Client, namespace: string, name: string): Promise<string[] | undefined> {
  try {
    return Object.keys((await client.api(SecretResource, namespace).get(name)).data ?? {});
  } catch {
    return undefined;
  }
}

/** Seconds since `t0`, one decimal. */
export const seconds = (t0: number): string => ((performance.now() - t0) / 1000).toFixed(1);
