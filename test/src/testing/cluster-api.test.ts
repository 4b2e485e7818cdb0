// The shared real Cluster API of controller tests: started once on the shared environment, it adopts
// a Cluster written at v1beta1 (its finalizer), so a controller test can lean on it.
import * as assert from 'uvu/assert';
import { controllerSuite } from './controller-suite.ts';
import { eventually } from './eventually.ts';

const { test, env, capi, namespace } = controllerSuite('shared real Cluster API', { clusterApi: true });

test('the managers run and Cluster API puts its finalizer on a v1beta1 Cluster', async () => {
  assert.ok(capi().version.startsWith('v1.'));
  const ns = await namespace('capi-shared');
  const path = `/apis/cluster.x-k8s.io/v1beta1/namespaces/${ns}/clusters`;
  await env().admin.client.create(path, {
    apiVersion: 'cluster.x-k8s.io/v1beta1',
    kind: 'Cluster',
    metadata: { name: 'c1' },
    // Its webhook refuses a Cluster that names neither infrastructure nor control plane.
    spec: { infrastructureRef: { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Cluster', name: 'c1' } },
  });
  await eventually('the Cluster API finalizer', async () => {
    const c = await env().admin.client.get<{ metadata: { finalizers?: string[] } }>(`${path}/c1`);
    return c.metadata.finalizers?.includes('cluster.cluster.x-k8s.io') || undefined;
  });
});

test.run();
