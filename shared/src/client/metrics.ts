// What the client did, two ways. RestClientMetrics publishes client-go's rest_client_* families under
// their exact names and labels, so dashboards built for controller-runtime work unchanged.
// RequestCounter keeps exact per verb/resource/code counts in memory for benchmarks and tests ("a
// no-op reconcile sends zero requests").
import type { RequestRecord } from '@metal3-ts/generated';
import type { Counter, Histogram, Registry } from '../metrics/registry.ts';
import { compareCodeUnits } from '../meta/compare.ts';

/** client-go's buckets for rest_client_request_duration_seconds and the rate limiter wait. */
export const REST_CLIENT_BUCKETS: readonly number[] = [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60];

/** The `code` label: the HTTP status, or `<error>` when no response arrived (as client-go). */
export const codeLabel = (code: number): string => (code > 0 ? String(code) : '<error>');

export class RestClientMetrics {
  readonly #requests: Counter;
  readonly #duration: Histogram;
  readonly #limiter: Histogram;

  constructor(registry: Registry) {
    this.#requests = registry.counter(
      'rest_client_requests_total',
      'Number of HTTP requests, partitioned by status code, method, and host.',
      ['code', 'method', 'host'],
    );
    this.#duration = registry.histogram(
      'rest_client_request_duration_seconds',
      'Request latency in seconds. Broken down by verb, and host.',
      ['verb', 'host'],
      REST_CLIENT_BUCKETS,
    );
    this.#limiter = registry.histogram(
      'rest_client_rate_limiter_duration_seconds',
      'Client side rate limiter latency in seconds. Broken down by verb, and host.',
      ['verb', 'host'],
      REST_CLIENT_BUCKETS,
    );
  }

  /** One finished attempt (every 429 retry counts, as in client-go). `verb` is the HTTP method there. */
  observe(record: RequestRecord): void {
    this.#requests.inc({ code: codeLabel(record.code), method: record.method, host: record.host });
    this.#duration.observe({ verb: record.method, host: record.host }, record.seconds);
  }

  observeRateLimiterWait(method: string, host: string, seconds: number): void {
    this.#limiter.observe({ verb: method, host }, seconds);
  }
}

export interface RequestCount {
  /** Kubernetes verb: get, list, watch, create, update, patch, delete. */
  readonly verb: string;
  /** Plural resource name, e.g. `baremetalhosts`. */
  readonly resource: string;
  /** HTTP status as text, or `<error>`. */
  readonly code: string;
  readonly count: number;
}

export interface RequestFilter {
  readonly verb?: string;
  readonly resource?: string;
  readonly code?: string | number;
}

/** Exact request counts by verb, resource and code; install its `record` as a transport after-hook. */
export class RequestCounter {
  readonly #counts = new Map<string, { verb: string; resource: string; code: string; count: number }>();

  readonly record = (record: RequestRecord): void => {
    const code = codeLabel(record.code);
    const key = `${record.verb}\u0000${record.resource}\u0000${code}`;
    const entry = this.#counts.get(key);
    if (entry) entry.count++;
    else this.#counts.set(key, { verb: record.verb, resource: record.resource, code, count: 1 });
  };

  /** Every (verb, resource, code) seen since the last reset, sorted. */
  snapshot(): RequestCount[] {
    return [...this.#counts.values()]
      .map((e) => ({ ...e }))
      .sort((a, b) => compareCodeUnits(a.resource, b.resource) || compareCodeUnits(a.verb, b.verb) || compareCodeUnits(a.code, b.code));
  }

  /** Requests matching every given field (all requests without a filter). */
  count(filter: RequestFilter = {}): number {
    const code = filter.code === undefined ? undefined : String(filter.code);
    let n = 0;
    for (const e of this.#counts.values()) {
      if (filter.verb !== undefined && e.verb !== filter.verb) continue;
      if (filter.resource !== undefined && e.resource !== filter.resource) continue;
      if (code !== undefined && e.code !== code) continue;
      n += e.count;
    }
    return n;
  }

  reset(): void {
    this.#counts.clear();
  }
}
