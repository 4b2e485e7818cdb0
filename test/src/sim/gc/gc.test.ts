// The garbage-collector simulator on the real apiserver: dependents go when every owner is gone (or
// was replaced by an object with another UID); objects with a live owner or no owner stay.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, Transport } from '@metal3-ts/generated';
import { newSecret, SecretResource } from '@metal3-ts/generated/core/v1';
import { freshNamespace, withSharedEnv } from '../../envtest/suite.ts';
import { collectGarbage, ownerDescriptor } from './index.ts';

const test = suite('garbage-collector simulator');
const env = withSharedEnv(test);

test('dependents of deleted or replaced owners are deleted; live owners and ownerless objects keep theirs', async () => {
  const client = new Client(Transport.fromConnection(env().admin));
  try {
    const ns = await freshNamespace(env().admin.client, 'sim-gc');
    const secrets = client.api(SecretResource, ns);
    const owner = await secrets.create(newSecret({ metadata: { name: 'owner' } }));
    const ref = (uid: string) => [{ apiVersion: 'v1', kind: 'Secret', name: 'owner', uid }];
    await secrets.create(newSecret({ metadata: { name: 'child', ownerReferences: ref(owner.metadata.uid ?? '') } }));
    await secrets.create(newSecret({ metadata: { name: 'stale', ownerReferences: ref('not-the-owner') } }));
    await secrets.create(newSecret({ metadata: { name: 'lonely' } }));
    assert.equal(await collectGarbage(client, [SecretResource], ns), [`Secret ${ns}/stale`]);
    await secrets.delete('owner');
    assert.equal(await collectGarbage(client, [SecretResource], ns), [`Secret ${ns}/child`]);
    assert.equal((await secrets.list()).items.map((s) => s.metadata.name), ['lonely']);
  } finally {
    client.transport.close();
  }
});

test('owners are read in their own version when generated, else in another generated version of their group and kind (real Cluster API v1.13 names v1beta2 owners)', () => {
  const cases: [apiVersion: string, kind: string, expected: string | undefined][] = [
    ['v1', 'Secret', 'v1 Secret'],
    ['controlplane.cluster.x-k8s.io/v1beta1', 'KubeadmControlPlane', 'controlplane.cluster.x-k8s.io/v1beta1 KubeadmControlPlane'],
    ['controlplane.cluster.x-k8s.io/v1beta2', 'KubeadmControlPlane', 'controlplane.cluster.x-k8s.io/v1beta2 KubeadmControlPlane'],
    ['bootstrap.cluster.x-k8s.io/v1beta2', 'KubeadmConfig', 'bootstrap.cluster.x-k8s.io/v1beta2 KubeadmConfig'],
    ['bootstrap.cluster.x-k8s.io/v1beta3', 'KubeadmConfig', 'bootstrap.cluster.x-k8s.io/v1beta1 KubeadmConfig'],
    ['example.com/v1', 'KubeadmConfig', undefined],
    ['v2', 'Widget', undefined],
  ];
  for (const [apiVersion, kind, expected] of cases) {
    const d = ownerDescriptor({ apiVersion, kind });
    assert.is(d && `${d.group ? `${d.group}/` : ''}${d.version} ${d.kind}`, expected, `${apiVersion} ${kind}`);
  }
});

test.run();
