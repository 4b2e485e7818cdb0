// The install RBAC of one controller, derived from its controllers/<c>/deploy/rbac.yaml: that file
// stays the one source of the rules (beside the code that needs them, with the why of each rule, and
// the real-apiserver suites and the lab bind a user to exactly it). The install adds only what a
// cluster needs around the rules: the names of config/, the ServiceAccount as subject, the namespace.
import type { ProcessName } from './layout.ts';
import { names, NAMESPACE } from './layout.ts';

export interface Rule {
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly verbs: readonly string[];
  readonly resourceNames?: readonly string[];
}

interface RoleLike {
  readonly kind?: string;
  readonly rules?: readonly Rule[];
}

export class RbacSourceError extends Error {
  override name = 'RbacSourceError';
}

const RBAC_API = 'rbac.authorization.k8s.io/v1';

/**
 * The ClusterRole, its binding, the leader-election Role and its binding for controller `c`, from
 * the documents of its deploy/rbac.yaml (`source` names it in errors). The source must hold exactly
 * one ClusterRole and one Role, each with rules.
 */
export function installRbac(c: ProcessName, documents: readonly unknown[], source: string): object[] {
  const one = (kind: string): readonly Rule[] => {
    const found = documents.filter((d): d is RoleLike => (d as RoleLike | null)?.kind === kind);
    if (found.length !== 1) throw new RbacSourceError(`${source}: expected exactly one ${kind}, found ${found.length}`);
    const rules = found[0]?.rules;
    if (!rules || rules.length === 0) throw new RbacSourceError(`${source}: the ${kind} has no rules`);
    return rules;
  };
  const n = names(c);
  const subject = [{ kind: 'ServiceAccount', name: n.serviceAccount, namespace: NAMESPACE }];
  const roleRef = (kind: string, name: string) => ({ apiGroup: 'rbac.authorization.k8s.io', kind, name });
  return [
    { apiVersion: RBAC_API, kind: 'ClusterRole', metadata: { name: n.clusterRole }, rules: one('ClusterRole') },
    { apiVersion: RBAC_API, kind: 'ClusterRoleBinding', metadata: { name: n.clusterRole }, roleRef: roleRef('ClusterRole', n.clusterRole), subjects: subject },
    { apiVersion: RBAC_API, kind: 'Role', metadata: { name: n.leaderElectionRole, namespace: NAMESPACE }, rules: one('Role') },
    {
      apiVersion: RBAC_API,
      kind: 'RoleBinding',
      metadata: { name: n.leaderElectionRole, namespace: NAMESPACE },
      roleRef: roleRef('Role', n.leaderElectionRole),
      subjects: subject,
    },
  ];
}
