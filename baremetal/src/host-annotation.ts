// M-40: the `metal3.io/BareMetalHost` annotation, with which a Metal3Machine records its host as
// `<namespace>/<name>` (or a bare name). One parser for every controller that reads it (the machine
// controller finds its host by it, the data controller renders the host's data), so they agree on
// what it names. Changed from upstream (E-29, which ignores the namespace part and looks in the
// machine's namespace): hosts are only ever looked up in the machine's own namespace, and an
// annotation naming another namespace names no host at all; hostAnnotationProblem says why. Pure.

/** M-41: `<host namespace>/<host name>` of the BareMetalHost the Metal3Machine consumes. */
export const HOST_ANNOTATION = 'metal3.io/BareMetalHost';

/** What the annotation says: nothing, a host (namespace empty for a bare name), or more than one `/`. */
export type HostAnnotation = { readonly namespace: string; readonly name: string } | 'invalid' | undefined;

/** Parses an annotation value (undefined or empty: no annotation). */
export function parseHostAnnotation(value: string | undefined): HostAnnotation {
  if (!value) return undefined;
  const parts = value.split('/');
  if (parts.length > 2) return 'invalid';
  return parts.length === 2 ? { namespace: parts[0] ?? '', name: parts[1] ?? '' } : { namespace: '', name: value };
}

/**
 * Why the annotation of a Metal3Machine in `namespace` cannot name one of its hosts (malformed, or
 * another namespace), or undefined when it can (or is absent). Terminal: waiting does not fix it.
 */
export function hostAnnotationProblem(value: string | undefined, namespace: string): string | undefined {
  const parsed = parseHostAnnotation(value);
  if (parsed === 'invalid') return `annotation ${HOST_ANNOTATION} must be <namespace>/<name>, got "${value ?? ''}"`;
  if (parsed?.namespace && parsed.namespace !== namespace) {
    return `annotation ${HOST_ANNOTATION} names BareMetalHost "${
      value ?? ''
    }" in another namespace; a Metal3Machine can only use hosts of its own namespace "${namespace}"`;
  }
  return undefined;
}

/**
 * The host the annotation of a Metal3Machine in `namespace` names, always in that namespace;
 * undefined when absent, malformed, without a name, or naming another namespace.
 */
export function hostAnnotationKey(value: string | undefined, namespace: string): { readonly namespace: string; readonly name: string } | undefined {
  const parsed = parseHostAnnotation(value);
  if (!parsed || parsed === 'invalid' || !parsed.name || hostAnnotationProblem(value, namespace)) return undefined;
  return { namespace, name: parsed.name };
}
