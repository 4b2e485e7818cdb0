// The conversion webhook through a real kube-apiserver (issue 18): the upstream CAPM3 v1.13.2
// Metal3Cluster CRD (v1beta1 served, v1beta2 storage) with `conversion.strategy: Webhook` pointed at
// the in-process server by URL and the test CA, in a fresh environment. What is written at one version
// is read at the other (CV-1), both ways, one object and a list; the apiserver speaks
// both review versions to it; a conversion the converter refuses reaches the client as an apiserver
// error naming the object and the field; a rotated serving certificate is picked up without a restart.
// The converter is the build's own (src/converters.ts: the rules of src/convert/), with one refusal
// added in front: the rules refuse only input the CRD schema already keeps out, so the refusal path
// needs a host name the test chooses.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { X509Certificate } from 'node:crypto';
import { rmSync } from 'node:fs';
import { connect } from 'node:tls';
import { startEnv, type TestEnv } from '@metal3-ts/test/envtest/env';
import { installCrds } from '@metal3-ts/test/envtest/crds';
import { freshNamespace } from '@metal3-ts/test/envtest/suite';
import type { KubeObject } from '@metal3-ts/test/envtest/http';
import { eventually } from '@metal3-ts/test/testing/eventually';
import { converter } from '../src/converters.ts';
import { ConversionFailure, type Converter } from '../src/converter.ts';
import { REFUSED_HOST, V1BETA1, V1BETA2 } from './metal3cluster-converter.ts';
import { type InProcessWebhook, startInProcess, type TestPki, testPki, upstreamCrdWithWebhook } from './support.ts';

const test = suite('conversion webhook through the real apiserver (issue 18)');
let env: TestEnv;
let pki: TestPki;
let webhook: InProcessWebhook;
let ns: string;

const path = (version: string, name?: string) => `/apis/infrastructure.cluster.x-k8s.io/${version}/namespaces/${ns}/metal3clusters${name ? `/${name}` : ''}`;
type Cluster = KubeObject & {
  spec: Record<string, unknown>;
  status?: Record<string, unknown>;
};

const refusingOneHost: Converter = (object, to) => {
  const endpoint = (object['spec'] as { controlPlaneEndpoint?: { host?: string } } | undefined)?.controlPlaneEndpoint;
  if (endpoint?.host === REFUSED_HOST) throw new ConversionFailure(`host ${REFUSED_HOST} is refused by the test`, 'spec.controlPlaneEndpoint.host');
  return converter(object, to);
};

test.before(async () => {
  pki = testPki();
  webhook = await startInProcess(pki.files, refusingOneHost, {
    pollMs: 200,
  });
  env = await startEnv({ crds: false });
  await installCrds(env.admin.client, [{
    crd: upstreamCrdWithWebhook('metal3clusters', webhook.url, pki.ca.certPem),
    origin: 'upstream CAPM3 v1.13.2 + webhook',
  }]);
  ns = await freshNamespace(env.admin.client, 'conversion');
});

test.after(async () => {
  await env?.stop();
  await webhook?.stop();
  if (pki) rmSync(pki.dir, { recursive: true, force: true });
});

test('CV-1 write v1beta1, read v1beta2: failure domains map → list, the same object read back at v1beta1 unchanged', async () => {
  const spec = {
    controlPlaneEndpoint: { host: 'api.a.example', port: 6443 },
    failureDomains: {
      rack2: { controlPlane: true },
      rack1: { attributes: { row: '4' } },
    },
  };
  const created = await env.admin.client.create<Cluster>(path('v1beta1'), {
    apiVersion: V1BETA1,
    kind: 'Metal3Cluster',
    metadata: { name: 'a' },
    spec,
  });
  assert.is(created.apiVersion, V1BETA1);
  const v2 = await env.admin.client.get<Cluster>(path('v1beta2', 'a'));
  assert.is(v2.apiVersion, V1BETA2);
  assert.equal(v2.spec['failureDomains'], [{
    name: 'rack1',
    attributes: { row: '4' },
  }, { name: 'rack2', controlPlane: true }]);
  const v1 = await env.admin.client.get<Cluster>(path('v1beta1', 'a'));
  assert.equal(v1.spec, spec);
  assert.ok(webhook.reviews.length > 0, 'the apiserver called the webhook');
});

test('CV-1 write v1beta2 (spec and /status), read v1beta1: list → map, initialization.provisioned → ready', async () => {
  await env.admin.client.create<Cluster>(path('v1beta2'), {
    apiVersion: V1BETA2,
    kind: 'Metal3Cluster',
    metadata: { name: 'b' },
    spec: {
      controlPlaneEndpoint: { host: 'api.b.example', port: 6443 },
      failureDomains: [{ name: 'r1', controlPlane: true }],
    },
  });
  await env.admin.client.mergePatch(`${path('v1beta2', 'b')}/status`, {
    status: { initialization: { provisioned: true } },
  });
  const v1 = await env.admin.client.get<Cluster>(path('v1beta1', 'b'));
  assert.equal(v1.spec['failureDomains'], { r1: { controlPlane: true } });
  assert.is(v1.status?.['ready'], true);
});

test('a list at the other version: every item comes back converted (the watch cache of each version converts as objects are written)', async () => {
  const before = webhook.reviews.length;
  for (const name of ['l-0', 'l-1', 'l-2']) {
    await env.admin.client.create(path('v1beta1'), {
      apiVersion: V1BETA1,
      kind: 'Metal3Cluster',
      metadata: { name },
      spec: { failureDomains: { z: {} } },
    });
  }
  const list = await env.admin.client.get<{ items: Cluster[] }>(
    path('v1beta2'),
  );
  const items = list.items.filter((i) => i.metadata?.name?.startsWith('l-'));
  assert.is(items.length, 3);
  assert.ok(
    items.every((i) => i.apiVersion === V1BETA2 && Array.isArray(i.spec['failureDomains'])),
    JSON.stringify(items.map((i) => i.spec)),
  );
  assert.ok(
    webhook.reviews.length - before >= 3,
    'each write went through the webhook',
  );
});

test('a conversion the converter refuses: the create fails with the apiserver error naming the object and the field; nothing stored', async () => {
  const error = await env.admin.client
    .create(path('v1beta1'), {
      apiVersion: V1BETA1,
      kind: 'Metal3Cluster',
      metadata: { name: 'refused' },
      spec: { controlPlaneEndpoint: { host: REFUSED_HOST, port: 6443 } },
    })
    .then(() => undefined, (e: Error) => e);
  assert.ok(error, 'the create was refused');
  assert.match(
    error.message,
    `converting Metal3Cluster ${ns}/refused from ${V1BETA1} to ${V1BETA2}: spec.controlPlaneEndpoint.host: host ${REFUSED_HOST} is refused`,
  );
  const missing = await env.admin.client.get(path('v1beta2', 'refused')).then(
    () => 'found',
    (e: { code?: number }) => e.code,
  );
  assert.is(missing, 404);
});

test('the apiserver speaks ConversionReview v1beta1 too when the CRD asks for it', async () => {
  const crd = upstreamCrdWithWebhook('metal3clusters', webhook.url, pki.ca.certPem, ['v1beta1']);
  const before = webhook.reviews.length;
  const conversion = (crd.spec as { conversion?: unknown }).conversion;
  await env.admin.client.mergePatch(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`, { spec: { conversion } });
  // The apiserver rebuilds the resource's storage and caches after a CRD update (slow on a loaded
  // machine), converting as it relists; a read at the other version then works as before.
  await eventually('a review in apiextensions.k8s.io/v1beta1', async () => {
    const v1 = await env.admin.client.get<Cluster>(path('v1beta1', 'a'));
    assert.is(v1.apiVersion, V1BETA1);
    return webhook.reviews.slice(before).some((r) => r.reviewVersion === 'apiextensions.k8s.io/v1beta1') || undefined;
  }, 30_000);
});

test('a rotated serving certificate (same CA) is served to new connections without a restart, and the apiserver keeps converting', async () => {
  const fresh = pki.rotate();
  const served = await eventually(
    'the new certificate served',
    () =>
      new Promise<boolean | undefined>((resolve) => {
        const socket = connect({
          host: '127.0.0.1',
          port: webhook.server.port,
          ca: pki.ca.certPem,
          servername: 'localhost',
        }, () => {
          const fingerprint = socket.getPeerX509Certificate()?.fingerprint256;
          socket.end();
          resolve(
            fingerprint === new X509Certificate(fresh.certPem).fingerprint256 ||
              undefined,
          );
        });
        socket.once('error', () => resolve(undefined));
      }),
  );
  assert.ok(served);
  // A write at v1beta1 is converted to the storage version in the request itself: through the webhook.
  const before = webhook.reviews.length;
  await env.admin.client.create(path('v1beta1'), { apiVersion: V1BETA1, kind: 'Metal3Cluster', metadata: { name: 'rotated' }, spec: {} });
  assert.ok(webhook.reviews.length > before, 'the write went through the webhook');
  assert.is((await env.admin.client.get<Cluster>(path('v1beta2', 'rotated'))).apiVersion, V1BETA2);
});

test.run();
