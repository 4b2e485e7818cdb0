// The garbage-collector simulator on the real apiserver: dependents go when every owner is gone (or
// was replaced by an object with another UID); objects with a live owner or no owner stay.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, Transport } from '@metal3-ts/generated';
import { newSecret, SecretResource } from '@metal3-ts/generated/core/v1';
import { freshNamespace, withSharedEnv } from '../../envtest/suite.ts';
import { collectGarbage } from './index.ts';

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

test.run();
