import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '@metal3-ts/generated';
import { ConversionError, convertObject, hubDataAnnotation, hubVersion, spokeDataAnnotation, spokeVersion } from './index.ts';

const test = suite('convertObject: lossless both ways through the annotations (CV-1 … CV-4)');

type Obj = Record<string, unknown> & { metadata: { annotations?: Record<string, string> } };
const convert = (o: object, to: string) => convertObject(structuredClone(o) as KubeObject, to) as unknown as Obj;

const machine = {
  apiVersion: spokeVersion,
  kind: 'Metal3Machine',
  metadata: { name: 'm', namespace: 'ns' },
  spec: {
    image: { url: 'http://i/u.qcow2', checksum: 'abc', format: 'qcow2' },
    dataTemplate: { kind: 'Metal3DataTemplate', apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', name: 'dt', namespace: 'ns', uid: 'u-1' },
  },
  status: { ready: true, phase: 'Provisioned' },
};

test('CV-4 (deviation): v1beta1-only fields (ref kind/uid, status.phase) survive v1beta1 → v1beta2 → v1beta1 in metal3-ts.dev/v1beta1-data', () => {
  const hub = convert(machine, hubVersion);
  assert.is(hub['apiVersion'], hubVersion);
  assert.equal((hub['spec'] as { dataTemplate: unknown }).dataTemplate, { name: 'dt', namespace: 'ns' });
  assert.ok(hub.metadata.annotations?.[spokeDataAnnotation], 'the hub carries the v1beta1 body');
  const back = convert(hub, spokeVersion);
  assert.equal(back, machine, 'byte-identical, annotation removed');
});

test('CV-2: a v1beta1 object the rules carry whole gets no annotation, and neither does its way back', () => {
  const plain = { ...machine, spec: { ...machine.spec, dataTemplate: { name: 'dt', namespace: 'ns' } }, status: { ready: true } };
  const hub = convert(plain, hubVersion);
  assert.is(hub.metadata.annotations, undefined);
  assert.equal(convert(hub, spokeVersion), plain);
});

test('CV-2/CV-3b/CV-3c: v1beta2-only content (template metadata, unset checksum) rides cluster.x-k8s.io/conversion-data and is removed on the hub', () => {
  const hub = {
    apiVersion: hubVersion,
    kind: 'Metal3MachineTemplate',
    metadata: { name: 't', namespace: 'ns', annotations: { keep: 'me' } },
    spec: { template: { metadata: { labels: { role: 'worker' } }, spec: { image: { url: 'http://i/u.raw', diskFormat: 'raw' } } } },
  };
  const spoke = convert(hub, spokeVersion);
  assert.ok(spoke.metadata.annotations?.[hubDataAnnotation]);
  assert.is(spoke.metadata.annotations?.['keep'], 'me');
  assert.equal(spoke['spec'], { template: { spec: { image: { url: 'http://i/u.raw', checksum: '', format: 'raw' } } } });
  assert.equal(convert(spoke, hubVersion), hub);
});

test('restore: an edit made through the other version wins; untouched v1beta1-only parts come back; a changed reference comes back without the old uid', () => {
  const hub = convert(machine, hubVersion);
  const spec = hub['spec'] as { dataTemplate: { name: string }; image: { checksum: string } };
  spec.image.checksum = 'def';
  spec.dataTemplate.name = 'dt2';
  const back = convert(hub, spokeVersion);
  assert.equal(back['spec'], { image: { url: 'http://i/u.qcow2', checksum: 'def', format: 'qcow2' }, dataTemplate: { name: 'dt2', namespace: 'ns' } });
  assert.equal(back['status'], { ready: true, phase: 'Provisioned' }, 'the untouched status keeps its v1beta1-only phase');
});

test('restore: status comes back whole or not at all: a status written since at v1beta2 (its /status write leaves the annotation as it was) never revives a stale phase', () => {
  const hub = convert(machine, hubVersion);
  hub['status'] = {
    initialization: { provisioned: true },
    conditions: [{ type: 'Ready', status: 'True', reason: 'Ready', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' }],
  };
  const back = convert(hub, spokeVersion);
  assert.equal(back['status'], { ready: true, v1beta2: { conditions: (hub['status'] as { conditions: unknown }).conditions } });
  assert.equal(convert(convert(machine, hubVersion), spokeVersion)['status'], machine.status, 'an untouched status keeps its phase');
});

test('CV-12: a v1beta2 bond option without a value is left out of v1beta1 (the apiserver would drop `null`) and comes back from the annotation', () => {
  const bond = { id: 'bond0', bondMode: 'active-backup', macAddress: { fromHostInterface: 'eth0' }, mtu: 1500 };
  const parameters = [{ name: 'miimon', value: 100 }, { name: 'use_carrier' }];
  const hub = {
    apiVersion: hubVersion,
    kind: 'Metal3DataTemplate',
    metadata: { name: 'dt', namespace: 'ns' },
    spec: { clusterName: 'c', networkData: { links: { bonds: [{ ...bond, parameters }] } } },
  };
  const spoke = convert(hub, spokeVersion);
  assert.equal((spoke['spec'] as { networkData: unknown }).networkData, { links: { bonds: [{ ...bond, parameters: { miimon: 100 } }] } });
  assert.ok(spoke.metadata.annotations?.[hubDataAnnotation], 'the option rides the annotation');
  assert.equal(convert(spoke, hubVersion), hub);
});

test('a damaged or foreign annotation is ignored: the object still converts', () => {
  const damaged = { ...machine, metadata: { name: 'm', annotations: { [hubDataAnnotation]: '{not json' } } };
  assert.is(convert(damaged, hubVersion).metadata.annotations?.[hubDataAnnotation], undefined);
  const foreign = { ...machine, metadata: { name: 'm', annotations: { [hubDataAnnotation]: JSON.stringify({ kind: 'Metal3Cluster', spec: {} }) } } };
  assert.equal((convert(foreign, hubVersion)['spec'] as { image: unknown }).image, { url: 'http://i/u.qcow2', checksum: 'abc', diskFormat: 'qcow2' });
});

test('our annotation for the other direction, copied onto an object by hand, is dropped rather than carried', () => {
  const plain = { ...machine, spec: { image: machine.spec.image }, status: { ready: true } };
  const copied = { ...plain, metadata: { name: 'm', annotations: { [spokeDataAnnotation]: '{"spec":{}}' } } };
  assert.equal(convert(copied, hubVersion).metadata, { name: 'm' });
  const lossy = { ...machine, metadata: { name: 'm', annotations: { [spokeDataAnnotation]: '{"spec":{}}' } } };
  assert.equal(JSON.parse(convert(lossy, hubVersion).metadata.annotations![spokeDataAnnotation]!).spec, machine.spec, 'replaced by the real one');
});

test("an annotation that would pass the apiserver's 256 KiB budget is left out: the object converts as upstream's would", () => {
  const big = { ...machine, metadata: { name: 'm', annotations: { notes: 'x'.repeat(256 * 1024 - 200) } } };
  const hub = convert(big, hubVersion);
  assert.equal(Object.keys(hub.metadata.annotations!), ['notes']);
  assert.equal((hub['spec'] as { dataTemplate: unknown }).dataTemplate, { name: 'dt', namespace: 'ns' });
});

test('bad input: a ConversionError naming the kind and field; an object already at the version comes back as it is', () => {
  const cases: [object, string, RegExp][] = [
    [{ ...machine, kind: 'Metal3Host' }, hubVersion, /^Metal3Host kind: is not one of Metal3Cluster, /],
    [
      { ...machine, apiVersion: 'infrastructure.cluster.x-k8s.io/v1alpha5' },
      hubVersion,
      /^Metal3Machine apiVersion: infrastructure.cluster.x-k8s.io\/v1alpha5 is not one of/,
    ],
    [machine, 'infrastructure.cluster.x-k8s.io/v2', /^Metal3Machine desiredAPIVersion: /],
    [{ ...machine, spec: 'x' }, hubVersion, /^Metal3Machine spec: must be an object$/],
  ];
  for (const [object, to, message] of cases) {
    const error = (() => {
      try {
        convert(object, to);
      } catch (e) {
        return e;
      }
    })();
    assert.instance(error, ConversionError);
    assert.match((error as Error).message, message);
  }
  assert.equal(convert(machine, spokeVersion), machine);
});

test.run();
