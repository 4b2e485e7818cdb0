// A clean checkout of the repository's HEAD, for building images the way a release would: a shared
// local clone (cheap: objects are borrowed) whose node_modules links the installed third-party
// packages and points the workspace packages at the clone's own sources, so nothing uncommitted in
// the working tree can reach an image built here.
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readlinkSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export async function cleanCheckout(repoRoot: string, into: string): Promise<string> {
  await run('git', ['clone', '--quiet', '--shared', '--no-checkout', repoRoot, into]);
  await run('git', ['-C', into, 'checkout', '--quiet', (await run('git', ['-C', repoRoot, 'rev-parse', 'HEAD'])).stdout.trim()]);
  const modules = join(repoRoot, 'node_modules');
  const target = join(into, 'node_modules');
  mkdirSync(target);
  for (const entry of readdirSync(modules)) {
    if (entry === '@metal3-ts') {
      // Workspace links are relative (../../shared): the same link text resolves inside the clone.
      mkdirSync(join(target, entry));
      for (const pkg of readdirSync(join(modules, entry))) symlinkSync(readlinkSync(join(modules, entry, pkg)), join(target, entry, pkg));
    } else {
      symlinkSync(join(modules, entry), join(target, entry));
    }
  }
  return into;
}

export interface BuildRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** `node scripts/images/build.ts ...args` in `root`, with the project's Node. */
export async function runImageBuild(root: string, args: readonly string[]): Promise<BuildRun> {
  try {
    const { stdout, stderr } = await run(join(root, 'node_modules', '.bin', 'node'), [join(root, 'scripts', 'images', 'build.ts'), ...args], {
      cwd: root,
      maxBuffer: 16 << 20,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? String(error) };
  }
}
