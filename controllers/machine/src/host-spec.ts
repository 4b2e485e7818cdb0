// What the Metal3Machine tells its host and what it learns back, as pure functions: which user data
// Secret to deploy (M-23) and which metadata and network data Secrets (M-35 steps 1-2). The machine
// addresses read from the host's hardware details (M-31) are host-addresses.ts's. References into
// another namespace never get here: references.ts refuses them first, for every field at once.
import type { Metal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { CachedMachine } from './projections.ts';

export interface SecretRef {
  readonly name?: string | undefined;
  readonly namespace?: string | undefined;
}

/**
 * M-23: the user data Secret. The Machine's bootstrap data wins over `spec.userData` (E-8): its
 * `dataSecretName`, else the name of its bootstrap config (the Secret is named like the config).
 */
export function userDataFor(m3m: Readonly<Metal3Machine>, machine: Readonly<CachedMachine>): SecretRef | undefined {
  const namespace = m3m.metadata.namespace ?? '';
  const bootstrap = machine.spec?.bootstrap;
  const machineNamespace = machine.metadata.namespace ?? namespace;
  if (bootstrap?.dataSecretName) return { name: bootstrap.dataSecretName, namespace: machineNamespace };
  if (bootstrap?.configRef?.name) return { name: bootstrap.configRef.name, namespace: machineNamespace };
  return m3m.spec?.userData ? { ...m3m.spec.userData } : undefined;
}

/** M-35 steps 1-2: metadata and network data Secrets named in the spec are copied to the status. */
export function specDataSecrets(m3m: Readonly<Metal3Machine>): { metaData?: SecretRef; networkData?: SecretRef } {
  return {
    ...(m3m.spec?.metaData ? { metaData: { ...m3m.spec.metaData } } : {}),
    ...(m3m.spec?.networkData ? { networkData: { ...m3m.spec.networkData } } : {}),
  };
}
