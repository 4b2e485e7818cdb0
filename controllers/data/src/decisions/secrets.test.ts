// D-9 steps 5–6, D-10…D-12, E-16: which Secrets a Metal3Data gets and what they look like.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Buffer } from 'node:buffer';
import { CLUSTER_NAME_LABEL, RENDERED_SECRET_LABEL } from '../names.ts';
import { data, DATA_UID, metal3Machine, NS, template } from '../testing.ts';
import { renderedSecret, secretClusterName, secretTargets, withSecretReferences } from './secrets.ts';

const test = suite('rendered Secrets');

test('D-9: both parts asked for: <metal3machine>-metadata and -networkdata, recorded in the spec', () => {
  const d = data();
  const targets = secretTargets(d, template(), metal3Machine());
  assert.equal(targets, [
    { kind: 'metaData', name: 'm3m-metadata', key: 'metaData' },
    { kind: 'networkData', name: 'm3m-networkdata', key: 'networkData' },
  ]);
  const recorded = withSecretReferences(d, targets);
  assert.equal(recorded.spec?.metaData, { name: 'm3m-metadata', namespace: NS });
  assert.equal(recorded.spec?.networkData, { name: 'm3m-networkdata', namespace: NS });
  assert.is(d.spec?.metaData, undefined, 'pure: the input is not changed');
});

test('D-9: a part the template does not render gets no Secret and no name', () => {
  const d = data();
  const targets = secretTargets(d, template((t) => delete t.spec!.networkData), metal3Machine());
  assert.equal(targets, [{ kind: 'metaData', name: 'm3m-metadata', key: 'metaData' }]);
  assert.is(withSecretReferences(d, targets).spec?.networkData, undefined);
  assert.equal(secretTargets(data(), template((t) => (delete t.spec!.networkData, delete t.spec!.metaData)), metal3Machine()), []);
});

test('D-10: a name already in the spec is kept', () => {
  const d = data((x) => (x.spec!.metaData = { name: 'custom', namespace: NS }));
  const targets = secretTargets(d, template(), metal3Machine());
  assert.equal(targets[0], { kind: 'metaData', name: 'custom', key: 'metaData' });
  assert.equal(withSecretReferences(d, targets).spec?.metaData, { name: 'custom', namespace: NS });
});

test('D-11/D-12: type, key, base64 content, cluster label and controller reference to the Metal3Data', () => {
  const secret = renderedSecret({ kind: 'networkData', name: 'm3m-networkdata', key: 'networkData' }, 'links: []\n', data(), 'c1');
  assert.equal(secret, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: 'm3m-networkdata',
      namespace: NS,
      labels: { [CLUSTER_NAME_LABEL]: 'c1', [RENDERED_SECRET_LABEL]: 'true' },
      ownerReferences: [{ apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Data', name: 'tmpl-0', uid: DATA_UID, controller: true }],
    },
    type: 'infrastructure.cluster.x-k8s.io/secret',
    data: { networkData: Buffer.from('links: []\n').toString('base64') },
  });
});

test("E-16 (fixed): the cluster label comes from the template's label, else its clusterName", () => {
  assert.is(secretClusterName(template((t) => (t.metadata.labels = { [CLUSTER_NAME_LABEL]: 'from-label' }))), 'from-label');
  assert.is(secretClusterName(template()), 'c1');
});

test.run();
