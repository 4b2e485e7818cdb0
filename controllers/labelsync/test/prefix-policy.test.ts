// The admission policy of crds/policies/label-sync-prefixes.yaml on a real apiserver: a Metal3Cluster
// whose label-sync prefix annotation holds an entry that is no DNS-1123 subdomain is refused, the
// message naming the annotation and the entry (LS-4); valid prefixes pass; an object stored before the
// policy can still be written as long as its annotation does not change (the cluster controller's
// finalizer). The policy is removed again, so files that run next see the plain CRDs.
import { readFileSync } from 'node:fs';
import * as assert from 'uvu/assert';
import { parseAllDocuments } from 'yaml';
import { ApiError } from '@metal3-ts/generated';
import { Metal3ClusterResource, newMetal3Cluster } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { KubeObject } from '@metal3-ts/test/envtest/http';
import { controllerSuite } from '@metal3-ts/test/testing/controller-suite';
import { eventually } from '@metal3-ts/test/testing/eventually';
import { LABEL_SYNC_PREFIXES_ANNOTATION } from '../src/names.ts';

const FILE = new URL('../../../crds/policies/label-sync-prefixes.yaml', import.meta.url);
const [policy, binding] = parseAllDocuments(readFileSync(FILE, 'utf8')).map((d) => d.toJS() as KubeObject) as [KubeObject, KubeObject];
const ADMISSION = '/apis/admissionregistration.k8s.io/v1';

const s = controllerSuite('label-sync prefix admission policy (LS-4, crds/policies/label-sync-prefixes.yaml)');
const { test } = s;

const m3c = (name: string, prefixes?: string) =>
  newMetal3Cluster({
    metadata: { name, ...(prefixes === undefined ? {} : { annotations: { [LABEL_SYNC_PREFIXES_ANNOTATION]: prefixes } }) },
    spec: { controlPlaneEndpoint: { host: '192.168.111.249', port: 6443 }, noCloudProvider: true },
  });

async function refusal(write: () => Promise<unknown>): Promise<ApiError | undefined> {
  try {
    await write();
    return undefined;
  } catch (error) {
    if (error instanceof ApiError && error.code === 422) return error;
    throw error;
  }
}

test('LS-4: a prefix that is no DNS-1123 subdomain is refused by the apiserver naming the annotation and the entry; valid ones pass; an unchanged annotation stored before the policy does not block writes', async () => {
  const admin = s.admin();
  const raw = s.env().admin.client;
  const ns = await s.namespace('labelsync-policy');
  const api = admin.api(Metal3ClusterResource, ns);
  await api.create(m3c('stored-before', 'my.org,Bad_Prefix'));
  await raw.create(`${ADMISSION}/validatingadmissionpolicies`, policy);
  await raw.create(`${ADMISSION}/validatingadmissionpolicybindings`, binding);
  try {
    const probe = () => refusal(() => api.create(m3c('probe', 'Bad_Prefix'), { dryRun: true }));
    await eventually('the policy enforced', async () => ((await probe()) ? true : undefined), { timeoutMs: 30_000, pollMs: 200 });

    const refused = await refusal(() => api.create(m3c('bad', 'my.org, Bad_Prefix,  -dash')));
    assert.ok(refused, 'refused');
    assert.match(
      refused!.message,
      /metadata\.annotations\[metal3\.io\/metal3-label-sync-prefixes\]: Invalid value: "Bad_Prefix, -dash": each comma-separated prefix must be a DNS-1123 subdomain/,
    );
    assert.ok(await refusal(() => api.create(m3c('long', 'a'.repeat(254)))), 'more than 253 characters is refused');

    await api.create(m3c('good', ' my.org, team.example.com ,'));
    await api.create(m3c('none'));
    assert.ok(await refusal(() => api.mergePatch('good', { metadata: { annotations: { [LABEL_SYNC_PREFIXES_ANNOTATION]: 'UPPER' } } })), 'a bad update too');
    // The cluster controller's finalizer on an object stored before the policy, its annotation unchanged.
    const written = await api.mergePatch('stored-before', { metadata: { finalizers: ['metal3cluster.infrastructure.cluster.x-k8s.io'] } });
    assert.equal(written.metadata.finalizers, ['metal3cluster.infrastructure.cluster.x-k8s.io']);
    await api.mergePatch('stored-before', { metadata: { finalizers: null } });
  } finally {
    await raw.delete(`${ADMISSION}/validatingadmissionpolicybindings/${binding.metadata?.name}`);
    await raw.delete(`${ADMISSION}/validatingadmissionpolicies/${policy.metadata?.name}`);
    const probe = () => refusal(() => api.create(m3c('probe', 'Bad_Prefix'), { dryRun: true }));
    await eventually('the policy gone', async () => ((await probe()) ? undefined : true), { timeoutMs: 30_000, pollMs: 200 });
  }
});

test.run();
