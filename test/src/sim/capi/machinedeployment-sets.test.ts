import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { MachineDeployment, MachineSet } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { templateHash } from './machinedeployment-hash.ts';
import { ensureDeploymentLabels, machineSetForDeployment, nextRevision, setsToPrune, splitSets } from './machinedeployment-sets.ts';
import { deploymentStatus } from './machinedeployment-status.ts';

const test = suite('MachineDeployment sets and status (pure)');

const md: MachineDeployment = {
  apiVersion: 'cluster.x-k8s.io/v1beta1',
  kind: 'MachineDeployment',
  metadata: { name: 'md', namespace: 'ns', uid: 'md-uid', generation: 2 },
  spec: {
    clusterName: 'c1',
    replicas: 3,
    minReadySeconds: 5,
    selector: { matchLabels: { pool: 'w' } },
    strategy: { rollingUpdate: { deletePolicy: 'Oldest' } },
    template: {
      metadata: { labels: { pool: 'w' }, annotations: { a: 'b' } },
      spec: {
        clusterName: 'c1',
        version: 'v1.31.0',
        bootstrap: { configRef: { apiVersion: 'bootstrap.cluster.x-k8s.io/v1beta1', kind: 'KubeadmConfigTemplate', name: 'kct' } },
        infrastructureRef: { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3MachineTemplate', name: 'v1' },
      },
    },
  },
};

function setFrom(
  deployment: MachineDeployment,
  created: string,
  extra: { replicas?: number; status?: MachineSet['status']; revision?: number } = {},
): MachineSet {
  const ms = machineSetForDeployment(deployment, { replicas: extra.replicas ?? 0, revision: extra.revision ?? 1, maxReplicas: 4 });
  ms.metadata.creationTimestamp = created;
  if (extra.status) ms.status = extra.status;
  return ms;
}

const v2 = (() => {
  const d = structuredClone(md);
  d.spec!.template.spec!.infrastructureRef.name = 'v2';
  return d;
})();

test('defaults: cluster-name on the deployment; cluster-name and deployment-name in selector and template labels', () => {
  const d = structuredClone(md);
  assert.ok(ensureDeploymentLabels(d));
  assert.equal(d.metadata.labels, { 'cluster.x-k8s.io/cluster-name': 'c1' });
  assert.equal(d.spec?.selector.matchLabels, { pool: 'w', 'cluster.x-k8s.io/cluster-name': 'c1', 'cluster.x-k8s.io/deployment-name': 'md' });
  assert.equal(d.spec?.template.metadata?.labels, { pool: 'w', 'cluster.x-k8s.io/cluster-name': 'c1', 'cluster.x-k8s.io/deployment-name': 'md' });
  assert.not.ok(ensureDeploymentLabels(d), 'a second pass changes nothing');
});

test('the set of a revision: named by hash, hash in labels and selector, deployment as controller, revision annotations', () => {
  const hash = templateHash(md.spec!.template);
  const ms = machineSetForDeployment(md, { replicas: 1, revision: 3, maxReplicas: 4 });
  assert.is(ms.metadata.name, `md-${hash}`);
  assert.equal(ms.metadata.labels, {
    pool: 'w',
    'machine-template-hash': hash,
    'cluster.x-k8s.io/cluster-name': 'c1',
    'cluster.x-k8s.io/deployment-name': 'md',
  });
  assert.equal(ms.metadata.annotations, {
    'machinedeployment.clusters.x-k8s.io/revision': '3',
    'machinedeployment.clusters.x-k8s.io/desired-replicas': '3',
    'machinedeployment.clusters.x-k8s.io/max-replicas': '4',
  });
  assert.equal(ms.metadata.ownerReferences, [{
    apiVersion: 'cluster.x-k8s.io/v1beta1',
    kind: 'MachineDeployment',
    name: 'md',
    uid: 'md-uid',
    controller: true,
    blockOwnerDeletion: true,
  }]);
  assert.equal(ms.spec?.selector, { matchLabels: { pool: 'w', 'machine-template-hash': hash } });
  assert.equal(ms.spec?.template?.metadata, { labels: { pool: 'w', 'machine-template-hash': hash }, annotations: { a: 'b' } });
  assert.is(ms.spec?.template?.spec?.infrastructureRef.name, 'v1');
  assert.is(ms.spec?.replicas, 1);
  assert.is(ms.spec?.deletePolicy, 'Oldest');
  assert.is(ms.spec?.minReadySeconds, 5);
});

test('new and old sets: the oldest set of the current revision is the new one', () => {
  const a = setFrom(md, '2030-01-01T00:00:01Z');
  const b = setFrom(v2, '2030-01-01T00:00:02Z');
  const { newSet, oldSets } = splitSets(v2, [a, b]);
  assert.is(newSet, b);
  assert.equal(oldSets, [a]);
  assert.is(splitSets(structuredClone(v2), []).newSet, undefined);
  assert.is(nextRevision([setFrom(md, 'x', { revision: 4 }), setFrom(v2, 'y', { revision: 2 })]), 5);
  assert.is(nextRevision([]), 1);
});

test('pruning keeps the newest empty old sets up to revisionHistoryLimit (default 1)', () => {
  const empty = (t: string) => setFrom(md, t, { replicas: 0, status: { replicas: 0 } });
  const x = empty('2030-01-01T00:00:01Z');
  const y = empty('2030-01-01T00:00:02Z');
  const z = empty('2030-01-01T00:00:03Z');
  const busy = setFrom(md, '2030-01-01T00:00:00Z', { replicas: 0, status: { replicas: 1 } });
  assert.equal(setsToPrune(md, [z, busy, y, x]), [x, y]);
  assert.equal(setsToPrune({ ...md, spec: { ...md.spec!, revisionHistoryLimit: 0 } }, [z, y, x]), [x, y, z]);
});

test('pruning orders sets created in the same second by revision', () => {
  const same = '2030-01-01T00:00:01Z';
  const r1 = setFrom(md, same, { revision: 1, status: { replicas: 0 } });
  const r2 = setFrom(v2, same, { revision: 2, status: { replicas: 0 } });
  r1.metadata.name = 'md-zzz';
  r2.metadata.name = 'md-aaa';
  assert.equal(setsToPrune(md, [r2, r1]), [r1]);
});

test('status sums the sets; updatedReplicas from the new set; phase from ready vs desired', () => {
  const old = setFrom(md, 't1', { replicas: 1, status: { replicas: 1, readyReplicas: 1, availableReplicas: 1 } });
  const fresh = setFrom(v2, 't2', { replicas: 3, status: { replicas: 3, readyReplicas: 2, availableReplicas: 1 } });
  const status = deploymentStatus(v2, fresh, [old, fresh]);
  assert.equal(
    {
      r: status.replicas,
      u: status.updatedReplicas,
      rd: status.readyReplicas,
      a: status.availableReplicas,
      un: status.unavailableReplicas,
      p: status.phase,
      g: status.observedGeneration,
      s: status.selector,
    },
    { r: 4, u: 3, rd: 3, a: 2, un: 1, p: 'Running', g: 2, s: 'pool=w' },
  );
  assert.is(deploymentStatus(v2, fresh, [fresh]).phase, 'ScalingUp');
  assert.is(deploymentStatus(v2, undefined, [setFrom(md, 't', { status: { replicas: 5, readyReplicas: 5 } })]).phase, 'ScalingDown');
  assert.is(deploymentStatus(v2, undefined, [setFrom(md, 't', { status: { failureReason: 'x' } })]).phase, 'Failed');
});

test.run();
