// Our CRDs' v1beta2 schemas in a real kube-apiserver (issue 18). This suite starts an apiserver of its
// own and installs copies of our CRDs that keep only v1beta2, served and stored (nothing else in the
// file changes), so every case is the schema's and CEL's verdict alone, with no conversion webhook and
// whatever version the shared environment stores (METAL3_TS_STORAGE). There, each rule upstream's
// v1beta2 webhooks enforce (W2-2…W2-10) must be enforced by the CRD alone.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { admissionCasesV1beta2 } from '@metal3-ts/crds/webhook-cases-v1beta2';
import { type CrdSource, installCrds, loadOurCrds } from '../envtest/crds.ts';
import { startEnv, type TestEnv } from '../envtest/env.ts';
import { checkAdmission } from './admission.ts';

const test = suite('crds: v1beta2 admission against a real kube-apiserver');
let env: TestEnv;

/** A copy of each CRD with only its v1beta2 version, served and the storage version. */
function v1beta2Only(sources: readonly CrdSource[]): CrdSource[] {
  return sources.map(({ crd, origin }) => {
    const v1beta2 = crd.spec.versions.filter((v) => v.name === 'v1beta2').map((v) => ({ ...v, served: true, storage: true }));
    if (v1beta2.length !== 1) throw new Error(`${origin} has no v1beta2 version`);
    const { conversion: _, ...spec } = crd.spec;
    return { crd: { ...crd, spec: { ...spec, versions: v1beta2 } }, origin: `${origin} (v1beta2 only)` };
  });
}

test.before(async () => {
  env = await startEnv({ crds: false, authorization: 'AlwaysAllow' });
  await installCrds(env.admin.client, v1beta2Only(loadOurCrds()));
});
test.after(async () => {
  await env?.stop();
});

test('the v1beta2 copies are accepted by the apiserver and every kind is served at v1beta2', async () => {
  const list = await env.admin.client.get<{ resources: { name: string; kind: string }[] }>('/apis/infrastructure.cluster.x-k8s.io/v1beta2');
  assert.is(list.resources.filter((r) => !r.name.includes('/')).length, 9);
});

for (const c of admissionCasesV1beta2) test(c.title, () => checkAdmission(env.admin.client, 'v1beta2', c));

test.run();
