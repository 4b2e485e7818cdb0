// DT-5…DT-8, E-43: a Metal3DataTemplate's life cycle decisions.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Cluster } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type { Metal3DataTemplate } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { METAL3_DATA_TEMPLATE_FINALIZER } from '../names.ts';
import { claim, cluster, data, template } from '../testing.ts';
import { deletionBlockers, type TemplateGuard, templateGuard } from './guards.ts';

const test = suite('Metal3DataTemplate guards');

const deleting = (finalizer: boolean) => (t: Metal3DataTemplate) => {
  t.metadata.deletionTimestamp = '2025-01-01T00:00:00Z';
  if (finalizer) t.metadata.finalizers = [METAL3_DATA_TEMPLATE_FINALIZER];
};

const rows: [string, Metal3DataTemplate, Cluster | undefined, TemplateGuard['kind']][] = [
  ['DT-6/DT-8: Cluster found', template(), cluster(), 'Reconcile'],
  ['DT-5/E-43: Cluster not found: wait for its creation', template(), undefined, 'WaitForCluster'],
  ['DT-6: Cluster paused', template(), cluster(true), 'Paused'],
  ['DT-6: template paused by annotation', template((t) => (t.metadata.annotations = { 'cluster.x-k8s.io/paused': 'true' })), cluster(), 'Paused'],
  ['DT-7: deletion', template(deleting(true)), cluster(), 'Delete'],
  ['DT-5: deletion goes on without the Cluster', template(deleting(true)), undefined, 'Delete'],
  ['DT-6: a paused deletion waits', template(deleting(true)), cluster(true), 'Paused'],
  ['deleting without our finalizer: nothing to do', template(deleting(false)), cluster(), 'NotOurs'],
];

for (const [title, t, c, kind] of rows) {
  test(title, () => {
    assert.is(templateGuard(t, c).kind, kind);
  });
}

test('DT-7: live claims and every Metal3Data of the template block its deletion; deleting claims do not', () => {
  const t = template();
  const liveClaim = claim((c) => (c.metadata.name = 'live'));
  const goingClaim = claim((c) => ((c.metadata.name = 'going'), (c.metadata.deletionTimestamp = 'x')));
  const otherClaim = claim((c) => ((c.metadata.name = 'other'), (c.spec!.template = { name: 'other' })));
  const d = data();
  const goingData = data((x) => ((x.metadata.name = 'tmpl-1'), (x.metadata.deletionTimestamp = 'x')));
  assert.is(
    deletionBlockers(t, [liveClaim, goingClaim, otherClaim], [d, goingData]),
    'Waiting for Metal3DataClaims live and Metal3Data tmpl-0, tmpl-1 to be deleted',
  );
  assert.is(deletionBlockers(t, [goingClaim, otherClaim], [goingData]), 'Waiting for Metal3Data tmpl-1 to be deleted');
  assert.is(deletionBlockers(t, [goingClaim, otherClaim], []), undefined);
});

test('DR-1: objects of another namespace do not count', () => {
  const elsewhere = data((x) => (x.metadata.namespace = 'elsewhere'));
  assert.is(deletionBlockers(template(), [], [elsewhere]), undefined);
});

test.run();
