// What the apiserver refused, in the words RBAC and operators use: the verb (get, list, watch,
// create, patch, update, delete) and the resource (`plural[/subresource].group`) of a failed request,
// with its status. A reconcile that fails this way will fail the same way on every retry until
// someone acts (grant the verb, fix the object, install the CRD), so it must reach the object (a
// condition or error message, and a Warning event), not only the log. Transient failures (conflicts,
// 429, 5xx, no response) and NotFound (usually the object went away meanwhile) are not refusals.
import { ApiError } from '@metal3-ts/generated';
import { resourceName } from '../meta/resource-name.ts';

export interface Refusal {
  readonly verb: string;
  readonly resource: string;
  readonly code: number;
  /** The apiserver's reason (`Forbidden`, `Invalid`, …). */
  readonly reason: string;
  /** The apiserver's own message (names the user, verb and resource for Forbidden; fields for Invalid). */
  readonly message: string;
}

/** Status codes no retry fixes without a change elsewhere. */
const REFUSED = new Set([400, 401, 403, 405, 406, 413, 415, 422]);

/** Whether the apiserver refused a request with `code` (a refusal, as `refusalOf` finds it). */
export function isRefusedCode(code: number): boolean {
  return REFUSED.has(code);
}

/** The refusal inside `error` (through `cause` and AggregateErrors such as PatchError), if any. */
export function refusalOf(error: unknown, depth = 0): Refusal | undefined {
  if (depth > 20 || !(error instanceof Error)) return undefined;
  if (error instanceof ApiError && isRefusedCode(error.code)) {
    const { verb, resource } = requestOf(error.verb, error.path);
    return { verb, resource, code: error.code, reason: error.reason || `HTTP ${error.code}`, message: error.serverMessage };
  }
  if (error instanceof AggregateError) {
    for (const inner of error.errors) {
      const found = refusalOf(inner, depth + 1);
      if (found) return found;
    }
  }
  return refusalOf(error.cause, depth + 1);
}

/** One line for conditions, events and logs: `patch metal3clusters/status.infrastructure.cluster.x-k8s.io refused: 403 Forbidden: …`. */
export function describeRefusal(refusal: Refusal): string {
  return `${refusal.verb} ${refusal.resource} refused: ${refusal.code} ${refusal.reason}: ${refusal.message}`;
}

/**
 * The Kubernetes verb and resource of a request, from its HTTP method and path (pure):
 * `/apis/<group>/<version>[/namespaces/<ns>]/<plural>[/<name>[/<sub>]]`, or `/api/v1/...` for core.
 */
export function requestOf(method: string, path: string): { verb: string; resource: string } {
  const [rawPath = '', query = ''] = path.split('?');
  const parts = rawPath.split('/').filter(Boolean);
  let group = '';
  let rest: string[];
  if (parts[0] === 'api') rest = parts.slice(2);
  else if (parts[0] === 'apis') {
    group = parts[1] ?? '';
    rest = parts.slice(3);
  } else return { verb: method.toLowerCase(), resource: rawPath };
  if (rest[0] === 'namespaces' && rest.length > 2) rest = rest.slice(2);
  const [plural = '', name, sub] = rest;
  const resource = resourceName(plural, group, sub);
  const m = method.toUpperCase();
  const verb = m === 'POST'
    ? 'create'
    : m === 'PUT'
    ? 'update'
    : m === 'PATCH'
    ? 'patch'
    : m === 'DELETE'
    ? (name ? 'delete' : 'deletecollection')
    : /(^|&)watch=(true|1)/.test(query)
    ? 'watch'
    : name
    ? 'get'
    : 'list';
  return { verb, resource };
}
