// The prefix set of a cluster and the sync set of a label map (research LS-4, LS-5; L-6, L-7): pure
// functions, table-tested. The prefix annotation is a user's free text on a Metal3Cluster, so a bad
// entry is an outcome (`invalid`, with upstream's message), never a throw: the reconcile reports it.

/** L-6: the DNS-1123 subdomain rule a label prefix obeys (Kubernetes' IsDNS1123Subdomain). */
const DNS1123_SUBDOMAIN = '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*';
const SUBDOMAIN = new RegExp(`^${DNS1123_SUBDOMAIN}$`);
const MAX_SUBDOMAIN_LENGTH = 253;

export type PrefixSet =
  | { readonly kind: 'Prefixes'; readonly prefixes: ReadonlySet<string> }
  | { readonly kind: 'Invalid'; readonly prefix: string; readonly message: string };

/** Why `prefix` is not a DNS-1123 subdomain, in upstream's words (LS-4); undefined when it is one. */
export function prefixProblem(prefix: string): string | undefined {
  if (prefix.length > MAX_SUBDOMAIN_LENGTH) return `invalid prefix (${prefix}): ${prefix} must be no more than ${MAX_SUBDOMAIN_LENGTH} characters`;
  if (!SUBDOMAIN.test(prefix)) {
    return `invalid prefix (${prefix}): a DNS-1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', ` +
      `and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '${DNS1123_SUBDOMAIN}')`;
  }
  return undefined;
}

/** LS-4: split on `,`, trim, drop empties; the first bad entry makes the whole set invalid. */
export function parsePrefixes(annotation: string): PrefixSet {
  const prefixes = new Set<string>();
  for (const entry of annotation.split(',')) {
    const prefix = entry.trim();
    if (prefix === '') continue;
    const message = prefixProblem(prefix);
    if (message) return { kind: 'Invalid', prefix, message };
    prefixes.add(prefix);
  }
  return { kind: 'Prefixes', prefixes };
}

/** LS-5: the labels whose key is `<prefix>/<name>` (split at the first `/`, both parts non-empty) with the prefix in the set. */
export function syncSet(labels: Readonly<Record<string, string>> | undefined, prefixes: ReadonlySet<string>): Map<string, string> {
  const synced = new Map<string, string>();
  for (const [key, value] of Object.entries(labels ?? {})) {
    const slash = key.indexOf('/');
    if (slash <= 0 || slash === key.length - 1) continue;
    if (prefixes.has(key.slice(0, slash))) synced.set(key, value);
  }
  return synced;
}

/**
 * LS-6 as one merge patch of the Node's labels: every synced key the Node has that the host lacks or
 * has with another value is removed (`null`), every synced key of the host that the Node lacks or has
 * with another value is set. Undefined when the Node already agrees (no request at all, where
 * upstream Updates the Node every time). Labels outside the prefixes are never named.
 */
export function nodeLabelPatch(
  hostLabels: Readonly<Record<string, string>> | undefined,
  nodeLabels: Readonly<Record<string, string>> | undefined,
  prefixes: ReadonlySet<string>,
): Record<string, string | null> | undefined {
  const wanted = syncSet(hostLabels, prefixes);
  const present = syncSet(nodeLabels, prefixes);
  const patch: Record<string, string | null> = {};
  for (const [key, value] of present) if (wanted.get(key) !== value) patch[key] = null;
  for (const [key, value] of wanted) if (present.get(key) !== value) patch[key] = value;
  return Object.keys(patch).length > 0 ? patch : undefined;
}
