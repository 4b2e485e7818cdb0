// The one spelling of a resource as RBAC rules, apiserver messages and /readyz name it:
// `plural[/subresource].group`, or `plural[/subresource]` for the core group. Informers, refusals
// and the RBAC suites all print it, so an operator can paste it into a ClusterRole search as is.

/** `baremetalhosts.metal3.io`, `metal3machines/status.infrastructure.cluster.x-k8s.io`, `secrets`. */
export function resourceName(plural: string, group = '', subresource = ''): string {
  return `${plural}${subresource ? `/${subresource}` : ''}${group ? `.${group}` : ''}`;
}
