// Contract cases for an object's life: the status subresource (each endpoint writes only its
// part), generation (spec changes only), finalizers and deletionTimestamp (deletion waits for the
// last finalizer; none may be added meanwhile), delete preconditions, and owner references (kept as
// written; nothing collects dependents, there being no garbage collector in either target).
import * as assert from 'uvu/assert';
import { ConflictError, InvalidError, NotFoundError } from '@metal3-ts/generated';
import { ConfigMapResource, newConfigMap } from '@metal3-ts/generated/core/v1';
import { Metal3MachineResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { type ContractCase, machine, refused } from './target.ts';

const F1 = 'a.example.com/x';
const F2 = 'b.example.com/y';

export const lifecycleCases: readonly ContractCase[] = [
  {
    name:
      'status subresource: create drops status, main-resource writes ignore status, /status writes ignore everything else; a kind without it has no /status (404)',
    async run({ client, namespace }) {
      const ns = await namespace();
      const api = client.api(Metal3MachineResource, ns);
      const made = await api.create({ ...machine('m'), status: { ready: true } });
      assert.is(made.status?.ready, undefined);
      const main = await api.mergePatch('m', { spec: { providerID: 'p-1' }, status: { ready: true } });
      assert.is(main.spec?.providerID, 'p-1');
      assert.is(main.status?.ready, undefined);
      const status = await api.mergePatchStatus('m', {
        spec: { providerID: 'p-2' },
        metadata: { labels: { a: 'b' } },
        status: { ready: true, failureMessage: 'x' },
      });
      assert.is(status.status?.ready, true);
      assert.is(status.spec?.providerID, 'p-1');
      assert.is(status.metadata.labels?.['a'], undefined);
      const replaced = await api.replaceStatus({ ...status, status: { ready: false } });
      assert.equal(replaced.status, { ready: false });
      assert.equal((await api.getStatus('m')).status, { ready: false });
      const maps = client.api(ConfigMapResource, ns);
      await maps.create(newConfigMap({ metadata: { name: 'c' }, data: { a: '1' } }));
      await refused(() => maps.mergePatchStatus('c', { data: { a: '2' } }), NotFoundError, 404);
    },
  },
  {
    name: 'generation: bumped by a spec change only, not by labels, annotations, finalizers or status',
    async run({ client, namespace }) {
      const api = client.api(Metal3MachineResource, await namespace());
      await api.create(machine('m'));
      const meta = await api.mergePatch('m', { metadata: { labels: { a: 'b' }, annotations: { c: 'd' }, finalizers: [F1] } });
      assert.is(meta.metadata.generation, 1);
      const status = await api.mergePatchStatus('m', { status: { ready: true } });
      assert.is(status.metadata.generation, 1);
      const spec = await api.mergePatch('m', { spec: { providerID: 'p-1' } });
      assert.is(spec.metadata.generation, 2);
      const same = await api.mergePatch('m', { spec: { providerID: 'p-1' } });
      assert.is(same.metadata.generation, 2, 'an unchanged spec does not bump');
    },
  },
  {
    name: 'finalizers: delete sets deletionTimestamp and keeps the object; no finalizer may be added then (422); removing the last one removes the object',
    async run({ client, namespace }) {
      const api = client.api(Metal3MachineResource, await namespace());
      await api.create({ ...machine('m'), metadata: { name: 'm', finalizers: [F1, F2] } });
      const answer = await api.delete('m');
      const deleting = await api.get('m');
      assert.equal(answer, deleting, 'delete answers the object still being deleted');
      assert.ok(deleting.metadata.deletionTimestamp);
      assert.is(deleting.metadata.generation, 2, 'setting deletionTimestamp bumps the generation');
      assert.equal(deleting.metadata.finalizers, [F1, F2]);
      await api.delete('m');
      assert.is((await api.get('m')).metadata.deletionTimestamp, deleting.metadata.deletionTimestamp, 'a second delete changes nothing');
      await refused(() => api.mergePatch('m', { metadata: { finalizers: [F1, F2, 'c.example.com/z'] } }), InvalidError, 422);
      const one = await api.jsonPatch('m', [{ op: 'test', path: '/metadata/finalizers/0', value: F1 }, { op: 'remove', path: '/metadata/finalizers/0' }]);
      assert.equal(one.metadata.finalizers, [F2]);
      assert.ok(one.metadata.deletionTimestamp);
      await api.jsonPatch('m', [{ op: 'test', path: '/metadata/finalizers/0', value: F2 }, { op: 'remove', path: '/metadata/finalizers/0' }]);
      await refused(() => api.get('m'), NotFoundError, 404);
    },
  },
  {
    name: 'delete: without finalizers the object is gone at once (the answer is a Status); a stale resourceVersion or uid precondition is a Conflict (409)',
    async run({ client, namespace }) {
      const api = client.api(Metal3MachineResource, await namespace());
      const made = await api.create(machine('m'));
      await api.mergePatch('m', { metadata: { labels: { a: 'b' } } });
      await refused(() => api.delete('m', { preconditions: { resourceVersion: made.metadata.resourceVersion } }), ConflictError, 409);
      await refused(() => api.delete('m', { preconditions: { uid: '00000000-0000-0000-0000-000000000000' } }), ConflictError, 409);
      const gone = await api.delete('m', { preconditions: { uid: made.metadata.uid } });
      assert.equal([gone.kind, 'status' in gone ? gone.status : undefined], ['Status', 'Success'], 'deleted at once: answered with a Status');
      await refused(() => api.get('m'), NotFoundError, 404);
    },
  },
  {
    name: 'owner references are stored as written, and deleting the owner leaves the dependent (no garbage collector)',
    async run({ client, namespace }) {
      const ns = await namespace();
      const api = client.api(Metal3MachineResource, ns);
      const owner = await api.create(machine('owner'));
      const ref = { apiVersion: owner.apiVersion, kind: owner.kind, name: 'owner', uid: owner.metadata.uid ?? '', controller: true, blockOwnerDeletion: true };
      const maps = client.api(ConfigMapResource, ns);
      const dependent = await maps.create(newConfigMap({ metadata: { name: 'c', ownerReferences: [ref] } }));
      assert.equal(dependent.metadata.ownerReferences, [ref]);
      await api.delete('owner');
      await refused(() => api.get('owner'), NotFoundError, 404);
      assert.equal((await maps.get('c')).metadata.ownerReferences, [ref]);
    },
  },
];
