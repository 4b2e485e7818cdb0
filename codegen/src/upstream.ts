// The pinned upstream CRD sources (codegen/upstream.json): where each file comes from and its sha256.
// Files are read from a local directory laid out like ../shared/crds (<directory>/<file>) or, with
// `fetch`, downloaded from their release URLs; either way every byte is checked against the pin.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import process from 'node:process';
import { CodegenError } from './errors.ts';

export type UpstreamUse = 'codegen' | 'reference';

export interface UpstreamFile {
  readonly file: string;
  readonly url: string;
  readonly sha256: string;
  readonly use: UpstreamUse;
}

export interface UpstreamRelease {
  readonly project: string;
  readonly version: string;
  readonly directory: string;
  /**
   * The served API versions codegen takes from this release's files (default: every served one). A
   * group/version/kind comes from exactly one release, so two releases of one project split the versions
   * between them (Cluster API v1.10 gives v1beta1, v1.13 gives v1beta2).
   */
  readonly apiVersions?: readonly string[];
  /**
   * Whether the test environment's base install applies this release's codegen files (default true).
   * False for a release whose CRDs reach the test apiserver another way (test/src/capi installs Cluster
   * API v1.13's, kustomized, with its real managers), since a CRD name may be installed once.
   */
  readonly envtest?: boolean;
  /** Why the release is pinned the way it is, printed under the generated README's table of pins. */
  readonly note?: string;
  readonly files: readonly UpstreamFile[];
}

/** One pinned file with its verified bytes. */
export interface UpstreamSource {
  readonly release: UpstreamRelease;
  readonly entry: UpstreamFile;
  /** Where the bytes came from: a local path or the URL. */
  readonly origin: string;
  readonly text: string;
}

const here = dirname(fileURLToPath(import.meta.url));
export const upstreamManifestPath = resolve(here, '../upstream.json');
export const repoRoot = resolve(here, '../..');

export function loadUpstreamReleases(path = upstreamManifestPath): UpstreamRelease[] {
  const manifest = JSON.parse(readFileSync(path, 'utf8')) as { releases: UpstreamRelease[] };
  return manifest.releases;
}

/**
 * The directory holding the pinned upstream CRDs: an explicit argument, else METAL3_TS_UPSTREAM_CRDS,
 * else `../shared/crds` beside the repository (where developers and CI have it).
 */
export function upstreamDirectory(explicit?: string): string {
  return resolve(explicit ?? process.env['METAL3_TS_UPSTREAM_CRDS'] ?? join(repoRoot, '..', 'shared', 'crds'));
}

export function sha256(bytes: string | Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export interface ResolveOptions {
  /** Local directory laid out as `<release.directory>/<file>`. */
  readonly directory?: string;
  /** Download from the pinned URLs instead of reading a directory. */
  readonly fetch?: boolean;
  /** Only files with this use (default: all). */
  readonly use?: UpstreamUse;
  /** Only releases the test environment installs (`envtest` not false). */
  readonly envtest?: boolean;
  /** The pins file (default codegen/upstream.json). */
  readonly manifest?: string;
}

export async function resolveUpstream(options: ResolveOptions = {}): Promise<UpstreamSource[]> {
  const dir = upstreamDirectory(options.directory);
  const out: UpstreamSource[] = [];
  for (const release of loadUpstreamReleases(options.manifest)) {
    if (options.envtest && release.envtest === false) continue;
    for (const entry of release.files) {
      if (options.use && entry.use !== options.use) continue;
      const { text, origin } = options.fetch ? await download(entry) : readLocal(dir, release, entry);
      const actual = sha256(text);
      if (actual !== entry.sha256) {
        throw new CodegenError(
          `sha256 mismatch: expected ${entry.sha256}, got ${actual} (pinned in codegen/upstream.json for ${release.project} ${release.version})`,
          origin,
        );
      }
      out.push({ release, entry, origin, text });
    }
  }
  return out;
}

function readLocal(dir: string, release: UpstreamRelease, entry: UpstreamFile): { text: string; origin: string } {
  const path = join(dir, release.directory, entry.file);
  if (!existsSync(path)) {
    throw new CodegenError(
      `missing upstream CRD file; point --upstream or METAL3_TS_UPSTREAM_CRDS at a directory with ${release.directory}/, or use --fetch`,
      path,
    );
  }
  return { text: readFileSync(path, 'utf8'), origin: path };
}

async function download(entry: UpstreamFile): Promise<{ text: string; origin: string }> {
  let response: Response;
  try {
    response = await fetch(entry.url);
  } catch (cause) {
    throw new CodegenError(`download failed: ${(cause as Error).message}`, entry.url);
  }
  if (!response.ok) throw new CodegenError(`download failed: HTTP ${response.status}`, entry.url);
  return { text: await response.text(), origin: entry.url };
}
