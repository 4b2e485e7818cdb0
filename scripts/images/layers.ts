// The two layers of a controller image. (1) The runtime: the Node 24 binary the project installs, at
// /nodejs/bin/node, plus exactly the shared libraries `ldd` lists for it, copied from this host at the
// paths the dynamic loader looks in, and an /etc/passwd and /etc/group naming the numeric user. No
// shell, no npm, no /tmp (the root filesystem is read-only and the controller writes nothing). The
// runtime layer is the same for every controller, so a registry stores it once. (2) The bundle.
import { execFileSync } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { posix } from 'node:path';
import { BUNDLE_PATH, NODE_PATH } from './spec.ts';
import { TarWriter } from './tar.ts';

/**
 * The absolute library paths of `ldd` output, in order: `libc.so.6 => /lib/…/libc.so.6 (0x…)` and the
 * loader's own `/lib64/ld-linux-x86-64.so.2 (0x…)`; the kernel's vdso has no file and is left out. A
 * library ldd could not find is an error naming it (the image would not start).
 */
export function lddPaths(output: string): string[] {
  const paths: string[] = [];
  for (const raw of output.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('linux-vdso') || line.startsWith('linux-gate')) continue;
    if (line.includes('not found')) throw new Error(`ldd: a library the runtime needs is missing on this host: ${line}`);
    if (line.includes('statically linked')) continue;
    const arrow = /^\S+ => (\/\S+) \(0x[0-9a-f]+\)$/.exec(line);
    const direct = /^(\/\S+) \(0x[0-9a-f]+\)$/.exec(line);
    const path = arrow?.[1] ?? direct?.[1];
    if (!path) throw new Error(`ldd: unexpected line "${line}"`);
    paths.push(path);
  }
  return paths;
}

/** Every parent directory of `paths` (without the root), parents first, each once. */
export function parentDirs(paths: readonly string[]): string[] {
  const dirs = new Set<string>();
  for (const p of paths) {
    const parts = posix.dirname(p).split('/').filter(Boolean);
    for (let i = 1; i <= parts.length; i++) dirs.add(parts.slice(0, i).join('/'));
  }
  return [...dirs].sort();
}

export const PASSWD = 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n';
export const GROUP = 'root:x:0:\nnonroot:x:65532:\n';

/** The runtime layer's tar chunks for the node binary at `nodeBinary` (symlinks resolved). */
export function runtimeLayer(nodeBinary: string): { chunks: Uint8Array[]; libraries: string[] } {
  const binary = realpathSync(nodeBinary);
  const libraries = lddPaths(execFileSync('ldd', [binary], { encoding: 'utf8' }));
  const files: [string, Uint8Array][] = [
    [NODE_PATH, readFileSync(binary)],
    // The library's content under the name the loader asks for (Debian's /lib is a symlink to usr/lib).
    ...libraries.map((l): [string, Uint8Array] => [l, readFileSync(realpathSync(l))]),
  ];
  const tar = new TarWriter();
  // Empty mount points a runtime fills in; a read-only root could not create them.
  for (const dir of [...new Set([...parentDirs(files.map(([p]) => p)), 'etc', 'proc', 'dev'])].sort()) tar.add({ type: 'dir', path: dir, mode: 0o755 });
  tar.add({ type: 'file', path: 'etc/group', mode: 0o644, data: Buffer.from(GROUP) });
  tar.add({ type: 'file', path: 'etc/passwd', mode: 0o644, data: Buffer.from(PASSWD) });
  for (const [path, data] of files.sort(([a], [b]) => a.localeCompare(b))) tar.add({ type: 'file', path: path.slice(1), mode: 0o755, data });
  return { chunks: tar.finish(), libraries };
}

/** The application layer: the controller's bundle, readable by everyone, owned by root. */
export function bundleLayer(bundle: Uint8Array): Uint8Array[] {
  return new TarWriter()
    .add({ type: 'dir', path: posix.dirname(BUNDLE_PATH).slice(1), mode: 0o755 })
    .add({ type: 'file', path: BUNDLE_PATH.slice(1), mode: 0o644, data: bundle })
    .finish();
}
