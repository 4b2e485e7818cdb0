// The image builder's pure parts, table-tested: the ustar writer and reader (round trip, long paths,
// determinism), the OCI layout (the same input gives the same digest; the archive reads back with its
// digests checked), ldd's output, git's porcelain output, and the Deployment args the sandbox rebinds.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { changedPaths, DirtyTreeError } from '../../../../scripts/images/git.ts';
import { lddPaths, parentDirs } from '../../../../scripts/images/layers.ts';
import { layerOf, ociLayout } from '../../../../scripts/images/oci.ts';
import { imageConfig, ociArchitecture } from '../../../../scripts/images/spec.ts';
import { readTar, splitPath, type TarEntry, TarError, TarWriter } from '../../../../scripts/images/tar.ts';
import { openImageArchive, unpackRootfs } from '../../../../scripts/images/unpack.ts';
import { controllerInstall, hostNetworkArgs, leaseName } from './install.ts';

const test = suite('image builder: tar, OCI layout, ldd, git status, sandbox args (issue 15)');

const entries: TarEntry[] = [
  { type: 'dir', path: 'etc', mode: 0o755 },
  { type: 'file', path: 'etc/passwd', mode: 0o644, data: Buffer.from('root:x:0:0::/:/sbin/nologin\n') },
  { type: 'file', path: 'empty', mode: 0o600, data: new Uint8Array(0) },
  { type: 'symlink', path: 'lib', target: 'usr/lib' },
  { type: 'file', path: `${'d'.repeat(60)}/${'e'.repeat(60)}/${'f'.repeat(90)}`, mode: 0o755, data: new Uint8Array(513).fill(7) },
];

test('tar: what is written reads back (modes, symlink, a 513-byte file, a path over 100 bytes)', () => {
  const read = readTar(Buffer.concat(new TarWriter().add(entries[0]!).add(entries[1]!).add(entries[2]!).add(entries[3]!).add(entries[4]!).finish()));
  assert.is(read.length, entries.length);
  for (const [i, e] of entries.entries()) {
    const r = read[i]!;
    assert.is(r.type, e.type);
    assert.is(r.path, e.path);
    if (e.type === 'file' && r.type === 'file') {
      assert.is(r.mode, e.mode);
      assert.equal([...r.data], [...e.data]);
    }
    if (e.type === 'symlink' && r.type === 'symlink') assert.is(r.target, e.target);
  }
});

test('tar: the same entries give the same bytes; a path that cannot fit is a TarError', () => {
  const bytes = () => Buffer.concat(entries.reduce((w, e) => w.add(e), new TarWriter()).finish());
  assert.ok(bytes().equals(bytes()));
  assert.is(bytes().length % 512, 0);
  assert.equal(splitPath('a/b'), ['', 'a/b']);
  assert.throws(() => splitPath('x'.repeat(101)), (e: unknown) => e instanceof TarError);
});

test('OCI layout: deterministic digests; the archive reads back, digests checked, layers applied in order', () => {
  const layers = [
    layerOf(new TarWriter().add(entries[0]!).add(entries[1]!).finish()),
    layerOf(new TarWriter().add({ type: 'file', path: 'etc/passwd', mode: 0o644, data: Buffer.from('second\n') }).finish()),
  ];
  const facts = { controller: 'x', version: '1.2.3', revision: 'abc', description: 'd', license: 'Apache-2.0', created: '2026-01-01T00:00:00Z' };
  const build = () =>
    ociLayout({
      config: imageConfig(facts, layers.map((l) => l.diffId), 'amd64'),
      layers,
      refName: 'metal3-ts/controller-x:1.2.3',
      annotations: {},
      architecture: 'amd64',
    });
  const a = build();
  assert.is(a.manifestDigest, build().manifestDigest);
  const dir = mkdtempSync(join(tmpdir(), 'oci-unit-'));
  try {
    writeFileSync(join(dir, 'x.oci.tar'), Buffer.concat(a.chunks));
    const image = openImageArchive(join(dir, 'x.oci.tar'));
    assert.is(image.refName, 'metal3-ts/controller-x:1.2.3');
    assert.is(image.manifestDigest, a.manifestDigest);
    assert.is(image.config.config.User, '65532:65532');
    unpackRootfs(image, join(dir, 'root'));
    assert.is(readFileSync(join(dir, 'root', 'etc', 'passwd'), 'utf8'), 'second\n', 'the upper layer wins');
    const archive = readFileSync(join(dir, 'x.oci.tar'));
    // One byte of the config blob changed: its digest no longer matches.
    const at = archive.indexOf(Buffer.from('"65532:65532"'));
    assert.ok(at > 0);
    archive[at + 1] = '7'.charCodeAt(0);
    writeFileSync(join(dir, 'bad.oci.tar'), archive);
    assert.throws(() => openImageArchive(join(dir, 'bad.oci.tar')), /does not match its digest/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('ldd: library paths in order, the loader included, vdso left out; a missing library is named', () => {
  const out = [
    '\tlinux-vdso.so.1 (0x00007ffd)',
    '\tlibstdc++.so.6 => /lib/x86_64-linux-gnu/libstdc++.so.6 (0x00007fe46c800000)',
    '\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007fe46c61e000)',
    '\t/lib64/ld-linux-x86-64.so.2 (0x00007fe46cb54000)',
  ].join('\n');
  assert.equal(lddPaths(out), ['/lib/x86_64-linux-gnu/libstdc++.so.6', '/lib/x86_64-linux-gnu/libc.so.6', '/lib64/ld-linux-x86-64.so.2']);
  assert.throws(() => lddPaths('\tlibfoo.so.1 => not found'), /libfoo\.so\.1/);
  assert.equal(parentDirs(['/lib/x/a.so', '/lib64/b.so', '/nodejs/bin/node']), ['lib', 'lib/x', 'lib64', 'nodejs', 'nodejs/bin']);
  assert.is(ociArchitecture('x64'), 'amd64');
  assert.throws(() => ociArchitecture('mips'), /mips/);
});

test('git status -z: modified, untracked and renamed paths; the refusal names them and the way out', () => {
  const z = [' M controllers/cluster/src/main.ts', '?? scripts/images/new.ts', 'R  shared/src/b.ts', 'shared/src/a.ts', ''].join('\0');
  assert.equal(changedPaths(z), ['controllers/cluster/src/main.ts', 'scripts/images/new.ts', 'shared/src/b.ts']);
  assert.equal(changedPaths(''), []);
  const error = new DirtyTreeError(changedPaths(z));
  assert.match(error.message, 'controllers/cluster/src/main.ts');
  assert.match(error.message, '--allow-dirty');
});

test("sandbox args: the Deployment's probe and metrics ports move to free loopback ports; the Lease name is read", () => {
  const cases: [string[], string[]][] = [
    [['--leader-elect', '--health-probe-bind-address=:9440', '--metrics-bind-address', ':8080'], [
      '--leader-elect',
      '--health-probe-bind-address=127.0.0.1:0',
      '--metrics-bind-address=127.0.0.1:0',
    ]],
    [['--leader-elect'], ['--leader-elect', '--health-probe-bind-address=127.0.0.1:0', '--metrics-bind-address=127.0.0.1:0']],
  ];
  for (const [input, expected] of cases) assert.equal(hostNetworkArgs(input), expected);
  assert.is(leaseName(['--leader-elect-id=metal3-ts-data']), 'metal3-ts-data');
  assert.is(leaseName(['--leader-elect-id', 'x']), 'x');
  assert.is(leaseName([]), 'controller-leader-election-capm3');
});

test('config reader: by kind across files, every namespaced object moved, cluster-scoped names and references suffixed, other kinds not applied', () => {
  const dir = mkdtempSync(join(tmpdir(), 'install-unit-'));
  try {
    writeFileSync(join(dir, 'kustomization.yaml'), 'resources: [a.yaml, b.yaml]\nnamespace: metal3-ts-system\n');
    writeFileSync(
      join(dir, 'a.yaml'),
      [
        'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {template: {spec: {containers: [{name: manager, image: "metal3-ts/controller-x:1.0.0", args: [--leader-elect]}]}}}',
        'apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: sa}',
        'apiVersion: v1\nkind: Service\nmetadata: {name: metrics}',
      ].join('\n---\n'),
    );
    writeFileSync(
      join(dir, 'b.yaml'),
      [
        'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: cr}\nrules: [{apiGroups: [""], resources: [events], verbs: [create]}]',
        'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {name: crb}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cr}\nsubjects: [{kind: ServiceAccount, name: sa, namespace: metal3-ts-system}]',
        'apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: r, namespace: metal3-ts-system}\nrules: []',
      ].join('\n---\n'),
    );
    const install = controllerInstall(dir, 'ns1');
    assert.equal(install.objects.map((o) => `${o.kind}/${o.metadata.namespace ?? '-'}/${o.metadata.name}`), [
      'ServiceAccount/ns1/sa',
      'ClusterRole/-/cr-ns1',
      'ClusterRoleBinding/-/crb-ns1',
      'Role/ns1/r',
    ]);
    const binding = install.objects.find((o) => o.kind === 'ClusterRoleBinding')!;
    assert.equal([binding['roleRef'], binding['subjects']], [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cr-ns1' }, [{
      kind: 'ServiceAccount',
      name: 'sa',
      namespace: 'ns1',
    }]]);
    assert.equal([install.args, install.image], [['--leader-elect'], 'metal3-ts/controller-x:1.0.0']);
    assert.is(install.clusterRole.metadata.name, 'cr-ns1');
    writeFileSync(join(dir, 'c.yaml'), 'apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: another}');
    assert.throws(() => controllerInstall(dir, 'ns1'), /expected one ServiceAccount, found 2/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
