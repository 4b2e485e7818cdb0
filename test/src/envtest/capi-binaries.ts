// Where the real Cluster API managers come from: test/envtest/bins/build-capi.sh builds them from the
// Go module sigs.k8s.io/cluster-api at a pinned release (a wrapper module per version) into a per-user
// cache, with the release's install manifests beside them. This module only asks it for paths, like
// binaries.ts does for kube-apiserver/etcd: minutes when cold, a few milliseconds when warm.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BinariesError } from './errors.ts';

export const capiBuildScript = resolve(dirname(fileURLToPath(import.meta.url)), '../../envtest/bins/build-capi.sh');

/** The releases with a wrapper module (test/envtest/bins/capi/<version>), newest first. */
export const CAPI_VERSIONS: readonly string[] = readdirSync(resolve(dirname(capiBuildScript), 'capi'))
  .filter((v) => /^v\d+\.\d+\.\d+$/.test(v))
  .sort((a, b) => b.localeCompare(a, 'en', { numeric: true }));

export interface ClusterApiBinaries {
  readonly version: string;
  /** Core manager (Cluster, Machine, MachineSet, MachineDeployment, MachineHealthCheck, ...). */
  readonly core: string;
  /** Kubeadm bootstrap manager (KubeadmConfig). */
  readonly bootstrap: string;
  /** Kubeadm control-plane manager (KubeadmControlPlane). */
  readonly controlPlane: string;
  /** The release's config/{crd,webhook,manager,default} of each component, at their module paths. */
  readonly release: string;
}

const cached = new Map<string, ClusterApiBinaries>();

/** Returns one release's managers, building them on a cache miss (progress on this process's stderr). */
export function ensureClusterApiBinaries(version: string, options: { quiet?: boolean } = {}): ClusterApiBinaries {
  const hit = cached.get(version);
  if (hit) return hit;
  if (!CAPI_VERSIONS.includes(version)) {
    throw new BinariesError(`Cluster API ${version} is not built by this project (known: ${CAPI_VERSIONS.join(', ')})`);
  }
  const result = spawnSync('bash', [capiBuildScript, '--print', ...(options.quiet === false ? [] : ['--quiet']), version], {
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
  });
  if (result.error) throw new BinariesError(`cannot run ${capiBuildScript}: ${result.error.message}`);
  if (result.status !== 0) {
    // build-capi.sh has already printed the explanation (what to install, or the build log tail).
    throw new BinariesError(
      result.status === 3
        ? `the Cluster API ${version} managers are not available: install Go (see the message above)`
        : `building the Cluster API ${version} managers failed (${capiBuildScript} exited with ${result.status})`,
    );
  }
  const paths = new Map(
    result.stdout
      .split('\n')
      .filter((l) => l.startsWith(`${version}/`) && l.includes('='))
      .map((l) => [l.slice(version.length + 1, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
  const pick = (key: string): string => {
    const path = paths.get(key);
    if (!path) throw new BinariesError(`${capiBuildScript} printed no path for ${version}/${key}: ${result.stdout}`);
    return path;
  };
  const found: ClusterApiBinaries = {
    version,
    core: pick('manager'),
    bootstrap: pick('kubeadm-bootstrap-manager'),
    controlPlane: pick('kubeadm-control-plane-manager'),
    release: pick('release'),
  };
  cached.set(version, found);
  return found;
}
