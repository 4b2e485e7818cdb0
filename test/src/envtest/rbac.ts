// Runs code under exactly the permissions a controller ships: the ClusterRoles (and Roles) of its
// RBAC manifest are applied, bound to a fresh user, and the user's credentials returned. A missing
// permission then fails the test with Forbidden; an excessive one shows in the role file under review.
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import type { TestEnv } from './env.ts';
import type { Connection } from './kubeconfig.ts';
import type { KubeObject } from './http.ts';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';

/** The RBAC objects of a manifest file (multi-document YAML); other kinds are ignored. */
export function rbacObjects(path: string): KubeObject[] {
  return parseAllDocuments(readFileSync(path, 'utf8'))
    .map((d) => d.toJSON() as KubeObject | null)
    .filter((o): o is KubeObject => o !== null && (o.kind === 'ClusterRole' || o.kind === 'Role'));
}

/**
 * Applies the roles of `manifest` and binds them to user `name` (Roles in `roleNamespace`, or in their
 * own metadata.namespace). Returns the user's credentials on the management apiserver.
 */
export async function userBoundTo(env: TestEnv, name: string, manifest: string, roleNamespace?: string): Promise<Connection> {
  const admin = env.admin.client;
  for (const role of rbacObjects(manifest)) {
    const roleName = role.metadata?.name;
    if (!roleName) throw new Error(`a ${role.kind} in ${manifest} has no name`);
    if (role.kind === 'ClusterRole') {
      await admin.apply(`${RBAC}/clusterroles/${roleName}`, role, 'metal3-ts-envtest');
      await admin.apply(`${RBAC}/clusterrolebindings/${name}-${roleName}`, {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: `${name}-${roleName}` },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: roleName },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name }],
      }, 'metal3-ts-envtest');
    } else {
      const namespace = roleNamespace ?? role.metadata?.namespace;
      if (!namespace) throw new Error(`Role ${roleName} in ${manifest} has no namespace; pass roleNamespace`);
      await admin.apply(`${RBAC}/namespaces/${namespace}/roles/${roleName}`, { ...role, metadata: { ...role.metadata, namespace } }, 'metal3-ts-envtest');
      await admin.apply(`${RBAC}/namespaces/${namespace}/rolebindings/${name}-${roleName}`, {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: `${name}-${roleName}`, namespace },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: roleName },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name }],
      }, 'metal3-ts-envtest');
    }
  }
  return env.user(name);
}
