// Our CRDs in a real kube-apiserver: the apiserver accepts them (so every CEL rule compiles and fits the
// cost budget), and each webhook rule upstream enforces (W-3…W-11) is enforced by the CRD alone: valid
// seed objects are accepted and defaulted, invalid ones are rejected with our message.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type AdmissionCase, admissionCases, type Json, type Resource } from '@metal3-ts/crds/webhook-cases';
import { expectedShortNames } from '@metal3-ts/crds/webhook-rules';
import { ApiError } from '../envtest/errors.ts';
import type { KubeObject } from '../envtest/http.ts';
import { freshNamespace, withSharedEnv } from '../envtest/suite.ts';

const test = suite('crds: admission against a real kube-apiserver');
const env = withSharedEnv(test);
const INFRA = '/apis/infrastructure.cluster.x-k8s.io/v1beta1';

const collection = (c: AdmissionCase, ns: string) => `${INFRA}/namespaces/${ns}/${c.kind.toLowerCase()}s`;
const inNamespace = (c: AdmissionCase, object: Resource, ns: string): KubeObject => ({
  ...structuredClone(object),
  apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
  kind: c.kind,
  metadata: { ...object.metadata, namespace: ns },
});

/** Reads `a.b[1].c` from an object. */
function at(object: unknown, path: string): Json | undefined {
  let value: unknown = object;
  for (const key of path.split(/\.|\[(\d+)\]/).filter(Boolean)) value = (value as Record<string, unknown> | undefined)?.[key];
  return value as Json | undefined;
}

async function admit(c: AdmissionCase): Promise<KubeObject> {
  const client = env().admin.client;
  const ns = await freshNamespace(client, 'crd-admission');
  const path = collection(c, ns);
  if (!c.old) return client.create(path, inNamespace(c, c.object, ns));
  const stored = await client.create(path, inNamespace(c, c.old, ns));
  const next = inNamespace(c, c.object, ns);
  next.metadata = { ...next.metadata, resourceVersion: stored.metadata?.resourceVersion };
  return client.replace(`${path}/${c.object.metadata.name}`, next);
}

test('discovery serves every kind with its short names and the cluster-api category', async () => {
  const list = await env().admin.client.get<{ resources: { name: string; kind: string; shortNames?: string[]; categories?: string[] }[] }>(INFRA);
  for (const [kind, shortNames] of Object.entries(expectedShortNames)) {
    const resource = list.resources.find((r) => r.kind === kind && !r.name.includes('/'));
    assert.ok(resource, `${kind} is not served`);
    assert.equal([...(resource.shortNames ?? [])].sort(), [...shortNames].sort(), kind);
    assert.equal(resource.categories, ['cluster-api'], kind);
  }
});

for (const c of admissionCases) {
  test(c.title, async () => {
    let result: KubeObject | ApiError;
    try {
      result = await admit(c);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      result = error;
    }
    if (c.rejects) {
      assert.ok(result instanceof ApiError, 'expected the request to be rejected');
      assert.is(result.code, 422, result.message);
      for (const text of c.rejects) assert.ok(result.message.includes(text), `"${text}" missing from: ${result.message}`);
      return;
    }
    if (result instanceof ApiError) assert.unreachable(`expected acceptance, got ${result.message}`);
    for (const [path, value] of Object.entries(c.defaults ?? {})) assert.equal(at(result, path), value, `default at ${path}`);
  });
}

test('W-2 port 0 and absent cloud flags are stored as sent (the controller applies the webhook defaults)', async () => {
  const client = env().admin.client;
  const ns = await freshNamespace(client, 'crd-w2');
  const stored = await client.create(`${INFRA}/namespaces/${ns}/metal3clusters`, {
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
    kind: 'Metal3Cluster',
    metadata: { name: 'c' },
    spec: { controlPlaneEndpoint: { host: 'api.example', port: 0 } },
  });
  assert.equal(stored['spec'], { controlPlaneEndpoint: { host: 'api.example', port: 0 } });
});

test.run();
