import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { registry } from '../src/index.ts';
import { Metal3MachineResource, isMetal3Machine, newMetal3Machine } from '../src/infrastructure.cluster.x-k8s.io/v1beta1.ts';
import { SecretResource } from '../src/core/v1.ts';
import * as seeds from './seeds.ts';

test('registry: every seed object resolves to its descriptor by apiVersion and kind', () => {
  const values: unknown[] = Object.values(seeds);
  const objects = values.filter((v): v is { apiVersion: string; kind: string } => typeof v === 'object' && v !== null && 'kind' in v);
  assert.ok(objects.length >= 14);
  for (const obj of objects) {
    const d = registry.forObject(obj);
    assert.ok(d, `${obj.apiVersion} ${obj.kind}`);
    assert.is(d!.kind, obj.kind);
    assert.is(d!.apiVersion, obj.apiVersion);
  }
});

test('registry: group/version/kind keys, core group included, unknown kinds absent', () => {
  assert.is(registry.get('infrastructure.cluster.x-k8s.io', 'v1beta1', 'Metal3Machine'), Metal3MachineResource);
  assert.is(registry.get('', 'v1', 'Secret'), SecretResource);
  assert.is(registry.get('cluster.x-k8s.io', 'v1alpha3', 'Cluster'), undefined);
  assert.is(registry.forObject({ apiVersion: 'v1', kind: 'Secret' }), SecretResource);
});

test('descriptors carry plural, scope, subresources and short names as the CRD says (C-/M- kinds of §0.1)', () => {
  const m3m = Metal3MachineResource;
  assert.equal(
    [m3m.plural, m3m.singular, m3m.listKind, m3m.namespaced, m3m.statusSubresource, m3m.apiVersion],
    ['metal3machines', 'metal3machine', 'Metal3MachineList', true, true, 'infrastructure.cluster.x-k8s.io/v1beta1'],
  );
  assert.equal([...m3m.shortNames].sort(), ['m3m', 'm3machine', 'm3machines', 'metal3m', 'metal3machine']);
  assert.ok(Object.isFrozen(m3m));
});

test('factory fills apiVersion and kind; guard checks both', () => {
  const m = newMetal3Machine({ metadata: { name: 'm' } });
  assert.is(m.apiVersion, 'infrastructure.cluster.x-k8s.io/v1beta1');
  assert.is(m.kind, 'Metal3Machine');
  assert.ok(isMetal3Machine(m));
  assert.not.ok(isMetal3Machine({ ...m, kind: 'Metal3Cluster' }));
  assert.not.ok(isMetal3Machine({ ...m, apiVersion: 'infrastructure.cluster.x-k8s.io/v1alpha5' }));
  assert.not.ok(isMetal3Machine(null));
});

test.run();
