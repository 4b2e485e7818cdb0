// The webhook process: flags → logger → certificate watcher → HTTPS server (once a certificate has
// loaded), probe and metrics servers → until SIGTERM/SIGINT → graceful close → exit code. Exit codes
// as every metal3-ts process: 0 after a clean shutdown, 1 when a server cannot start (a port in
// use), 2 for bad flags. A missing or broken certificate is not fatal: the process waits for the
// Secret (cert-manager may not have issued it yet) and /readyz says what it waits for, so a slow
// issuer never becomes a crash loop.
import process from 'node:process';
import { FlagError, HelpRequested, usage } from '@metal3-ts/shared/entry/flags';
import { newLogger, type Sink } from '@metal3-ts/shared/log/logger';
import { Checks } from '@metal3-ts/shared/manager/health';
import type { RunningServer } from '@metal3-ts/shared/manager/http-server';
import { nodeProcess, type ProcessPort, shutdownOnSignals } from '@metal3-ts/shared/manager/signals';
import { CertificateWatcher } from './certificates.ts';
import type { Converter } from './converter.ts';
import { type WebhookConfig, webhookConfig, webhookFlags } from './flags.ts';
import { startWebhookServer, type WebhookServer } from './server.ts';
import { startSideServers, webhookMetrics } from './side-servers.ts';

export interface RunOptions {
  readonly name: string;
  readonly converter: Converter;
  readonly argv?: readonly string[];
  readonly process?: ProcessPort;
  readonly sink?: Sink;
}

export async function runWebhook(options: RunOptions): Promise<number> {
  const sink = options.sink ?? ((line: string) => process.stderr.write(line + '\n'));
  let config: WebhookConfig;
  try {
    config = webhookConfig(options.argv ?? process.argv.slice(2));
  } catch (error) {
    if (error instanceof HelpRequested) sink(`Usage of ${options.name}:\n${usage(webhookFlags)}`);
    else if (error instanceof FlagError) sink(`${options.name}: ${error.message}`);
    else throw error;
    return error instanceof HelpRequested ? 0 : 2;
  }
  const log = newLogger({ level: config.logLevel, sink, fields: { logger: options.name } });
  const shutdown = shutdownOnSignals(options.process ?? nodeProcess, log);
  const { registry, onReview } = webhookMetrics();
  const healthz = new Checks('healthz');
  const readyz = new Checks('readyz');
  let webhook: WebhookServer | undefined;
  const watcher = new CertificateWatcher(config.files, { intervalMs: config.certPollIntervalMs, log, onChange: (pair) => webhook?.setCertificate(pair) });
  healthz.add('ping', () => true);
  readyz.add('serving-certificate', () => (watcher.current ? true : { ok: false, reason: watcher.problem ?? 'not loaded yet' }));
  readyz.add('webhook-server', () => (webhook ? true : { ok: false, reason: 'not listening yet' }));

  let servers: RunningServer[] = [];
  try {
    servers = await startSideServers({ probes: config.probes, metrics: config.metrics, healthz, readyz, registry, log });
    watcher.start();
    const certificate = await Promise.race([watcher.ready, aborted(shutdown.signal)]);
    if (certificate) {
      const { webhook: bind, maxRequestBytes, requestTimeoutMs } = config;
      webhook = await startWebhookServer({
        bind,
        certificate,
        converter: options.converter,
        maxRequestBytes,
        requestTimeoutMs,
        log,
        probes: { healthz, readyz },
        onReview,
      });
      log.info('serving conversion webhook', { port: webhook.port, path: '/convert' });
      await aborted(shutdown.signal);
    }
    log.info('shutting down', { graceMs: config.gracefulShutdownTimeoutMs, inFlight: webhook?.inFlight() ?? 0 });
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
  return new Promise((resolve) => (signal.aborted ? resolve(undefined) : signal.addEventListener('abort', () => resolve(undefined), { once: true })));
}
