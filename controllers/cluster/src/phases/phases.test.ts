// The I/O phases of a Metal3Cluster reconcile on the fake apiserver (shared/src/testing/fake-client),
// each given a scope as readScope builds it: W-2/C-5 spec defaults under a concurrent edit (the guard
// fails, the harness's retryOnConflict re-reads, the plan follows the edit), C-12 the finalizer,
// C-11 the deletion wait and the finalizer removal, C-8/C-13 the outcome and its Warning event.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Client } from '@metal3-ts/generated';
import { newCluster } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import {
  type Metal3Cluster,
  Metal3ClusterResource,
  type Metal3ClusterSpec,
  newMetal3Cluster,
} from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { markFalse } from '@metal3-ts/shared/conditions/set';
import type { EventRecorder } from '@metal3-ts/shared/events/recorder';
import { silentLogger } from '@metal3-ts/shared/log/logger';
import { fakeCluster } from '@metal3-ts/shared/testing/fake-client/index';
import { clusterContext } from '../context.ts';
import type { ClusterMachines } from '../decisions/delete.ts';
import type { Guard } from '../guards.ts';
import { METAL3_CLUSTER_FINALIZER } from '../names.ts';
import type { ClusterScope } from '../scope.ts';
import { reconcileDeletion } from './deletion.ts';
import { reconcileFinalizer } from './finalizer.ts';
import { reconcileOutcome } from './outcome.ts';
import { reconcileSpecDefaults } from './spec-defaults.ts';

const test = suite('Metal3Cluster phases (fake apiserver)');
const NS = 'ns';
const ENDPOINT = { host: '10.0.0.1', port: 6443 };

/** A Metal3Cluster on a fake server, a scope over it as the reconcile reads it, and what the phases told. */
async function world(spec: Metal3ClusterSpec, options: { decision?: Guard; machines?: ClusterMachines; finalizers?: string[] } = {}) {
  const cluster = fakeCluster();
  const api = cluster.client.api(Metal3ClusterResource, NS);
  const stored = await api.create(newMetal3Cluster({ metadata: { name: 'm3c', ...(options.finalizers ? { finalizers: options.finalizers } : {}) }, spec }));
  const events: string[] = [];
  const warning = (_o: unknown, reason: string, message: string) => void events.push(`${reason}: ${message}`);
  const ctx = clusterContext({ client: cluster.client, informers: {} as never, events: { warning } as unknown as EventRecorder, requeueAfterMs: 1000 });
  const scope: ClusterScope = {
    object: `Metal3Cluster ${NS}/m3c`,
    cached: stored,
    cluster: undefined,
    decision: options.decision ?? { kind: 'WaitForOwnerRef' },
    machines: options.machines ?? { machines: [], metal3Machines: [] },
    api,
    log: silentLogger,
    now: new Date(),
    m3c: structuredClone(stored) as Metal3Cluster,
    observed: {},
  };
  return { cluster, api, ctx, scope, events };
}

/** `METHOD code` of every request `client` sends from now on; `before` runs ahead of each. */
function requests(client: Client, before?: (method: string) => Promise<void>): string[] {
  const seen: string[] = [];
  client.transport.hooks = {
    before: async (r) => await before?.(r.method),
    after: (r) => void seen.push(`${r.method} ${r.code}`),
  };
  return seen;
}

test('W-2/C-5: a concurrent edit of a defaulted field fails the guard; the phase re-reads and writes the defaults of the edited spec', async () => {
  const w = await world({ controlPlaneEndpoint: { host: ENDPOINT.host, port: 0 } });
  const user = w.cluster.newClient().api(Metal3ClusterResource, NS);
  let edited = false;
  const seen = requests(w.cluster.client, async (method) => {
    if (method !== 'PATCH' || edited) return;
    edited = true;
    await user.mergePatch('m3c', { spec: { noCloudProvider: true } });
  });
  assert.is(await reconcileSpecDefaults(w.ctx, w.scope), undefined);
  assert.equal(seen, ['PATCH 422', 'GET 200', 'PATCH 200']);
  const stored = await w.api.get('m3c');
  assert.equal([stored.spec?.controlPlaneEndpoint?.port, stored.spec?.cloudProviderEnabled, stored.spec?.noCloudProvider], [6443, false, true]);
  assert.is(w.scope.m3c.metadata.resourceVersion, stored.metadata.resourceVersion, 'the written object is the working copy');
});

test('W-2/C-13: nothing to default, or an invalid endpoint, sends nothing', async () => {
  for (
    const spec of [{ controlPlaneEndpoint: ENDPOINT, cloudProviderEnabled: true, noCloudProvider: false }, {
      controlPlaneEndpoint: { host: 'https://x', port: 0 },
    }]
  ) {
    const w = await world(spec);
    const seen = requests(w.cluster.client);
    await reconcileSpecDefaults(w.ctx, w.scope);
    assert.equal(seen, [], JSON.stringify(spec));
  }
});

test("C-12: the finalizer goes on beside another controller's and the written object becomes the working copy", async () => {
  const w = await world({ controlPlaneEndpoint: ENDPOINT }, { finalizers: ['other.example.com/x'] });
  await reconcileFinalizer(w.ctx, w.scope);
  const stored = await w.api.get('m3c');
  assert.equal(stored.metadata.finalizers, ['other.example.com/x', METAL3_CLUSTER_FINALIZER]);
  assert.is(w.scope.m3c.metadata.resourceVersion, stored.metadata.resourceVersion);
});

test('C-11: machines left: a Deleting outcome naming them and the safety-net wait, the finalizer kept; none left: removed, released', async () => {
  const machine = { apiVersion: 'v1', kind: 'Machine', metadata: { name: 'm1' } };
  const waiting = await world({ controlPlaneEndpoint: ENDPOINT }, {
    decision: { kind: 'Delete', clusterName: 'c1' },
    machines: { machines: [machine], metal3Machines: [] },
    finalizers: [METAL3_CLUSTER_FINALIZER],
  });
  assert.equal(await reconcileDeletion(waiting.ctx, waiting.scope), { requeueAfterMs: 1000 });
  assert.equal(waiting.scope.observed, { outcome: { kind: 'Deleting', message: 'Waiting for 1 Machine (m1) of Cluster c1 to be deleted' } });
  assert.equal((await waiting.api.get('m3c')).metadata.finalizers, [METAL3_CLUSTER_FINALIZER]);

  const done = await world({ controlPlaneEndpoint: ENDPOINT }, {
    decision: { kind: 'Delete', clusterName: 'c1' },
    finalizers: [METAL3_CLUSTER_FINALIZER, 'x.io/y'],
  });
  assert.equal(await reconcileDeletion(done.ctx, done.scope), {});
  assert.is(done.scope.observed.released, true);
  assert.equal((await done.api.get('m3c')).metadata.finalizers, ['x.io/y']);
});

test('C-8/C-13: the outcome is recorded; its Warning event only when the condition does not say it yet; a missing owner waits for the safety net', async () => {
  const cluster = newCluster({ metadata: { name: 'c1', namespace: NS }, spec: {} });
  const bad = await world({ controlPlaneEndpoint: { host: ENDPOINT.host, port: 70000 } }, { decision: { kind: 'Reconcile', cluster } });
  assert.is(reconcileOutcome(bad.ctx, bad.scope), undefined);
  assert.is(bad.scope.observed.outcome?.kind, 'EndpointInvalid');
  assert.is(bad.events.length, 1);
  const message = (bad.scope.observed.outcome as { message: string }).message;
  markFalse(bad.scope.m3c, 'BaremetalInfrastructureReady', 'ControlPlaneEndpointFailed', 'Error', message);
  reconcileOutcome(bad.ctx, bad.scope);
  assert.is(bad.events.length, 1, 'told once');

  const ghost = await world({ controlPlaneEndpoint: ENDPOINT }, { decision: { kind: 'OwnerClusterMissing', clusterName: 'c1' } });
  assert.equal(reconcileOutcome(ghost.ctx, ghost.scope), { requeueAfterMs: 1000 });
  assert.equal(ghost.events, ['FailedToGetOwnerCluster: Unable to get owner cluster: Cluster ns/c1 not found']);
});

test.run();
