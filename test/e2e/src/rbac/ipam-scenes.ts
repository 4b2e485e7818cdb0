// The IPAM scene of the RBAC write suite: a Metal3Data whose template takes an address from a Metal3
// IPPool (IPClaim, served by the IPAM simulator) and one from a Cluster API pool (IPAddressClaim,
// answered here as its provider would), and the same scene deleted once both claims are made (the
// release takes our finalizer off each claim and deletes it, D-20). The reported object is the
// Metal3Data.
import type { Client, KubeObject, ResourceDescriptor } from '@metal3-ts/generated';
import { SecretResource } from '@metal3-ts/generated/core/v1';
import { Metal3DataClaimResource, Metal3DataResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import * as capi from '@metal3-ts/generated/ipam.cluster.x-k8s.io/v1beta1';
import { IPClaimResource } from '@metal3-ts/generated/ipam.metal3.io/v1alpha1';
import type { TestEnv } from '@metal3-ts/test/envtest/env';
import { ipamSimulator, simulatorDeps, startSimulators } from '@metal3-ts/test/sim/index';
import { eventually } from '@metal3-ts/test/testing/eventually';
import { CLUSTER, createPool, createScene as createDataScene, DATA, M3M } from '../../../../controllers/data/test/support.ts';
import { createCluster } from './capi-cluster.ts';
import { isGone } from './deletion-scenes.ts';
import type { Scene } from './scenes.ts';

const POOL = 'pool-v4';
const CAPI_POOL = { apiGroup: 'ipam.cluster.x-k8s.io', kind: 'InClusterIPPool', name: 'cpool' };
const IP_CLAIM = `${DATA}-${POOL}`;
const CAPI_CLAIM = `${DATA}-${CAPI_POOL.name}`;
const FINALIZER = 'metal3data.infrastructure.cluster.x-k8s.io';

const TEMPLATE = {
  metaData: {
    ipAddressesFromIPPool: [
      { key: 'address', name: POOL, apiGroup: 'ipam.metal3.io', kind: 'IPPool' },
      { key: 'caddr', ...CAPI_POOL },
    ],
    prefixesFromIPPool: [{ key: 'cprefix', ...CAPI_POOL }],
  },
};

/** Plays the Cluster API IPAM provider: an address for our IPAddressClaim, once it exists. */
async function answerCapiClaim(admin: Client, ns: string): Promise<void> {
  const claim = (await admin.api(capi.IPAddressClaimResource, ns).list()).items.find((c) => c.metadata.name === CAPI_CLAIM);
  if (!claim || claim.metadata.deletionTimestamp || claim.status?.addressRef?.name) return;
  const addresses = admin.api(capi.IPAddressResource, ns);
  if (!(await addresses.list()).items.some((a) => a.metadata.name === 'cpool-10-0-0-5')) {
    await addresses.create(
      capi.newIPAddress({
        metadata: { name: 'cpool-10-0-0-5' },
        spec: { address: '10.0.0.5', prefix: 16, gateway: '10.0.0.1', poolRef: CAPI_POOL, claimRef: { name: CAPI_CLAIM } },
      }),
    );
  }
  await admin.api(capi.IPAddressClaimResource, ns).mergePatchStatus(CAPI_CLAIM, { status: { addressRef: { name: 'cpool-10-0-0-5' } } });
}

const held = (o: KubeObject | undefined) => (o?.metadata.finalizers ?? []).includes(FINALIZER);

export async function ipamScene(env: TestEnv, admin: Client, ns: string, reported: Scene['reported'], deletion: boolean): Promise<Scene> {
  const deps = simulatorDeps(env.admin);
  const sims = await startSimulators(deps, ipamSimulator(deps));
  await createPool(admin, ns, POOL, { pools: [{ start: '192.168.0.10', end: '192.168.0.20' }], prefix: 24, gateway: '192.168.0.1' });
  await createCluster(admin, ns, CLUSTER);
  await createDataScene(admin, ns, { template: TEMPLATE, without: ['cluster'] });
  const find = async <T extends KubeObject>(d: ResourceDescriptor<T>, name: string) =>
    (await admin.api(d, ns).list()).items.find((o) => o.metadata.name === name);
  const base: Scene = {
    descriptor: Metal3DataResource as unknown as ResourceDescriptor<KubeObject>,
    name: DATA,
    reported,
    converged: async () => {
      await answerCapiClaim(admin, ns);
      const data = await admin.api(Metal3DataResource, ns).get(DATA);
      const secrets = (await admin.api(SecretResource, ns).list()).items.map((x) => x.metadata.name);
      return data.status?.ready === true && !data.status.errorMessage && held(await find(IPClaimResource, IP_CLAIM)) &&
        held(await find(capi.IPAddressClaimResource, CAPI_CLAIM)) && secrets.includes(`${M3M}-metadata`);
    },
    stop: () => sims.stop(),
  };
  if (!deletion) return base;
  // Both claims made and held by our finalizer: what the release must undo.
  await eventually(
    'both IP claims held by the Metal3Data',
    async () => (held(await find(IPClaimResource, IP_CLAIM)) && held(await find(capi.IPAddressClaimResource, CAPI_CLAIM)) ? true : undefined),
    {
      timeoutMs: 30_000,
      pollMs: 200,
    },
  );
  // D-7: the claim goes first (no claim controller here: nothing holds it), then the Metal3Data.
  await admin.api(Metal3DataClaimResource, ns).delete(M3M);
  await admin.api(Metal3DataResource, ns).delete(DATA);
  return {
    ...base,
    converged: async () =>
      (await isGone(admin, Metal3DataResource, ns, DATA)) && (await isGone(admin, IPClaimResource, ns, IP_CLAIM)) &&
      (await isGone(admin, capi.IPAddressClaimResource, ns, CAPI_CLAIM)),
  };
}
