// The deployable: src/main.ts bundled into one file starts under Node 24 and Deno 2 through the shared
// bundle suite (@metal3-ts/test/testing/bundle-suite: the credentials of deploy/rbac.yaml, leader
// election on, ready, the Lease held, SIGTERM exits 0, no error logged), and reconciles a sample
// Metal3Cluster owned by a Cluster (finalizer, defaults, ready, conditions).
import { fileURLToPath } from 'node:url';
import * as assert from 'uvu/assert';
import { ClusterResource, newCluster } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { bundleSuite } from '@metal3-ts/test/testing/bundle-suite';
import { createMetal3Cluster, metal3ClusterWhen, RBAC_MANIFEST, v1, v2 } from './support.ts';

bundleSuite({
  title: 'Metal3Cluster controller bundle under Node 24 and Deno 2',
  entry: fileURLToPath(new URL('../src/main.ts', import.meta.url)),
  rbac: RBAC_MANIFEST,
  name: 'm3c',
  flags: ['--metal3cluster-concurrency', '2'],
  titles: {
    node: 'bundle under Node 24: ready, reconciles a sample Metal3Cluster, exits 0 on SIGTERM',
    deno: 'bundle under Deno 2: ready, reconciles a sample Metal3Cluster, exits 0 on SIGTERM',
  },
  // This test has only ever refused errors in the log.
  warningsAllowed: true,
  async scenario({ runtime, admin, namespace: ns }) {
    const cluster = await admin.api(ClusterResource, ns).create(newCluster({
      metadata: { name: 'sample' },
      // As real Cluster API admits it (its webhook refuses a Cluster naming neither infrastructure nor control plane).
      spec: { infrastructureRef: { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Cluster', name: 'sample' } },
    }));
    const owner = {
      apiVersion: 'cluster.x-k8s.io/v1beta1',
      kind: 'Cluster',
      name: 'sample',
      uid: cluster.metadata.uid!,
      controller: true,
      blockOwnerDeletion: true,
    };
    await createMetal3Cluster(admin, ns, 'sample', { controlPlaneEndpoint: { host: 'api.sample.example', port: 0 } }, { ownerReferences: [owner] });
    const m3c = await metal3ClusterWhen(admin, ns, 'sample', `${runtime}: ready`, (m) => m.status?.ready === true, 20_000);
    assert.equal(m3c.metadata.finalizers, ['metal3cluster.infrastructure.cluster.x-k8s.io']);
    assert.equal(m3c.spec?.controlPlaneEndpoint, { host: 'api.sample.example', port: 6443 });
    assert.is(m3c.spec?.cloudProviderEnabled, true);
    assert.is(v1(m3c, 'BaremetalInfrastructureReady'), 'True//');
    assert.is(v1(m3c, 'Ready'), 'True//');
    assert.is(v2(m3c, 'Ready'), 'True/Ready');
    assert.is(v2(m3c, 'Paused'), 'False/NotPaused');
  },
});
