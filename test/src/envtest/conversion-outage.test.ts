// With our CRDs storing v1beta2, a v1beta1 client (every controller today) depends on the conversion
// webhook. While it is down, what shows: a v1beta1 list or write fails at once with the apiserver's
// 500 "conversion webhook … failed" (a controller's reconcile fails and is retried with back-off, its
// informer's relists fail and problems() names it for /readyz), while an open v1beta1 watch just goes
// quiet: the apiserver holds the events it cannot convert. Nothing is lost: once the webhook answers
// again at its address (a new Pod behind the Service), the held events arrive and the informer's cache
// equals a fresh list, the object written during the outage included.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, Transport } from '@metal3-ts/generated';
import { type Metal3Machine, Metal3MachineResource, newMetal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { SharedInformer } from '@metal3-ts/shared/cache/informer';
import { type ConversionWebhook, startConversionWebhook } from './conversion.ts';
import { startEnv, type TestEnv } from './env.ts';
import { freshNamespace } from './suite.ts';
import { eventually } from '../testing/eventually.ts';

const test = suite('the test environment storing v1beta2: a v1beta1 informer through a conversion webhook outage');
let env: TestEnv | undefined;
let replacement: ConversionWebhook | undefined;

test.after(async () => {
  await env?.stop();
  await replacement?.stop();
});

test('CV-1: the webhook down, v1beta1 lists and writes fail naming it and the informer keeps its cache; the webhook back, the held events arrive and nothing is lost', async () => {
  env = await startEnv({ storage: 'v1beta2', crds: { upstream: false }, authorization: 'AlwaysAllow' });
  const ns = await freshNamespace(env.admin.client, 'conversion-outage');
  const client = new Client(Transport.fromConnection(env.admin));
  const restarts: string[] = [];
  const informer = new SharedInformer<Metal3Machine>(client.api(Metal3MachineResource, ns), Metal3MachineResource, {
    namespace: ns,
    backoff: { initialMs: 100, maxMs: 1000 },
    onRestart: (reason, error) => restarts.push(`${reason}: ${error instanceof Error ? error.message : String(error)}`),
  });
  const aborter = new AbortController();
  const running = informer.run(aborter.signal);
  const machines = client.api(Metal3MachineResource, ns);
  const image = { url: 'http://images/node.img', checksum: 'http://images/node.img.sha256sum', format: 'raw' as const };
  try {
    await informer.waitForSync();
    await machines.create(newMetal3Machine({ metadata: { name: 'before' }, spec: { image } }));
    await eventually('the first machine cached', () => informer.store.get({ namespace: ns, name: 'before' }), 30_000);

    const webhook = env.conversionWebhook!;
    await webhook.stop();
    // Written at the stored version, which needs no conversion; its v1beta1 watch event does.
    await env.admin.client.create(`/apis/infrastructure.cluster.x-k8s.io/v1beta2/namespaces/${ns}/metal3machines`, {
      apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2',
      kind: 'Metal3Machine',
      metadata: { name: 'during' },
      spec: { image: { url: image.url, checksum: image.checksum, diskFormat: 'qcow2' } },
    });
    for (const attempt of [() => machines.list(), () => machines.mergePatch('before', { metadata: { labels: { outage: 'yes' } } })]) {
      const refused = await attempt().then(() => undefined, (error: Error) => error);
      assert.match(refused?.message ?? 'succeeded', /500 conversion webhook for infrastructure\.cluster\.x-k8s\.io\/v1beta\d, Kind=Metal3Machine failed/);
    }
    assert.ok(informer.store.get({ namespace: ns, name: 'before' }), 'the cache is kept through the outage');
    assert.not.ok(informer.store.get({ namespace: ns, name: 'during' }), 'the event waits for the webhook');

    replacement = await startConversionWebhook(env.dir, env.authorities.servingCa, 30_000, Number(new URL(webhook.url).port));
    const during = await eventually(
      'the machine written during the outage cached, at v1beta1',
      () => informer.store.get({ namespace: ns, name: 'during' }),
      30_000,
    );
    assert.is(during.spec?.image?.format, 'qcow2', 'converted: v1beta2 diskFormat is v1beta1 format');
    assert.is(informer.store.get({ namespace: ns, name: 'before' })?.metadata.labels?.['outage'], undefined, 'the refused write did not land');
    await eventually('no problem left', () => (informer.problems().length === 0 ? true : undefined), 30_000);
    const listed = (await machines.list()).items.map((m) => m.metadata.name).sort();
    assert.equal(informer.store.list().map((m) => m.metadata.name).sort(), listed);
    console.log(`    watch restarts through the outage: ${restarts.length === 0 ? 'none' : restarts.join(' | ')}`);
  } finally {
    aborter.abort();
    await running;
    client.transport.close();
  }
});

test.run();
