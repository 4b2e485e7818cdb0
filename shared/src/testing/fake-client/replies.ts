// The fake's answers: a status code and a body, with failures as the apiserver's `Status` objects
// (same code, reason and message shape), so the generated client turns them into the same typed
// errors (NotFoundError, ConflictError, AlreadyExistsError, InvalidError …) it raises for the real one.
import type { ResourceDescriptor, Status } from '@metal3-ts/generated';

export interface Reply {
  readonly code: number;
  readonly body: unknown;
}

export const ok = (body: unknown, code = 200): Reply => ({ code, body });

/** `metal3machines.infrastructure.cluster.x-k8s.io`, or `secrets` for the core group. */
export const qualifiedResource = (d: ResourceDescriptor): string => (d.group ? `${d.plural}.${d.group}` : d.plural);

function failure(code: number, reason: string, message: string, d?: ResourceDescriptor, name?: string): Reply {
  const status: Status = {
    apiVersion: 'v1',
    kind: 'Status',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    ...(d ? { details: { ...(name ? { name } : {}), group: d.group, kind: d.plural } } : {}),
    code,
  };
  return { code, body: status };
}

export const notFound = (d: ResourceDescriptor, name: string): Reply => failure(404, 'NotFound', `${qualifiedResource(d)} "${name}" not found`, d, name);

export const notServed = (): Reply => failure(404, 'NotFound', 'the server could not find the requested resource');

export const alreadyExists = (d: ResourceDescriptor, name: string): Reply =>
  failure(409, 'AlreadyExists', `${qualifiedResource(d)} "${name}" already exists`, d, name);

export const conflict = (
  d: ResourceDescriptor,
  name: string,
  why = 'the object has been modified; please apply your changes to the latest version and try again',
): Reply => failure(409, 'Conflict', `Operation cannot be fulfilled on ${qualifiedResource(d)} "${name}": ${why}`, d, name);

export const invalid = (d: ResourceDescriptor, name: string, detail: string): Reply =>
  failure(422, 'Invalid', `${d.kind}${d.group ? `.${d.group}` : ''} "${name}" is invalid: ${detail}`, d, name);

export const badRequest = (message: string): Reply => failure(400, 'BadRequest', message);

export const unprocessable = (message: string): Reply => failure(422, 'Invalid', message);

export const unsupported = (message: string): Reply => failure(415, 'UnsupportedMediaType', message);

export const methodNotAllowed = (message: string): Reply => failure(405, 'MethodNotAllowed', message);

/** Tells a Reply from an object in the `Object | Reply` results of the pure write rules. */
export const isReply = (value: object): value is Reply => 'code' in value && 'body' in value && !('metadata' in value);
