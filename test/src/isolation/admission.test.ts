// Tenant isolation at admission (issue 21), on a real kube-apiserver with the same-namespace policy:
// two tenants, each a user bound only to its own namespace with the edit rights a platform team would
// grant (tenant-role.yaml). For every reference field of every kind, read from the generated types,
// tenant A naming tenant B's namespace is refused with the field named, and naming its own is not.
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadOurCrds, walkSchema } from '@metal3-ts/crds/crds';
import { ApiError } from '../envtest/errors.ts';
import type { ApiClient, KubeObject } from '../envtest/http.ts';
import { userBoundTo } from '../envtest/rbac.ts';
import { freshNamespace, withSharedEnv } from '../envtest/suite.ts';
import { caseKey, localCases, namespacedCases, objectFor, setAt } from './cases.ts';
import { bindPolicy, installPolicy, policyObject, removePolicy, unbindPolicy } from './policy.ts';
import { referenceFields } from './reference-fields.ts';

const test = suite('isolation: cross-namespace references at admission (issue 21)');
// Registered before withSharedEnv's own hooks run after it: the policy goes before the apiserver stops.
test.after(() => removePolicy(env().admin.client, nsA));
const env = withSharedEnv(test);
const ROLE = fileURLToPath(new URL('./tenant-role.yaml', import.meta.url));
const INFRA = '/apis/infrastructure.cluster.x-k8s.io/v1beta1';

let tenantA: ApiClient;
let nsA = '';
let nsB = '';

test.before(async () => {
  const admin = env().admin.client;
  nsA = await freshNamespace(admin, 'tenant-a');
  nsB = await freshNamespace(admin, 'tenant-b');
  tenantA = (await userBoundTo(env(), `tenant-a-${nsA}`, ROLE, nsA)).client;
  await userBoundTo(env(), `tenant-b-${nsB}`, ROLE, nsB);
  await installPolicy(admin, nsA);
});

async function refusal(promise: Promise<unknown>): Promise<ApiError | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
}

test('issue 21: the reference fields of the generated types are exactly the fields with a case', () => {
  const fields = referenceFields();
  const enumerated = new Set(fields.map((f) => `${caseKey(f)} ${f.namespaced ? 'namespaced' : 'local'}`));
  const cases = new Set([...namespacedCases.map((c) => `${caseKey(c)} namespaced`), ...localCases.map((c) => `${caseKey(c)} local`)]);
  assert.equal([...enumerated].sort(), [...cases].sort());
  assert.ok(fields.length >= 25, `only ${fields.length} reference fields found: the walk of the generated types is broken`);
});

test('issue 21: the policy matches every kind and status subresource with a reference, in every served version', () => {
  const rules =
    (policyObject()['spec'] as { matchConstraints: { resourceRules: { apiVersions: string[]; resources: string[] }[] } }).matchConstraints.resourceRules;
  const resources = new Set(rules.flatMap((r) => r.resources));
  const versions = new Set(rules.flatMap((r) => r.apiVersions));
  for (const c of namespacedCases) {
    assert.ok(resources.has(c.status ? `${c.plural}/status` : c.plural), `the policy does not match ${c.plural}${c.status ? '/status' : ''}`);
  }
  for (const [kind, { crd }] of loadOurCrds()) {
    if (!namespacedCases.some((c) => c.kind === kind)) continue;
    for (const v of crd.spec.versions.filter((x) => x.served)) assert.ok(versions.has(v.name), `${kind} ${v.name} is served but not matched`);
  }
});

test("issue 21: a tenant user reaches nothing in the other tenant's namespace", async () => {
  const denied = await refusal(tenantA.get(`/api/v1/namespaces/${nsB}/secrets`));
  assert.is(denied?.code, 403);
  const own = await tenantA.get<{ items: unknown[] }>(`/api/v1/namespaces/${nsA}/secrets`);
  assert.ok(Array.isArray(own.items));
});

namespacedCases.forEach((c, i) => {
  test(`issue 21 (W-5, W-9): ${caseKey(c)} naming the other tenant's namespace is refused with the field named; its own is not`, async () => {
    const collection = `${INFRA}/namespaces/${nsA}/${c.plural}`;
    const name = `ref-${i}`;
    if (!c.status) {
      const refused = await refusal(tenantA.create(collection, objectFor(c, `${name}-x`, 2 * i, nsB)));
      assert.ok(refused, 'expected a refusal');
      assert.is(refused.code, 422, refused.message);
      assert.match(refused.message, `${c.path}.namespace: must be empty or the object namespace "${nsA}"`);
      await tenantA.create(collection, objectFor(c, name, 2 * i + 1, nsA));
      return;
    }
    const created = await tenantA.create(collection, objectFor(c, name, 2 * i));
    const path = `${collection}/${created.metadata?.name}/status`;
    const patch = (namespace: string) => {
      const body: KubeObject = { status: {} };
      setAt(body, c.path, { name: 'x', namespace });
      return tenantA.mergePatch(path, body);
    };
    const refused = await refusal(patch(nsB));
    assert.ok(refused, 'expected a refusal');
    assert.is(refused.code, 422, refused.message);
    assert.match(refused.message, `${c.path}.namespace: must be empty or the object namespace "${nsA}"`);
    await patch(nsA);
  });
});

test("issue 21: at v1beta2 too, a Metal3DataClaim naming the other tenant's template is refused with the field named", async () => {
  const collection = `/apis/infrastructure.cluster.x-k8s.io/v1beta2/namespaces/${nsA}/metal3dataclaims`;
  const claim = (name: string, namespace: string) => ({
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2',
    kind: 'Metal3DataClaim',
    metadata: { name },
    spec: { template: { name: 'dt', namespace } },
  });
  const refused = await refusal(tenantA.create(collection, claim('v1beta2-x', nsB)));
  assert.ok(refused, 'expected a refusal');
  assert.is(refused.code, 422, refused.message);
  assert.match(refused.message, `spec.template.namespace: must be empty or the object namespace "${nsA}"`);
  await tenantA.create(collection, claim('v1beta2-own', nsA));
});

test('issue 21: pool references have no namespace in the schema; one sent anyway is dropped', async () => {
  const template = loadOurCrds().get('Metal3DataTemplate')?.crd.spec.versions.find((v) => v.name === 'v1beta1')?.schema.openAPIV3Schema;
  assert.ok(template);
  const nodes = new Map(walkSchema(template));
  for (const c of localCases) {
    const node = nodes.get(`.${c.path}`);
    assert.ok(node, `no schema node .${c.path}`);
    assert.not.ok(node.properties?.['namespace'], `.${c.path} has a namespace`);
    assert.not.ok(node['x-kubernetes-preserve-unknown-fields'], `.${c.path} keeps unknown fields`);
  }
  const stored = await tenantA.create<KubeObject & { spec: { networkData: { networks: { ipv4: { fromPoolRef: Record<string, string> }[] } } } }>(
    `${INFRA}/namespaces/${nsA}/metal3datatemplates`,
    {
      apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
      kind: 'Metal3DataTemplate',
      metadata: { name: 'pools' },
      spec: {
        clusterName: 'c',
        networkData: { networks: { ipv4: [{ id: 'n', link: 'eth0', ipAddressFromIPPool: '', fromPoolRef: { kind: 'IPPool', name: 'p', namespace: nsB } }] } },
      },
    },
  );
  const ref = stored.spec.networkData.networks.ipv4[0]?.fromPoolRef;
  assert.is(ref?.['name'], 'p');
  assert.is(ref?.['namespace'], undefined, 'the namespace was kept');
});

test("issue 21: an object written while the policy was not bound keeps working for the controllers' writes; its reference cannot be moved to yet another namespace", async () => {
  const admin = env().admin.client;
  const collection = `${INFRA}/namespaces/${nsA}/metal3machines`;
  const legacy = namespacedCases.find((c) => caseKey(c) === 'Metal3Machine spec.dataTemplate');
  assert.ok(legacy);
  await unbindPolicy(admin, nsA);
  await admin.create(collection, objectFor(legacy, 'legacy', 0, nsB));
  await bindPolicy(admin, nsA);
  // What the controllers do to such an object: a finalizer on the main resource, conditions on status.
  await tenantA.mergePatch(`${collection}/legacy`, { metadata: { finalizers: ['metal3machine.infrastructure.cluster.x-k8s.io'] } });
  await tenantA.mergePatch(`${collection}/legacy/status`, { status: { failureReason: 'InvalidConfiguration' } });
  const moved = await refusal(tenantA.mergePatch(`${collection}/legacy`, { spec: { dataTemplate: { name: 'x', namespace: `${nsB}-other` } } }));
  assert.ok(moved, 'expected a refusal');
  assert.match(moved.message, 'spec.dataTemplate.namespace: must be empty or the object namespace');
  await tenantA.mergePatch(`${collection}/legacy`, { metadata: { finalizers: null } });
});

test.run();
