import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newMetal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { consumerKey, consumerRefMatches, metal3MachineConsumer } from './consumer.ts';
import { machineRef } from './testing.ts';

const test = suite('host consumer');

test('consumer keys are group-qualified and version-free; unusable references have none', () => {
  assert.is(consumerKey(machineRef('m-0')), 'Metal3Machine.infrastructure.cluster.x-k8s.io/ns/m-0');
  assert.is(consumerKey({ apiVersion: 'v1', kind: 'Pod', name: 'p', namespace: 'ns' }), 'Pod/ns/p');
  assert.is(consumerKey({ apiVersion: 'a/b/c', kind: 'X', name: 'x', namespace: 'ns' }), undefined);
  assert.is(consumerKey({ kind: 'X' }), undefined);
});

test('H-4: consumerRef matches by group, kind, namespace and name; the version is ignored', () => {
  const me = machineRef('m-0');
  const table: [label: string, ref: Parameters<typeof consumerRefMatches>[0], matches: boolean][] = [
    ['same', { ...me }, true],
    ['other version', { ...me, apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2' }, true],
    ['other group', { ...me, apiVersion: 'example.com/v1beta1' }, false],
    ['unparsable apiVersion', { ...me, apiVersion: 'a/b/c' }, false],
    ['other kind', { ...me, kind: 'Machine' }, false],
    ['other name', { ...me, name: 'm-1' }, false],
    ['other namespace', { ...me, namespace: 'other' }, false],
    ['uid is not compared', { ...me, uid: 'whatever' }, true],
    ['absent', undefined, false],
  ];
  for (const [label, ref, matches] of table) assert.is(consumerRefMatches(ref, me), matches, label);
});

test('a Metal3Machine becomes a consumer with its selector, failure domain and uid', () => {
  const machine = newMetal3Machine({
    metadata: { name: 'm-0', namespace: 'ns', uid: 'u-1' },
    spec: { failureDomain: 'rack-1', hostSelector: { matchLabels: { pool: 'a' } } },
  });
  const consumer = metal3MachineConsumer(machine, 'md-workers');
  assert.equal(consumer.ref, { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Machine', name: 'm-0', namespace: 'ns', uid: 'u-1' });
  assert.equal(consumer.hostSelector, { matchLabels: { pool: 'a' } });
  assert.is(consumer.failureDomain, 'rack-1');
  assert.is(consumer.nodeReuseName, 'md-workers');
});

test.run();
