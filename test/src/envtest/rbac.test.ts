// userBoundTo: a user gets exactly the roles of a manifest, and its credentials work with the
// generated typed client (client certificates under the Connection field names it reads).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, ForbiddenError, Transport } from '@metal3-ts/generated';
import { ConfigMapResource, SecretResource } from '@metal3-ts/generated/core/v1';
import { userBoundTo } from './rbac.ts';
import { freshNamespace, withSharedEnv } from './suite.ts';

const test = suite('envtest rbac');
const env = withSharedEnv(test);

test('a user bound to a manifest may do what its roles allow and nothing else, through the typed client', async () => {
  const namespace = await freshNamespace(env().admin.client, 'rbac');
  const dir = mkdtempSync(join(tmpdir(), 'metal3-ts-rbac-'));
  const manifest = join(dir, 'rbac.yaml');
  writeFileSync(
    manifest,
    [
      'apiVersion: rbac.authorization.k8s.io/v1',
      'kind: ClusterRole',
      'metadata: { name: envtest-configmap-reader }',
      'rules:',
      '- { apiGroups: [""], resources: [configmaps], verbs: [list] }',
      '---',
      'apiVersion: v1',
      'kind: ServiceAccount',
      'metadata: { name: ignored }',
    ].join('\n'),
  );
  try {
    const client = new Client(Transport.fromConnection(await userBoundTo(env(), 'rbac-reader', manifest)));
    const list = await client.api(ConfigMapResource, namespace).list();
    assert.ok(Array.isArray(list.items));
    try {
      await client.api(SecretResource, namespace).list();
      assert.unreachable('listing Secrets should be forbidden');
    } catch (error) {
      assert.instance(error, ForbiddenError);
      assert.match((error as Error).message, /rbac-reader/);
    }
    client.transport.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
