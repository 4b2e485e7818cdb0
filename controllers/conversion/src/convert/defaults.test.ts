import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { applyHubDefaults, hubDefaults } from './defaults.ts';
import { kinds } from './index.ts';
import type { Json, JsonMap } from './json.ts';
import { type Schema, schemaOf } from './testing/schemas.ts';

const test = suite("v1beta2's CRD defaults in the hubs the rules make (issue 18)");

/** Every `default:` keyword of a schema, as `path=value` (`[]` list items, `{}` map values). */
function schemaDefaults(schema: Schema & { default?: Json }, path = '', out: string[] = []): string[] {
  if (schema.default !== undefined) out.push(`${path.slice(1)}=${JSON.stringify(schema.default)}`);
  for (const [name, child] of Object.entries(schema.properties ?? {})) schemaDefaults(child, `${path}.${name}`, out);
  if (schema.items) schemaDefaults(schema.items, `${path}[]`, out);
  if (typeof schema.additionalProperties === 'object') schemaDefaults(schema.additionalProperties, `${path}{}`, out);
  return out;
}

for (const kind of kinds.keys()) {
  test(`${kind}: the hand list is exactly the default keywords of our v1beta2 CRD (crds/*.yaml)`, () => {
    const listed = (hubDefaults[kind] ?? []).map(([path, value]) => `${path}=${JSON.stringify(value)}`).sort();
    assert.equal(listed, schemaDefaults(schemaOf(kind, 'v1beta2', 'ours')).sort());
  });
}

test('as the apiserver defaults: an absent member of an existing parent, every list item; never a present value, a missing parent or a non-object', () => {
  const strategy: JsonMap = { retryLimit: 3 };
  const body: JsonMap = { spec: { strategy, metaData: { indexes: [{ key: 'a' }, { key: 'b', step: 2 }, 'odd'], prefixesFromPool: [] } } };
  assert.equal((applyHubDefaults('Metal3Remediation', body)['spec'] as JsonMap)['strategy'], { retryLimit: 3, timeoutSeconds: 600 });
  assert.equal(applyHubDefaults('Metal3Remediation', { spec: {} }), { spec: {} }, 'no strategy, none made');
  assert.equal((applyHubDefaults('Metal3DataTemplate', body)['spec'] as { metaData: unknown }).metaData, {
    indexes: [{ key: 'a', step: 1 }, { key: 'b', step: 2 }, 'odd'],
    prefixesFromPool: [],
  });
  assert.equal(strategy, { retryLimit: 3 }, 'the input is not changed');
  assert.equal(applyHubDefaults('Metal3Data', body), body, 'a kind without defaults');
});

test('CV-5/CV-20: a v1beta1 write converts to the hub the apiserver would store and read back (defaults in place)', () => {
  const cluster = kinds.get('Metal3Cluster')!.toHub({ spec: { controlPlaneEndpoint: { host: 'h', port: 0 } } });
  assert.equal(cluster['spec'], { cloudProviderEnabled: false, controlPlaneEndpoint: { host: 'h', port: 6443 } });
  const remediation = kinds.get('Metal3Remediation')!.toHub({ spec: { strategy: { type: 'Reboot' } } });
  assert.equal(remediation['spec'], { strategy: { type: 'Reboot', retryLimit: 1, timeoutSeconds: 600 } });
});

test.run();
