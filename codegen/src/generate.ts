// Codegen as a pure function from inputs to a file map, plus the two ways of using that map:
// write it (aside, then swap, so a failure leaves generated/ untouched) or check it against disk.
// The package files beside src/ (README.md, jsr.json, the pins in package.json) follow the same way.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { CodegenError } from './errors.ts';
import { type Crd, type CrdSource, parseCrds } from './crd.ts';
import { emitGroupVersion, GENERATED_NOTICE, type KindInput } from './emit-module.ts';
import { checkSchema } from './schema.ts';
import { apiModules, type PackageFileMap, packageFiles, type PackageManifest } from './package-files.ts';
import { loadUpstreamReleases, repoRoot, type ResolveOptions, resolveUpstream, sha256, type UpstreamRelease } from './upstream.ts';

/** Relative path under generated/src → file content. */
export type FileMap = Map<string, string>;

export interface LoadedCrd {
  readonly crd: Crd;
  readonly source: CrdSource;
  readonly descriptions: boolean;
}

export const ownCrdsDir = join(repoRoot, 'crds');
export const generatedDir = join(repoRoot, 'generated');
export const generatedSrcDir = join(generatedDir, 'src');
export const templatesDir = resolve(repoRoot, 'codegen', 'templates');

/** Our CRDs (crds/*.yaml) and the pinned upstream ones marked for codegen. */
export async function loadInputs(options: ResolveOptions & { ownDir?: string } = {}): Promise<LoadedCrd[]> {
  const out: LoadedCrd[] = [];
  const ownDir = options.ownDir ?? ownCrdsDir;
  // CRD files follow the controller-gen naming, <group>_<plural>.yaml; other YAML there is not a CRD.
  const ownFiles = existsSync(ownDir) ? readdirSync(ownDir).filter((f) => /^[a-z0-9.-]+_[a-z0-9]+\.yaml$/.test(f)).sort() : [];
  for (const file of ownFiles) {
    const path = join(ownDir, file);
    const text = readFileSync(path, 'utf8');
    const source: CrdSource = { label: `metal3-ts crds/${file}`, version: '', sha256: sha256(text) };
    for (const crd of parseCrds(text, relative(repoRoot, path), { unserved: true })) out.push({ crd, source, descriptions: true });
  }
  // Which versions each release gave: a selector naming one that none of its files serves is a stale pin.
  const given = new Map<UpstreamRelease, Set<string>>();
  for (const up of await resolveUpstream({ ...options, use: 'codegen' })) {
    const source: CrdSource = { label: `${up.release.project} ${up.entry.file}`, version: up.release.version, sha256: up.entry.sha256 };
    const versions = given.get(up.release) ?? new Set<string>();
    given.set(up.release, versions);
    for (const crd of parseCrds(up.text, up.origin)) {
      const selected = selectVersions(crd, up.release.apiVersions);
      if (!selected) continue;
      out.push({ crd: selected, source, descriptions: false });
      for (const v of selected.versions) versions.add(v.name);
    }
  }
  for (const [release, versions] of given) {
    const stale = (release.apiVersions ?? []).filter((v) => !versions.has(v));
    if (stale.length > 0) {
      throw new CodegenError(
        `apiVersions of ${release.project} ${release.version} names ${stale.join(', ')}, which none of its codegen files serves`,
        'codegen/upstream.json',
      );
    }
  }
  return out;
}

/** The CRD with only the selected versions (every one without a selector); undefined when none is left. */
export function selectVersions(crd: Crd, apiVersions: readonly string[] | undefined): Crd | undefined {
  if (!apiVersions) return crd;
  const versions = crd.versions.filter((v) => apiVersions.includes(v.name));
  return versions.length > 0 ? { ...crd, versions } : undefined;
}

/** Every generated file, keyed by its path under generated/src. */
export async function generate(inputs: readonly LoadedCrd[]): Promise<FileMap> {
  const files: FileMap = new Map();
  const byGroupVersion = new Map<string, KindInput[]>();
  const seen = new Map<string, string>();
  for (const { crd, source, descriptions } of inputs) {
    for (const version of crd.versions) {
      checkSchema(version.schema, crd.file, version.schemaPath);
      const key = `${crd.group}/${version.name}`;
      const gvk = `${key}/${crd.names.kind}`;
      const earlier = seen.get(gvk);
      if (earlier) throw new CodegenError(`${gvk} is also defined by ${earlier}`, crd.file);
      seen.set(gvk, crd.file);
      const list = byGroupVersion.get(key) ?? [];
      list.push({ crd, version, source, descriptions });
      byGroupVersion.set(key, list);
    }
  }
  for (const key of [...byGroupVersion.keys()].sort()) {
    const slash = key.lastIndexOf('/');
    const module = await emitGroupVersion(key.slice(0, slash), key.slice(slash + 1), byGroupVersion.get(key)!);
    files.set(module.path, module.text);
  }
  for (const [path, text] of templateFiles()) files.set(path, text);
  const apiModules = [...files.keys()].filter(isApiModule).sort();
  files.set('registry.ts', registryText(apiModules));
  return files;
}

/** Templates (codegen/templates, mirroring generated/src) copied with a notice naming their source. */
function templateFiles(): FileMap {
  const out: FileMap = new Map();
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir).sort()) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else if (entry.endsWith('.ts') && !entry.endsWith('.test.ts')) {
        const rel = relative(templatesDir, path);
        out.set(rel, `// ${GENERATED_NOTICE}\n// Source: codegen/templates/${rel}\n\n${readFileSync(path, 'utf8')}`);
      }
    }
  };
  walk(templatesDir);
  return out;
}

/** Modules that declare API kinds (generated ones and templates like core/v1.ts), not runtime code. */
function isApiModule(path: string): boolean {
  return !path.startsWith('runtime/') && path !== 'index.ts' && path !== 'registry.ts' && path.includes('/');
}

function registryText(modulePaths: readonly string[]): string {
  const alias = (path: string) => path.replace(/\.ts$/, '').replace(/[^A-Za-z0-9]+/g, '_');
  return [
    `// ${GENERATED_NOTICE}`,
    '// Every resource descriptor of this package, by group/version/kind.',
    '',
    `import { ResourceRegistry } from './runtime/resource.ts';`,
    ...modulePaths.map((p) => `import { resources as ${alias(p)} } from './${p}';`),
    '',
    'export const registry: ResourceRegistry = new ResourceRegistry([',
    ...modulePaths.map((p) => `  ...${alias(p)},`),
    ']);',
    '',
  ].join('\n');
}

/** Writes the file map to a sibling directory, then swaps it in; on any error the old tree stays. */
export function writeFiles(files: FileMap, target = generatedSrcDir): void {
  const staging = `${target}.new-${process.pid}`;
  const previous = `${target}.old-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  try {
    for (const [path, text] of files) {
      const full = join(staging, path);
      mkdirSync(dirname(full), { recursive: true });
      writeFileSync(full, text);
    }
    if (existsSync(target)) renameSync(target, previous);
    renameSync(staging, target);
    rmSync(previous, { recursive: true, force: true });
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(target) && existsSync(previous)) renameSync(previous, target);
    throw error;
  }
}

/** Paths that differ between the file map and disk: changed, missing, or on disk but not generated. */
export function diffFiles(files: FileMap, target = generatedSrcDir): string[] {
  const drift: string[] = [];
  const onDisk = new Set<string>();
  const walk = (dir: string): void => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else onDisk.add(relative(target, path));
    }
  };
  walk(target);
  for (const [path, text] of files) {
    if (!onDisk.has(path)) drift.push(`missing: ${path}`);
    else if (readFileSync(join(target, path), 'utf8') !== text) drift.push(`changed: ${path}`);
  }
  for (const path of onDisk) if (!files.has(path)) drift.push(`not generated: ${path}`);
  return drift.sort();
}

/** README.md, jsr.json and package.json of generated/, from the src file map and the pins. */
export function generatePackageFiles(files: FileMap, dir = generatedDir, pins?: string): PackageFileMap {
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PackageManifest;
  return packageFiles({ manifest, releases: loadUpstreamReleases(pins), modules: apiModules(files, isApiModule) });
}

export function writePackageFiles(files: PackageFileMap, dir = generatedDir): void {
  for (const [path, text] of files) writeFileSync(join(dir, path), text);
}

/** Package files whose content on disk differs from what codegen would write. */
export function diffPackageFiles(files: PackageFileMap, dir = generatedDir): string[] {
  const drift: string[] = [];
  for (const [path, text] of files) {
    const full = join(dir, path);
    if (!existsSync(full)) drift.push(`missing: ${path}`);
    else if (readFileSync(full, 'utf8') !== text) drift.push(`changed: ${path}`);
  }
  return drift;
}
