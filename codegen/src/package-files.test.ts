import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { apiModules, packageFiles, releaseRole, upstreamPins } from './package-files.ts';
import type { UpstreamRelease } from './upstream.ts';

const file = (use: 'codegen' | 'reference') => ({ file: 'x.yaml', url: 'https://example.invalid/x.yaml', sha256: '0'.repeat(64), use });
const releases: UpstreamRelease[] = [
  { project: 'cluster-api', version: 'v1.10.10', directory: 'capi', files: [file('codegen'), file('codegen')] },
  { project: 'cluster-api-provider-metal3', version: 'v1.12.7', directory: 'capm3', files: [file('reference')] },
];
const manifest = { name: '@metal3-ts/generated', version: '0.1.0', license: 'Apache-2.0', scripts: { build: 'x' } };
const modules = [{ subpath: 'infrastructure.cluster.x-k8s.io/v1beta1', kinds: ['Metal3Cluster', 'Metal3Machine'] }];

test('pins: releases used for codegen are generatedFrom, reference-only ones reference, several per project kept in order', () => {
  assert.equal(upstreamPins(releases), { generatedFrom: { 'cluster-api': ['v1.10.10'] }, reference: { 'cluster-api-provider-metal3': ['v1.12.7'] } });
  const two: UpstreamRelease[] = [{ ...releases[0]!, version: 'v1.13.5', apiVersions: ['v1beta2'] }, ...releases];
  assert.equal(upstreamPins(two).generatedFrom, { 'cluster-api': ['v1.13.5', 'v1.10.10'] });
});

test('roles: a version selector and envtest: false are named; a reference beside a codegen release says which one is used', () => {
  const bmo = (version: string, use: 'codegen' | 'reference'): UpstreamRelease => ({ project: 'bmo', version, directory: 'd', files: [file(use)] });
  const capi: UpstreamRelease = { ...releases[0]!, version: 'v1.13.5', apiVersions: ['v1beta2'], envtest: false };
  const all = [...releases, capi, bmo('v0.13.2', 'reference'), bmo('v0.12.6', 'codegen')];
  const table: [UpstreamRelease, string][] = [
    [releases[0]!, 'types generated from its CRDs'],
    [capi, "types generated from its CRDs (v1beta2 only); not in the test environment's base install"],
    [releases[1]!, 'compatibility reference for our own CRDs'],
    [all[3]!, 'reference only: types still come from v0.12.6'],
  ];
  for (const [release, role] of table) assert.is(releaseRole(release, all), role, `${release.project} ${release.version}`);
});

test('package.json: the pins are set, every other field kept in place, and a second run changes nothing', () => {
  const first = packageFiles({ manifest, releases, modules }).get('package.json')!;
  const parsed = JSON.parse(first) as Record<string, unknown>;
  assert.equal(Object.keys(parsed), ['name', 'version', 'license', 'scripts', 'metal3-ts']);
  assert.equal(parsed['metal3-ts'], { upstream: upstreamPins(releases) });
  assert.is(packageFiles({ manifest: parsed as typeof manifest, releases, modules }).get('package.json'), first);
});

test('jsr.json: version from package.json and one explicit export per group/version (JSR has no wildcards)', () => {
  const jsr = JSON.parse(packageFiles({ manifest, releases, modules }).get('jsr.json')!) as { version: string; exports: Record<string, string> };
  assert.is(jsr.version, '0.1.0');
  assert.equal(jsr.exports, { '.': './src/index.ts', './infrastructure.cluster.x-k8s.io/v1beta1': './src/infrastructure.cluster.x-k8s.io/v1beta1.ts' });
});

test('README: names the version, each upstream release with its role, and each module with its kinds', () => {
  const readme = packageFiles({ manifest, releases, modules }).get('README.md')!;
  assert.match(readme, '# @metal3-ts/generated 0.1.0');
  assert.match(readme, '| cluster-api | v1.10.10 | 2 | types generated from its CRDs |');
  assert.match(readme, '| cluster-api-provider-metal3 | v1.12.7 | none (reference) | compatibility reference for our own CRDs |');
  assert.match(readme, '| `@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1` | Metal3Cluster, Metal3Machine |');
  assert.not.match(readme, /^- cluster-api/m);
  const noted = packageFiles({ manifest, releases: [{ ...releases[0]!, note: 'why it is pinned so' }, releases[1]!], modules }).get('README.md')!;
  assert.match(
    noted,
    '| cluster-api-provider-metal3 | v1.12.7 | none (reference) | compatibility reference for our own CRDs |\n\n- cluster-api v1.10.10: why it is pinned so\n\nThe Metal3 kinds',
  );
});

test('modules: kinds are read from the descriptor exports; runtime files are not modules', () => {
  const files = new Map([
    ['core/v1.ts', 'export const SecretResource = 1;\nexport const ConfigMapResource = 2;\nexport const newSecret = 3;'],
    ['runtime/client.ts', 'export const FooResource = 1;'],
  ]);
  assert.equal(apiModules(files, (p) => !p.startsWith('runtime/')), [{ subpath: 'core/v1', kinds: ['ConfigMap', 'Secret'] }]);
});

test.run();
