// The annotations Cluster API stamps on every object it clones from a template (a wire contract:
// existing clusters carry them). Read by the template controller (which template a Metal3Machine came
// from) and by the host driver's node-reuse policy (which template decides reuse on release).

/** The name of the template an object was cloned from (N-1). */
export const CLONED_FROM_NAME_ANNOTATION = 'cluster.x-k8s.io/cloned-from-name';

/** `<Kind>.<group>` of the template an object was cloned from (N-1). */
export const CLONED_FROM_GROUPKIND_ANNOTATION = 'cluster.x-k8s.io/cloned-from-groupkind';
