// The webhook process's plain-HTTP servers: /healthz and /readyz (the kubelet's probes) and /metrics,
// one server when both share an address, as the controllers' manager serves them.
import type { Logger } from '@metal3-ts/shared/log/logger';
import type { Checks } from '@metal3-ts/shared/manager/health';
import { type BindAddress, type Route, type RunningServer, startHttpServer } from '@metal3-ts/shared/manager/http-server';
import { METRICS_CONTENT_TYPE } from '@metal3-ts/shared/manager/manager';
import { registerProcessMetrics } from '@metal3-ts/shared/metrics/process';
import { exponentialBuckets, Registry } from '@metal3-ts/shared/metrics/registry';
import type { ReviewStats } from './server.ts';

/** The webhook's metrics and the hook that feeds them from every answered review. */
export function webhookMetrics(): { registry: Registry; onReview: (s: ReviewStats) => void } {
  const registry = new Registry();
  registerProcessMetrics(registry);
  const reviews = registry.counter('conversion_webhook_reviews_total', 'ConversionReviews answered, by result', ['result']);
  const objects = registry.counter('conversion_webhook_objects_total', 'Objects in the ConversionReviews answered');
  const seconds = registry.histogram('conversion_webhook_review_duration_seconds', 'Time to convert one review', [], exponentialBuckets(0.0001, 2, 16));
  reviews.touch({ result: 'success' });
  reviews.touch({ result: 'failure' });
  return {
    registry,
    onReview: (s) => {
      reviews.inc({ result: s.ok ? 'success' : 'failure' });
      objects.inc({}, s.objects);
      seconds.observe({}, s.durationMs / 1000);
    },
  };
}

export interface SideServerOptions {
  readonly probes: BindAddress | undefined;
  readonly metrics: BindAddress | undefined;
  readonly healthz: Checks;
  readonly readyz: Checks;
  readonly registry: Registry;
  readonly log: Logger;
}

export async function startSideServers(o: SideServerOptions): Promise<RunningServer[]> {
  const probeRoute: Route = async ({ path, query }) => {
    for (const checks of [o.healthz, o.readyz]) {
      const base = `/${checks.kind}`;
      if (path === base || path.startsWith(`${base}/`)) {
        return { ...(await checks.respond(path.slice(base.length + 1), query, o.log)), contentType: 'text/plain; charset=utf-8' };
      }
    }
    return undefined;
  };
  const metricsRoute: Route = ({ path }) =>
    Promise.resolve(path === '/metrics' ? { status: 200, contentType: METRICS_CONTENT_TYPE, body: o.registry.render() } : undefined);
  const byAddress = new Map<string, { bind: BindAddress; routes: Route[]; paths: string[] }>();
  for (const [bind, route, paths] of [[o.probes, probeRoute, ['healthz', 'readyz']], [o.metrics, metricsRoute, ['metrics']]] as const) {
    if (!bind) continue;
    const key = `${bind.host ?? ''}:${bind.port}`;
    const entry = byAddress.get(key) ?? { bind, routes: [], paths: [] };
    entry.routes.push(route);
    entry.paths.push(...paths);
    byAddress.set(key, entry);
  }
  const started: RunningServer[] = [];
  try {
    for (const { bind, routes, paths } of byAddress.values()) {
      const server = await startHttpServer(bind, routes, o.log);
      started.push(server);
      o.log.info('serving', { address: server.address, paths: paths.join(',') });
    }
  } catch (error) {
    await Promise.all(started.map((s) => s.close()));
    throw error;
  }
  return started;
}
