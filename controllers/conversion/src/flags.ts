// The webhook process's flags. Names and defaults follow controller-runtime's webhook server and
// CAPM3's manager where they exist (`--webhook-port 9443`, `--cert-dir` with tls.crt/tls.key, probes
// on :9440, metrics on :8080), so the install manifests read like the other controllers'. The process
// has no kubeconfig flags: it never talks to the apiserver, the apiserver talks to it.
import { join } from 'node:path';
import { flag, type FlagSpec, parseFlags } from '@metal3-ts/shared/entry/flags';
import { type BindAddress, parseBindAddress } from '@metal3-ts/shared/manager/http-server';
import type { ServingFiles } from './certificates.ts';

/** A `host:port` flag (`0`: off), parsed at flag time so a bad one is a FlagError naming it. */
const bindAddress = (defaultText: string, help: string): FlagSpec<BindAddress | undefined> => ({
  help,
  default: parseBindAddress(defaultText),
  shownDefault: defaultText,
  parse: parseBindAddress,
});

export const webhookFlags = {
  'webhook-port': flag.int(9443, 'Port the conversion webhook serves HTTPS on (0: any free port, for tests)', { min: 0, max: 65535 }),
  'webhook-host': flag.string('', 'Address the webhook listens on (empty: every interface)'),
  'cert-dir': flag.string('/tmp/k8s-webhook-server/serving-certs', 'Directory of the serving certificate (the mounted Secret)'),
  'cert-name': flag.string('tls.crt', 'Certificate file in --cert-dir'),
  'key-name': flag.string('tls.key', 'Private key file in --cert-dir'),
  'cert-poll-interval': flag.duration(10_000, 'How often the certificate files are read again for a rotation', { min: 100 }),
  'max-request-bytes': flag.int(64 << 20, 'Largest ConversionReview accepted (a list is one review of every item); larger: 413', { min: 1024 }),
  'request-timeout': flag.duration(30_000, 'A request not received in full within this is dropped (the apiserver waits 30 s)', { min: 100 }),
  'health-probe-bind-address': bindAddress(':9440', 'Address serving /healthz and /readyz over HTTP; 0 turns it off'),
  'metrics-bind-address': bindAddress(':8080', 'Address serving /metrics; 0 turns it off'),
  'graceful-shutdown-timeout': flag.duration(30_000, 'How long SIGTERM waits for reviews in flight'),
  'log-level': flag.oneOf(['debug', 'info', 'warn', 'error'] as const, 'info', 'Lowest level logged'),
};

export interface WebhookConfig {
  readonly webhook: BindAddress;
  readonly files: ServingFiles;
  readonly certPollIntervalMs: number;
  readonly maxRequestBytes: number;
  readonly requestTimeoutMs: number;
  readonly probes: BindAddress | undefined;
  readonly metrics: BindAddress | undefined;
  readonly gracefulShutdownTimeoutMs: number;
  readonly logLevel: 'debug' | 'info' | 'warn' | 'error';
}

/** Parses argv; throws FlagError naming the flag, or HelpRequested. */
export function webhookConfig(argv: readonly string[]): WebhookConfig {
  const f = parseFlags(webhookFlags, argv);
  return {
    webhook: { host: f['webhook-host'] === '' ? undefined : f['webhook-host'], port: f['webhook-port'] },
    files: { certFile: join(f['cert-dir'], f['cert-name']), keyFile: join(f['cert-dir'], f['key-name']) },
    certPollIntervalMs: f['cert-poll-interval'],
    maxRequestBytes: f['max-request-bytes'],
    requestTimeoutMs: f['request-timeout'],
    probes: f['health-probe-bind-address'],
    metrics: f['metrics-bind-address'],
    gracefulShutdownTimeoutMs: f['graceful-shutdown-timeout'],
    logLevel: f['log-level'],
  };
}
