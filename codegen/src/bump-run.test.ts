// `bump` end to end in a scratch copy (pins, upstream folder, generated package), without the type
// checks: a "Cluster API v1.13.6" made from the pinned v1.13.5 files with one field added and one
// removed from v1beta2 Cluster must be pinned, generated, and reported field by field.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse, stringify } from 'yaml';
import { runBump } from './bump-run.ts';
import { CodegenError } from './errors.ts';
import { generatedDir } from './generate.ts';
import { sha256, upstreamDirectory, upstreamManifestPath, type UpstreamRelease } from './upstream.ts';

interface Scratch {
  readonly root: string;
  readonly upstream: string;
  readonly manifest: string;
  readonly generated: string;
  readonly release: string;
}

/** Pins, upstream folder and generated package copied aside; the new release's files in `release`. */
function scratch(): Scratch {
  const root = mkdtempSync(join(tmpdir(), 'codegen-bump-'));
  const s = { root, upstream: join(root, 'crds'), manifest: join(root, 'upstream.json'), generated: join(root, 'generated'), release: join(root, 'new') };
  cpSync(upstreamDirectory(), s.upstream, { recursive: true });
  cpSync(upstreamManifestPath, s.manifest);
  mkdirSync(s.generated);
  cpSync(join(generatedDir, 'package.json'), join(s.generated, 'package.json'));
  cpSync(join(generatedDir, 'src'), join(s.generated, 'src'), { recursive: true });
  mkdirSync(s.release);
  const from = join(s.upstream, 'cluster-api-v1.13.5');
  for (const file of readdirSync(from).filter((f) => f.endsWith('.yaml'))) cpSync(join(from, file), join(s.release, file));
  return s;
}

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

function editClusterSpec(dir: string): string {
  const path = join(dir, 'cluster.x-k8s.io_clusters.yaml');
  const crd = parse(readFileSync(path, 'utf8')) as Json;
  const spec = crd['spec']['versions'].find((v: Json) => v['name'] === 'v1beta2')['schema']['openAPIV3Schema']['properties']['spec']['properties'];
  spec['madeUpField'] = { type: 'string' };
  delete spec['paused'];
  const text = stringify(crd);
  writeFileSync(path, text);
  return sha256(text);
}

test('bump --from: pins moved, files placed, v1beta2 regenerated, the field change reported, v1beta1 untouched', async () => {
  const s = scratch();
  try {
    const digest = editClusterSpec(s.release);
    const log: string[] = [];
    const code = await runBump({
      project: 'cluster-api',
      version: 'v1.13.6',
      from: s.release,
      upstream: s.upstream,
      manifest: s.manifest,
      generated: s.generated,
      checks: false,
      log: (line) => log.push(line),
    });
    assert.is(code, 0);
    const releases = (JSON.parse(readFileSync(s.manifest, 'utf8')) as { releases: UpstreamRelease[] }).releases;
    const moved = releases.find((r) => r.version === 'v1.13.6')!;
    assert.equal([moved.directory, moved.apiVersions, moved.envtest], ['cluster-api-v1.13.6', ['v1beta2'], false]);
    assert.is(moved.files.find((f) => f.file === 'cluster.x-k8s.io_clusters.yaml')!.sha256, digest);
    assert.ok(moved.files.every((f) => f.url.includes('/v1.13.6/')));
    assert.not.ok(releases.some((r) => r.version === 'v1.13.5'));
    assert.ok(existsSync(join(s.upstream, 'cluster-api-v1.13.6', 'cluster.x-k8s.io_clusters.yaml')));
    const text = log.join('\n');
    assert.match(text, 'pins: cluster-api v1.13.5 → v1.13.6 (17 files)');
    assert.match(text, 'generated API: 1 module(s) changed\n  ~ cluster.x-k8s.io/v1beta2\n      ClusterSpec: +madeUpField, -paused');
    const v1beta2 = readFileSync(join(s.generated, 'src', 'cluster.x-k8s.io', 'v1beta2.ts'), 'utf8');
    assert.match(v1beta2, /cluster-api cluster\.x-k8s\.io_clusters\.yaml v1\.13\.6 sha256:/);
    assert.match(v1beta2, /madeUpField\?: string;/);
    const v1beta1 = 'cluster.x-k8s.io/v1beta1.ts';
    assert.is(readFileSync(join(s.generated, 'src', v1beta1), 'utf8'), readFileSync(join(generatedDir, 'src', v1beta1), 'utf8'));
    const pins = JSON.parse(readFileSync(join(s.generated, 'package.json'), 'utf8')) as {
      'metal3-ts': { upstream: { generatedFrom: Record<string, string[]> } };
    };
    assert.equal(pins['metal3-ts'].upstream.generatedFrom['cluster-api'], ['v1.13.6', 'v1.10.10']);
  } finally {
    rmSync(s.root, { recursive: true, force: true });
  }
});

test('bump: a new release without a pinned file fails naming it, and leaves the pins as they were', async () => {
  const s = scratch();
  try {
    rmSync(join(s.release, 'cluster.x-k8s.io_machines.yaml'));
    const before = readFileSync(s.manifest, 'utf8');
    try {
      await runBump({
        project: 'cluster-api',
        version: 'v1.13.6',
        from: s.release,
        upstream: s.upstream,
        manifest: s.manifest,
        generated: s.generated,
        checks: false,
        log: () => {},
      });
      assert.unreachable('no error thrown');
    } catch (error) {
      assert.instance(error, CodegenError);
      assert.match((error as Error).message, 'cluster-api v1.13.6 lacks cluster.x-k8s.io_machines.yaml, pinned for v1.13.5');
    }
    assert.is(readFileSync(s.manifest, 'utf8'), before);
  } finally {
    rmSync(s.root, { recursive: true, force: true });
  }
});

test.run();
