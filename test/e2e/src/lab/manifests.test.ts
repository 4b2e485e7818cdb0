import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXAMPLE_MANIFESTS } from './lab.ts';
import { convertObject } from '@metal3-ts/controller-conversion/convert/index';
import { ManifestError, metal3At, readManifests } from './manifests.ts';

test('the example cluster: the seed 003 objects, every one a kind the typed API knows', () => {
  const kinds = readManifests(EXAMPLE_MANIFESTS).map((m) => `${m.object.kind}/${m.object.metadata.name}`);
  assert.equal(kinds, [
    'Cluster/cluster',
    'Metal3Cluster/m3cluster',
    'KubeadmControlPlane/m3cluster-controlplane',
    'Metal3MachineTemplate/m3cluster-controlplane',
    'MachineDeployment/md-0',
    'KubeadmConfigTemplate/md-0',
    'Metal3MachineTemplate/md-0',
    'Metal3DataTemplate/m3cluster-controlplane-metadata',
    'Metal3DataTemplate/md-0-metadata',
    'IPPool/baremetalv4-pool',
  ]);
});

test('metal3At v1beta2: every Metal3 object converted (and back to the same object), every other one untouched (issue 18)', () => {
  const written = readManifests(new URL('../../manifests/mhc', import.meta.url).pathname);
  const at = metal3At(written, 'v1beta2');
  assert.equal(
    at.map((m) => m.object.apiVersion),
    written.map((m) => m.object.apiVersion.replace('infrastructure.cluster.x-k8s.io/v1beta1', 'infrastructure.cluster.x-k8s.io/v1beta2')),
  );
  at.forEach((m, i) => {
    const before = written[i]!.object;
    if (before.apiVersion.startsWith('infrastructure.')) assert.equal(convertObject(m.object, before.apiVersion), before, before.kind);
    else assert.is(m.object, before, before.kind);
  });
  assert.equal(metal3At(written, undefined), written);
});

test('bad manifests are errors naming the file and the document', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lab-manifests-'));
  try {
    const file = join(dir, 'bad.yaml');
    for (
      const [text, problem] of [
        ['kind: Cluster\nmetadata: {name: x}\n', 'apiVersion, kind and metadata.name are required'],
        ['apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n---\nkey: [unclosed\n', 'document 2'],
        ['a: *nowhere\n', 'document 1'],
      ] as const
    ) {
      writeFileSync(file, text);
      assert.throws(() => readManifests(dir), (e: unknown) => e instanceof ManifestError && e.message.includes(file) && e.message.includes(problem), problem);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
