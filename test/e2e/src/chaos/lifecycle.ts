// One round of the chaos run's cluster lifecycle on the lab: bring-up of the seed 003 cluster (KCP 3
// replicas, md-0 3), an upgrade of both pools with node reuse (a new version and a new worker
// template, cleaning disabled, maxSurge 0: on exactly 3 control-plane and 3 worker hosts it can only
// succeed by reusing them), a scale down and up, and deletion down to
// nothing left. Each phase waits on the outcome, never on time, and returns what went wrong instead
// of throwing where the answer belongs in the report (hosts not reused, leftovers).
import { KubeadmControlPlaneResource } from '@metal3-ts/generated/controlplane.cluster.x-k8s.io/v1beta1';
import { ClusterResource, MachineDeploymentResource, MachineResource } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { SecretResource } from '@metal3-ts/generated/core/v1';
import {
  Metal3ClusterResource,
  Metal3DataClaimResource,
  Metal3DataResource,
  Metal3DataTemplateResource,
  Metal3MachineResource,
  Metal3MachineTemplateResource,
  newMetal3MachineTemplate,
} from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { IPAddressResource, IPClaimResource, IPPoolResource } from '@metal3-ts/generated/ipam.metal3.io/v1alpha1';
import type { Lab } from '../lab/lab.ts';
import { applyManifests, deleteManifests, type Manifest } from '../lab/manifests.ts';
import { isClusterRunning } from '../lab/progress.ts';
import { CLUSTER, CONTROL_PLANE_REPLICAS, eventually, hostsOf, labUntil } from '../scenarios/support.ts';
import { heldByIpam, leftovers } from './invariants.ts';
import { listWorld } from './sampler.ts';

const CONTROL_PLANE = 'm3cluster-controlplane';
const WORKERS = 'md-0';

export async function bringUp(lab: Lab, round: number, manifests: readonly Manifest[], timeoutMs: number): Promise<void> {
  // Round 0 starts from what startLab applied.
  if (round > 0) await applyManifests(lab.client, lab.namespace, manifests);
  await labUntil(lab, `round ${round}: the cluster Running`, (s) => isClusterRunning(s, CLUSTER), timeoutMs);
}

/**
 * Upgrades both pools to the next minor with node reuse (KCP rolls its 3 replicas with maxSurge 0,
 * which real KCP allows from 3 replicas; md-0 rolls once the control plane is at the new version, as
 * real Cluster API's MachineSet preflight checks hold a worker minor above the control plane's);
 * returns the pools whose Machines did not come back on their hosts.
 */
export async function upgradeWithReuse(lab: Lab, round: number, timeoutMs: number): Promise<string[]> {
  const { client, namespace } = lab;
  const before = await labUntil(lab, `round ${round}: Running before the upgrade`, (s) => isClusterRunning(s, CLUSTER), timeoutMs);
  const templates = client.api(Metal3MachineTemplateResource, namespace);
  for (const name of [CONTROL_PLANE, WORKERS]) {
    await templates.mergePatch(name, { spec: { nodeReuse: true, template: { spec: { automatedCleaningMode: 'disabled' } } } });
  }
  const workers = await templates.get(WORKERS);
  const next = `${WORKERS}-r${round}`;
  await templates.create(newMetal3MachineTemplate({ metadata: { name: next }, spec: structuredClone(workers.spec) }));
  const version = `v1.29.${round}`;
  await client.api(KubeadmControlPlaneResource, namespace).mergePatch(CONTROL_PLANE, {
    spec: { version, rolloutStrategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0 } } },
  });
  await client.api(MachineDeploymentResource, namespace).mergePatch(WORKERS, {
    spec: {
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } },
      template: { spec: { version, infrastructureRef: { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3MachineTemplate', name: next } } },
    },
  });
  const after = await labUntil(
    lab,
    `round ${round}: every Machine at ${version} and Running`,
    (s) => isClusterRunning(s, CLUSTER) && s.machines.length === CONTROL_PLANE_REPLICAS + 3 && s.machines.every((m) => m.spec?.version === version),
    timeoutMs,
  );
  const moved: string[] = [];
  for (const pool of [CONTROL_PLANE, WORKERS]) {
    const was = hostsOf(before, pool).join(',');
    const is = hostsOf(after, pool).join(',');
    if (was !== is) moved.push(`round ${round}: ${pool} moved from hosts ${was} to ${is} despite node reuse`);
  }
  return moved;
}

export async function scale(lab: Lab, round: number, timeoutMs: number): Promise<void> {
  const mds = lab.client.api(MachineDeploymentResource, lab.namespace);
  for (const replicas of [2, 3]) {
    await mds.mergePatch(WORKERS, { spec: { replicas } });
    await labUntil(lab, `round ${round}: ${WORKERS} at ${replicas}`, (s) => isClusterRunning(s, CLUSTER) && hostsOf(s, WORKERS).length === replicas, timeoutMs);
  }
}

/**
 * What a deleted cluster left behind, split by who must release it: `ours` (claimed hosts, Metal3
 * objects, finalizers, orphaned Secrets: metal3-ts's job) and `ipam` (claims, addresses and pools only
 * the IP address manager still holds, simulated in the lab).
 */
export async function remains(lab: Lab): Promise<{ ours: string[]; ipam: string[] }> {
  const { client, namespace } = lab;
  type Listed = {
    items: readonly {
      kind?: string;
      metadata: { name?: string; finalizers?: string[]; deletionTimestamp?: string; ownerReferences?: { kind: string; name: string }[] };
    }[];
  };
  const lists: Promise<Listed>[] = [
    client.api(Metal3ClusterResource, namespace).list(),
    client.api(Metal3MachineResource, namespace).list(),
    client.api(Metal3DataClaimResource, namespace).list(),
    client.api(Metal3DataResource, namespace).list(),
    client.api(Metal3DataTemplateResource, namespace).list(),
    client.api(IPClaimResource, namespace).list(),
    client.api(IPAddressResource, namespace).list(),
    // The pool belongs to the Cluster (collected with it) and waits for its addresses to be released.
    client.api(IPPoolResource, namespace).list(),
    client.api(MachineResource, namespace).list(),
  ];
  const [world, secrets, listed] = await Promise.all([listWorld(client, namespace), client.api(SecretResource, namespace).list(), Promise.all(lists)]);
  const objects = listed.flatMap((l) =>
    l.items.map((o) => ({
      kind: o.kind ?? '?',
      name: o.metadata.name ?? '?',
      finalizers: o.metadata.finalizers ?? [],
      deleting: !!o.metadata.deletionTimestamp,
      owners: (o.metadata.ownerReferences ?? []).map((r) => `${r.kind}/${r.name}`),
    }))
  );
  return {
    ours: leftovers({ world, secrets: secrets.items, objects: objects.filter((o) => !heldByIpam(o)) }),
    ipam: leftovers({ world: { ...world, hosts: [] }, secrets: [], objects: objects.filter(heldByIpam) }),
  };
}

/** Strips IPAM's finalizers from what it failed to release, so the next round starts clean. */
async function clearIpam(lab: Lab): Promise<void> {
  const { client, namespace } = lab;
  const strip = { metadata: { finalizers: null } };
  for (const c of (await client.api(IPClaimResource, namespace).list()).items) {
    await client.api(IPClaimResource, namespace).mergePatch(c.metadata.name ?? '', strip).catch(() => {});
  }
  for (const a of (await client.api(IPAddressResource, namespace).list()).items) {
    await client.api(IPAddressResource, namespace).mergePatch(a.metadata.name ?? '', strip).catch(() => {});
    await client.api(IPAddressResource, namespace).delete(a.metadata.name ?? '').catch(() => {});
  }
  for (const p of (await client.api(IPPoolResource, namespace).list()).items) {
    if (p.metadata.deletionTimestamp) await client.api(IPPoolResource, namespace).mergePatch(p.metadata.name ?? '', strip).catch(() => {});
  }
}

export interface TearDownOutcome {
  /** What metal3-ts left behind after `timeoutMs` (empty when clean). */
  readonly ours: string[];
  /** What only IPAM still held once ours was clean (then force-cleared for the next round). */
  readonly ipam: string[];
}

/**
 * Deletes the Cluster and waits for every host to be available and unclaimed and nothing of ours to
 * be left; gives IPAM a short grace to release its part. Then removes what the user created beside
 * the Cluster (templates, pool), so the next round starts from the manifests again.
 */
export async function tearDown(lab: Lab, round: number, manifests: readonly Manifest[], timeoutMs: number): Promise<TearDownOutcome> {
  const { client, namespace } = lab;
  await client.api(ClusterResource, namespace).delete(CLUSTER);
  await eventually(
    `round ${round}: the Cluster gone`,
    async () => ((await client.api(ClusterResource, namespace).list()).items.length === 0 ? true : undefined),
    timeoutMs,
  );
  let left: { ours: string[]; ipam: string[] } = { ours: [], ipam: [] };
  const tag = (xs: string[]) => xs.map((l) => `round ${round}: ${l}`);
  try {
    await eventually(`round ${round}: every host available, nothing of ours left`, async () => {
      left = await remains(lab);
      const hostsReady = (await listWorld(client, namespace)).hosts.every((h) => h.status?.provisioning?.state === 'available');
      return left.ours.length === 0 && hostsReady ? true : undefined;
    }, timeoutMs);
  } catch {
    return { ours: left.ours.length > 0 ? tag(left.ours) : [`round ${round}: hosts not all available after deletion`], ipam: tag(left.ipam) };
  }
  const ipam = await eventually(`round ${round}: IPAM released`, async () => ((left = await remains(lab)).ipam.length === 0 ? [] : undefined), 20_000).catch(
    () => tag(left.ipam),
  );
  if (ipam.length > 0) await clearIpam(lab);
  await client.api(Metal3MachineTemplateResource, namespace).delete(`${WORKERS}-r${round}`);
  await eventually(
    `round ${round}: the manifests' remaining objects deleted`,
    async () => ((await deleteManifests(client, namespace, manifests)) === 0 ? true : undefined),
    timeoutMs,
  );
  return { ours: [], ipam };
}
