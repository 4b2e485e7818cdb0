// The real Cluster API managers (core, kubeadm bootstrap, kubeadm control plane) of one release,
// running against a test environment's management apiserver as cluster-admin.
//
// startClusterAPI(env, { version }) installs the release's CRDs over whatever the environment holds
// (kustomized as released: contract labels, conversion through the local webhook servers), starts each
// manager as a process with its own webhook server (a serving certificate from the environment's CA),
// waits until every manager's /readyz answers (its webhook server included), then installs the
// release's admission webhook configurations. It returns ready managers, or stops what it started and
// throws. Leader election is off; metrics and health listen on free loopback ports.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CAPI_VERSIONS, type ClusterApiBinaries, ensureClusterApiBinaries } from '../envtest/capi-binaries.ts';
import { type Crd, installCrds } from '../envtest/crds.ts';
import type { TestEnv } from '../envtest/env.ts';
import { ProcessExitError } from '../envtest/errors.ts';
import { issueCertificate } from '../envtest/pki.ts';
import { freePort, releasePort } from '../envtest/ports.ts';
import { ManagedProcess, startWatchdog, waitFor } from '../envtest/processes.ts';
import { type ComponentManifests, componentManifests, type ComponentName, COMPONENTS } from './release.ts';

export interface ClusterApiOptions {
  /** A release built by test/envtest/bins/build-capi.sh (default: the newest). */
  readonly version?: string;
  /** Per phase (CRDs, managers ready). Default 120 s: three Go managers start slowly on a loaded runner. */
  readonly timeoutMs?: number;
}

export interface ClusterApiManager {
  readonly process: ManagedProcess;
  readonly webhookPort: number;
  readonly healthPort: number;
  readonly metricsPort: number;
}

export interface ClusterApi {
  readonly version: string;
  readonly binaries: ClusterApiBinaries;
  readonly managers: Readonly<Record<ComponentName, ClusterApiManager>>;
  /** Milliseconds spent: binaries (0 when warm), CRDs established, managers ready, webhooks configured. */
  readonly timings: { binariesMs: number; crdsMs: number; managersMs: number; webhooksMs: number };
  stop(): Promise<void>;
}

const CONFIG_PLURAL = {
  MutatingWebhookConfiguration: 'mutatingwebhookconfigurations',
  ValidatingWebhookConfiguration: 'validatingwebhookconfigurations',
} as const;
const FIELD_MANAGER = 'metal3-ts-capi';

async function ready(port: number): Promise<true | undefined> {
  const response = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2000) });
  await response.body?.cancel();
  return response.ok ? true : undefined;
}

export async function startClusterAPI(env: TestEnv, options: ClusterApiOptions = {}): Promise<ClusterApi> {
  const version = options.version ?? CAPI_VERSIONS[0]!;
  const t = performance.now();
  const binaries = ensureClusterApiBinaries(version);
  const binariesMs = performance.now() - t;
  // A port taken between choosing it and the manager binding it: start over with fresh ports (the
  // webhook ports are written into the CRDs and webhook configurations, so everything is redone).
  for (let attempt = 1;; attempt++) {
    try {
      return await startOnce(env, binaries, options.timeoutMs ?? 120_000, attempt, binariesMs);
    } catch (error) {
      if (!(error instanceof ProcessExitError && error.portRace) || attempt >= 3) throw error;
    }
  }
}

async function startOnce(env: TestEnv, binaries: ClusterApiBinaries, timeoutMs: number, attempt: number, binariesMs: number): Promise<ClusterApi> {
  const version = binaries.version;
  const timings = { binariesMs, crdsMs: 0, managersMs: 0, webhooksMs: 0 };
  let t = 0;
  const dir = join(env.dir, attempt === 1 ? `capi-${version}` : `capi-${version}-${attempt}`);
  mkdirSync(dir, { recursive: true });
  const watchdog = startWatchdog(dir);
  const caBundle = Buffer.from(env.authorities.servingCa.certPem).toString('base64');
  const read = (path: string) => readFileSync(join(binaries.release, path), 'utf8');
  const started: ManagedProcess[] = [];
  const ports: number[] = [];
  const stop = async () => {
    await Promise.all(started.map((p) => p.stop()));
    ports.forEach(releasePort);
    watchdog.stop();
  };

  try {
    const plans = await Promise.all(
      COMPONENTS.map(async ({ name, path }) => {
        const [webhookPort, healthPort, metricsPort] = [await freePort(), await freePort(), await freePort()];
        ports.push(webhookPort, healthPort, metricsPort);
        const manifests: ComponentManifests = componentManifests(read, path, { url: `https://127.0.0.1:${webhookPort}`, caBundle });
        return { name, webhookPort, healthPort, metricsPort, manifests };
      }),
    );

    t = performance.now();
    const crds = plans.flatMap((p) => p.manifests.crds.map((crd) => ({ crd: crd as unknown as Crd, origin: `Cluster API ${version} ${p.name}` })));
    await installCrds(env.admin.client, crds, { timeoutMs });
    timings.crdsMs = performance.now() - t;

    t = performance.now();
    const managers = {} as Record<ComponentName, ClusterApiManager>;
    for (const plan of plans) {
      const certDir = join(dir, plan.name, 'certs');
      mkdirSync(certDir, { recursive: true });
      const cert = issueCertificate(
        { commonName: `capi-${plan.name}-webhook`, dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'], usage: 'server', days: 30 },
        env.authorities.servingCa,
      );
      writeFileSync(join(certDir, 'tls.crt'), cert.certPem);
      writeFileSync(join(certDir, 'tls.key'), cert.keyPem, { mode: 0o600 });
      const child = new ManagedProcess({
        name: `Cluster API ${version} ${plan.name} manager`,
        command: binaries[plan.name],
        args: [
          `--kubeconfig=${env.kubeconfigPath}`,
          '--leader-elect=false',
          `--webhook-port=${plan.webhookPort}`,
          `--webhook-cert-dir=${certDir}`,
          `--health-addr=127.0.0.1:${plan.healthPort}`,
          `--diagnostics-address=127.0.0.1:${plan.metricsPort}`,
          '--insecure-diagnostics=true',
          ...plan.manifests.args,
        ],
        logFile: join(dir, `${plan.name}.log`),
      });
      started.push(child);
      managers[plan.name] = { process: child, webhookPort: plan.webhookPort, healthPort: plan.healthPort, metricsPort: plan.metricsPort };
    }
    watchdog.update(started.map((p) => p.pid));
    await Promise.all(
      plans.map((p) =>
        waitFor(`Cluster API ${version} ${p.name} manager /readyz`, () => ready(p.healthPort), {
          timeoutMs,
          intervalMs: 200,
          watch: [managers[p.name].process],
        })
      ),
    );
    timings.managersMs = performance.now() - t;

    // After readiness: a webhook configuration (failurePolicy Fail) pointing at a server not yet up
    // would refuse every write of its resources in between.
    t = performance.now();
    for (const config of plans.flatMap((p) => p.manifests.webhookConfigurations)) {
      const plural = CONFIG_PLURAL[config.kind as keyof typeof CONFIG_PLURAL];
      await env.admin.client.apply(`/apis/admissionregistration.k8s.io/v1/${plural}/${config.metadata.name}`, config, FIELD_MANAGER);
    }
    timings.webhooksMs = performance.now() - t;
    return { version, binaries, managers, timings, stop };
  } catch (error) {
    await stop().catch(() => {});
    throw error;
  }
}
