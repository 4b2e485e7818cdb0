// Contract cases for single-object writes: what the server stamps on create, typed 404/409
// failures, resourceVersion preconditions on update and merge patch, JSON Patch `test` guards, merge
// patch semantics, and the metadata a write cannot change (name, uid, creationTimestamp).
import * as assert from 'uvu/assert';
import { AlreadyExistsError, ApiError, ConflictError, InvalidError, NotFoundError } from '@metal3-ts/generated';
import { ConfigMapResource, newConfigMap } from '@metal3-ts/generated/core/v1';
import { Metal3MachineResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { type ContractCase, machine, refused } from './target.ts';

export const writeCases: readonly ContractCase[] = [
  {
    name:
      'create: the server sets uid, creationTimestamp, resourceVersion and generation 1; a second create is AlreadyExists (409); a missing name is NotFound (404)',
    async run({ client, namespace }) {
      const api = client.api(Metal3MachineResource, await namespace());
      const sent = { ...machine('m'), metadata: { name: 'm', uid: 'mine', creationTimestamp: '2001-01-01T00:00:00Z' } };
      const made = await api.create(sent);
      assert.ok(made.metadata.uid && made.metadata.uid !== 'mine', "uid is the server's");
      assert.ok(made.metadata.resourceVersion);
      assert.is.not(made.metadata.creationTimestamp, '2001-01-01T00:00:00Z');
      assert.match(made.metadata.creationTimestamp ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      assert.is(made.metadata.generation, 1);
      assert.equal(await api.get('m'), made);
      await refused(() => api.create(machine('m')), AlreadyExistsError, 409);
      const missing = await refused(() => api.get('nobody'), NotFoundError, 404);
      assert.is(missing.reason, 'NotFound');
      await refused(() => api.mergePatch('nobody', { metadata: { labels: { a: 'b' } } }), NotFoundError, 404);
      await refused(() => api.delete('nobody'), NotFoundError, 404);
    },
  },
  {
    name: 'optimistic concurrency: every write changes the resourceVersion; replace or merge patch with a stale one is a Conflict (409) that writes nothing',
    async run({ client, namespace }) {
      const api = client.api(Metal3MachineResource, await namespace());
      const first = await api.create(machine('m'));
      const second = await api.mergePatch('m', { metadata: { labels: { step: 'two' } } });
      assert.is.not(second.metadata.resourceVersion, first.metadata.resourceVersion);
      const stale = { ...first, metadata: { ...first.metadata, labels: { step: 'stale' } } };
      const conflict = await refused(() => api.replace(stale), ConflictError, 409);
      assert.is(conflict.reason, 'Conflict');
      await refused(
        () => api.mergePatch('m', { metadata: { resourceVersion: first.metadata.resourceVersion, labels: { step: 'stale' } } }),
        ConflictError,
        409,
      );
      assert.equal(await api.get('m'), second, 'nothing was written');
      const locked = await api.mergePatch('m', { metadata: { resourceVersion: second.metadata.resourceVersion, labels: { step: 'three' } } });
      assert.is(locked.metadata.labels?.['step'], 'three');
      const replaced = await api.replace({ ...locked, metadata: { ...locked.metadata, labels: { step: 'four' } } });
      assert.is(replaced.metadata.labels?.['step'], 'four');
    },
  },
  {
    name: 'replace without a resourceVersion: refused as Invalid (422) for a custom resource, an unconditional update for a built-in kind',
    async run({ client, namespace }) {
      const ns = await namespace();
      const machines = client.api(Metal3MachineResource, ns);
      const m = await machines.create(machine('m'));
      await refused(() => machines.replace({ ...m, metadata: { name: 'm', labels: { a: 'b' } } }), InvalidError, 422);
      const maps = client.api(ConfigMapResource, ns);
      await maps.create(newConfigMap({ metadata: { name: 'c' }, data: { a: '1' } }));
      const replaced = await maps.replace(newConfigMap({ metadata: { name: 'c' }, data: { a: '2' } }));
      assert.equal(replaced.data, { a: '2' });
    },
  },
  {
    name: 'JSON Patch: a passing test op applies the patch; a failing test op is Invalid (422) and writes nothing; a test of null matches a missing member',
    async run({ client, namespace }) {
      const api = client.api(Metal3MachineResource, await namespace());
      const made = await api.create(machine('m'));
      const added = await api.jsonPatch('m', [
        { op: 'test', path: '/metadata/finalizers', value: null },
        { op: 'add', path: '/metadata/finalizers', value: ['a.example.com/x'] },
      ]);
      assert.equal(added.metadata.finalizers, ['a.example.com/x']);
      assert.is.not(added.metadata.resourceVersion, made.metadata.resourceVersion);
      const failed = await refused(
        () =>
          api.jsonPatch('m', [{ op: 'test', path: '/metadata/finalizers', value: ['someone-else'] }, {
            op: 'add',
            path: '/metadata/finalizers/-',
            value: 'b.example.com/y',
          }]),
        InvalidError,
        422,
      );
      assert.ok(failed.message.length > 0);
      assert.equal(await api.get('m'), added, 'nothing was written');
      const both = await api.jsonPatch('m', [
        { op: 'test', path: '/metadata/finalizers/0', value: 'a.example.com/x' },
        { op: 'add', path: '/metadata/finalizers/-', value: 'b.example.com/y' },
        { op: 'replace', path: '/spec/image/format', value: 'qcow2' },
      ]);
      assert.equal(both.metadata.finalizers, ['a.example.com/x', 'b.example.com/y']);
      assert.is(both.spec?.image?.format, 'qcow2');
      await refused(() => api.jsonPatch('m', [{ op: 'remove', path: '/metadata/annotations/absent' }]), InvalidError, 422);
    },
  },
  {
    name: 'merge patch (RFC 7386): members merge into objects, null deletes, arrays are replaced whole',
    async run({ client, namespace }) {
      const api = client.api(Metal3MachineResource, await namespace());
      await api.create({
        ...machine('m', { keep: 'yes', drop: 'yes' }),
        metadata: { name: 'm', labels: { keep: 'yes', drop: 'yes' }, finalizers: ['a.example.com/x', 'b.example.com/y'] },
      });
      const patched = await api.mergePatch('m', {
        metadata: { labels: { drop: null, add: 'yes' }, finalizers: ['c.example.com/z'] },
        spec: { image: { format: 'qcow2' }, providerID: 'metal3://ns/host/m' },
      });
      assert.equal(patched.metadata.labels, { keep: 'yes', add: 'yes' });
      assert.equal(patched.metadata.finalizers, ['c.example.com/z']);
      assert.is(patched.spec?.image?.format, 'qcow2');
      assert.is(patched.spec?.image?.url, 'http://172.22.0.1/images/node.img', 'sibling members are kept');
      assert.is(patched.spec?.providerID, 'metal3://ns/host/m');
      const cleared = await api.mergePatch('m', { spec: { providerID: null }, metadata: { finalizers: null } });
      assert.is(cleared.spec?.providerID, undefined);
      assert.is(cleared.metadata.finalizers, undefined);
    },
  },
  {
    name:
      'server-owned metadata: name is immutable (400 BadRequest), so is uid (422 in a patch, a failed precondition 409 in a replace), creationTimestamp and uid in a write are ignored',
    async run({ client, namespace }) {
      const api = client.api(Metal3MachineResource, await namespace());
      const made = await api.create(machine('m'));
      await refused(() => api.mergePatch('m', { metadata: { name: 'other' } }), ApiError, 400);
      await refused(() => api.mergePatch('m', { metadata: { uid: 'not-the-uid' } }), InvalidError, 422);
      await refused(() => api.replace({ ...made, metadata: { ...made.metadata, uid: 'not-the-uid' } }), ConflictError, 409);
      const kept = await api.replace({
        ...made,
        metadata: { ...made.metadata, uid: undefined, creationTimestamp: '2001-01-01T00:00:00Z', labels: { a: 'b' } },
      });
      assert.is(kept.metadata.uid, made.metadata.uid);
      assert.is(kept.metadata.creationTimestamp, made.metadata.creationTimestamp);
      assert.is(kept.metadata.labels?.['a'], 'b');
      await refused(() => api.get('other'), NotFoundError, 404);
    },
  },
  {
    name: 'metadata lists and maps emptied by a patch are dropped (finalizers, labels, annotations), as Kubernetes serialises metadata',
    async run({ client, namespace }) {
      const api = client.api(Metal3MachineResource, await namespace());
      await api.create({ ...machine('m'), metadata: { name: 'm', finalizers: ['a.example.com/x'], labels: { a: 'b' }, annotations: { c: 'd' } } });
      const emptied = await api.jsonPatch('m', [
        { op: 'remove', path: '/metadata/finalizers/0' },
        { op: 'remove', path: '/metadata/labels/a' },
        { op: 'remove', path: '/metadata/annotations/c' },
      ]);
      assert.equal([emptied.metadata.finalizers, emptied.metadata.labels, emptied.metadata.annotations], [undefined, undefined, undefined]);
      assert.equal(await api.get('m'), emptied);
    },
  },
  {
    name: 'dry run: create, patch and delete answer what they would do and store nothing',
    async run({ client, namespace }) {
      const api = client.api(Metal3MachineResource, await namespace());
      const dry = await api.create(machine('dry'), { dryRun: true });
      assert.is(dry.metadata.name, 'dry');
      await refused(() => api.get('dry'), NotFoundError, 404);
      const made = await api.create(machine('m'));
      const patched = await api.mergePatch('m', { metadata: { labels: { a: 'b' } } }, { dryRun: true });
      assert.is(patched.metadata.labels?.['a'], 'b');
      assert.equal(await api.get('m'), made);
      // Api.delete sends dryRun in the DeleteOptions body, where the apiserver reads it (a dryRun
      // query alone is ignored once a body is sent, and the object would really be deleted).
      await api.delete('m', { dryRun: true });
      assert.equal(await api.get('m'), made);
    },
  },
];
