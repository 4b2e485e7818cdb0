// The pin rewrite behind `npm run bump`: one upstream release in codegen/upstream.json replaced by a
// newer one of the same project, keeping everything that says what the release is for (its file list,
// `use` of each file, `apiVersions`, `envtest`). Pure: the pins and the new files' digests in, the new
// pins out, so the rule for which release a version replaces is table-tested without touching disk.
import { CodegenError } from './errors.ts';
import type { UpstreamRelease } from './upstream.ts';

export interface BumpRequest {
  readonly project: string;
  readonly version: string;
  /** The pinned version to replace; default: the same major.minor series, else the newest pinned. */
  readonly replace?: string;
}

export interface BumpResult {
  readonly releases: UpstreamRelease[];
  readonly replaced: UpstreamRelease;
  readonly release: UpstreamRelease;
  /** CRD files the new release has that the old one did not pin (new kinds to consider). */
  readonly unpinned: readonly string[];
}

const SEMVER = /^v(\d+)\.(\d+)\.(\d+)$/;

function parts(version: string): [number, number, number] {
  const m = SEMVER.exec(version);
  if (!m) throw new CodegenError(`version must look like v1.13.6, got ${JSON.stringify(version)}`, 'codegen/upstream.json');
  return [Number(m[1]), Number(m[2]), Number(m[3])];
}

function compare(a: string, b: string): number {
  const [x, y] = [parts(a), parts(b)];
  return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
}

/** The pinned release a bump to `version` replaces (see BumpRequest.replace). */
export function releaseToReplace(releases: readonly UpstreamRelease[], request: BumpRequest): UpstreamRelease {
  const own = releases.filter((r) => r.project === request.project);
  if (own.length === 0) {
    const projects = [...new Set(releases.map((r) => r.project))].sort().join(', ');
    throw new CodegenError(`no pinned release of ${request.project}; pinned projects: ${projects}`, 'codegen/upstream.json');
  }
  const [major, minor] = parts(request.version);
  if (own.some((r) => r.version === request.version)) {
    throw new CodegenError(`${request.project} ${request.version} is already pinned`, 'codegen/upstream.json');
  }
  if (request.replace) {
    const named = own.find((r) => r.version === request.replace);
    if (!named) {
      throw new CodegenError(
        `--replace ${request.replace}: pinned ${request.project} releases are ${own.map((r) => r.version).join(', ')}`,
        'codegen/upstream.json',
      );
    }
    return named;
  }
  const series = own.find((r) => parts(r.version)[0] === major && parts(r.version)[1] === minor);
  return series ?? [...own].sort((a, b) => compare(b.version, a.version))[0]!;
}

/** Where the new release's files live under the upstream directory (`cluster-api-v1.13.6`). */
export function directoryFor(replaced: UpstreamRelease, version: string): string {
  return replaced.directory.includes(replaced.version) ? replaced.directory.replace(replaced.version, version) : `${replaced.project}-${version}`;
}

/** A pinned URL moved to the new tag; a URL that does not name the old tag cannot be moved. */
export function urlFor(url: string, replaced: UpstreamRelease, version: string): string {
  if (!url.includes(`/${replaced.version}/`)) {
    throw new CodegenError(`the pinned URL does not name the tag ${replaced.version}: ${url}`, 'codegen/upstream.json');
  }
  return url.replace(`/${replaced.version}/`, `/${version}/`);
}

/**
 * The pins with `replaced` swapped for `version`: same files, URLs moved to the new tag, digests from
 * `digests` (file name → sha256 of the new release's bytes). A pinned file the new release lacks is an
 * error: the fix (drop it, or the kinds it gave) is a decision, not something to guess.
 */
export function rewritePins(releases: readonly UpstreamRelease[], request: BumpRequest, digests: ReadonlyMap<string, string>): BumpResult {
  const replaced = releaseToReplace(releases, request);
  const missing = replaced.files.filter((f) => !digests.has(f.file)).map((f) => f.file);
  if (missing.length > 0) {
    throw new CodegenError(`${request.project} ${request.version} lacks ${missing.join(', ')}, pinned for ${replaced.version}`, 'codegen/upstream.json');
  }
  const release: UpstreamRelease = {
    ...replaced,
    version: request.version,
    directory: directoryFor(replaced, request.version),
    files: replaced.files.map((f) => ({ ...f, url: urlFor(f.url, replaced, request.version), sha256: digests.get(f.file)! })),
  };
  const pinned = new Set(replaced.files.map((f) => f.file));
  return {
    releases: releases.map((r) => (r === replaced ? release : r)),
    replaced,
    release,
    unpinned: [...digests.keys()].filter((f) => !pinned.has(f)).sort(),
  };
}
