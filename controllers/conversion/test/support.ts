// What the webhook's real-apiserver tests share: a test CA and a serving certificate for 127.0.0.1
// (written where --cert-dir would point), the server started in-process on an ephemeral port, and the
// upstream CAPM3 v1.13.2 Metal3Cluster CRD (read from the pinned upstream set at test time, never
// committed) with its conversion wired to that server by URL and caBundle, as the test environment
// and the lab wire it (the install wires it by Service and cert-manager's CA injection instead).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { type Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { upstreamDirectory } from '@metal3-ts/codegen/upstream';
import { type Certificate, issueCertificate } from '@metal3-ts/test/envtest/pki';
import type { Crd } from '@metal3-ts/test/envtest/crds';
import { silentLogger } from '@metal3-ts/shared/log/logger';
import { CertificateWatcher, type ServingFiles } from '../src/certificates.ts';
import type { Converter } from '../src/converter.ts';
import { type ReviewStats, startWebhookServer, type WebhookServer } from '../src/server.ts';

export const UPSTREAM_CAPM3 = 'cluster-api-provider-metal3-v1.13.2';

export interface TestPki {
  readonly ca: Certificate;
  readonly dir: string;
  readonly files: ServingFiles;
  /** Issues a new serving certificate from `ca` (default: the same CA) into the files, as cert-manager would. */
  rotate(ca?: Certificate): Certificate;
}

export function testPki(): TestPki {
  const ca = issueCertificate({
    commonName: 'metal3-ts-conversion-test-ca',
    usage: 'ca',
  });
  const dir = mkdtempSync(join(tmpdir(), 'metal3-ts-conversion-'));
  const files = {
    certFile: join(dir, 'tls.crt'),
    keyFile: join(dir, 'tls.key'),
  };
  const rotate = (issuer = ca) => {
    const cert = issueCertificate({
      commonName: 'metal3-ts-webhook-service',
      usage: 'server',
      ipAddresses: ['127.0.0.1'],
      dnsNames: ['localhost'],
    }, issuer);
    writeFileSync(files.keyFile, cert.keyPem);
    writeFileSync(files.certFile, cert.certPem);
    return cert;
  };
  rotate();
  return { ca, dir, files, rotate };
}

export interface InProcessWebhook {
  readonly server: WebhookServer;
  readonly watcher: CertificateWatcher;
  readonly url: string;
  readonly reviews: ReviewStats[];
  stop(): Promise<void>;
}

/** The server as main.ts runs it, minus the process: certificate watcher, HTTPS on 127.0.0.1:0. */
export async function startInProcess(
  files: ServingFiles,
  converter: Converter,
  options: { pollMs?: number; maxRequestBytes?: number } = {},
): Promise<InProcessWebhook> {
  const holder: { server?: WebhookServer } = {};
  const watcher = new CertificateWatcher(files, {
    intervalMs: options.pollMs ?? 60_000,
    log: silentLogger,
    onChange: (p) => holder.server?.setCertificate(p),
  });
  watcher.start();
  const reviews: ReviewStats[] = [];
  const running = await startWebhookServer({
    bind: { host: '127.0.0.1', port: 0 },
    certificate: await watcher.ready,
    converter,
    maxRequestBytes: options.maxRequestBytes ?? 64 << 20,
    requestTimeoutMs: 30_000,
    log: silentLogger,
    onReview: (s) => reviews.push(s),
  });
  holder.server = running;
  return {
    server: running,
    watcher,
    url: `https://127.0.0.1:${running.port}/convert`,
    reviews,
    async stop() {
      watcher.stop();
      await running.close(1000);
    },
  };
}

/** The upstream CAPM3 v1.13.2 CRD of `plural`, its conversion pointed at `url` and trusting `caPem`. */
export function upstreamCrdWithWebhook(
  plural: string,
  url: string,
  caPem: string,
  reviewVersions: readonly string[] = ['v1', 'v1beta1'],
): Crd {
  const path = join(
    upstreamDirectory(),
    UPSTREAM_CAPM3,
    `infrastructure.cluster.x-k8s.io_${plural}.yaml`,
  );
  const crd = parseAllDocuments(readFileSync(path, 'utf8')).map((d) => d.toJS() as Crd).find((d) => d?.kind === 'CustomResourceDefinition');
  if (!crd) throw new Error(`${path}: no CustomResourceDefinition`);
  const spec = crd.spec as Crd['spec'] & { conversion?: unknown };
  spec.conversion = {
    strategy: 'Webhook',
    webhook: {
      conversionReviewVersions: [...reviewVersions],
      clientConfig: { url, caBundle: Buffer.from(caPem).toString('base64') },
    },
  };
  return crd;
}

/** POSTs a ConversionReview to 127.0.0.1:`port` trusting `caPem` (keep-alive through `agent` if given). */
export function postReview(
  port: number,
  caPem: string,
  body: unknown,
  agent?: Agent,
): Promise<{ status: number; json: { response: Record<string, unknown> } }> {
  return new Promise((resolve, reject) => {
    const text = JSON.stringify(body);
    const headers = { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) };
    const req = request(
      { host: '127.0.0.1', port, path: '/convert', method: 'POST', ca: caPem, servername: 'localhost', headers, ...(agent ? { agent } : {}) },
      (res) => {
        let out = '';
        res.setEncoding('utf8').on('data', (c: string) => (out += c)).on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(out) }));
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}
