// The rules of the all-in-one process: the union of the five controllers' deploy/rbac.yaml, computed
// (never copied) so those files stay the one source. RBAC is additive, so the union grants exactly
// what the five grant between them: each rule is split into (apiGroup, resource, resourceNames, verb)
// grants, the set of grants is merged, and grants are regrouped into as few rules as one resource
// per (group, names) and one verb list allow, in a stable order, so the generated file only changes
// when a source rule does.
import type { Rule } from './rbac.ts';

/** One permission: a verb on a resource of an API group (optionally only some names). */
export interface Grant {
  readonly apiGroup: string;
  readonly resource: string;
  readonly resourceNames: readonly string[] | undefined;
  readonly verb: string;
}

export function grantsOf(rules: readonly Rule[]): Grant[] {
  return rules.flatMap((r) =>
    (r.apiGroups ?? ['']).flatMap((apiGroup) =>
      (r.resources ?? []).flatMap((resource) => r.verbs.map((verb) => ({ apiGroup, resource, resourceNames: r.resourceNames, verb })))
    )
  );
}

const grantKey = (g: Grant) => JSON.stringify([g.apiGroup, g.resource, g.resourceNames ? [...g.resourceNames].sort() : null, g.verb]);

/** The rules granting every grant of every list in `ruleLists`, and nothing else. */
export function unionRules(ruleLists: readonly (readonly Rule[])[]): Rule[] {
  // (group, resource, names) → verbs
  const verbs = new Map<string, Set<string>>();
  for (const rules of ruleLists) {
    for (const g of grantsOf(rules)) {
      const key = JSON.stringify([g.apiGroup, g.resource, g.resourceNames ? [...g.resourceNames].sort() : null]);
      (verbs.get(key) ?? verbs.set(key, new Set()).get(key)!).add(g.verb);
    }
  }
  // (group, names, verbs) → resources
  const grouped = new Map<string, string[]>();
  for (const [key, vs] of [...verbs].sort(([a], [b]) => a.localeCompare(b))) {
    const [apiGroup, resource, names] = JSON.parse(key) as [string, string, string[] | null];
    const rule = JSON.stringify([apiGroup, names, [...vs].sort()]);
    (grouped.get(rule) ?? grouped.set(rule, []).get(rule)!).push(resource);
  }
  return [...grouped].map(([rule, resources]) => {
    const [apiGroup, names, vs] = JSON.parse(rule) as [string, string[] | null, string[]];
    return { apiGroups: [apiGroup], resources, ...(names ? { resourceNames: names } : {}), verbs: vs };
  });
}

/** True when `a` and `b` grant the same set of permissions, however they are grouped. */
export function sameGrants(a: readonly Rule[], b: readonly Rule[]): boolean {
  const keys = (rules: readonly Rule[]) => [...new Set(grantsOf(rules).map(grantKey))].sort().join('\n');
  return keys(a) === keys(b);
}
