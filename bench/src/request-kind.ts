// What a request seen on the wire was, in the apiserver's terms: the Kubernetes verb (get, list,
// watch, create, update, patch, delete, deletecollection) and the resource (`metal3machines`,
// `metal3machines/status`), from its HTTP method and path alone. Why: the restart benchmark counts a
// bundled controller's requests at a proxy in front of it (the process's own rest_client metrics
// carry only the HTTP method), and a write after a restart must be named by resource and verb.
// Also reads sums out of a Prometheus text exposition (the process's /metrics).

export interface RequestKind {
  readonly verb: string;
  /** `plural[.group][/subresource]`; the raw path for a non-resource URL. */
  readonly resource: string;
}

export const READ_VERBS: ReadonlySet<string> = new Set(['get', 'list', 'watch']);

/** The verb and resource of `method path` (`watch` when the query asks `watch=true`). */
export function requestKind(method: string, path: string): RequestKind {
  const url = new URL(path, 'http://x');
  const parts = url.pathname.split('/').filter(Boolean);
  // /api/v1/… or /apis/<group>/<version>/…; a group's resources are named `resource.group`, as RBAC
  // and the audit log do, since two groups may serve one plural (ipaddresses, ipaddressclaims).
  const rest = parts[0] === 'api' ? parts.slice(2) : parts[0] === 'apis' ? parts.slice(3) : undefined;
  const group = parts[0] === 'apis' ? `.${parts[1]}` : '';
  if (!rest || rest.length === 0) return { verb: method.toLowerCase(), resource: url.pathname };
  // A namespaced path names its namespace first, unless it is the namespace itself.
  const inNamespace = rest[0] === 'namespaces' && rest.length >= 3 ? rest.slice(2) : rest;
  const [resource = '', name, sub] = inNamespace;
  const target = sub ? `${resource}${group}/${sub}` : `${resource}${group}`;
  const collection = name === undefined;
  switch (method.toUpperCase()) {
    case 'GET':
      return { verb: url.searchParams.get('watch') === 'true' ? 'watch' : collection ? 'list' : 'get', resource: target };
    case 'POST':
      return { verb: 'create', resource: target };
    case 'PUT':
      return { verb: 'update', resource: target };
    case 'PATCH':
      return { verb: 'patch', resource: target };
    case 'DELETE':
      return { verb: collection ? 'deletecollection' : 'delete', resource: target };
    default:
      return { verb: method.toLowerCase(), resource: target };
  }
}

/** Counts per `verb resource`, most first. */
export function tallyKinds(kinds: readonly RequestKind[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const k of kinds) counts.set(`${k.verb} ${k.resource}`, (counts.get(`${k.verb} ${k.resource}`) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

/** Sum of every sample of `family` whose labels include all of `labels` (0 when none). */
export function metricSum(text: string, family: string, labels: Readonly<Record<string, string>> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(family)) continue;
    const rest = line.slice(family.length);
    if (rest[0] !== '{' && rest[0] !== ' ') continue;
    const close = rest.lastIndexOf('}');
    const labelText = rest[0] === '{' ? rest.slice(1, close) : '';
    const value = Number(rest.slice(rest[0] === '{' ? close + 1 : 0).trim().split(' ')[0]);
    const has = (k: string, v: string) => labelText.includes(`${k}="${v}"`);
    if (Object.entries(labels).every(([k, v]) => has(k, v)) && Number.isFinite(value)) sum += value;
  }
  return sum;
}
