// The objects of a machine test scene as the tests write them: a Cluster and its Metal3Cluster (ready
// once the real Cluster API and, with one, the workload apiserver are ready for them), hosts the
// simulated BMO makes available, Machine + Metal3Machine pairs, and the Metal3Data a template
// controller would make. Plain writes of what a user or a neighbour writes; support.ts re-exports them.
import { readFileSync } from 'node:fs';
import type { Client } from '@metal3-ts/generated';
import { newSecret, SecretResource } from '@metal3-ts/generated/core/v1';
import { type Cluster, ClusterResource, type Machine, MachineResource, newCluster, newMachine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import {
  Metal3ClusterResource,
  type Metal3Data,
  type Metal3DataClaim,
  Metal3DataResource,
  type Metal3Machine,
  Metal3MachineResource,
  type Metal3MachineSpec,
  newMetal3Cluster,
  newMetal3Data,
  newMetal3Machine,
} from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { type BareMetalHost, BareMetalHostResource, type BareMetalHostSpec } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { workloadNodes as readWorkloadNodes } from '@metal3-ts/test/testing/workload';
import { simulatedHost } from '@metal3-ts/test/sim/bmo/index';
import { eventually } from './readers.ts';

/** A kubeadm join cloud-config whose kubelet labels the Node `metal3.io/uuid={{ ds.meta_data.uuid }}` (seed 000). */
export const JOIN_CLOUD_CONFIG = readFileSync(new URL('../../../test/src/sim/workload/testdata/capbk-join.yaml', import.meta.url), 'utf8');
/** How long a Cluster may take to be ready (support.ts's PROVISION_MS). */
const CLUSTER_READY_MS = 30_000;

export const CLUSTER = 'test1';
export const BOOTSTRAP_SECRET = 'bootstrap-data';
export const IMAGE = {
  url: 'http://172.22.0.1/images/node.img',
  checksum: 'http://172.22.0.1/images/node.img.sha256sum',
  checksumType: 'sha256' as const,
  format: 'raw' as const,
};

export interface ClusterSceneOptions {
  readonly name?: string;
  /** Metal3Cluster cloud-provider flags (default: no cloud provider, so the node-label path runs). */
  readonly cloudProvider?: boolean;
  readonly paused?: boolean;
  /**
   * The workload-cluster simulator runs: wait until the Cluster's workload apiserver answers before
   * the infrastructure is ready (below). Default false.
   */
  readonly workload?: boolean;
}

/**
 * A Cluster with its Metal3Cluster marked ready (the cluster controller's job, not under test here),
 * and the bootstrap data Secret machines name in `dataSecretName`; resolves once Cluster API reports
 * the infrastructure ready. The order matters with the real Cluster API: its ClusterCache first
 * connects once the infrastructure is provisioned and, when that try fails (a workload apiserver
 * still starting), tries again only 30 s later. So with a workload cluster the Metal3Cluster is made
 * ready only once its apiserver answers; a paused Cluster is not waited for (Cluster API leaves it).
 */
export async function createClusterScene(client: Client, namespace: string, options: ClusterSceneOptions = {}): Promise<Cluster> {
  const name = options.name ?? CLUSTER;
  const cloud = options.cloudProvider ?? false;
  await client.api(Metal3ClusterResource, namespace).create(
    newMetal3Cluster({
      metadata: { name, labels: { 'cluster.x-k8s.io/cluster-name': name } },
      spec: { controlPlaneEndpoint: { host: '192.168.111.249', port: 6443 }, cloudProviderEnabled: cloud, noCloudProvider: !cloud },
    }),
  );
  await client.api(SecretResource, namespace).create(
    newSecret({
      metadata: { name: BOOTSTRAP_SECRET, labels: { 'cluster.x-k8s.io/cluster-name': name } },
      type: 'cluster.x-k8s.io/secret',
      stringData: { value: JOIN_CLOUD_CONFIG, format: 'cloud-config' },
    }),
  ).catch((error: unknown) => {
    if ((error as { code?: number }).code !== 409) throw error;
  });
  const cluster = await client.api(ClusterResource, namespace).create(
    newCluster({
      metadata: { name },
      spec: { ...(options.paused ? { paused: true } : {}), infrastructureRef: { apiVersion: Metal3ClusterResource.apiVersion, kind: 'Metal3Cluster', name } },
    }),
  );
  if (options.workload) {
    await eventually(`the workload cluster of ${name} answering`, () => readWorkloadNodes(client, { namespace, name }), CLUSTER_READY_MS);
  }
  await client.api(Metal3ClusterResource, namespace).mergePatchStatus(name, { status: { ready: true } });
  if (options.paused) return cluster;
  await eventually(
    'the Cluster infrastructure ready',
    async () => ((await client.api(ClusterResource, namespace).get(name)).status?.infrastructureReady ? true : undefined),
    CLUSTER_READY_MS,
  );
  return cluster;
}

export interface HostOptions {
  readonly labels?: Record<string, string>;
  readonly annotations?: Record<string, string>;
  readonly spec?: Partial<BareMetalHostSpec>;
}

/** Hosts the simulated BMO registers, inspects and makes available, each with its BMC Secret. */
export async function createHosts(client: Client, namespace: string, names: readonly string[], options: HostOptions = {}): Promise<BareMetalHost[]> {
  const hosts: BareMetalHost[] = [];
  for (const name of names) {
    const { host, secret } = simulatedHost(name, { namespace, ...options });
    await client.api(SecretResource, namespace).create(secret);
    hosts.push(await client.api(BareMetalHostResource, namespace).create(host));
  }
  return hosts;
}

/** Host names, or host names with each host's own labels. */
export type HostList = readonly string[] | Readonly<Record<string, Record<string, string>>>;

/**
 * Creates the hosts in order (`options` for every one, each host's own labels over `options.labels`)
 * and waits, in one poll of the list, until BMO made every one available.
 * Returns them as they are then, in the order given.
 */
export async function createAvailableHosts(
  client: Client,
  namespace: string,
  hosts: HostList,
  options: HostOptions = {},
  timeoutMs = 30_000,
): Promise<BareMetalHost[]> {
  const entries: [string, Record<string, string>][] = Array.isArray(hosts) ? (hosts as readonly string[]).map((name) => [name, {}]) : Object.entries(hosts);
  for (const [name, own] of entries) {
    const labels = { ...options.labels, ...own };
    await createHosts(client, namespace, [name], { ...options, ...(Object.keys(labels).length > 0 ? { labels } : {}) });
  }
  const names = entries.map(([name]) => name);
  return eventually(names.length === 1 ? `${names[0]} available` : `${names.length} hosts available (${names.join(', ')})`, async () => {
    const byName = new Map((await client.api(BareMetalHostResource, namespace).list()).items.map((h) => [h.metadata.name ?? '', h]));
    const waiting = names.filter((name) => byName.get(name)?.status?.provisioning?.state !== 'available');
    if (waiting.length > 0) {
      throw new Error(`not available yet: ${waiting.map((name) => `${name} (${byName.get(name)?.status?.provisioning?.state ?? 'missing'})`).join(', ')}`);
    }
    return names.map((name) => byName.get(name)!);
  }, timeoutMs);
}

export interface MachineOptions {
  readonly cluster?: string;
  readonly spec?: Metal3MachineSpec;
  /** Extra labels of both objects (e.g. `cluster.x-k8s.io/control-plane`). */
  readonly labels?: Record<string, string>;
  readonly annotations?: Record<string, string>;
  readonly machineOwners?: Machine['metadata']['ownerReferences'];
  /** Default: `dataSecretName: bootstrap-data`. */
  readonly bootstrap?: NonNullable<Machine['spec']>['bootstrap'];
  readonly failureDomain?: string;
}

/** A Metal3Machine `name` and its Cluster API Machine `name`; Cluster API's Machine controller adopts the former. */
export async function createMachine(
  client: Client,
  namespace: string,
  name: string,
  options: MachineOptions = {},
): Promise<{ machine: Machine; metal3Machine: Metal3Machine }> {
  const cluster = options.cluster ?? CLUSTER;
  const labels = { 'cluster.x-k8s.io/cluster-name': cluster, ...(options.labels ?? {}) };
  const metal3Machine = await client.api(Metal3MachineResource, namespace).create(
    newMetal3Machine({
      metadata: { name, labels, ...(options.annotations ? { annotations: options.annotations } : {}) },
      spec: options.spec ?? { image: IMAGE },
    }),
  );
  const machine = await client.api(MachineResource, namespace).create(
    newMachine({
      metadata: { name, labels, ...(options.machineOwners ? { ownerReferences: options.machineOwners } : {}) },
      spec: {
        clusterName: cluster,
        bootstrap: options.bootstrap ?? { dataSecretName: BOOTSTRAP_SECRET },
        infrastructureRef: { apiVersion: Metal3MachineResource.apiVersion, kind: 'Metal3Machine', name },
        ...(options.failureDomain ? { failureDomain: options.failureDomain } : {}),
      },
    }),
  );
  return { machine, metal3Machine };
}

/**
 * The Metal3Data a template controller makes for `claim` (DT-13): `<template>-0`, labelled like the
 * claim, owned by the claim and by the Metal3Machine (M-6: the latter is what wakes the machine),
 * naming `<claim>-metadata` / `<claim>-networkdata`. Not ready: the test says when it is rendered.
 * No template or data controller runs in these tests; they play both.
 */
export function createMetal3Data(client: Client, claim: Readonly<Metal3DataClaim>, m3m: Readonly<Metal3Machine>, template = 'tmpl'): Promise<Metal3Data> {
  const namespace = claim.metadata.namespace ?? '';
  const name = claim.metadata.name ?? '';
  return client.api(Metal3DataResource, namespace).create(
    newMetal3Data({
      metadata: {
        name: `${template}-0`,
        labels: { ...(claim.metadata.labels ?? {}) },
        ownerReferences: [
          { apiVersion: Metal3MachineResource.apiVersion, kind: 'Metal3DataClaim', name, uid: claim.metadata.uid ?? '' },
          { apiVersion: Metal3MachineResource.apiVersion, kind: 'Metal3Machine', name: m3m.metadata.name ?? '', uid: m3m.metadata.uid ?? '' },
        ],
      },
      spec: {
        index: 0,
        template: { name: template, namespace },
        claim: { name, namespace },
        metaData: { name: `${name}-metadata`, namespace },
        networkData: { name: `${name}-networkdata`, namespace },
      },
    }),
  );
}
