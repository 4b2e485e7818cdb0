// S-11: when a CRD's objects must be rewritten, through which version, and what is trimmed after.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type CrdVersion, type CustomResourceDefinition, storageFields } from './crd.ts';
import { storagePlan } from './plan.ts';

function crd(versions: CrdVersion[], storedVersions?: string[], spec: CustomResourceDefinition['spec'] = {}): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'metal3machines.infrastructure.cluster.x-k8s.io', resourceVersion: '7' },
    spec: { group: 'infrastructure.cluster.x-k8s.io', names: { kind: 'Metal3Machine', plural: 'metal3machines' }, scope: 'Namespaced', versions, ...spec },
    ...(storedVersions ? { status: { storedVersions } } : {}),
  };
}

const V1BETA1 = { name: 'v1beta1', served: true, storage: false };
const V1BETA2 = { name: 'v1beta2', served: true, storage: true };

test('S-11 plan table: Current when storedVersions holds only the storage version, Migrate otherwise, Invalid without one storage version', () => {
  const rows: [string, CustomResourceDefinition, ReturnType<typeof storagePlan>][] = [
    ['fresh install: nothing stored yet', crd([V1BETA1, V1BETA2]), { kind: 'Current', storage: 'v1beta2' }],
    ['migrated', crd([V1BETA1, V1BETA2], ['v1beta2']), { kind: 'Current', storage: 'v1beta2' }],
    ['upgraded from v1beta1 storage', crd([V1BETA1, V1BETA2], ['v1beta1', 'v1beta2']), {
      kind: 'Migrate',
      storage: 'v1beta2',
      stale: ['v1beta1'],
      via: 'v1beta2',
    }],
    ['storage changed, nothing written since', crd([V1BETA1, V1BETA2], ['v1beta1']), {
      kind: 'Migrate',
      storage: 'v1beta2',
      stale: ['v1beta1'],
      via: 'v1beta2',
    }],
    ['storage version not served: through a served one', crd([V1BETA1, { ...V1BETA2, served: false }], ['v1beta1', 'v1beta2']), {
      kind: 'Migrate',
      storage: 'v1beta2',
      stale: ['v1beta1'],
      via: 'v1beta1',
    }],
    ['nothing served', crd([{ ...V1BETA1, served: false }, { ...V1BETA2, served: false }], ['v1beta1', 'v1beta2']), {
      kind: 'Invalid',
      message: 'CRD metal3machines.infrastructure.cluster.x-k8s.io: no version is served, so its objects cannot be rewritten',
    }],
    ['two storage versions', crd([{ ...V1BETA1, storage: true }, V1BETA2], ['v1beta1']), {
      kind: 'Invalid',
      message: 'CRD metal3machines.infrastructure.cluster.x-k8s.io: needs a group, a plural and exactly one storage version (has 2)',
    }],
    ['no plural', crd([V1BETA1, V1BETA2], ['v1beta1'], { names: {} }), {
      kind: 'Invalid',
      message: 'CRD metal3machines.infrastructure.cluster.x-k8s.io: needs a group, a plural and exactly one storage version (has 1)',
    }],
  ];
  for (const [why, input, want] of rows) assert.equal(storagePlan(input), want, why);
});

test('the cached CRD keeps names, version flags, storedVersions and resourceVersion; schemas and the rest go', () => {
  const full = crd([{ ...V1BETA2, schema: { openAPIV3Schema: { type: 'object' } } } as CrdVersion], ['v1beta1', 'v1beta2']);
  full.metadata.managedFields = [{ manager: 'kubectl' }];
  full.metadata.annotations = { 'cert-manager.io/inject-ca-from': 'ns/cert' };
  const kept = storageFields(full);
  assert.equal(kept.spec?.versions, [V1BETA2]);
  assert.equal(kept.status?.storedVersions, ['v1beta1', 'v1beta2']);
  assert.is(kept.metadata.resourceVersion, '7');
  assert.is(kept.metadata.managedFields, undefined);
  assert.is(kept.metadata.annotations, undefined);
  assert.equal(storagePlan(kept), storagePlan(full));
});

test.run();
