// The API path of each kind the install manifests hold, for server-side apply in the tests. A kind
// not listed is an error naming it (add it here when config/ gains one).
import type { Manifest } from '../src/components.ts';

const PATHS: Readonly<Record<string, { prefix: string; plural: string; namespaced: boolean }>> = {
  Namespace: { prefix: '/api/v1', plural: 'namespaces', namespaced: false },
  ServiceAccount: { prefix: '/api/v1', plural: 'serviceaccounts', namespaced: true },
  Service: { prefix: '/api/v1', plural: 'services', namespaced: true },
  Issuer: { prefix: '/apis/cert-manager.io/v1', plural: 'issuers', namespaced: true },
  Certificate: { prefix: '/apis/cert-manager.io/v1', plural: 'certificates', namespaced: true },
  CustomResourceDefinition: { prefix: '/apis/apiextensions.k8s.io/v1', plural: 'customresourcedefinitions', namespaced: false },
  ClusterRole: { prefix: '/apis/rbac.authorization.k8s.io/v1', plural: 'clusterroles', namespaced: false },
  ClusterRoleBinding: { prefix: '/apis/rbac.authorization.k8s.io/v1', plural: 'clusterrolebindings', namespaced: false },
  Role: { prefix: '/apis/rbac.authorization.k8s.io/v1', plural: 'roles', namespaced: true },
  RoleBinding: { prefix: '/apis/rbac.authorization.k8s.io/v1', plural: 'rolebindings', namespaced: true },
  Deployment: { prefix: '/apis/apps/v1', plural: 'deployments', namespaced: true },
  ValidatingAdmissionPolicy: { prefix: '/apis/admissionregistration.k8s.io/v1', plural: 'validatingadmissionpolicies', namespaced: false },
  ValidatingAdmissionPolicyBinding: { prefix: '/apis/admissionregistration.k8s.io/v1', plural: 'validatingadmissionpolicybindings', namespaced: false },
};

export function pathOf(o: Manifest): string {
  const p = PATHS[o.kind];
  if (!p) throw new Error(`no API path known for kind ${o.kind} (${o.metadata.name}): add it to release/test/objects.ts`);
  const ns = p.namespaced ? `/namespaces/${o.metadata.namespace}` : '';
  return `${p.prefix}${ns}/${p.plural}/${o.metadata.name}`;
}

/** Namespaces and CRDs first, as an installer must (the rest may live in or depend on them). */
export function installOrder(objects: readonly Manifest[]): Manifest[] {
  const rank = (o: Manifest) => (o.kind === 'Namespace' ? 0 : o.kind === 'CustomResourceDefinition' ? 1 : 2);
  return [...objects].sort((a, b) => rank(a) - rank(b));
}
