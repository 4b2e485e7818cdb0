// Reading a `<cluster>-kubeconfig` Secret into a Connection. Pure: no I/O beyond what the kubeconfig
// parser does, and file references are refused, so nothing on the controller's disk is ever read.
import { Buffer } from 'node:buffer';
import type { Connection } from '@metal3-ts/generated';
import type { Secret } from '@metal3-ts/generated/core/v1';
import { KubeConfigError, parseKubeConfig } from '../client/kubeconfig.ts';
import { type ClusterKey, InvalidKubeconfigSecretError } from './errors.ts';

/** The key Cluster API stores the kubeconfig under. */
export const KUBECONFIG_SECRET_KEY = 'value';

export function connectionFromSecret(cluster: ClusterKey, secret: Readonly<Secret>): Connection {
  const encoded = secret.data?.[KUBECONFIG_SECRET_KEY];
  const text = encoded !== undefined ? Buffer.from(encoded, 'base64').toString('utf8') : secret.stringData?.[KUBECONFIG_SECRET_KEY];
  if (!text) throw new InvalidKubeconfigSecretError(cluster, `missing key "${KUBECONFIG_SECRET_KEY}" in secret data`);
  try {
    return parseKubeConfig(text, { allowFiles: false });
  } catch (error) {
    if (error instanceof KubeConfigError) throw new InvalidKubeconfigSecretError(cluster, error.message, error);
    throw error;
  }
}
