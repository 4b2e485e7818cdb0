import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { resourceName } from './resource-name.ts';

const test = suite('resourceName');

const cases: [plural: string, group: string | undefined, sub: string | undefined, expected: string][] = [
  ['secrets', undefined, undefined, 'secrets'],
  ['secrets', '', '', 'secrets'],
  ['baremetalhosts', 'metal3.io', undefined, 'baremetalhosts.metal3.io'],
  ['metal3machines', 'infrastructure.cluster.x-k8s.io', 'status', 'metal3machines/status.infrastructure.cluster.x-k8s.io'],
  ['pods', '', 'eviction', 'pods/eviction'],
];
for (const [plural, group, sub, expected] of cases) test(expected, () => assert.is(resourceName(plural, group, sub), expected));

test.run();
