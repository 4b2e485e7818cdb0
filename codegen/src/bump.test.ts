// The pure parts of `npm run bump`: which pinned release a new version replaces, the rewritten pins,
// and the generated-API summary printed afterwards.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { apiChanges, formatApiChanges, interfacesOf } from './api-changes.ts';
import { releaseToReplace, rewritePins } from './bump.ts';
import { CodegenError } from './errors.ts';
import type { UpstreamFile, UpstreamRelease } from './upstream.ts';

const pin = (project: string, version: string, file: string, use: UpstreamFile['use'] = 'codegen'): UpstreamFile => ({
  file,
  url: `https://raw.githubusercontent.com/example/${project}/${version}/config/crd/bases/${file}`,
  sha256: `${version}-${file}`,
  use,
});
const release = (project: string, version: string, extra: Partial<UpstreamRelease> = {}): UpstreamRelease => ({
  project,
  version,
  directory: `${project}-${version}`,
  files: [pin(project, version, 'a.yaml'), pin(project, version, 'b.yaml')],
  ...extra,
});
const releases: UpstreamRelease[] = [
  release('cluster-api', 'v1.13.5', { apiVersions: ['v1beta2'], envtest: false }),
  release('cluster-api', 'v1.10.10', { apiVersions: ['v1alpha1', 'v1beta1'] }),
  release('baremetal-operator', 'v0.13.2', { files: [pin('baremetal-operator', 'v0.13.2', 'a.yaml', 'reference')] }),
  release('baremetal-operator', 'v0.12.6'),
];

function throwsCodegen(fn: () => unknown, message: RegExp): void {
  try {
    fn();
  } catch (error) {
    assert.instance(error, CodegenError);
    assert.match((error as CodegenError).message, message);
    return;
  }
  assert.unreachable('no error thrown');
}

test('which release a version replaces: same series, else the newest, else --replace', () => {
  const table: [project: string, version: string, replace: string | undefined, expected: string][] = [
    ['cluster-api', 'v1.13.6', undefined, 'v1.13.5'],
    ['cluster-api', 'v1.10.11', undefined, 'v1.10.10'],
    ['cluster-api', 'v1.14.0', undefined, 'v1.13.5'],
    ['cluster-api', 'v1.11.0', 'v1.10.10', 'v1.10.10'],
    ['baremetal-operator', 'v0.12.7', undefined, 'v0.12.6'],
    ['baremetal-operator', 'v0.14.0', undefined, 'v0.13.2'],
  ];
  for (const [project, version, replace, expected] of table) {
    assert.is(releaseToReplace(releases, { project, version, ...(replace ? { replace } : {}) }).version, expected, `${project} ${version}`);
  }
});

test('bad bump requests are errors naming what is pinned', () => {
  throwsCodegen(
    () => releaseToReplace(releases, { project: 'capm3', version: 'v1.13.3' }),
    /no pinned release of capm3; pinned projects: baremetal-operator, cluster-api/,
  );
  throwsCodegen(() => releaseToReplace(releases, { project: 'cluster-api', version: 'v1.13.5' }), /cluster-api v1\.13\.5 is already pinned/);
  throwsCodegen(() => releaseToReplace(releases, { project: 'cluster-api', version: '1.13.6' }), /version must look like v1\.13\.6, got "1\.13\.6"/);
  throwsCodegen(
    () => releaseToReplace(releases, { project: 'cluster-api', version: 'v1.13.6', replace: 'v1.9.0' }),
    /--replace v1\.9\.0: pinned cluster-api releases are v1\.13\.5, v1\.10\.10/,
  );
});

test('rewritten pins: version, directory, URLs and digests move; selector, envtest, uses and the other releases stay', () => {
  const digests = new Map([['a.yaml', 'sha-a'], ['b.yaml', 'sha-b'], ['c.yaml', 'sha-c']]);
  const result = rewritePins(releases, { project: 'cluster-api', version: 'v1.13.6' }, digests);
  assert.equal(result.release, {
    project: 'cluster-api',
    version: 'v1.13.6',
    directory: 'cluster-api-v1.13.6',
    apiVersions: ['v1beta2'],
    envtest: false,
    files: [
      { ...pin('cluster-api', 'v1.13.6', 'a.yaml'), sha256: 'sha-a' },
      { ...pin('cluster-api', 'v1.13.6', 'b.yaml'), sha256: 'sha-b' },
    ],
  });
  assert.is(result.replaced, releases[0]);
  assert.equal(result.releases.slice(1), releases.slice(1));
  assert.is(result.releases[0], result.release);
  assert.equal(result.unpinned, ['c.yaml']);
});

test('a pinned file the new release lacks is an error, not a silent drop', () => {
  throwsCodegen(
    () => rewritePins(releases, { project: 'cluster-api', version: 'v1.13.6' }, new Map([['a.yaml', 'x']])),
    /cluster-api v1\.13\.6 lacks b\.yaml, pinned for v1\.13\.5/,
  );
});

const module = (kinds: string[], body: string) => `${kinds.map((k) => `export const ${k}Resource = 1;`).join('\n')}\n${body}`;

test('interfaces are read member by member, comments and nested types aside', () => {
  const text = 'export interface A {\n  /**\n   * @default 1\n   */\n  x?: number;\n  y: { z: string };\n  "a-b"?: string;\n}\n';
  assert.equal([...interfacesOf(text).get('A')!], [['x', '?: number'], ['y', ': { z: string }'], ['a-b', '?: string']]);
});

test('API summary: modules added and removed, kinds, and fields added, removed and changed per interface', () => {
  const before = new Map([
    ['cluster.x-k8s.io/v1beta1.ts', module(['Machine'], 'export interface MachineSpec {\n  a?: string;\n  b: number;\n  gone?: string;\n}\n')],
    ['old.io/v1.ts', module(['Old'], '')],
    ['runtime/meta.ts', 'export interface ObjectMeta {\n  name?: string;\n}\n'],
  ]);
  const after = new Map([
    [
      'cluster.x-k8s.io/v1beta1.ts',
      module(
        ['Machine', 'MachineSet'],
        'export interface MachineSpec {\n  a: string;\n  b: number;\n  c?: string;\n}\nexport interface MachineSetSpec {\n  d?: string;\n}\n',
      ),
    ],
    ['cluster.x-k8s.io/v1beta2.ts', module(['Cluster', 'Machine'], '')],
    ['runtime/meta.ts', 'export interface ObjectMeta {\n  other?: string;\n}\n'],
  ]);
  const changes = apiChanges(before, after);
  assert.equal(changes.map((c) => [c.module, c.status]), [['cluster.x-k8s.io/v1beta1', 'changed'], ['cluster.x-k8s.io/v1beta2', 'added'], [
    'old.io/v1',
    'removed',
  ]]);
  assert.is(
    formatApiChanges(changes),
    [
      'generated API: 3 module(s) changed',
      '  ~ cluster.x-k8s.io/v1beta1',
      '      kinds added: MachineSet',
      '      +MachineSetSpec: +d',
      '      MachineSpec: +c, -gone, ~a?: string → a: string',
      '  + cluster.x-k8s.io/v1beta2 (2 kinds: Cluster, Machine)',
      '  - old.io/v1 (1 kinds: Old)',
    ].join('\n'),
  );
});

test('API summary: identical trees and runtime-only changes report no change', () => {
  const files = new Map([['core/v1.ts', module(['Secret'], 'export interface Secret {\n  data?: string;\n}\n')], ['registry.ts', 'x']]);
  assert.is(formatApiChanges(apiChanges(files, new Map([...files, ['registry.ts', 'y']]))), 'generated API: no change');
});

test.run();
