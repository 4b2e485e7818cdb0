import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXAMPLE_MANIFESTS } from './lab.ts';
import { ManifestError, readManifests } from './manifests.ts';

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
