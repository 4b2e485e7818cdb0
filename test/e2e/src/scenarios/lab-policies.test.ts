// The lab refuses what an installed cluster refuses: every ValidatingAdmissionPolicy of config/policy
// (which config/default installs) is in the lab, bound to deny, and a Metal3Cluster whose label-sync
// prefix annotation holds an entry that is no DNS-1123 subdomain is refused at admission with the
// policy's message (LS-4) instead of reaching the label-sync controller. A lab with no hosts and no
// manifests: the policies are installed before anything else runs. (Here, not in src/lab, whose tests
// also run under Deno and start no lab.)
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError } from '@metal3-ts/generated';
import { Metal3ClusterResource, newMetal3Cluster } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { type Lab, startLab } from '../lab/lab.ts';
import { shippedPolicyDocuments } from '../lab/policies.ts';

const test = suite('lab: the admission policies the install ships');
const ADMISSION = '/apis/admissionregistration.k8s.io/v1';
const PREFIXES = 'metal3.io/metal3-label-sync-prefixes';
let lab: Lab;

test.before(async () => {
  lab = await startLab({ hosts: 0, manifests: null });
});
test.after(async () => {
  await lab?.stop();
});

const namesOf = (objects: readonly { kind?: string; metadata?: { name?: string } }[], kind: string) =>
  objects.filter((o) => o.kind === kind).map((o) => o.metadata?.name ?? '').sort();

test('every policy and binding of config/policy is installed in the lab, each binding denying', async () => {
  const shipped = shippedPolicyDocuments();
  assert.ok(namesOf(shipped, 'ValidatingAdmissionPolicy').length >= 2, 'config/policy ships the same-namespace and label-sync policies');
  type List = { items: { metadata: { name: string }; spec?: { validationActions?: string[] } }[] };
  const client = lab.env.admin.client;
  const policies = await client.request<List>('GET', `${ADMISSION}/validatingadmissionpolicies`);
  const bindings = await client.request<List>('GET', `${ADMISSION}/validatingadmissionpolicybindings`);
  assert.equal(policies.items.map((p) => p.metadata.name).sort(), namesOf(shipped, 'ValidatingAdmissionPolicy'));
  assert.equal(bindings.items.map((b) => b.metadata.name).sort(), namesOf(shipped, 'ValidatingAdmissionPolicyBinding'));
  for (const binding of bindings.items) assert.equal(binding.spec?.validationActions, ['Deny'], binding.metadata.name);
});

test("LS-4: in the lab a Metal3Cluster with a label-sync prefix that is no DNS-1123 subdomain is refused at admission with the policy's message; valid prefixes are admitted", async () => {
  const m3cs = lab.client.api(Metal3ClusterResource, lab.namespace);
  const m3c = (name: string, prefixes: string) =>
    newMetal3Cluster({
      metadata: { name, annotations: { [PREFIXES]: prefixes } },
      spec: { controlPlaneEndpoint: { host: '192.168.111.249', port: 6443 }, noCloudProvider: true },
    });
  let refusal: unknown;
  try {
    await m3cs.create(m3c('bad-prefix', 'lab.metal3-ts.dev, Bad_Prefix'));
  } catch (error) {
    refusal = error;
  }
  assert.ok(refusal instanceof ApiError, `refused by the apiserver, got ${String(refusal)}`);
  assert.is(refusal.code, 422);
  assert.match(refusal.message, "ValidatingAdmissionPolicy 'metal3-label-sync-prefixes'");
  assert.match(
    refusal.message,
    'metadata.annotations[metal3.io/metal3-label-sync-prefixes]: Invalid value: "Bad_Prefix": each comma-separated prefix must be a DNS-1123 subdomain',
  );
  assert.not.ok((await m3cs.list()).items.some((c) => c.metadata.name === 'bad-prefix'), 'nothing stored');
  const admitted = await m3cs.create(m3c('good-prefix', 'lab.metal3-ts.dev, my.org'));
  assert.is(admitted.metadata.annotations?.[PREFIXES], 'lab.metal3-ts.dev, my.org');
});

test.run();
