// The bundled controller (src/main.ts through scripts/bundle.ts) as a process under Node 24 and Deno 2,
// through the shared bundle suite (@metal3-ts/test/testing/bundle-suite: the credentials of a user
// bound to deploy/rbac.yaml, leader election on, ready, the Lease held, SIGTERM exits 0, no warning or
// error logged): a sample claim gets its Metal3Data and status.renderedData, deleting it gives them back.
import { fileURLToPath } from 'node:url';
import * as assert from 'uvu/assert';
import { Metal3DataResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { bundleSuite } from '@metal3-ts/test/testing/bundle-suite';
import {
  claimsBound,
  createClaim,
  createCluster,
  createTemplate,
  deleteClaimAsMachineController,
  eventually,
  getClaim,
  listData,
  RBAC_MANIFEST,
} from './support.ts';

bundleSuite({
  title: 'bundled Metal3DataClaim controller under Node 24 and Deno 2',
  entry: fileURLToPath(new URL('../src/main.ts', import.meta.url)),
  rbac: RBAC_MANIFEST,
  name: 'dataclaim',
  flags: ['--metal3datatemplate-concurrency', '4'],
  titles: {
    node: 'bundle under Node 24: ready under deploy/rbac.yaml with leader election, allocates and releases a sample claim, exits 0 on SIGTERM',
    deno: 'the same bundle under Deno 2: ready, allocates and releases the sample claim, exits 0 on SIGTERM',
  },
  async scenario({ runtime, admin, namespace: ns }) {
    await createCluster(admin, ns);
    await createTemplate(admin, ns, 'sample');
    await createClaim(admin, ns, 'sample-machine', 'sample');
    assert.equal(await claimsBound(admin, ns, ['sample-machine'], 20_000), { 'sample-machine': 'sample-0' });
    const data = await admin.api(Metal3DataResource, ns).get('sample-0');
    assert.is(data.spec?.claim.name, 'sample-machine');

    await deleteClaimAsMachineController(admin, ns, 'sample-machine');
    await eventually(
      `${runtime}: claim and Metal3Data gone`,
      async () => ((await getClaim(admin, ns, 'sample-machine')) || (await listData(admin, ns)).length ? undefined : true),
      20_000,
    );
  },
});
