// Typed API errors. The kind of error says what failed (the object is gone, someone else wrote it,
// the schema refused it); callers decide retry policy from the kind, never from message text.
import type { Status, StatusCause } from './meta.ts';

export interface RequestContext {
  readonly verb: string;
  readonly path: string;
}

export class ApiError extends Error {
  override name = 'ApiError';
  readonly code: number;
  readonly reason: string;
  readonly status: Status | undefined;
  readonly verb: string;
  readonly path: string;

  constructor(code: number, status: Status | undefined, context: RequestContext, fallback?: string) {
    const detail = status?.message ?? fallback ?? `HTTP ${code}`;
    super(`${context.verb} ${context.path}: ${code} ${status?.reason ?? ''} ${detail}`.replace(/\s+/g, ' ').trim());
    this.code = code;
    this.reason = status?.reason ?? '';
    this.status = status;
    this.verb = context.verb;
    this.path = context.path;
  }

  /** The server's own message, without the request context. */
  get serverMessage(): string {
    return this.status?.message ?? this.message;
  }
}

export class NotFoundError extends ApiError {
  override name = 'NotFoundError';
}
export class AlreadyExistsError extends ApiError {
  override name = 'AlreadyExistsError';
}
/** Optimistic concurrency: the object changed since the resourceVersion the write was based on. */
export class ConflictError extends ApiError {
  override name = 'ConflictError';
}
export class ForbiddenError extends ApiError {
  override name = 'ForbiddenError';
}
export class UnauthorizedError extends ApiError {
  override name = 'UnauthorizedError';
}
/** The requested resourceVersion is too old (HTTP 410 or a watch ERROR event with code 410): relist. */
export class GoneError extends ApiError {
  override name = 'GoneError';
}
export class TooManyRequestsError extends ApiError {
  override name = 'TooManyRequestsError';
  /** Seconds the server asked the client to wait (Retry-After or status details). */
  get retryAfterSeconds(): number | undefined {
    return this.status?.details?.retryAfterSeconds;
  }
}
/** Schema or CEL validation refused the object; `causes` names each offending field. */
export class InvalidError extends ApiError {
  override name = 'InvalidError';
  get causes(): StatusCause[] {
    return this.status?.details?.causes ?? [];
  }
}

/** Builds the typed error for an HTTP error response. */
export function apiError(code: number, status: Status | undefined, context: RequestContext, fallback?: string): ApiError {
  const reason = status?.reason;
  switch (code) {
    case 401:
      return new UnauthorizedError(code, status, context, fallback);
    case 403:
      return new ForbiddenError(code, status, context, fallback);
    case 404:
      return new NotFoundError(code, status, context, fallback);
    case 409:
      return reason === 'AlreadyExists' ? new AlreadyExistsError(code, status, context, fallback) : new ConflictError(code, status, context, fallback);
    case 410:
      return new GoneError(code, status, context, fallback);
    case 422:
      return new InvalidError(code, status, context, fallback);
    case 429:
      return new TooManyRequestsError(code, status, context, fallback);
    default:
      return new ApiError(code, status, context, fallback);
  }
}

export const isNotFound = (e: unknown): e is NotFoundError => e instanceof NotFoundError;
export const isConflict = (e: unknown): e is ConflictError => e instanceof ConflictError;
export const isAlreadyExists = (e: unknown): e is AlreadyExistsError => e instanceof AlreadyExistsError;
export const isGone = (e: unknown): e is GoneError => e instanceof GoneError;
export const isInvalid = (e: unknown): e is InvalidError => e instanceof InvalidError;
export const isForbidden = (e: unknown): e is ForbiddenError => e instanceof ForbiddenError;

/** Turns NotFound into undefined, the common "it is already gone" case. */
export async function ignoreNotFound<T>(promise: Promise<T>): Promise<T | undefined> {
  try {
    return await promise;
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}
