// crds/policies/same-namespace-references.yaml in a real kube-apiserver: the namespace rules of W-5 and
// W-9, which CRD validation cannot express (CRD rules cannot read metadata.namespace). Every other
// reference field is covered by the tenant isolation suite (test/src/isolation). The suite installs
// the policy, waits until the apiserver enforces it, and removes it afterwards so other suites in the
// same process see the plain CRDs.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError } from '../envtest/errors.ts';
import type { KubeObject } from '../envtest/http.ts';
import { freshNamespace, withSharedEnv } from '../envtest/suite.ts';
import { installPolicy, removePolicy } from '../isolation/policy.ts';

const test = suite('crds: same-namespace policy (W-5, W-9)');
// Hook order matters: uvu runs hooks in registration order, so the policy is removed before the
// shared environment's own `after` stops the apiserver, and installed after its `before` started it.
test.after(() => removePolicy(env().admin.client, probeNamespace));
const env = withSharedEnv(test);
const INFRA = '/apis/infrastructure.cluster.x-k8s.io/v1beta1';

const image = { url: 'http://172.22.0.1/images/node.img', checksum: 'http://172.22.0.1/images/node.img.sha256sum' };
const machine = (spec: Record<string, unknown>): KubeObject => ({
  apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
  kind: 'Metal3Machine',
  metadata: { name: 'm' },
  spec: { image, ...spec },
});
const claim = (template: Record<string, unknown>): KubeObject => ({
  apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
  kind: 'Metal3DataClaim',
  metadata: { name: 'c' },
  spec: { template },
});

async function rejection(promise: Promise<unknown>): Promise<ApiError | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
}

let probeNamespace = '';

test.before(async () => {
  const client = env().admin.client;
  probeNamespace = await freshNamespace(client, 'policy-probe');
  await installPolicy(client, probeNamespace);
});

test('W-5 Secrets in the machine namespace, or with no namespace, are accepted', async () => {
  const ns = await freshNamespace(env().admin.client, 'w5-same');
  await env().admin.client.create(
    `${INFRA}/namespaces/${ns}/metal3machines`,
    machine({
      userData: { name: 'u', namespace: ns },
      metaData: { name: 'm' },
      networkData: { name: 'n', namespace: '' },
    }),
  );
});

test('W-5 Secrets in another namespace are rejected, each named', async () => {
  const ns = await freshNamespace(env().admin.client, 'w5-other');
  const error = await rejection(
    env().admin.client.create(
      `${INFRA}/namespaces/${ns}/metal3machines`,
      machine({
        userData: { name: 'u', namespace: 'other' },
        networkData: { name: 'n', namespace: 'other' },
      }),
    ),
  );
  assert.ok(error, 'expected a rejection');
  assert.is(error.code, 422, error.message);
  assert.match(
    error.message,
    `spec.userData.namespace, spec.networkData.namespace: must be empty or the object namespace "${ns}"; cross-namespace references are not allowed`,
  );
});

test('W-9 a template in the claim namespace is accepted; another namespace is rejected on create and update', async () => {
  const client = env().admin.client;
  const ns = await freshNamespace(client, 'w9');
  const path = `${INFRA}/namespaces/${ns}/metal3dataclaims`;
  const created = await client.create(path, claim({ name: 't', namespace: ns }));
  const onCreate = await rejection(client.create(path, { ...claim({ name: 't', namespace: 'other' }), metadata: { name: 'c2' } }));
  assert.ok(onCreate, 'expected a rejection on create');
  assert.match(onCreate.message, 'spec.template.namespace: must be empty or the object namespace');
  // On update the CRD's immutability rule also fires; the policy's message must be there too.
  const onUpdate = await rejection(client.replace(`${path}/c`, { ...created, spec: { template: { name: 't', namespace: 'other' } } }));
  assert.ok(onUpdate, 'expected a rejection on update');
  assert.match(onUpdate.message, /cross-namespace references are not allowed|cannot be modified/);
});

test('issue 21: a Metal3Data is matched too: a claim in another namespace is refused', async () => {
  const ns = await freshNamespace(env().admin.client, 'policy-data');
  const error = await rejection(
    env().admin.client.create(`${INFRA}/namespaces/${ns}/metal3datas`, {
      apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
      kind: 'Metal3Data',
      metadata: { name: 't-0' },
      spec: { index: 0, template: { name: 't' }, claim: { name: 'c', namespace: 'other' } },
    }),
  );
  assert.ok(error, 'expected a rejection');
  assert.match(error.message, 'spec.claim.namespace: must be empty or the object namespace');
});

test.run();
