// The permission cases of the RBAC suites: every (resource, verb) a controller's ClusterRole grants,
// read from its deploy/rbac.yaml, and the same role with exactly one verb taken away. Pure apart from
// reading the file, so the suites enumerate what the manifests say and a verb added to a manifest
// without a case fails them (rbac-coverage.test.ts).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { resourceName } from '@metal3-ts/shared/meta/resource-name';
import { parseAllDocuments } from 'yaml';

export const CONTROLLERS = ['cluster', 'machine', 'template', 'data', 'dataclaim', 'labelsync', 'remediation'] as const;
export type ControllerName = (typeof CONTROLLERS)[number];

export interface PolicyRule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly verbs: readonly string[];
  /** Only these objects (our CRDs, for storage migration). */
  readonly resourceNames?: readonly string[];
}

export interface ClusterRole {
  readonly apiVersion: string;
  readonly kind: 'ClusterRole';
  readonly metadata: { readonly name: string; readonly labels?: Record<string, string> };
  readonly rules: readonly PolicyRule[];
}

/** One granted permission: `resource` as RBAC and apiserver messages name it (`plural[/sub].group`). */
export interface VerbCase {
  readonly controller: ControllerName;
  readonly group: string;
  /** The rule's resource entry (`plural` or `plural/subresource`). */
  readonly plural: string;
  readonly verb: string;
  readonly resource: string;
}

export const rbacPath = (controller: ControllerName): string =>
  fileURLToPath(new URL(`../../../../controllers/${controller}/deploy/rbac.yaml`, import.meta.url));

/** The ClusterRole of a controller's manifest (its leader-election Role is not used in-process). */
export function clusterRoleOf(controller: ControllerName): ClusterRole {
  const docs = parseAllDocuments(readFileSync(rbacPath(controller), 'utf8')).map((d) => d.toJSON() as { kind?: string } | null);
  const role = docs.find((d): d is ClusterRole => d?.kind === 'ClusterRole');
  if (!role) throw new Error(`controllers/${controller}/deploy/rbac.yaml has no ClusterRole`);
  return role;
}

/** Every (group, resource, verb) the role grants, in manifest order. */
export function verbCases(controller: ControllerName, role: ClusterRole = clusterRoleOf(controller)): VerbCase[] {
  const cases: VerbCase[] = [];
  for (const rule of role.rules) {
    for (const group of rule.apiGroups) {
      for (const plural of rule.resources) {
        for (const verb of rule.verbs) cases.push({ controller, group, plural, verb, resource: resourceName(plural, group) });
      }
    }
  }
  return cases;
}

/** The role's rules with `verb` on exactly that group and resource removed (rules split as needed). */
export function rulesWithout(role: ClusterRole, removed: Pick<VerbCase, 'group' | 'plural' | 'verb'>): PolicyRule[] {
  const rules: PolicyRule[] = [];
  for (const rule of role.rules) {
    const hit = rule.apiGroups.includes(removed.group) && rule.resources.includes(removed.plural) && rule.verbs.includes(removed.verb);
    if (!hit) {
      rules.push(rule);
      continue;
    }
    const otherGroups = rule.apiGroups.filter((g) => g !== removed.group);
    const otherResources = rule.resources.filter((r) => r !== removed.plural);
    const otherVerbs = rule.verbs.filter((v) => v !== removed.verb);
    if (otherGroups.length > 0) rules.push({ ...rule, apiGroups: otherGroups });
    if (otherResources.length > 0) rules.push({ ...rule, apiGroups: [removed.group], resources: otherResources });
    if (otherVerbs.length > 0) rules.push({ ...rule, apiGroups: [removed.group], resources: [removed.plural], verbs: otherVerbs });
  }
  return rules;
}

/** Whether `rules` grant `verb` on the group and resource (exact names; no wildcards in our manifests). */
export function grants(rules: readonly PolicyRule[], c: Pick<VerbCase, 'group' | 'plural' | 'verb'>): boolean {
  return rules.some((r) => r.apiGroups.includes(c.group) && r.resources.includes(c.plural) && r.verbs.includes(c.verb));
}
