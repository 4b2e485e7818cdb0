// Connection details for one identity on one apiserver, in every form later code may want: raw fields,
// a kubeconfig YAML string (for files and `<cluster>-kubeconfig` Secrets), a kubeconfig file, the
// launcher's own ApiClient and a @kubernetes/client-node KubeConfig (loaded lazily: the client library
// is large and most launcher users never need it).
import { writeFileSync } from 'node:fs';
import type { KubeConfig } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { ApiClient } from './http.ts';

export interface Identity {
  readonly user: string;
  readonly groups: readonly string[];
  readonly token?: string;
  readonly certPem?: string;
  readonly keyPem?: string;
}

export interface Connection extends Identity {
  /** Cluster name used in the kubeconfig (e.g. "envtest" or the workload cluster's name). */
  readonly cluster: string;
  /** https://127.0.0.1:<port> */
  readonly server: string;
  readonly caPem: string;
  /** base64 of caPem, as kubeconfig's certificate-authority-data and client-node's caData want it. */
  readonly caData: string;
  /** The client certificate under the names the generated Transport's Connection uses. */
  readonly clientCertPem?: string;
  readonly clientKeyPem?: string;
  /** A complete kubeconfig document. */
  readonly kubeconfig: string;
  /** The same kubeconfig written to a file (mode 0600) inside the environment's directory. */
  readonly kubeconfigPath: string;
  readonly client: ApiClient;
  /** A @kubernetes/client-node KubeConfig for this identity (imports the library on first use). */
  kubeConfig(): Promise<KubeConfig>;
}

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

export function kubeconfigYaml(cluster: string, server: string, caPem: string, identity: Identity): string {
  const user: Record<string, string> = {};
  if (identity.token) user['token'] = identity.token;
  if (identity.certPem) user['client-certificate-data'] = b64(identity.certPem);
  if (identity.keyPem) user['client-key-data'] = b64(identity.keyPem);
  const context = `${identity.user}@${cluster}`;
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: cluster, cluster: { server, 'certificate-authority-data': b64(caPem) } }],
    users: [{ name: identity.user, user }],
    contexts: [{ name: context, context: { cluster, user: identity.user, namespace: 'default' } }],
    'current-context': context,
    preferences: {},
  });
}

export function makeConnection(options: {
  cluster: string;
  server: string;
  caPem: string;
  identity: Identity;
  path: string;
}): Connection {
  const { cluster, server, caPem, identity, path } = options;
  const kubeconfig = kubeconfigYaml(cluster, server, caPem, identity);
  writeFileSync(path, kubeconfig, { mode: 0o600 });
  let loaded: Promise<KubeConfig> | undefined;
  return {
    ...identity,
    // Also a Connection of @metal3-ts/generated: Transport.fromConnection(connection) authenticates.
    ...(identity.certPem ? { clientCertPem: identity.certPem } : {}),
    ...(identity.keyPem ? { clientKeyPem: identity.keyPem } : {}),
    cluster,
    server,
    caPem,
    caData: b64(caPem),
    kubeconfig,
    kubeconfigPath: path,
    client: new ApiClient(server, caPem, identity),
    kubeConfig() {
      loaded ??= import('@kubernetes/client-node').then(({ KubeConfig }) => {
        const kc = new KubeConfig();
        kc.loadFromString(kubeconfig);
        return kc;
      });
      return loaded;
    },
  };
}
