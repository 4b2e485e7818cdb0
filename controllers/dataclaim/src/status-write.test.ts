import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { apiError, type MergePatch } from '@metal3-ts/generated';
import type { Metal3Data, Metal3DataClaim, Metal3DataClaimStatus } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { claim, data, template } from './testing.ts';
import { lostBinding, statusPatch, writeStatus } from './status-write.ts';

const test = suite("writeStatus: the claim's one status write; binding it is locked by the claim's resourceVersion");

const conflict = () => apiError(409, { apiVersion: 'v1', kind: 'Status', status: 'Failure', reason: 'Conflict', code: 409 }, { verb: 'patch', path: '/x' });

/** A claim on a fake server: patches carrying a resourceVersion must carry its current one. */
function server(initial: Metal3DataClaim) {
  let current = structuredClone(initial);
  const patches: MergePatch<Metal3DataClaim>[] = [];
  return {
    patches,
    set(next: Metal3DataClaim) {
      current = structuredClone(next);
    },
    api: {
      mergePatchStatus(_name: string, patch: MergePatch<Metal3DataClaim>): Promise<Metal3DataClaim> {
        patches.push(patch);
        const rv = patch.metadata?.resourceVersion;
        if (rv !== undefined && rv !== current.metadata.resourceVersion) return Promise.reject(conflict());
        const status = { ...current.status, ...(patch.status as Metal3DataClaimStatus) };
        for (const [k, v] of Object.entries(status)) if (v === null) delete (status as Record<string, unknown>)[k];
        current = { ...current, metadata: { ...current.metadata, resourceVersion: String(Number(current.metadata.resourceVersion) + 1) }, status };
        return Promise.resolve(structuredClone(current));
      },
      get(): Promise<Metal3DataClaim> {
        return Promise.resolve(structuredClone(current));
      },
    },
  };
}

const t = template('tmpl');
/** deriveStatus as the Allocate decision says it once `d` serves the claim. */
const boundTo = (d: Metal3Data) => (): Metal3DataClaimStatus => ({ renderedData: { name: d.metadata.name ?? '', namespace: d.metadata.namespace ?? '' } });

test('DT-14/DC-2: names the Metal3Data and clears errorMessage, with the resourceVersion as precondition', async () => {
  const c = claim('c', { errorMessage: 'Metal3Machine not found in owner references' });
  const s = server(c);
  const outcome = await writeStatus(s.api, c, boundTo(data(t, c, 2)));
  assert.is(outcome.binding.kind, 'Bound');
  assert.equal(outcome.replaced, { errorMessage: 'Metal3Machine not found in owner references' });
  assert.equal(s.patches, [{ metadata: { resourceVersion: '1' }, status: { renderedData: { name: 'tmpl-2', namespace: 'ns' }, errorMessage: null } }]);
});

test('already bound: no write', async () => {
  const c = claim('c', { renderedData: 'tmpl-2' });
  const s = server(c);
  const outcome = await writeStatus(s.api, c, boundTo(data(t, c, 2)));
  assert.is(outcome.binding.kind, 'Bound');
  assert.is(outcome.replaced, undefined);
  assert.is(s.patches.length, 0);
});

test('DC-2: an errorMessage alone is a plain merge patch (no lock)', async () => {
  const c = claim('c');
  const s = server(c);
  s.set({ ...c, metadata: { ...c.metadata, resourceVersion: '9' } });
  await writeStatus(s.api, c, () => ({ errorMessage: 'Metal3Machine not found in owner references' }));
  assert.equal(s.patches, [{ status: { errorMessage: 'Metal3Machine not found in owner references' } }]);
});

test('a stale cached claim: conflict, re-read, write again (retryOnConflict)', async () => {
  const c = claim('c');
  const s = server(c);
  s.set({ ...c, metadata: { ...c.metadata, resourceVersion: '5', labels: { touched: 'yes' } } });
  const outcome = await writeStatus(s.api, c, boundTo(data(t, c, 0)));
  assert.is(outcome.binding.kind, 'Bound');
  assert.is(s.patches.length, 2);
});

test('another writer bound the claim to another Metal3Data first: BoundElsewhere (the caller gives its own back)', async () => {
  const c = claim('c');
  const s = server(c);
  s.set({ ...c, metadata: { ...c.metadata, resourceVersion: '7' }, status: { renderedData: { name: 'tmpl-9', namespace: 'ns' } } });
  assert.equal((await writeStatus(s.api, c, boundTo(data(t, c, 0)))).binding, { kind: 'BoundElsewhere', name: 'tmpl-9' });
});

test('a claim recorded with a vanished Metal3Data is re-pointed at the new one, even across a conflict', async () => {
  const c = claim('c', { renderedData: 'tmpl-4' });
  const s = server(c);
  s.set({ ...c, metadata: { ...c.metadata, resourceVersion: '2' } });
  assert.is((await writeStatus(s.api, c, boundTo(data(t, c, 5)))).binding.kind, 'Bound');
});

test('a claim deleted meanwhile: ClaimGone; one gone from the server (404): ClaimGone', async () => {
  const c = claim('c');
  const s = server(c);
  s.set({ ...c, metadata: { ...c.metadata, resourceVersion: '3', deletionTimestamp: '2026-01-01T00:00:00Z' } });
  assert.equal((await writeStatus(s.api, c, boundTo(data(t, c, 0)))).binding, { kind: 'ClaimGone' });
  const gone = {
    mergePatchStatus: () => Promise.reject(apiError(404, undefined, { verb: 'patch', path: '/x' })),
    get: () => Promise.reject(new Error('unused')),
  };
  assert.equal((await writeStatus(gone, c, boundTo(data(t, c, 0)))).binding, { kind: 'ClaimGone' });
});

test('statusPatch: only what changed, null deletes; lostBinding: a third name, or a claim going', () => {
  const ref = { name: 'tmpl-1', namespace: 'ns' };
  assert.is(statusPatch({ renderedData: ref }, { renderedData: ref }), undefined);
  assert.equal(statusPatch({ renderedData: ref, errorMessage: 'x' }, { renderedData: ref }), { errorMessage: null });
  assert.equal(statusPatch({ renderedData: ref }, {}), { renderedData: null });
  assert.equal(statusPatch(undefined, { errorMessage: 'y' }), { errorMessage: 'y' });
  const c = claim('c', { renderedData: 'tmpl-4' });
  assert.is(lostBinding(c, c, 'tmpl-5'), undefined, "the name we replace is not another writer's");
  assert.equal(lostBinding(c, claim('c', { renderedData: 'tmpl-6' }), 'tmpl-5'), { kind: 'BoundElsewhere', name: 'tmpl-6' });
  assert.equal(lostBinding(c, claim('c', { uid: 'other' }), 'tmpl-5'), { kind: 'ClaimGone' });
});

test.run();
