import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Machine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type { Metal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { specDataSecrets, userDataFor } from './host-spec.ts';

const m3m = (spec: Metal3Machine['spec']): Metal3Machine =>
  ({ apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Machine', metadata: { name: 'm', namespace: 'ns' }, spec }) as Metal3Machine;
const machine = (bootstrap: object): Machine => ({ metadata: { name: 'm', namespace: 'ns' }, spec: { clusterName: 'c', bootstrap } }) as unknown as Machine;
const configRef = { apiVersion: 'bootstrap.cluster.x-k8s.io/v1beta1', kind: 'KubeadmConfig', name: 'kc-1' };

test('M-23, E-8: bootstrap dataSecretName, then the config name, then spec.userData', () => {
  assert.equal(userDataFor(m3m({ userData: { name: 'mine' } }), machine({ dataSecretName: 'boot', configRef })), { name: 'boot', namespace: 'ns' });
  assert.equal(userDataFor(m3m({ userData: { name: 'mine' } }), machine({ configRef })), { name: 'kc-1', namespace: 'ns' });
  assert.equal(userDataFor(m3m({ userData: { name: 'mine', namespace: 'ns' } }), machine({})), { name: 'mine', namespace: 'ns' });
  assert.is(userDataFor(m3m({}), machine({})), undefined);
});

test('M-35: the metadata and network data Secrets of the spec, as named', () => {
  assert.equal(specDataSecrets(m3m({ metaData: { name: 'md' }, networkData: { name: 'nd', namespace: 'ns' } })), {
    metaData: { name: 'md' },
    networkData: { name: 'nd', namespace: 'ns' },
  });
  assert.equal(specDataSecrets(m3m({})), {});
});

test.run();
