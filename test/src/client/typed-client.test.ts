// The generated typed client against the real apiserver: every verb, typed results, typed errors,
// the status subresource, server-side apply, and a user without RBAC.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AlreadyExistsError, Client, ConflictError, ForbiddenError, InvalidError, type KubeConfigLike, NotFoundError, Transport } from '@metal3-ts/generated';
import { NamespaceResource, newSecret, SecretResource } from '@metal3-ts/generated/core/v1';
import { type Metal3Machine, Metal3MachineResource, newMetal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { BareMetalHostResource, newBareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { freshNamespace, withSharedEnv } from '../envtest/suite.ts';

const typed = suite('typed client on the real apiserver');
const env = withSharedEnv(typed);

let client: Client;

/** Awaits `fn` and asserts it fails with an error of class `kind`. */
async function rejectsWith(fn: () => Promise<unknown>, kind: abstract new (...args: never[]) => Error): Promise<void> {
  try {
    await fn();
  } catch (error) {
    assert.instance(error, kind);
    return;
  }
  assert.unreachable(`expected ${kind.name}`);
}
const namespace = (): Promise<string> => freshNamespace(env().admin.client, 'client');

const machine = (name: string): Metal3Machine =>
  newMetal3Machine({
    metadata: { name, labels: { pool: 'a' } },
    spec: { image: { url: 'http://172.22.0.1/images/node.img', checksum: 'http://172.22.0.1/images/node.img.sha256sum', format: 'raw' } },
  });

typed.before(() => {
  client = new Client(Transport.fromConnection(env().admin));
});

typed.after(() => client.transport.close());

typed('create, get, list by label, replace and delete a Metal3Machine with typed results', async () => {
  const ns = await namespace();
  const machines = client.api(Metal3MachineResource, ns);
  const created = await machines.create(machine('m-0'));
  assert.is(created.kind, 'Metal3Machine');
  assert.ok(created.metadata.uid);
  await machines.create({ ...machine('m-1'), metadata: { name: 'm-1', labels: { pool: 'b' } } });
  const got = await machines.get('m-0');
  assert.is(got.spec?.image?.format, 'raw');
  const poolA = await machines.list({ labelSelector: 'pool=a' });
  assert.equal(poolA.items.map((m) => m.metadata.name), ['m-0']);
  got.spec = { ...got.spec, failureDomain: 'rack-1' };
  const replaced = await machines.replace(got);
  assert.is(replaced.spec?.failureDomain, 'rack-1');
  await machines.delete('m-0');
  await rejectsWith(() => machines.get('m-0'), NotFoundError);
});

typed('list pagination follows continue tokens', async () => {
  const ns = await namespace();
  const secrets = client.api(SecretResource, ns);
  for (let i = 0; i < 7; i++) await secrets.create(newSecret({ metadata: { name: `s-${i}` }, stringData: { k: `${i}` } }));
  const firstPage = await secrets.list({ limit: 3 });
  assert.is(firstPage.items.length, 3);
  assert.ok(firstPage.metadata.continue);
  const names: string[] = [];
  for await (const s of secrets.listAll({ limit: 3 })) names.push(s.metadata.name!);
  assert.equal(names, ['s-0', 's-1', 's-2', 's-3', 's-4', 's-5', 's-6']);
});

typed('merge patch, JSON patch and server-side apply on a BareMetalHost', async () => {
  const ns = await namespace();
  const hosts = client.api(BareMetalHostResource, ns);
  await hosts.create(newBareMetalHost({ metadata: { name: 'h-0' }, spec: { online: false, bootMACAddress: '00:11:22:33:44:55' } }));
  const merged = await hosts.mergePatch('h-0', { metadata: { labels: { rack: 'r1' } }, spec: { online: true } });
  assert.is(merged.spec?.online, true);
  assert.is(merged.metadata.labels?.['rack'], 'r1');
  const removed = await hosts.mergePatch('h-0', { metadata: { labels: { rack: null } } });
  assert.is(removed.metadata.labels?.['rack'], undefined);
  const patched = await hosts.jsonPatch('h-0', [
    { op: 'test', path: '/spec/online', value: true },
    { op: 'add', path: '/metadata/annotations', value: { note: 'x' } },
  ]);
  assert.is(patched.metadata.annotations?.['note'], 'x');
  const applied = await hosts.apply(
    { apiVersion: BareMetalHostResource.apiVersion, kind: 'BareMetalHost', metadata: { name: 'h-0' }, spec: { description: 'applied' } },
    { fieldManager: 'metal3-ts-test' },
  );
  assert.is(applied.spec?.description, 'applied');
  assert.ok(applied.metadata.managedFields?.some((f) => f.manager === 'metal3-ts-test'));
});

typed('status goes through /status only', async () => {
  const ns = await namespace();
  const machines = client.api(Metal3MachineResource, ns);
  await machines.create(machine('m-s'));
  const viaMain = await machines.mergePatch('m-s', { status: { ready: true } });
  assert.is(viaMain.status?.ready, undefined, 'the main resource ignores status');
  const viaStatus = await machines.mergePatchStatus('m-s', { status: { ready: true, failureReason: 'CreateError' } });
  assert.is(viaStatus.status?.ready, true);
  assert.is((await machines.getStatus('m-s')).status?.failureReason, 'CreateError');
});

typed('typed errors: AlreadyExists, Conflict on a stale resourceVersion, Invalid with field causes', async () => {
  const ns = await namespace();
  const machines = client.api(Metal3MachineResource, ns);
  const first = await machines.create(machine('m-e'));
  await rejectsWith(() => machines.create(machine('m-e')), AlreadyExistsError);
  await machines.mergePatch('m-e', { metadata: { labels: { touched: 'yes' } } });
  await rejectsWith(() => machines.replace(first), ConflictError);
  const bad = { ...machine('m-bad'), spec: { automatedCleaningMode: 'sometimes' } } as unknown as Metal3Machine;
  try {
    await machines.create(bad);
    assert.unreachable('an invalid enum was accepted');
  } catch (error) {
    assert.instance(error, InvalidError);
    const causes = (error as InvalidError).causes;
    assert.ok(causes.some((c) => c.field === 'spec.automatedCleaningMode'), JSON.stringify(causes));
  }
});

typed('watch sees ADDED, MODIFIED and DELETED in order', async () => {
  const ns = await namespace();
  const secrets = client.api(SecretResource, ns);
  const start = await secrets.list();
  const abort = new AbortController();
  const events: string[] = [];
  const watching = (async () => {
    for await (const event of secrets.watch({ resourceVersion: start.metadata.resourceVersion!, allowWatchBookmarks: true, signal: abort.signal })) {
      if (event.type === 'BOOKMARK') continue;
      events.push(`${event.type} ${event.object.metadata.name}`);
      if (event.type === 'DELETED') abort.abort();
    }
  })();
  await secrets.create(newSecret({ metadata: { name: 'w' }, stringData: { a: '1' } }));
  await secrets.mergePatch('w', { stringData: { a: '2' } });
  await secrets.delete('w');
  await watching;
  assert.equal(events, ['ADDED w', 'MODIFIED w', 'DELETED w']);
});

typed('metadata-only list and watch: PartialObjectMetadata with labels and annotations, no spec or status on the wire', async () => {
  const ns = await namespace();
  const hosts = client.api(BareMetalHostResource, ns);
  assert.equal((await hosts.listMetadata()).items, [], 'none yet: an empty list (the apiserver sends null)');
  await hosts.create(newBareMetalHost({ metadata: { name: 'h-0', labels: { rack: '1' } }, spec: { online: true, bootMACAddress: '52:54:00:00:00:01' } }));
  const listed = await hosts.listMetadata();
  assert.is(listed.kind, 'PartialObjectMetadataList');
  assert.equal(listed.items.map((h) => [h.kind, h.metadata.name, h.metadata.labels]), [['PartialObjectMetadata', 'h-0', { rack: '1' }]]);
  assert.equal(Object.keys(listed.items[0] ?? {}).sort(), ['apiVersion', 'kind', 'metadata']);
  const abort = new AbortController();
  const events: string[] = [];
  const watching = (async () => {
    for await (const event of hosts.watchMetadata({ resourceVersion: listed.metadata.resourceVersion!, allowWatchBookmarks: true, signal: abort.signal })) {
      if (event.type === 'BOOKMARK') continue;
      events.push(`${event.type} ${event.object.kind} ${JSON.stringify(event.object.metadata.annotations)} ${'spec' in event.object}`);
      if (event.type === 'DELETED') abort.abort();
    }
  })();
  await hosts.mergePatch('h-0', { metadata: { annotations: { note: 'a' } } });
  await hosts.delete('h-0');
  await watching;
  assert.equal(events, ['MODIFIED PartialObjectMetadata {"note":"a"} false', 'DELETED PartialObjectMetadata {"note":"a"} false']);
});

typed('a user without a Role is Forbidden; client-node KubeConfig works as credentials', async () => {
  const ns = await namespace();
  const stranger = new Client(Transport.fromConnection(env().user('stranger', ['outsiders'])));
  try {
    await rejectsWith(() => stranger.api(SecretResource, ns).list(), ForbiddenError);
  } finally {
    stranger.transport.close();
  }
  const kc = await env().admin.kubeConfig();
  const viaKubeConfig = new Client(Transport.fromKubeConfig(kc as unknown as KubeConfigLike));
  try {
    assert.is((await viaKubeConfig.api(NamespaceResource).get(ns)).metadata.name, ns);
  } finally {
    viaKubeConfig.transport.close();
  }
});

typed.run();
