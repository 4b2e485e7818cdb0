// The webhook process: flags → logger → certificate watcher → HTTPS server (once a certificate has
// loaded), probe and metrics servers → until SIGTERM/SIGINT → graceful close → exit code. Exit codes
// as every metal3-ts process: 0 after a clean shutdown, 1 when a server cannot start (a port in
// use), 2 for bad flags. A missing or broken certificate is not fatal: the process waits for the
// Secret (cert-manager may not have issued it yet) and /readyz says what it waits for, so a slow
// issuer never becomes a crash loop.
import process from 'node:process';
import { FlagError, HelpRequested, usage } from '@metal3-ts/shared/entry/flags';
import { type Logger, newLogger, type Sink } from '@metal3-ts/shared/log/logger';
import { Checks } from '@metal3-ts/shared/manager/health';
import { type Route, type RunningServer, startHttpServer } from '@metal3-ts/shared/manager/http-server';
import { METRICS_CONTENT_TYPE } from '@metal3-ts/shared/manager/manager';
import { nodeProcess, type ProcessPort, shutdownOnSignals } from '@metal3-ts/shared/manager/signals';
import { exponentialBuckets, Registry } from '@metal3-ts/shared/metrics/registry';
import { CertificateWatcher } from './certificates.ts';
import type { Converter } from './converter.ts';
import { webhookConfig, webhookFlags } from './flags.ts';
import { startWebhookServer, type WebhookServer } from './server.ts';

export interface RunOptions {
  readonly name: string;
  readonly converter: Converter;
  readonly argv?: readonly string[];
  readonly process?: ProcessPort;
  readonly sink?: Sink;
}

export async function runWebhook(options: RunOptions): Promise<number> {
  const sink = options.sink ??
    ((line: string) => process.stderr.write(line + '\n'));
  let config;
  try {
    config = webhookConfig(options.argv ?? process.argv.slice(2));
  } catch (error) {
    if (error instanceof HelpRequested) {
      sink(`Usage of ${options.name}:\n${usage(webhookFlags)}`);
      return 0;
    }
    if (error instanceof FlagError) {
      sink(`${options.name}: ${error.message}`);
      return 2;
    }
    throw error;
  }
  const log = newLogger({
    level: config.logLevel,
    sink,
    fields: { logger: options.name },
  });
  const shutdown = shutdownOnSignals(options.process ?? nodeProcess, log);
  const registry = new Registry();
  const reviews = registry.counter(
    'conversion_webhook_reviews_total',
    'ConversionReviews answered, by result',
    ['result'],
  );
  const objects = registry.counter(
    'conversion_webhook_objects_total',
    'Objects in the ConversionReviews answered',
  );
  const seconds = registry.histogram(
    'conversion_webhook_review_duration_seconds',
    'Time to convert one review',
    [],
    exponentialBuckets(0.0001, 2, 16),
  );
  reviews.touch({ result: 'success' });
  reviews.touch({ result: 'failure' });

  const healthz = new Checks('healthz');
  const readyz = new Checks('readyz');
  healthz.add('ping', () => true);
  let webhook: WebhookServer | undefined;
  const watcher = new CertificateWatcher(config.files, {
    intervalMs: config.certPollIntervalMs,
    log,
    onChange: (pair) => webhook?.setCertificate(pair),
  });
  readyz.add(
    'serving-certificate',
    () => (watcher.current ? true : { ok: false, reason: watcher.problem ?? 'not loaded yet' }),
  );
  readyz.add(
    'webhook-server',
    () => (webhook ? true : { ok: false, reason: 'not listening yet' }),
  );

  const servers: RunningServer[] = [];
  try {
    servers.push(
      ...(await startSideServers(config, healthz, readyz, registry, log)),
    );
    watcher.start();
    const pair = await Promise.race([watcher.ready, aborted(shutdown.signal)]);
    if (pair) {
      webhook = await startWebhookServer({
        bind: config.webhook,
        certificate: pair,
        converter: options.converter,
        maxRequestBytes: config.maxRequestBytes,
        requestTimeoutMs: config.requestTimeoutMs,
        log,
        probes: { healthz, readyz },
        onReview: (s) => {
          reviews.inc({ result: s.ok ? 'success' : 'failure' });
          objects.inc({}, s.objects);
          seconds.observe({}, s.durationMs / 1000);
        },
      });
      log.info('serving conversion webhook', {
        port: webhook.port,
        path: '/convert',
      });
      await aborted(shutdown.signal);
    }
    log.info('shutting down', { graceMs: config.gracefulShutdownTimeoutMs });
    await webhook?.close(config.gracefulShutdownTimeoutMs);
    return 0;
  } catch (error) {
    log.error('conversion webhook failed', { error });
    await webhook?.close(0);
    return 1;
  } finally {
    watcher.stop();
    await Promise.all(servers.map((s) => s.close()));
    shutdown.dispose();
  }
}

function aborted(signal: AbortSignal): Promise<undefined> {
  return new Promise((
    resolve,
  ) => (signal.aborted ? resolve(undefined) : signal.addEventListener('abort', () => resolve(undefined), {
    once: true,
  })));
}

/** The plain-HTTP probe and metrics servers (one server when both share an address). */
async function startSideServers(
  config: ReturnType<typeof webhookConfig>,
  healthz: Checks,
  readyz: Checks,
  registry: Registry,
  log: Logger,
): Promise<RunningServer[]> {
  const probeRoute: Route = async ({ path, query }) => {
    for (const checks of [healthz, readyz]) {
      const base = `/${checks.kind}`;
      if (path === base || path.startsWith(`${base}/`)) {
        return {
          ...(await checks.respond(path.slice(base.length + 1), query, log)),
          contentType: 'text/plain; charset=utf-8',
        };
      }
    }
    return undefined;
  };
  const metricsRoute: Route = ({ path }) =>
    Promise.resolve(
      path === '/metrics'
        ? {
          status: 200,
          contentType: METRICS_CONTENT_TYPE,
          body: registry.render(),
        }
        : undefined,
    );
  const key = (a: { host: string | undefined; port: number }) => `${a.host ?? ''}:${a.port}`;
  const routes = new Map<
    string,
    { bind: NonNullable<typeof config.probes>; routes: Route[] }
  >();
  for (
    const [bind, route] of [[config.probes, probeRoute], [
      config.metrics,
      metricsRoute,
    ]] as const
  ) {
    if (!bind) continue;
    const entry = routes.get(key(bind)) ?? { bind, routes: [] };
    entry.routes.push(route);
    routes.set(key(bind), entry);
  }
  const started: RunningServer[] = [];
  for (const { bind, routes: r } of routes.values()) {
    const server = await startHttpServer(bind, r, log);
    started.push(server);
    log.info('serving', {
      address: server.address,
      paths: r.length === 2 ? 'healthz,readyz,metrics' : r[0] === probeRoute ? 'healthz,readyz' : 'metrics',
    });
  }
  return started;
}
