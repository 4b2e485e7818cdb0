// The deployable: src/main.ts bundled into one file starts under Node 24 and Deno 2 through the shared
// bundle suite (@metal3-ts/test/testing/bundle-suite: the credentials of deploy/rbac.yaml, leader
// election on, ready, the Lease held, SIGTERM exits 0, no error logged), probes the IPAM kinds,
// renders a sample Metal3Data whose address comes from the IPAM simulator, finishes its template and
// releases the IP claim on deletion.
import { fileURLToPath } from 'node:url';
import * as assert from 'uvu/assert';
import { Metal3DataClaimResource, Metal3DataResource, Metal3DataTemplateResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { IPClaimResource } from '@metal3-ts/generated/ipam.metal3.io/v1alpha1';
import { ipamSimulator, simulatorDeps, startSimulators } from '@metal3-ts/test/sim/index';
import { bundleSuite } from '@metal3-ts/test/testing/bundle-suite';
import { createPool, createScene, DATA, dataWhen, gone, HOST, M3M, RBAC_MANIFEST, secretText, TEMPLATE } from './support.ts';

const TEMPLATE_SPEC = {
  metaData: { ipAddressesFromIPPool: [{ key: 'address', name: 'pool', apiGroup: 'ipam.metal3.io', kind: 'IPPool' }] },
  networkData: { links: { ethernets: [{ type: 'phy' as const, id: 'eth0', mtu: 1500, macAddress: { fromHostInterface: 'eth1' } }] } },
};

bundleSuite({
  title: 'bundled data controllers under Node 24 and Deno 2',
  entry: fileURLToPath(new URL('../src/main.ts', import.meta.url)),
  rbac: RBAC_MANIFEST,
  name: 'm3d',
  // Under Deno with --enableBMHNameBasedPreallocation (D-17): the claim is <host>-<pool>.
  flags: (runtime) => ['--metal3data-concurrency', '2', ...(runtime === 'deno' ? ['--enableBMHNameBasedPreallocation'] : [])],
  titles: {
    node: 'bundle under Node 24: ready under deploy/rbac.yaml, renders a sample Metal3Data with an IPAM address, releases it, exits 0 on SIGTERM',
    deno: 'the same bundle under Deno 2, with --enableBMHNameBasedPreallocation (D-17): the claim is <host>-<pool>',
  },
  // This test has only ever refused errors in the log.
  warningsAllowed: true,
  beside: (env) => {
    const deps = simulatorDeps(env.admin);
    return startSimulators(deps, ipamSimulator(deps));
  },
  async scenario({ runtime, admin, namespace: ns, process: p }) {
    const claimName = `${runtime === 'deno' ? HOST : DATA}-pool`;
    assert.ok(
      p.lines.some((l) => l.msg === 'IPAM kinds served' && l['metal3'] === true && l['capi'] === true),
      `D-2/D-3: both IPAM kinds found (log:\n${p.tail()})`,
    );

    await createPool(admin, ns, 'pool', { pools: [{ subnet: '172.16.0.0/24' }], prefix: 24 });
    await createScene(admin, ns, { template: TEMPLATE_SPEC });
    await dataWhen(admin, ns, DATA, `${runtime}: ready`, (d) => d.status?.ready === true, 20_000);
    assert.is(await secretText(admin, ns, `${M3M}-metadata`, 'metaData'), `address: 172.16.0.1\nproviderid: ${ns}/${HOST}/${M3M}\n`);
    assert.ok(
      (await secretText(admin, ns, `${M3M}-networkdata`, 'networkData'))?.includes('ethernet_mac_address: 00:11:22:33:44:66\n'),
      'DR-23: not base-60, so plain',
    );
    await admin.api(IPClaimResource, ns).get(claimName);
    const template = await admin.api(Metal3DataTemplateResource, ns).get(TEMPLATE);
    assert.equal(template.metadata.finalizers, ['metal3datatemplate.infrastructure.cluster.x-k8s.io']);

    await admin.api(Metal3DataClaimResource, ns).delete(M3M);
    await admin.api(Metal3DataResource, ns).delete(DATA);
    await gone(admin, Metal3DataResource, ns, DATA, 20_000);
    await gone(admin, IPClaimResource, ns, claimName, 20_000);
  },
});
