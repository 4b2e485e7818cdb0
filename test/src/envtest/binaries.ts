// Where kube-apiserver and etcd come from. The build logic (versions, cache layout, Go checks) lives in
// test/envtest/bins/build.sh so CI and humans can run it alone; this module only asks it for paths.
// Order, following the envtest convention:
//   1. TEST_ASSET_KUBE_APISERVER / TEST_ASSET_ETCD (single binaries),
//   2. KUBEBUILDER_ASSETS (a directory with both; build.sh checks it and builds nothing),
//   3. the per-user cache, building on a miss (minutes when cold, a few milliseconds when warm).
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { dirname, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { BinariesError } from './errors.ts';

export interface Binaries {
  readonly kubeApiserver: string;
  readonly etcd: string;
}

export const buildScript = resolve(dirname(fileURLToPath(import.meta.url)), '../../envtest/bins/build.sh');

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

let cached: Binaries | undefined;

/**
 * Returns the binaries, building them on a cache miss. The build's progress goes to this process's
 * stderr (a cold build takes many minutes and should not look like a hang).
 */
export function ensureBinaries(options: { quiet?: boolean } = {}): Binaries {
  if (cached) return cached;
  const kas = process.env['TEST_ASSET_KUBE_APISERVER'];
  const etcd = process.env['TEST_ASSET_ETCD'];
  if (kas && etcd) {
    for (const path of [kas, etcd]) if (!executable(path)) throw new BinariesError(`${path} is not an executable file`);
    return (cached = { kubeApiserver: kas, etcd });
  }
  const result = spawnSync('bash', [buildScript, '--print', ...(options.quiet === false ? [] : ['--quiet'])], {
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
  });
  if (result.error) throw new BinariesError(`cannot run ${buildScript}: ${result.error.message}`);
  if (result.status !== 0) {
    // build.sh has already printed the explanation (what to install, or the build log tail).
    throw new BinariesError(
      result.status === 3
        ? 'kube-apiserver/etcd are not available: install Go (see the message above) or set KUBEBUILDER_ASSETS'
        : `building kube-apiserver/etcd failed (${buildScript} exited with ${result.status})`,
    );
  }
  const paths = Object.fromEntries(
    result.stdout
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  ) as Record<string, string | undefined>;
  const found = { kubeApiserver: kas ?? paths['kube-apiserver'], etcd: etcd ?? paths['etcd'] };
  if (!found.kubeApiserver || !found.etcd) throw new BinariesError(`${buildScript} printed no paths: ${result.stdout}`);
  return (cached = { kubeApiserver: found.kubeApiserver, etcd: found.etcd });
}
