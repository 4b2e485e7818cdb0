// The HTTPS server the apiserver calls: POST /convert with a ConversionReview (review.ts does the
// work), GET /healthz and /readyz with the probe checks (also served on the plain probe port by
// main.ts). Limits keep one bad client from taking the process down: a body over `maxRequestBytes` is
// refused with 413 before it is read, a request not fully received within `requestTimeoutMs` is
// dropped by Node, a body that is not a ConversionReview gets 400 naming the field. The converter runs
// synchronously per review, so there is no state between requests. `close` stops accepting, lets
// reviews in flight finish for up to `graceMs`, then cuts what is left.
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '@metal3-ts/shared/log/logger';
import type { Checks } from '@metal3-ts/shared/manager/health';
import type { BindAddress } from '@metal3-ts/shared/manager/http-server';
import type { Converter } from './converter.ts';
import { BadReview, convertReview, parseReview, reviewResponse } from './review.ts';
import type { ServingPair } from './certificates.ts';

export interface ReviewStats {
  /** The ConversionReview's apiVersion (the apiserver picks it from the CRD's conversionReviewVersions). */
  readonly reviewVersion: string;
  readonly objects: number;
  readonly ok: boolean;
  /** Time spent converting (parse to answer serialised), milliseconds. */
  readonly durationMs: number;
}

export interface WebhookServerOptions {
  readonly bind: BindAddress;
  readonly certificate: ServingPair;
  readonly converter: Converter;
  readonly maxRequestBytes: number;
  readonly requestTimeoutMs: number;
  /** How long an idle kept-alive connection stays open (default KEEP_ALIVE_MS). */
  readonly keepAliveMs?: number;
  readonly log: Logger;
  readonly probes?: { readonly healthz: Checks; readonly readyz: Checks };
  /** Called after every review answered (metrics, benchmarks). */
  readonly onReview?: (stats: ReviewStats) => void;
}

export interface WebhookServer {
  readonly port: number;
  /** A rotated certificate: new handshakes use it, open connections keep theirs. */
  setCertificate(pair: ServingPair): void;
  /** Requests being handled now (received headers, not yet answered). */
  inFlight(): number;
  close(graceMs: number): Promise<void>;
}

const TEXT = 'text/plain; charset=utf-8';

/**
 * The apiserver's webhook client closes a connection idle for 90 s (Go's transport default). The
 * server keeps an idle connection longer, so the apiserver is always the side that gives it up: a
 * server closing first races the apiserver's next review on that connection, and the apiserver does
 * not retry a POST, so the user's write fails with "write: broken pipe" (seen with a 30 s timeout in a
 * 100-machine benchmark).
 */
export const APISERVER_IDLE_MS = 90_000;
export const KEEP_ALIVE_MS = 120_000;

export async function startWebhookServer(options: WebhookServerOptions): Promise<WebhookServer> {
  let active = 0;
  const server: Server = createServer({
    cert: options.certificate.cert,
    key: options.certificate.key,
    minVersion: 'TLSv1.2',
    // Node enforces requestTimeout only when it checks its connections (every 30 s by default).
    connectionsCheckingInterval: Math.min(1000, options.requestTimeoutMs),
  }, (req, res) => {
    active++;
    void handle(req, res, options).finally(() => active--);
  });
  server.requestTimeout = options.requestTimeoutMs;
  server.headersTimeout = Math.min(options.requestTimeoutMs, 60_000);
  server.keepAliveTimeout = options.keepAliveMs ?? KEEP_ALIVE_MS;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: options.bind.port, ...(options.bind.host !== undefined ? { host: options.bind.host } : {}) }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    setCertificate: (pair) => server.setSecureContext({ cert: pair.cert, key: pair.key }),
    inFlight: () => active,
    close: (graceMs) => closeGracefully(server, graceMs),
  };
}

function closeGracefully(server: Server, graceMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const cut = setTimeout(() => server.closeAllConnections(), graceMs);
    // A kept-alive connection (the apiserver keeps them) turns idle once its review is answered: close
    // it then instead of waiting for its keep-alive timeout.
    const idle = setInterval(() => server.closeIdleConnections(), 50);
    server.close(() => {
      clearTimeout(cut);
      clearInterval(idle);
      resolve();
    });
    server.closeIdleConnections();
  });
}

function send(res: ServerResponse, status: number, contentType: string, body: string): void {
  res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body), 'X-Content-Type-Options': 'nosniff' });
  res.end(body);
}

async function handle(req: IncomingMessage, res: ServerResponse, options: WebhookServerOptions): Promise<void> {
  const url = new URL(req.url ?? '/', 'https://localhost');
  const probe = url.pathname.match(/^\/(healthz|readyz)(?:\/(.*))?$/);
  try {
    if (probe && options.probes && (req.method === 'GET' || req.method === 'HEAD')) {
      const answer = await (probe[1] === 'healthz' ? options.probes.healthz : options.probes.readyz).respond(probe[2] ?? '', url.searchParams);
      return send(res, answer.status, TEXT, answer.body);
    }
    if (url.pathname !== '/convert') return send(res, 404, TEXT, '404 page not found\n');
    if (req.method !== 'POST') return send(res, 405, TEXT, 'method not allowed: POST a ConversionReview\n');
    const type = req.headers['content-type'] ?? '';
    if (!/^application\/json\b/.test(type)) return send(res, 415, TEXT, `content type ${JSON.stringify(type)}: expected application/json\n`);
    if (Number(req.headers['content-length'] ?? NaN) > options.maxRequestBytes) return refuseTooLarge(res, options.maxRequestBytes);
    const body = await readBody(req, options.maxRequestBytes);
    if (body === undefined) return refuseTooLarge(res, options.maxRequestBytes);
    answer(res, body, options);
  } catch (error) {
    options.log.error('conversion webhook request failed', { path: url.pathname, error });
    if (!res.headersSent) send(res, 500, TEXT, 'internal error\n');
    else res.destroy();
  }
}

function refuseTooLarge(res: ServerResponse, limit: number): void {
  res.setHeader('Connection', 'close');
  send(res, 413, TEXT, `request body over ${limit} bytes (--max-request-bytes)\n`);
}

/** The body, or undefined once it passes `limit` (reading stops there). */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.pause();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

function answer(res: ServerResponse, body: Buffer, options: WebhookServerOptions): void {
  const started = performance.now();
  let review;
  try {
    review = parseReview(JSON.parse(body.toString('utf8')));
  } catch (error) {
    if (!(error instanceof BadReview) && !(error instanceof SyntaxError)) throw error;
    const reason = error instanceof SyntaxError ? 'body is not JSON' : error.message;
    options.log.warn('refused a request that is not a ConversionReview', { reason });
    return send(res, 400, TEXT, `${reason}\n`);
  }
  const outcome = convertReview(review, options.converter);
  const text = JSON.stringify(reviewResponse(review, outcome));
  const durationMs = performance.now() - started;
  const common = { uid: review.uid, to: review.desiredAPIVersion };
  // Who and which field, never the objects' contents nor the converter's message (it may quote values).
  if (!outcome.ok) options.log.warn('conversion failed', { ...common, ...outcome.failed, field: outcome.field, error: outcome.error });
  else options.log.debug('converted', { ...common, objects: review.objects.length, durationMs });
  options.onReview?.({ reviewVersion: review.apiVersion, objects: review.objects.length, ok: outcome.ok, durationMs });
  send(res, 200, 'application/json', text);
}
