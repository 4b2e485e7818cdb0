import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { apiError, type MergePatch } from '@metal3-ts/generated';
import type { Metal3DataClaim } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { claim, data, template } from '../testing.ts';
import { bindClaim } from './bind.ts';

const test = suite('bindClaim: status.renderedData, locked by the claim\'s resourceVersion');

const conflict = () => apiError(409, { apiVersion: 'v1', kind: 'Status', status: 'Failure', reason: 'Conflict', code: 409 }, { verb: 'patch', path: '/x' });

/** A claim on a fake server: patches must carry its current resourceVersion. */
function server(initial: Metal3DataClaim) {
  let current = structuredClone(initial);
  const patches: MergePatch<Metal3DataClaim>[] = [];
  return {
    patches,
    set(next: Metal3DataClaim) {
      current = structuredClone(next);
    },
    api: {
      async mergePatchStatus(_name: string, patch: MergePatch<Metal3DataClaim>): Promise<Metal3DataClaim> {
        patches.push(patch);
        if (patch.metadata?.resourceVersion !== current.metadata.resourceVersion) throw conflict();
        const rv = String(Number(current.metadata.resourceVersion) + 1);
        current = { ...current, metadata: { ...current.metadata, resourceVersion: rv }, status: { renderedData: patch.status?.renderedData as { name: string; namespace: string } } };
        return structuredClone(current);
      },
      async get(): Promise<Metal3DataClaim> {
        return structuredClone(current);
      },
    },
  };
}

const t = template('tmpl');

test('DT-14/DC-2: names the Metal3Data and clears errorMessage, with the resourceVersion as precondition', async () => {
  const c = claim('c', { errorMessage: 'Metal3Machine not found in owner references' });
  const s = server(c);
  const outcome = await bindClaim(s.api, c, data(t, c, 2));
  assert.is(outcome.kind, 'Bound');
  assert.equal(s.patches, [{ metadata: { resourceVersion: '1' }, status: { renderedData: { name: 'tmpl-2', namespace: 'ns' }, errorMessage: null } }]);
});

test('already bound: no write', async () => {
  const c = claim('c', { renderedData: 'tmpl-2' });
  const s = server(c);
  assert.is((await bindClaim(s.api, c, data(t, c, 2))).kind, 'Bound');
  assert.is(s.patches.length, 0);
});

test('a stale cached claim: conflict, re-read, write again', async () => {
  const c = claim('c');
  const s = server(c);
  s.set({ ...c, metadata: { ...c.metadata, resourceVersion: '5', labels: { touched: 'yes' } } });
  const outcome = await bindClaim(s.api, c, data(t, c, 0));
  assert.is(outcome.kind, 'Bound');
  assert.is(s.patches.length, 2);
});

test('another writer bound the claim to another Metal3Data first: BoundElsewhere (the caller gives its own back)', async () => {
  const c = claim('c');
  const s = server(c);
  s.set({ ...c, metadata: { ...c.metadata, resourceVersion: '7' }, status: { renderedData: { name: 'tmpl-9', namespace: 'ns' } } });
  assert.equal(await bindClaim(s.api, c, data(t, c, 0)), { kind: 'BoundElsewhere', name: 'tmpl-9' });
});

test('a claim recorded with a vanished Metal3Data is re-pointed at the new one, even across a conflict', async () => {
  const c = claim('c', { renderedData: 'tmpl-4' });
  const s = server(c);
  s.set({ ...c, metadata: { ...c.metadata, resourceVersion: '2' } });
  assert.is((await bindClaim(s.api, c, data(t, c, 5))).kind, 'Bound');
});

test('a claim deleted meanwhile: ClaimGone', async () => {
  const c = claim('c');
  const s = server(c);
  s.set({ ...c, metadata: { ...c.metadata, resourceVersion: '3', deletionTimestamp: '2026-01-01T00:00:00Z' } });
  assert.equal(await bindClaim(s.api, c, data(t, c, 0)), { kind: 'ClaimGone' });
});

test.run();
