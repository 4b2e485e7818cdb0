import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '@metal3-ts/generated';
import { convertObject, hubVersion, spokeDataAnnotation, spokeVersion } from './index.ts';
import type { Json, JsonMap } from './json.ts';
import { firstOfEqual, lastPerKey } from './unique.ts';

const test = suite('one item per key in the hub of a v1beta1 object with duplicate keys (issue 18)');

test('lastPerKey keeps the last item of each key in place; firstOfEqual the first of equal items', () => {
  const cases: [Json[] | undefined, Json[] | undefined][] = [
    [undefined, undefined],
    [[], []],
    [[{ key: 'a', v: 1 }, { key: 'b' }, { key: 'a', v: 2 }], [{ key: 'b' }, { key: 'a', v: 2 }]],
    [[{ key: '', v: 1 }, { key: '', v: 2 }], [{ key: '', v: 2 }]],
    [[{ v: 1 }, { v: 2 }], [{ v: 2 }]],
    [['x', 'x'], ['x']],
  ];
  for (const [list, want] of cases) assert.equal(lastPerKey(list, ['key']), want, JSON.stringify(list));
  assert.equal(firstOfEqual(['8.8.8.8', '1.1.1.1', '8.8.8.8']), ['8.8.8.8', '1.1.1.1']);
  assert.equal(firstOfEqual(undefined), undefined);
});

test('CV-11/CV-14: duplicate metaData keys, route networks and DNS servers: unique in v1beta2, whole again at v1beta1', () => {
  const route = (gateway: string): JsonMap => ({ network: '0.0.0.0', prefix: 0, gateway: { string: gateway }, services: { dns: ['8.8.8.8', '8.8.8.8'] } });
  const spoke = {
    apiVersion: spokeVersion,
    kind: 'Metal3DataTemplate',
    metadata: { name: 'dt', namespace: 'ns' },
    spec: {
      clusterName: 'c',
      metaData: { strings: [{ key: '', value: 'a' }, { key: 'x', value: '1' }, { key: '', value: 'b' }] },
      networkData: { networks: { ipv4: [{ id: 'n', link: 'eth0', ipAddressFromIPPool: 'p', routes: [route('10.0.0.1'), route('10.0.0.2')] }] } },
    },
  };
  const hub = convertObject(structuredClone(spoke) as unknown as KubeObject, hubVersion) as unknown as JsonMap;
  const spec = hub['spec'] as { metaData: unknown; networkData: { networks: { ipv4: { routes: unknown }[] } } };
  assert.equal(spec.metaData, { strings: [{ key: 'x', value: '1' }, { key: '', value: 'b' }] });
  assert.equal(spec.networkData.networks.ipv4[0]!.routes, [{ network: '0.0.0.0', prefix: 0, gateway: { string: '10.0.0.2' }, services: { dns: ['8.8.8.8'] } }]);
  assert.ok((hub['metadata'] as { annotations: JsonMap }).annotations[spokeDataAnnotation], 'the v1beta1 lists ride the annotation');
  assert.equal(convertObject(hub as unknown as KubeObject, spokeVersion), spoke);
});

test.run();
