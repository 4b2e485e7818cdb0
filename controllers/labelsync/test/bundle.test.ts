// The bundled controller (src/main.ts through scripts/bundle.ts) as a process under Node 24 and Deno 2,
// through the shared bundle suite (@metal3-ts/test/testing/bundle-suite: the credentials of a user
// bound to deploy/rbac.yaml, leader election on, ready, the Lease held, SIGTERM exits 0, no warning or
// error logged): with the workload-cluster simulator beside it, a host label under the cluster's
// prefix reaches the host's Node and leaves it again.
import { fileURLToPath } from 'node:url';
import * as assert from 'uvu/assert';
import { ClusterCache } from '@metal3-ts/shared/workload/cluster-cache';
import { bundleSuite } from '@metal3-ts/test/testing/bundle-suite';
import { createScene, HOST, nodeWhen, patchHostLabels, RBAC_MANIFEST, setNodeRef, startWorkloadWorld, workloadNodes } from './support.ts';

bundleSuite({
  title: 'bundled label-sync controller under Node 24 and Deno 2',
  entry: fileURLToPath(new URL('../src/main.ts', import.meta.url)),
  rbac: RBAC_MANIFEST,
  name: 'labelsync',
  flags: ['--metal3labelsync-concurrency', '4'],
  titles: {
    node:
      'bundle under Node 24: ready under deploy/rbac.yaml with leader election, syncs a host label onto its workload Node and off again (LS-6), exits 0 on SIGTERM',
    deno: 'the same bundle under Deno 2: ready, syncs the host label on and off, exits 0 on SIGTERM',
  },
  // Beside the process for the whole file, so its workload apiservers outlive the controllers (which
  // are stopped first and must log no error); the namespaces are the suite's own, made per runtime.
  beside: (env) => startWorkloadWorld(env),
  async scenario({ runtime, admin, namespace: ns }) {
    const cache = new ClusterCache(admin, { closeGraceMs: 50 });
    try {
      await createScene(admin, ns, 'my.org', { 'my.org/rack': 'r1', env: 'prod' });
      const nodes = await workloadNodes(cache, ns);
      await nodeWhen(nodes, HOST, `${runtime}: the kubelet registered the Node`, () => true, 60_000);
      await setNodeRef(admin, ns, HOST);
      const synced = await nodeWhen(nodes, HOST, `${runtime}: my.org/rack on the Node`, (n) => n.metadata.labels?.['my.org/rack'] === 'r1', 20_000);
      assert.is(synced.metadata.labels?.['env'], undefined, 'an unprefixed label stays on the host');
      await patchHostLabels(admin, ns, { 'my.org/rack': null });
      await nodeWhen(nodes, HOST, `${runtime}: my.org/rack gone from the Node`, (n) => n.metadata.labels?.['my.org/rack'] === undefined, 20_000);
    } finally {
      cache.close();
    }
  },
});
