// objectWhen and objectGone on the real apiserver: a missing object is "not yet", a present one is
// checked, and a deleted one resolves objectGone.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, Transport } from '@metal3-ts/generated';
import { newSecret, SecretResource } from '@metal3-ts/generated/core/v1';
import { freshNamespace, withSharedEnv } from '../envtest/suite.ts';
import { objectGone, objectWhen } from './objects.ts';

const test = suite('test helpers: objectWhen, objectGone');
const env = withSharedEnv(test);

test('objectWhen waits for the object to exist and pass the check; objectGone for it to be deleted', async () => {
  const client = new Client(Transport.fromConnection(env().admin));
  try {
    const ns = await freshNamespace(env().admin.client, 'testing-objects');
    const secrets = client.api(SecretResource, ns);
    const waiting = objectWhen(client, SecretResource, ns, 's', 's labelled', (s) => s.metadata.labels?.['ok'] === 'yes', 5_000);
    await secrets.create(newSecret({ metadata: { name: 's' } }));
    await secrets.mergePatch('s', { metadata: { labels: { ok: 'yes' } } });
    assert.is((await waiting).metadata.labels?.['ok'], 'yes');
    const deleted = objectGone(client, SecretResource, ns, 's', 5_000);
    await secrets.delete('s');
    assert.is(await deleted, true);
    const timedOut = await objectWhen(client, SecretResource, ns, 'never', 'never there', () => true, 300).then(() => '', (error: unknown) => String(error));
    assert.match(timedOut, 'timed out after 300 ms waiting for never there');
  } finally {
    client.transport.close();
  }
});

test.run();
