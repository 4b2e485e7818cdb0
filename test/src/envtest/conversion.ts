// Our CRDs store v1beta2, as crds/*.yaml say (issue 18): the conversion webhook of this repository
// runs as a process beside the apiserver, and our CRDs are installed converting through it by URL and
// caBundle where the install names its Service and has cert-manager inject the CA. The way back,
// v1beta1 stored and v1beta2 not served (no webhook), is EnvOptions.storage or
// METAL3_TS_STORAGE=v1beta1: the generation before the switch, kept to show the controllers never
// depend on the storage version. The process is started from its source by path, the
// way the apiserver is started from its binary: the test package cannot depend on the controller
// package, whose own tests depend on this one. Its serving certificate comes from the environment's
// serving CA; it is ready once /readyz answers (certificate loaded, HTTPS listening).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import type { CrdSource } from './crds.ts';
import { ProcessExitError } from './errors.ts';
import { type Certificate, issueCertificate } from './pki.ts';
import { freePort, releasePort } from './ports.ts';
import { ManagedProcess, waitFor } from './processes.ts';

export type StorageVersion = 'v1beta1' | 'v1beta2';

/** EnvOptions.storage, else METAL3_TS_STORAGE (v1beta2, the CRDs' own, when unset). */
export function storageVersion(value: string | undefined = process.env['METAL3_TS_STORAGE']): StorageVersion {
  if (value === undefined || value === '' || value === 'v1beta2') return 'v1beta2';
  if (value === 'v1beta1') return 'v1beta1';
  throw new Error(`METAL3_TS_STORAGE must be v1beta1 or v1beta2, got "${value}"`);
}

const MAIN = resolve(dirname(fileURLToPath(import.meta.url)), '../../../controllers/conversion/src/main.ts');
const GROUP = 'infrastructure.cluster.x-k8s.io';

export interface ConversionWebhook {
  /** The `/convert` URL the CRDs point at. */
  readonly url: string;
  readonly process: ManagedProcess;
  stop(): Promise<void>;
}

/** Starts the webhook; `port` serves `/convert` where a stopped one did (a new Pod behind the same Service). */
export async function startConversionWebhook(dir: string, servingCa: Certificate, timeoutMs: number, port?: number): Promise<ConversionWebhook> {
  const certDir = join(dir, 'conversion', 'certs');
  mkdirSync(certDir, { recursive: true });
  const cert = issueCertificate(
    { commonName: 'metal3-ts-webhook-service', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'], usage: 'server', days: 30 },
    servingCa,
  );
  writeFileSync(join(certDir, 'tls.crt'), cert.certPem);
  writeFileSync(join(certDir, 'tls.key'), cert.keyPem, { mode: 0o600 });
  // A port taken between choosing and binding it: once more with fresh ports.
  for (let attempt = 1;; attempt++) {
    const [webhookPort, probes] = [port ?? await freePort(), await freePort()];
    const child = new ManagedProcess({
      name: 'conversion webhook',
      command: process.execPath,
      args: [
        MAIN,
        '--webhook-host=127.0.0.1',
        `--webhook-port=${webhookPort}`,
        `--cert-dir=${certDir}`,
        `--health-probe-bind-address=127.0.0.1:${probes}`,
        '--metrics-bind-address=0',
        '--graceful-shutdown-timeout=1s',
      ],
      logFile: join(dir, 'conversion', `webhook-${attempt}.log`),
    });
    const stop = async () => {
      await child.stop();
      if (port === undefined) releasePort(webhookPort);
      releasePort(probes);
    };
    try {
      await waitFor('the conversion webhook /readyz', async () => {
        const response = await fetch(`http://127.0.0.1:${probes}/readyz`, { signal: AbortSignal.timeout(2000) });
        await response.body?.cancel();
        return response.ok ? true : undefined;
      }, { timeoutMs, intervalMs: 100, watch: [child] });
      return { url: `https://127.0.0.1:${webhookPort}/convert`, process: child, stop };
    } catch (error) {
      await stop();
      if (!(error instanceof ProcessExitError && error.portRace) || attempt >= 3 || port !== undefined) throw error;
    }
  }
}

/** Our CRDs as crds/*.yaml declare them (both versions served, v1beta2 stored), converting through `url` instead of the install's Service. */
export function storingV1beta2(sources: readonly CrdSource[], url: string, caPem: string): CrdSource[] {
  const conversion = {
    strategy: 'Webhook',
    webhook: { conversionReviewVersions: ['v1', 'v1beta1'], clientConfig: { url, caBundle: Buffer.from(caPem).toString('base64') } },
  };
  return sources.map(({ crd, origin }) => {
    if (crd.spec.group !== GROUP) return { crd, origin };
    if (!crd.spec.versions.some((v) => v.name === 'v1beta2')) throw new Error(`${origin} has no v1beta2 version`);
    return { crd: { ...crd, spec: { ...crd.spec, conversion } }, origin: `${origin} (conversion webhook by URL)` };
  });
}

/** Our CRDs as before the switch: v1beta1 served and stored, v1beta2 not served, nothing to convert. */
export function storingV1beta1(sources: readonly CrdSource[]): CrdSource[] {
  return sources.map(({ crd, origin }) => {
    if (crd.spec.group !== GROUP) return { crd, origin };
    const versions = crd.spec.versions.map((v) => ({ ...v, served: v.name === 'v1beta1', storage: v.name === 'v1beta1' }));
    const { conversion: _, ...spec } = crd.spec;
    return { crd: { ...crd, spec: { ...spec, versions } }, origin: `${origin} (v1beta1 stored, no conversion)` };
  });
}
