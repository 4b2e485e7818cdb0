// Where things are: the clone's root, config/ and the release output, and the names config/ gives
// each controller (the image test of the images work and the README use the same names).
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const CONFIG = join(ROOT, 'config');
export const RELEASE_DIR = join(ROOT, 'dist', 'release');
export const METADATA = join(ROOT, 'metadata.yaml');

/** Every controller package, each one Deployment. A new controller is added here and in config/. */
export const CONTROLLERS = ['cluster', 'template', 'machine', 'data', 'dataclaim', 'labelsync', 'remediation'] as const;
export type ControllerName = (typeof CONTROLLERS)[number];

/** The all-in-one process (controllers/all-in-one): one Deployment running them all, installed by config/all-in-one. */
export const ALL_IN_ONE = 'all-in-one';
export type ProcessName = ControllerName | typeof ALL_IN_ONE;

export const NAMESPACE = 'metal3-ts-system';
export const PROVIDER_LABEL = { key: 'cluster.x-k8s.io/provider', value: 'infrastructure-metal3' } as const;

export const names = (c: ProcessName) => ({
  serviceAccount: `metal3-ts-${c}-manager`,
  clusterRole: `metal3-ts-${c}-manager`,
  leaderElectionRole: `metal3-ts-${c}-leader-election`,
  deployment: `metal3-ts-${c}-controller-manager`,
  lease: `metal3-ts-${c}`,
  image: `metal3-ts/controller-${c}`,
});
