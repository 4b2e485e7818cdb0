// What an image records about its source, and the refusal to build from a tree that is not the commit
// it would claim: an image labelled with revision X must contain X's bundle. Uncommitted or untracked
// files under the build's inputs are a DirtyTreeError naming them (--allow-dirty overrides, for
// development; the label then says `<commit>-dirty`).
import { execFileSync } from 'node:child_process';

/** The paths whose content ends up in an image (relative to the repository root). */
export const BUILD_INPUTS = [
  'controllers',
  'shared',
  'baremetal',
  'generated',
  'scripts/bundle.ts',
  'scripts/images',
  'package.json',
  'package-lock.json',
] as const;

export class DirtyTreeError extends Error {
  override name = 'DirtyTreeError';
  readonly files: readonly string[];
  constructor(files: readonly string[]) {
    const shown = files.slice(0, 20).map((f) => `  ${f}`).join('\n');
    const more = files.length > 20 ? `\n  … and ${files.length - 20} more` : '';
    super(
      `refusing to build images from a dirty tree: ${files.length} uncommitted change(s) under the build inputs:\n${shown}${more}\ncommit them, or pass --allow-dirty (the revision label then ends in -dirty)`,
    );
    this.files = files;
  }
}

/**
 * The paths of `git status --porcelain=v1 -z` output: `XY path\0`, and for a rename or copy the
 * original path as a second NUL-terminated field (skipped: the new path is what changed).
 */
export function changedPaths(porcelainZ: string): string[] {
  const fields = porcelainZ.split('\0');
  const paths: string[] = [];
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i] as string;
    if (field.length < 4) continue;
    const status = field.slice(0, 2);
    paths.push(field.slice(3));
    if (status.includes('R') || status.includes('C')) i++;
  }
  return paths;
}

const git = (root: string, args: readonly string[]) => execFileSync('git', ['-C', root, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

export interface Source {
  readonly revision: string;
  /** Commit time, ISO 8601 UTC. */
  readonly created: string;
  readonly dirty: readonly string[];
}

export function sourceOf(root: string): Source {
  const revision = git(root, ['rev-parse', 'HEAD']).trim();
  const seconds = Number(git(root, ['log', '-1', '--format=%ct']).trim());
  const dirty = changedPaths(git(root, ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--', ...BUILD_INPUTS]));
  return { revision, created: new Date(seconds * 1000).toISOString().replace('.000Z', 'Z'), dirty };
}
