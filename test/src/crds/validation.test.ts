// Our CRDs in a real kube-apiserver: the apiserver accepts them (so every CEL rule compiles and fits the
// cost budget), and each webhook rule upstream enforces (W-3…W-11) is enforced by the CRD alone: valid
// seed objects are accepted and defaulted, invalid ones are rejected with our message.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { admissionCases } from '@metal3-ts/crds/webhook-cases';
import { expectedShortNames } from '@metal3-ts/crds/webhook-rules';
import { freshNamespace, withSharedEnv } from '../envtest/suite.ts';
import { checkAdmission } from './admission.ts';

const test = suite('crds: admission against a real kube-apiserver');
const env = withSharedEnv(test);
const INFRA = '/apis/infrastructure.cluster.x-k8s.io/v1beta1';

test('discovery serves every kind with its short names and the cluster-api category', async () => {
  const list = await env().admin.client.get<{ resources: { name: string; kind: string; shortNames?: string[]; categories?: string[] }[] }>(INFRA);
  for (const [kind, shortNames] of Object.entries(expectedShortNames)) {
    const resource = list.resources.find((r) => r.kind === kind && !r.name.includes('/'));
    assert.ok(resource, `${kind} is not served`);
    assert.equal([...(resource.shortNames ?? [])].sort(), [...shortNames].sort(), kind);
    assert.equal(resource.categories, ['cluster-api'], kind);
  }
});

test('issue 18: v1beta2 is in the CRDs but not served yet (only v1beta1 is discoverable), unless the environment stores v1beta2', async () => {
  const group = await env().admin.client.get<{ versions: { version: string }[] }>('/apis/infrastructure.cluster.x-k8s.io');
  assert.equal(group.versions.map((v) => v.version), env().storage === 'v1beta2' ? ['v1beta2', 'v1beta1'] : ['v1beta1']);
});

for (const c of admissionCases) test(c.title, () => checkAdmission(env().admin.client, 'v1beta1', c));

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
