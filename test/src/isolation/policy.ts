// Installing crds/policies/same-namespace-references.yaml in a test apiserver, and taking its binding
// away again (admission bypassed, as on a cluster where the policy was never installed). Policies reach
// admission through an informer, so each step waits until a dry-run request shows it took effect.
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { ApiError } from '../envtest/errors.ts';
import type { ApiClient, KubeObject } from '../envtest/http.ts';
import { eventually } from '../testing/eventually.ts';

const ADMISSION = '/apis/admissionregistration.k8s.io/v1';
const INFRA = '/apis/infrastructure.cluster.x-k8s.io/v1beta1';
export const POLICY_FILE = new URL('../../../crds/policies/same-namespace-references.yaml', import.meta.url);

export const policyDocuments = (): KubeObject[] => parseAllDocuments(readFileSync(POLICY_FILE, 'utf8')).map((d) => d.toJS() as KubeObject);
const [policy, binding] = policyDocuments() as [KubeObject, KubeObject];
const policies = `${ADMISSION}/validatingadmissionpolicies`;
const bindings = `${ADMISSION}/validatingadmissionpolicybindings`;

/** Whether a Metal3DataClaim naming a template of another namespace is refused in `namespace` now. */
async function enforced(client: ApiClient, namespace: string): Promise<boolean> {
  const probe = {
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
    kind: 'Metal3DataClaim',
    metadata: { name: 'policy-probe' },
    spec: { template: { name: 't', namespace: 'policy-probe-elsewhere' } },
  };
  try {
    await client.request('POST', `${INFRA}/namespaces/${namespace}/metal3dataclaims`, { body: probe, query: { dryRun: 'All' } });
    return false;
  } catch (error) {
    if (error instanceof ApiError && error.code === 422) return true;
    throw error;
  }
}

const until = (client: ApiClient, namespace: string, want: boolean, what: string) =>
  eventually(what, async () => ((await enforced(client, namespace)) === want ? true : undefined), { timeoutMs: 30_000, pollMs: 200 });

/** Creates the policy and its binding; resolves once the apiserver enforces them. */
export async function installPolicy(client: ApiClient, probeNamespace: string): Promise<void> {
  await client.create(policies, policy);
  await bindPolicy(client, probeNamespace);
}

/** Creates the binding of an installed policy; resolves once the apiserver enforces it. */
export async function bindPolicy(client: ApiClient, probeNamespace: string): Promise<void> {
  await client.create(bindings, binding);
  await until(client, probeNamespace, true, 'the same-namespace policy to be enforced');
}

/** Deletes the binding (the policy stays, unused); resolves once requests are no longer checked. */
export async function unbindPolicy(client: ApiClient, probeNamespace: string): Promise<void> {
  await client.delete(`${bindings}/${binding.metadata?.name}`);
  await until(client, probeNamespace, false, 'the same-namespace policy to stop being enforced');
}

/**
 * Deletes whatever is left of both; resolves once requests are no longer checked, so the suites that
 * run next in the same apiserver see the plain CRDs.
 */
export async function removePolicy(client: ApiClient, probeNamespace: string): Promise<void> {
  for (const path of [`${bindings}/${binding.metadata?.name}`, `${policies}/${policy.metadata?.name}`]) {
    try {
      await client.delete(path);
    } catch (error) {
      if (!(error instanceof ApiError && error.code === 404)) throw error;
    }
  }
  await until(client, probeNamespace, false, 'the same-namespace policy to be gone');
}

/** The policy document as written (for checks of what it matches). */
export const policyObject = (): KubeObject => structuredClone(policy);
