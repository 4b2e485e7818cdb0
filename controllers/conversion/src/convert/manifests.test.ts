import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '@metal3-ts/generated';
import { convertObject, hubVersion, spokeVersion } from './index.ts';
import { canonical, type Json, type JsonMap } from './json.ts';
import { schemaOf } from './testing/schemas.ts';
import { validate } from './testing/validate.ts';

const test = suite('conversion of the lab manifests (test/e2e/manifests): real objects, not generated ones');

const manifests = resolve(dirname(fileURLToPath(import.meta.url)), '../../../../test/e2e/manifests');

function metal3Objects(): JsonMap[] {
  return ['cluster.yaml', 'mhc/cluster.yaml', 'remediation/cluster.yaml'].flatMap((file) =>
    parseAllDocuments(readFileSync(join(manifests, file), 'utf8'))
      .map((doc) => doc.toJSON() as JsonMap)
      .filter((o) => o?.['apiVersion'] === spokeVersion && String(o['kind']).startsWith('Metal3'))
  );
}

test('CV-1/CV-2: every Metal3 object converts to a fully valid v1beta2 object and back byte-identical; annotations only where v1beta1 says more', () => {
  const objects = metal3Objects();
  assert.ok(objects.length >= 10, `found ${objects.length} objects`);
  const annotated: string[] = [];
  for (const object of objects) {
    const kind = String(object['kind']);
    const hub = convertObject(structuredClone(object) as unknown as KubeObject, hubVersion) as unknown as JsonMap;
    assert.equal(validate(schemaOf(kind, 'v1beta2', 'capm3-v1.13.2'), hub as Json), [], `${kind} ${canonical(hub)}`);
    const back = convertObject(hub as unknown as KubeObject, spokeVersion);
    assert.is(canonical(back as unknown as Json), canonical(object), kind);
    if ((hub['metadata'] as JsonMap)['annotations']) annotated.push(kind);
  }
  // `noCloudProvider: true` alone reads back with `cloudProviderEnabled: false` beside it; `100s` as `1m40s`.
  assert.equal([...new Set(annotated)].sort(), ['Metal3Cluster', 'Metal3RemediationTemplate']);
});

test('CV-1: manifests/v1beta2/cluster.yaml is manifests/cluster.yaml converted, with no conversion annotation: the same cluster, nothing lost either way', () => {
  const read = (file: string) => parseAllDocuments(readFileSync(join(manifests, file), 'utf8')).map((doc) => doc.toJSON() as JsonMap);
  const [v1beta1, v1beta2] = [read('cluster.yaml'), read('v1beta2/cluster.yaml')];
  assert.is(v1beta2.length, v1beta1.length);
  v1beta1.forEach((object, i) => {
    const written = v1beta2[i]!;
    if (object['apiVersion'] !== spokeVersion) return assert.equal(written, object, `document ${i + 1} is not ours: unchanged`);
    const kind = String(object['kind']);
    assert.is(written['apiVersion'], hubVersion, kind);
    assert.equal(validate(schemaOf(kind, 'v1beta2', 'capm3-v1.13.2'), written as Json), [], kind);
    const hub = convertObject(structuredClone(object) as unknown as KubeObject, hubVersion) as unknown as JsonMap;
    const { annotations: _, ...metadata } = hub['metadata'] as JsonMap;
    assert.is(canonical({ ...hub, metadata } as Json), canonical(written), `${kind}: the v1beta1 document converted`);
    // Read at v1beta1, the v1beta2 document is the v1beta1 one, with no annotation; the Metal3Cluster
    // also shows v1beta2's cloudProviderEnabled, which v1beta1 serves beside noCloudProvider (CV-5).
    const back = convertObject(structuredClone(written) as unknown as KubeObject, spokeVersion) as unknown as JsonMap;
    const spec = kind === 'Metal3Cluster' ? { ...(object['spec'] as JsonMap), cloudProviderEnabled: false } : object['spec'];
    assert.is(canonical(back), canonical({ ...object, spec } as Json), `${kind} read back at v1beta1`);
  });
});

test.run();
