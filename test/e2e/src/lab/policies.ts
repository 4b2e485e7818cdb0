// The ValidatingAdmissionPolicies the install ships (config/policy, part of config/default: the
// copies of crds/policies), installed in the lab as `kubectl apply` would, so the lab refuses what an
// installed cluster refuses. Policies reach admission through an informer, so installPolicies waits
// until a dry-run request each policy must refuse is refused; a policy without such a probe is an
// error here, so a policy added to config/policy cannot be shipped untried in the lab.
import { readFileSync } from 'node:fs';
import { parse, parseAllDocuments } from 'yaml';
import { ApiError } from '@metal3-ts/test/envtest/errors';
import type { ApiClient, KubeObject } from '@metal3-ts/test/envtest/http';
import { eventually } from '@metal3-ts/test/testing/eventually';

const POLICY_DIR = new URL('../../../../config/policy/', import.meta.url);
const ADMISSION = '/apis/admissionregistration.k8s.io/v1';
const INFRA = '/apis/infrastructure.cluster.x-k8s.io/v1beta1';
const PATHS: Readonly<Record<string, string>> = {
  ValidatingAdmissionPolicy: `${ADMISSION}/validatingadmissionpolicies`,
  ValidatingAdmissionPolicyBinding: `${ADMISSION}/validatingadmissionpolicybindings`,
};

/** Every document of config/policy, in its kustomization's order. */
export function shippedPolicyDocuments(): KubeObject[] {
  const { resources } = parse(readFileSync(new URL('kustomization.yaml', POLICY_DIR), 'utf8')) as { resources: string[] };
  return resources.flatMap((file) => parseAllDocuments(readFileSync(new URL(file, POLICY_DIR), 'utf8')).map((d) => d.toJS() as KubeObject));
}

/** Per policy, a create it refuses in `namespace` (sent as a dry run). */
const PROBES: Readonly<Record<string, (namespace: string) => { path: string; body: KubeObject }>> = {
  // W-5/W-9: a claim naming a template of another namespace.
  'metal3-same-namespace-references': (namespace) => ({
    path: `${INFRA}/namespaces/${namespace}/metal3dataclaims`,
    body: {
      apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
      kind: 'Metal3DataClaim',
      metadata: { name: 'policy-probe' },
      spec: { template: { name: 't', namespace: `${namespace}-elsewhere` } },
    },
  }),
  // LS-4: a label-sync prefix that is no DNS-1123 subdomain.
  'metal3-label-sync-prefixes': (namespace) => ({
    path: `${INFRA}/namespaces/${namespace}/metal3clusters`,
    body: {
      apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
      kind: 'Metal3Cluster',
      metadata: { name: 'policy-probe', annotations: { 'metal3.io/metal3-label-sync-prefixes': 'Not_A_Prefix' } },
      spec: { controlPlaneEndpoint: { host: '192.168.111.249', port: 6443 } },
    },
  }),
};

async function refused(client: ApiClient, probe: { path: string; body: KubeObject }): Promise<boolean> {
  try {
    await client.request('POST', probe.path, { body: probe.body, query: { dryRun: 'All' } });
    return false;
  } catch (error) {
    if (error instanceof ApiError && error.code === 422) return true;
    throw error;
  }
}

/** Creates every shipped policy and binding; resolves once each policy is enforced. Returns the policy names. */
export async function installPolicies(client: ApiClient, namespace: string): Promise<string[]> {
  const documents = shippedPolicyDocuments();
  const names = documents.filter((d) => d.kind === 'ValidatingAdmissionPolicy').map((d) => d.metadata?.name ?? '');
  const unprobed = names.filter((name) => PROBES[name] === undefined);
  if (unprobed.length > 0) throw new Error(`config/policy ships ${unprobed.join(', ')} with no probe in test/e2e/src/lab/policies.ts`);
  for (const document of documents) {
    const path = PATHS[document.kind ?? ''];
    if (!path) throw new Error(`config/policy: ${document.kind} ${document.metadata?.name} is no admission policy or binding`);
    await client.create(path, document);
  }
  for (const name of names) {
    const probe = PROBES[name]!(namespace);
    await eventually(`the admission policy ${name} to be enforced`, async () => ((await refused(client, probe)) ? true : undefined), {
      timeoutMs: 30_000,
      pollMs: 200,
    });
  }
  return names;
}
