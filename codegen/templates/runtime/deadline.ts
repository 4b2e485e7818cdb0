// Request deadlines: how long one attempt may take by Kubernetes verb, and the error of an attempt
// that took longer. HTTP/1.1 keep-alive has no health check of its own, so a deadline is the only way
// a request on a black-holed connection (no data, no reset) ever ends; the transport destroys the
// connection with it.
import type { HttpRequest } from './transport.ts';

/**
 * Deadline of one attempt in ms by Kubernetes verb (`get`, `list`, `watch`, `patch`…), `default` for
 * the verbs not named; 0 turns it off. A watch's deadline runs only until the response headers: the
 * stream then lives by its reader's inactivity rule.
 */
export type RequestDeadlines = { readonly default: number } & { readonly [verb: string]: number };

/**
 * 30 s for one object, far beyond a healthy apiserver's latency (its SLO is 1 s at p99) and shorter
 * than the ~45 s client-go takes to find a dead HTTP/2 connection; 60 s for a list page, the
 * apiserver's own limit for it, so a slow list is never cut before the server would cut it.
 */
export const defaultRequestDeadlines: RequestDeadlines = { default: 30_000, list: 60_000 };

/** The deadline of `request` in ms, or undefined for none. */
export function deadlineFor(request: Pick<HttpRequest, 'verb' | 'timeoutMs'>, deadlines: RequestDeadlines): number | undefined {
  const ms = request.timeoutMs ?? deadlines[request.verb] ?? deadlines.default;
  return Number.isFinite(ms) && ms > 0 ? ms : undefined;
}

/** An attempt that passed its deadline; its connection was destroyed. */
export class RequestTimeoutError extends Error {
  override name = 'RequestTimeoutError';
  readonly code = 'ETIMEDOUT';
  readonly verb: string;
  readonly resource: string;
  readonly timeoutMs: number;
  constructor(request: Pick<HttpRequest, 'method' | 'path' | 'verb' | 'resource'>, timeoutMs: number) {
    super(`${request.method} ${request.path.split('?')[0]}: no answer within ${timeoutMs} ms; connection dropped`);
    this.verb = request.verb;
    this.resource = request.resource;
    this.timeoutMs = timeoutMs;
  }
}
