// `metal3-codegen bump`: moves one upstream release to a new version in one command. It finds the new
// release's CRD files (a directory, or downloaded from the pinned URLs moved to the new tag), places them
// in the upstream directory where every later codegen and test run reads them, rewrites the pins in
// codegen/upstream.json, regenerates generated/, prints what changed in the generated API, then runs
// the checks that show what the change breaks: every package's type check (tsc and deno, through turbo)
// and the CRD compatibility check. The pins and generated/ stay rewritten when a check fails: the
// failures are the list of fixes the bump needs.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import process from 'node:process';
import { apiChanges, formatApiChanges } from './api-changes.ts';
import { type BumpRequest, directoryFor, releaseToReplace, rewritePins, urlFor } from './bump.ts';
import { CodegenError } from './errors.ts';
import { generate, generatedDir, generatePackageFiles, loadInputs, writeFiles, writePackageFiles } from './generate.ts';
import { loadUpstreamReleases, repoRoot, sha256, upstreamDirectory, upstreamManifestPath } from './upstream.ts';

export interface BumpOptions extends BumpRequest {
  /** A directory holding the new release's CRD files (copied into the upstream directory). */
  readonly from?: string;
  /** Download the files from the pinned URLs moved to the new tag. */
  readonly fetch?: boolean;
  /** The upstream directory (default: METAL3_TS_UPSTREAM_CRDS, else ../shared/crds). */
  readonly upstream?: string;
  /** Skip the type checks and the CRD compatibility check (the summary is still printed). */
  readonly checks?: boolean;
  /** The pins file (default codegen/upstream.json) and the generated package (default generated/). */
  readonly manifest?: string;
  readonly generated?: string;
  readonly log?: (line: string) => void;
}

/** generated/src as it is on disk, path → text (the "before" of the API summary). */
function readTree(dir: string, root = dir, out = new Map<string, string>()): Map<string, string> {
  if (!existsSync(dir)) return out;
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) readTree(path, root, out);
    else out.set(relative(root, path), readFileSync(path, 'utf8'));
  }
  return out;
}

/** The new release's files, placed in `<upstream>/<directory>/`; file name → sha256. */
async function placeFiles(options: BumpOptions, directory: string, urls: ReadonlyMap<string, string>): Promise<Map<string, string>> {
  const target = join(upstreamDirectory(options.upstream), directory);
  if (options.fetch || options.from) mkdirSync(target, { recursive: true });
  if (options.fetch) {
    for (const [file, url] of urls) {
      const response = await fetch(url).catch((cause: Error) => {
        throw new CodegenError(`download failed: ${cause.message}`, url);
      });
      if (!response.ok) throw new CodegenError(`download failed: HTTP ${response.status}`, url);
      writeFileSync(join(target, file), new Uint8Array(await response.arrayBuffer()));
    }
  } else if (options.from && resolve(options.from) !== resolve(target)) {
    for (const file of readdirSync(options.from).filter((f) => f.endsWith('.yaml'))) copyFileSync(join(options.from, file), join(target, file));
  }
  if (!existsSync(target) || readdirSync(target).length === 0) {
    throw new CodegenError('no CRD files for the new release; pass --from DIR or --fetch', target);
  }
  const digests = new Map<string, string>();
  for (const file of readdirSync(target).filter((f) => f.endsWith('.yaml')).sort()) digests.set(file, sha256(readFileSync(join(target, file))));
  return digests;
}

function check(title: string, command: string, args: readonly string[], cwd: string, upstream: string, log: (line: string) => void): boolean {
  const started = performance.now();
  // The checks read the pins from the same upstream directory the bump placed the files in.
  const result = spawnSync(command, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, METAL3_TS_UPSTREAM_CRDS: upstream } });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  log(`${result.status === 0 ? 'ok  ' : 'FAIL'} ${title} (${seconds} s)`);
  return result.status === 0;
}

/** Runs the bump; resolves to the exit code (0 when every check passed, 1 otherwise). */
export async function runBump(options: BumpOptions): Promise<number> {
  const log = options.log ?? ((line: string) => console.error(line));
  const started = performance.now();
  const pins = options.manifest ?? upstreamManifestPath;
  const generated = options.generated ?? generatedDir;
  const releases = loadUpstreamReleases(pins);
  const old = releaseToReplace(releases, options);
  const urls = new Map(old.files.map((f) => [f.file, urlFor(f.url, old, options.version)]));
  const result = rewritePins(releases, options, await placeFiles(options, directoryFor(old, options.version), urls));
  const before = readTree(join(generated, 'src'));
  const manifest = JSON.parse(readFileSync(pins, 'utf8')) as Record<string, unknown>;
  writeFileSync(pins, `${JSON.stringify({ ...manifest, releases: result.releases }, null, 2)}\n`);
  log(
    `pins: ${options.project} ${result.replaced.version} → ${options.version} (${result.release.files.length} files) in ${
      pins === upstreamManifestPath ? 'codegen/upstream.json' : pins
    }`,
  );
  if (result.unpinned.length > 0) log(`not pinned (new in ${options.version}; add to upstream.json to use): ${result.unpinned.join(', ')}`);
  const files = await generate(await loadInputs({ ...(options.upstream ? { directory: options.upstream } : {}), manifest: pins }));
  writeFiles(files, join(generated, 'src'));
  writePackageFiles(generatePackageFiles(files, generated, pins), generated);
  log(formatApiChanges(apiChanges(before, files)));
  log(`pins and generated/ rewritten in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  if (options.checks === false) return 0;
  const turbo = join(repoRoot, 'node_modules', '.bin', 'turbo');
  const upstream = upstreamDirectory(options.upstream);
  const typecheck = ['run', 'typecheck', 'typecheck:deno', '--concurrency=2', '--output-logs=errors-only'];
  const compat = [join(repoRoot, 'scripts', 'run-tests.ts'), 'src', '--filter', 'compat'];
  const ok = [
    check('type check of every package (turbo run typecheck typecheck:deno)', turbo, typecheck, repoRoot, upstream, log),
    check('CRD compatibility check (crds/src/compat.test.ts)', process.execPath, compat, join(repoRoot, 'crds'), upstream, log),
  ].every(Boolean);
  log(`bump ${ok ? 'done' : 'done; the failures above are the fixes it needs'} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return ok ? 0 : 1;
}
