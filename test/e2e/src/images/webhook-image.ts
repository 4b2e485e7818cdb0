// The conversion webhook's image run as config/webhook's Deployment runs it, for image.test.ts: its
// arguments (probe and metrics ports moved to free host ports, the webhook port too: the sandbox
// shares the host's network), no ServiceAccount volume (automountServiceAccountToken: false), the
// serving certificate Secret (a test CA's, for 127.0.0.1) mounted read-only where the Deployment
// mounts it. It must become ready, answer a ConversionReview over TLS and exit 0 on SIGTERM with
// nothing logged at error level.
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { parse } from 'yaml';
import { issueCertificate } from '@metal3-ts/test/envtest/pki';
import { eventually, httpGet, repoRoot } from '@metal3-ts/test/harness/controller-process';
import type { OpenedImage } from '../../../../scripts/images/unpack.ts';
import { hostNetworkArgs } from './install.ts';
import { ImagePod } from './pod.ts';

interface Container {
  image: string;
  args: string[];
  volumeMounts: { name: string; mountPath: string }[];
}

export async function webhookImageRun(options: { image: OpenedImage; rootfs: string; workDir: string; apiserver: string; pods: ImagePod[] }): Promise<string> {
  const deployment = parse(readFileSync(join(repoRoot, 'config/webhook/deployment.yaml'), 'utf8'));
  const pod = deployment.spec.template.spec;
  assert.is(pod.automountServiceAccountToken, false);
  const container = pod.containers[0] as Container;
  assert.ok(container.image.endsWith(options.image.refName ?? '-'), `config/webhook names image ${container.image}, the build made ${options.image.refName}`);
  const mountPath = container.volumeMounts[0]!.mountPath;
  const ca = issueCertificate({ commonName: 'image-test-ca', usage: 'ca' });
  const serving = issueCertificate({ commonName: 'metal3-ts-webhook-service', usage: 'server', ipAddresses: ['127.0.0.1'], dnsNames: ['localhost'] }, ca);
  const args = [...hostNetworkArgs(container.args).filter((a) => !a.startsWith('--webhook-port=')), '--webhook-port=0', '--webhook-host=127.0.0.1'];
  const p = new ImagePod({
    rootfs: options.rootfs,
    config: options.image.config,
    args,
    serviceAccount: undefined,
    apiserver: options.apiserver,
    workDir: options.workDir,
    secretVolume: { mountPath, files: { 'tls.crt': serving.certPem, 'tls.key': serving.keyPem } },
  });
  options.pods.push(p);
  const probes = await p.address('readyz');
  await eventually('conversion: /readyz 200', async () => ((await httpGet(probes, '/readyz')).status === 200 ? true : undefined), 30_000);
  const readyMs = performance.now() - p.startedMs;
  const port = Number((await p.waitForLine((l) => l.msg === 'serving conversion webhook'))['port']);
  const object = { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2', kind: 'Metal3Cluster', metadata: { name: 'a', namespace: 'n' }, spec: {} };
  const review = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'ConversionReview',
    request: { uid: 'img', desiredAPIVersion: object.apiVersion, objects: [object] },
  };
  const answer = await post(port, ca.certPem, review);
  assert.is(answer.response.uid, 'img');
  assert.is(answer.response.result.status, 'Success', 'an object already at the desired version comes back as it is');
  p.kill('SIGTERM');
  const exit = await p.exited;
  assert.is(exit.code, 0, `conversion: exit code after SIGTERM (log tail:\n${p.tail()})`);
  assert.not.ok(p.lines.some((l) => l.level === 'error' || l.level === 'raw'), `conversion: nothing logged at error level (log tail:\n${p.tail()})`);
  return `/readyz 200 ${(readyMs / 1000).toFixed(2)} s after spawn; answered a ConversionReview over TLS with the mounted certificate`;
}

function post(port: number, caPem: string, body: unknown): Promise<{ response: { uid: string; result: { status: string } } }> {
  return new Promise((resolve, reject) => {
    const text = JSON.stringify(body);
    const headers = { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) };
    const req = request({ host: '127.0.0.1', port, path: '/convert', method: 'POST', ca: caPem, servername: 'localhost', headers }, (res) => {
      let out = '';
      res.setEncoding('utf8').on('data', (c: string) => (out += c)).on('end', () => resolve(JSON.parse(out)));
    });
    req.on('error', reject);
    req.end(text);
  });
}
