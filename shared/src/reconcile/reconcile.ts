// The reconcile contract at the centre of every controller: a Request names one object, a Reconciler
// drives the world towards that object's spec and says when it wants to look again. Retry policy
// lives in the controller that calls it, never in the reconciler (see controller/controller.ts).

/** Names one object to reconcile. Cluster-scoped kinds have no namespace. */
export interface Request {
  readonly namespace?: string;
  readonly name: string;
}

/**
 * What a successful reconcile asks for next. An empty result means "done until something changes".
 * `requeueAfterMs` asks to look again after that long (a wait, not a failure: it does not grow the
 * backoff). To report a failure, throw: the controller retries with per-item exponential backoff.
 */
export interface Result {
  readonly requeueAfterMs?: number;
}

export interface ReconcileContext {
  /** Aborted when the manager shuts down; long waits inside a reconcile should honour it. */
  readonly signal: AbortSignal;
  /** Unique per reconcile, carried by every log line of this reconcile. */
  readonly reconcileId: string;
  readonly log: import('../log/logger.ts').Logger;
}

export interface Reconciler {
  reconcile(request: Request, context: ReconcileContext): Promise<Result>;
}

/** A reconcile function is a Reconciler too. */
export type ReconcileFn = (request: Request, context: ReconcileContext) => Promise<Result>;

/**
 * An error that retrying cannot fix (bad input, say). The controller counts it in
 * `controller_runtime_terminal_reconcile_errors_total`, logs it and does not requeue the key: the next
 * change to the object triggers a new reconcile.
 */
export class TerminalError extends Error {
  override name = 'TerminalError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * Whether `error` is terminal: a TerminalError itself, or one found through `cause` or inside an
 * AggregateError (as Go's `errors.Is` walks wrapped and joined errors). The project's one terminal
 * predicate: the worker loop's outcome switch and every controller ask it.
 */
export function isTerminalError(error: unknown, depth = 0): boolean {
  if (error instanceof TerminalError) return true;
  if (!(error instanceof Error) || depth > 20) return false;
  if (error instanceof AggregateError && error.errors.some((e) => isTerminalError(e, depth + 1))) return true;
  return isTerminalError(error.cause, depth + 1);
}

/** `namespace/name`, or `name` for cluster-scoped objects: the queue key of a request. */
export function requestKey(request: Request): string {
  return request.namespace ? `${request.namespace}/${request.name}` : request.name;
}

export function requestFromKey(key: string): Request {
  const slash = key.indexOf('/');
  return slash < 0 ? { name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

/** The smaller non-zero requeue of two results: how phases of one reconcile combine their asks. */
export function lowestRequeue(a: Result, b: Result): Result {
  const x = a.requeueAfterMs || undefined;
  const y = b.requeueAfterMs || undefined;
  if (x === undefined) return y === undefined ? {} : { requeueAfterMs: y };
  if (y === undefined) return { requeueAfterMs: x };
  return { requeueAfterMs: Math.min(x, y) };
}
