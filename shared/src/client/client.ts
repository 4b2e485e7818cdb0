// The controllers' client: the generated typed Client over one Transport, with the client-side rate
// limiter in front of every request, one token bucket per resource kind as in controller-runtime
// (kind-rate-limiter.ts; 429 Retry-After is honoured by the transport itself), client-go's
// rest_client_* metrics and an optional exact request counter behind it. Per-verb request deadlines
// are the transport's too (defaultRequestDeadlines); a missed one fails as RequestTimeoutError, logged
// by whoever retries it (informer, controller, leader election).
import { Client, type Connection, type HttpRequest, type RequestDeadlines, type RetryPolicy, Transport, type TransportHooks } from '@metal3-ts/generated';
import { type Clock, realClock } from '../clock/clock.ts';
import { type Logger, silentLogger } from '../log/logger.ts';
import type { Registry } from '../metrics/registry.ts';
import { type RequestCounter, RestClientMetrics } from './metrics.ts';
import { type KindRateLimiter, newKindRateLimiter } from './kind-rate-limiter.ts';

export interface ClientOptions {
  /**
   * Requests per second to one resource kind once its burst is spent (each kind has its own bucket,
   * controller-runtime's meaning of --kube-api-qps); unset or <= 0 turns the client-side limit off.
   */
  readonly qps?: number;
  /** Requests to one resource kind that may go at once (default: qps rounded up). */
  readonly burst?: number;
  /** The per-kind buckets to spend from instead of ones built from qps/burst (tests read their accounting). */
  readonly limiter?: KindRateLimiter;
  /** Where rest_client_requests_total and friends are published. */
  readonly registry?: Registry;
  readonly log?: Logger;
  readonly clock?: Clock;
  /** Counts every attempt by verb, resource and code (benchmarks, "zero requests" tests). */
  readonly counter?: RequestCounter;
  /** Sent as User-Agent unless the connection names one. */
  readonly userAgent?: string;
  /** 429 handling; the transport's default is client-go's (10 retries, at most 10 s each). */
  readonly retry?: RetryPolicy;
  /** Per-verb deadline of one attempt; the transport's default is defaultRequestDeadlines. */
  readonly deadlines?: RequestDeadlines;
}

/** A typed Client for `connection` with rate limiting, metrics and counting installed. */
export function newClient(connection: Connection, options: ClientOptions = {}): Client {
  const withAgent = options.userAgent && !connection.userAgent ? { ...connection, userAgent: options.userAgent } : connection;
  return new Client(instrument(Transport.fromConnection(withAgent), options));
}

/**
 * Installs the rate limiter, metrics and counter on an existing transport (for example one built
 * with Transport.fromKubeConfig for exec-plugin credentials). Replaces the transport's hooks.
 */
export function instrument(transport: Transport, options: Omit<ClientOptions, 'userAgent'> = {}): Transport {
  const log = options.log ?? silentLogger;
  const clock = options.clock ?? realClock;
  const limiter = options.limiter ?? newKindRateLimiter(options.qps ?? 0, options.burst ?? Math.ceil(options.qps ?? 0), clock);
  const metrics = options.registry ? new RestClientMetrics(options.registry) : undefined;
  const counter = options.counter;
  const host = transport.server.host;
  if (options.retry) transport.retry = options.retry;
  if (options.deadlines) transport.deadlines = options.deadlines;

  const hooks: TransportHooks = {
    after(record) {
      metrics?.observe(record);
      counter?.record(record);
    },
    retrying(request, attempt, delayMs) {
      log.debug('the apiserver asked to retry later (429), waiting', { verb: request.verb, resource: request.resource, attempt, delayMs });
    },
  };
  if (limiter) {
    hooks.before = (request) =>
      throttle(limiter, clock, request, (seconds) => {
        metrics?.observeRateLimiterWait(request.method, host, seconds);
        // client-go says the same at info level: long client-side waits explain slow reconciles.
        if (seconds >= 1) log.debug('waited for client-side throttling', { verb: request.verb, resource: request.resource, seconds });
      });
  }
  transport.hooks = hooks;
  return transport;
}

async function throttle(
  limiter: KindRateLimiter,
  clock: Clock,
  request: HttpRequest,
  waited: (seconds: number) => void,
): Promise<void> {
  const started = clock.now();
  await limiter.wait(request.path, request.signal);
  waited((clock.now() - started) / 1000);
}
