// The test environment with our CRDs storing v1beta2 (issue 18's switch, the default since the CRDs
// say so): the conversion webhook process answers before the CRDs are installed; a Metal3Machine
// written at v1beta1 is read at v1beta2 (image.format → diskFormat) and back as written; a v1beta2
// write reads at v1beta1; the CRDs say v1beta2 is stored; and the webhook process goes with the
// environment. Without our CRDs no webhook starts; METAL3_TS_STORAGE=v1beta1 gives the generation
// before the switch.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { storageVersion, storingV1beta1, storingV1beta2 } from './conversion.ts';
import { type CrdSource, loadOurCrds } from './crds.ts';
import { startEnv, type TestEnv } from './env.ts';
import { freshNamespace } from './suite.ts';
import type { KubeObject } from './http.ts';

const test = suite('the test environment with our CRDs storing v1beta2 (issue 18)');
let env: TestEnv | undefined;

test.after(async () => {
  await env?.stop();
});

test('METAL3_TS_STORAGE: v1beta2 (as the CRDs say) unless v1beta1; anything else is refused naming the variable', () => {
  assert.is(storageVersion(undefined), 'v1beta2');
  assert.is(storageVersion(''), 'v1beta2');
  assert.is(storageVersion('v1beta1'), 'v1beta1');
  assert.is(storageVersion('v1beta2'), 'v1beta2');
  assert.throws(() => storageVersion('v1'), /METAL3_TS_STORAGE must be v1beta1 or v1beta2, got "v1"/);
});

test('storingV1beta2 changes only our CRDs: both versions served, v1beta2 stored, converted by the webhook', () => {
  const other = { crd: { ...loadOurCrds()[0]!.crd, spec: { ...loadOurCrds()[0]!.crd.spec, group: 'metal3.io' } }, origin: 'other' } as CrdSource;
  const [ours, theirs] = storingV1beta2([loadOurCrds()[0]!, other], 'https://127.0.0.1:1/convert', 'PEM');
  assert.equal(ours!.crd.spec.versions.map((v) => [v.name, v.served, v.storage]), [['v1beta1', true, false], ['v1beta2', true, true]]);
  assert.is((ours!.crd.spec as unknown as { conversion: { strategy: string } }).conversion.strategy, 'Webhook');
  assert.equal(theirs, other);
});

test('storingV1beta1 gives our CRDs as before the switch: v1beta1 alone served and stored, no conversion; others untouched', () => {
  const other = { crd: { ...loadOurCrds()[0]!.crd, spec: { ...loadOurCrds()[0]!.crd.spec, group: 'metal3.io' } }, origin: 'other' } as CrdSource;
  const [ours, theirs] = storingV1beta1([loadOurCrds()[0]!, other]);
  assert.equal(ours!.crd.spec.versions.map((v) => [v.name, v.served, v.storage]), [['v1beta1', true, true], ['v1beta2', false, false]]);
  assert.is(ours!.crd.spec.conversion, undefined);
  assert.equal(theirs, other);
});

test('without our CRDs no conversion webhook starts', async () => {
  const bare = await startEnv({ storage: 'v1beta2', crds: false });
  try {
    assert.is(bare.conversionWebhook, undefined);
  } finally {
    await bare.stop();
  }
});

test('a Metal3Machine written at v1beta1 reads at v1beta2 and back as written; a v1beta2 write reads at v1beta1', async () => {
  env = await startEnv({ storage: 'v1beta2', crds: { upstream: false } });
  assert.is(env.storage, 'v1beta2');
  assert.ok(env.conversionWebhook?.process.alive, 'the webhook runs');
  const client = env.admin.client;
  const ns = await freshNamespace(client, 'storage-v1beta2');
  const path = (version: string, name = '') => `/apis/infrastructure.cluster.x-k8s.io/${version}/namespaces/${ns}/metal3machines${name ? `/${name}` : ''}`;
  const image = { url: 'http://images/node.img', checksum: 'http://images/node.img.sha256sum', checksumType: 'sha256', format: 'raw' };
  await client.create(path('v1beta1'), {
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
    kind: 'Metal3Machine',
    metadata: { name: 'm-1' },
    spec: { image },
  });
  const hub = await client.get<KubeObject & { spec: { image: Record<string, string> } }>(path('v1beta2', 'm-1'));
  assert.is(hub.spec.image['diskFormat'], 'raw');
  assert.is(hub.spec.image['format'], undefined);
  const spoke = await client.get<KubeObject & { spec: { image: Record<string, string> } }>(path('v1beta1', 'm-1'));
  assert.equal(spoke.spec.image, image);

  await client.create(path('v1beta2'), {
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2',
    kind: 'Metal3Machine',
    metadata: { name: 'm-2' },
    spec: { image: { url: image.url, checksum: image.checksum, diskFormat: 'qcow2' } },
  });
  assert.is((await client.get<KubeObject & { spec: { image: Record<string, string> } }>(path('v1beta1', 'm-2'))).spec.image['format'], 'qcow2');

  const crd = await client.get<KubeObject & { status: { storedVersions: string[] } }>(
    '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/metal3machines.infrastructure.cluster.x-k8s.io',
  );
  assert.equal(crd.status.storedVersions, ['v1beta2']);

  const webhook = env.conversionWebhook!;
  await env.stop();
  env = undefined;
  assert.not.ok(webhook.process.alive, 'the webhook stopped with the environment');
});

test.run();
