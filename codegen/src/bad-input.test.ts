import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseCrds } from './crd.ts';
import { CodegenError } from './errors.ts';
import { generate, type LoadedCrd, loadInputs, selectVersions, writeFiles } from './generate.ts';
import { checkSchema } from './schema.ts';
import { loadUpstreamReleases, resolveUpstream, upstreamDirectory } from './upstream.ts';

const base = readFileSync(new URL('./testdata/widgets.yaml', import.meta.url), 'utf8');

function throwsCodegen(fn: () => unknown, file: string, path: string | undefined, message: RegExp): void {
  try {
    fn();
  } catch (error) {
    assert.instance(error, CodegenError);
    const e = error as CodegenError;
    assert.is(e.file, file);
    assert.is(e.path, path);
    assert.match(e.message, message);
    return;
  }
  assert.unreachable('no error thrown');
}

async function rejectsCodegen(fn: () => Promise<unknown>, message: RegExp): Promise<CodegenError> {
  try {
    await fn();
  } catch (error) {
    assert.instance(error, CodegenError);
    assert.match((error as CodegenError).message, message);
    return error as CodegenError;
  }
  return assert.unreachable('no error thrown') as never;
}

function loaded(yaml: string, file = 'bad.yaml'): LoadedCrd[] {
  return parseCrds(yaml, file).map((crd) => ({ crd, source: { label: file, version: 'test', sha256: '0' }, descriptions: true }));
}

test('an unknown schema keyword is an error naming the file and JSON path', async () => {
  const yaml = base.replace(
    'size:\n                  description: How many sprockets.',
    'size:\n                  x-made-up: 1\n                  description: How many sprockets.',
  );
  await rejectsCodegen(
    () => generate(loaded(yaml)),
    /bad\.yaml at spec\.versions\[1\]\.schema\.openAPIV3Schema\.properties\.spec\.properties\.size: unknown schema keyword "x-made-up"/,
  );
});

test('a non-structural schema (node without type) is an error naming the path', () => {
  throwsCodegen(
    () => checkSchema({ type: 'object', properties: { a: { properties: { b: { type: 'string' } } } } }, 'f.yaml', '$'),
    'f.yaml',
    '$.properties.a',
    /non-structural schema: node has no type/,
  );
});

test('a property named like a keyword is walked as a property, not a keyword', () => {
  checkSchema(
    { type: 'object', properties: { type: { type: 'string' }, default: { type: 'object', properties: { enum: { type: 'integer' } } } } },
    'f.yaml',
    '$',
  );
});

test('a CRD without a served version is an error', () => {
  const yaml = base.replace('served: true', 'served: false');
  throwsCodegen(() => parseCrds(yaml, 'none.yaml'), 'none.yaml', 'spec.versions', /no served version of Widget/);
});

test('a version selector keeps only the versions it names, and drops a CRD left with none', () => {
  const [crd] = parseCrds(base, 'w.yaml', { unserved: true });
  assert.equal(selectVersions(crd!, ['v1beta1'])!.versions.map((v) => v.name), ['v1beta1']);
  assert.equal(selectVersions(crd!, undefined)!.versions.map((v) => v.name), ['v1alpha1', 'v1beta1']);
  assert.is(selectVersions(crd!, ['v1beta2']), undefined);
});

test('a version selector naming a version no pinned file serves is an error naming the release', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'codegen-selector-'));
  const manifest = join(dir, 'upstream.json');
  try {
    const releases = loadUpstreamReleases().map((
      r,
    ) => (r.project === 'cluster-api' && r.apiVersions?.includes('v1beta2') ? { ...r, apiVersions: ['v1beta2', 'v1beta3'] } : r));
    writeFileSync(manifest, JSON.stringify({ releases }));
    await rejectsCodegen(() => loadInputs({ manifest }), /apiVersions of cluster-api v1\.13\.5 names v1beta3, which none of its codegen files serves/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('two releases giving the same group/version/kind is an error naming both files', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'codegen-twice-'));
  const manifest = join(dir, 'upstream.json');
  try {
    const releases = loadUpstreamReleases().map((
      r,
    ) => (r.project === 'cluster-api' && r.version === 'v1.13.5' ? { ...r, apiVersions: ['v1beta1', 'v1beta2'] } : r));
    writeFileSync(manifest, JSON.stringify({ releases }));
    await rejectsCodegen(async () => generate(await loadInputs({ manifest })), /v1beta1\/\w+ is also defined by .*cluster-api-v1\.13\.5/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a document that is not a CRD is an error', () => {
  throwsCodegen(() => parseCrds('kind: ConfigMap\napiVersion: v1\n', 'cm.yaml'), 'cm.yaml', 'kind', /not a CustomResourceDefinition/);
});

test('a sha256 mismatch in the pinned sources names the file and both digests', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'codegen-sha-'));
  try {
    cpSync(upstreamDirectory(), dir, { recursive: true });
    const victim = join(dir, 'ip-address-manager-v1.12.6', 'ipam.metal3.io_ippools.yaml');
    writeFileSync(victim, `${readFileSync(victim, 'utf8')}\n# tampered\n`);
    const error = await rejectsCodegen(() => resolveUpstream({ directory: dir }), /sha256 mismatch: expected 1bf7ac4a/);
    assert.is(error.file, victim);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a missing pinned file names the path it looked for', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'codegen-missing-'));
  try {
    await rejectsCodegen(() => resolveUpstream({ directory: dir }), /missing upstream CRD file/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a failed write leaves the previous generated tree untouched', () => {
  const dir = mkdtempSync(join(tmpdir(), 'codegen-write-'));
  const target = join(dir, 'src');
  try {
    mkdirSync(target);
    writeFileSync(join(target, 'keep.ts'), 'export const kept = 1;\n');
    // A file and a directory at the same path cannot both be written: the write fails half-way.
    const files = new Map([['a.ts', 'x'], ['a.ts/b.ts', 'y']]);
    assert.throws(() => writeFiles(files, target));
    assert.is(readFileSync(join(target, 'keep.ts'), 'utf8'), 'export const kept = 1;\n');
    assert.not.ok(existsSync(join(target, 'a.ts')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
