// Live-cluster codegen: types generated from the running apiserver's /openapi/v3 (with the same CRDs
// installed) must equal the types generated from the CRD files. The server publishes only what it
// serves of what the test environment installs, so the files side is narrowed the same way: pinned
// releases the environment does not install (Cluster API v1.13.5, whose CRDs come with its managers)
// and versions the environment installs unserved (v1beta2 under METAL3_TS_STORAGE=v1beta1) are left
// out. A version's deprecation is not in /openapi/v3, so the files side drops it too.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Transport } from '@metal3-ts/generated';
import { generate, loadInputs } from '@metal3-ts/codegen/generate';
import { generateFromServer } from '@metal3-ts/codegen/live';
import { withSharedEnv } from '../envtest/suite.ts';

const live = suite('codegen live mode');
const env = withSharedEnv(live);

/** A module without its header (sources differ: files vs the server), which is all that may differ. */
const body = (text: string): string => text.replace(/^(\/\/.*\n)+/, '');

live('modules generated from /openapi/v3 equal those generated from the CRD files', async () => {
  const transport = Transport.fromConnection(env().admin);
  try {
    const started = performance.now();
    const result = await generateFromServer(transport);
    const seconds = ((performance.now() - started) / 1000).toFixed(2);
    // Served as installed: our CRDs serve v1beta2 too when the environment stores it (METAL3_TS_STORAGE).
    const served = new Set(env().crds.flatMap(({ crd }) => crd.spec.versions.filter((v) => v.served).map((v) => `${crd.metadata.name}/${v.name}`)));
    const installed = (await loadInputs({ envtest: true }))
      .map((input) => ({
        ...input,
        crd: {
          ...input.crd,
          versions: input.crd.versions.filter((v) => served.has(`${input.crd.names.plural}.${input.crd.group}/${v.name}`)).map((v) => ({
            ...v,
            served: true,
            deprecated: false,
          })),
        },
      }))
      .filter((input) => input.crd.versions.length > 0);
    const fromFiles = await generate(installed);
    const paths = result.modules.map((m) => m.path).sort();
    console.log(`    live codegen: ${paths.length} group/versions in ${seconds} s`);
    const expected = [...fromFiles.keys()].filter((p) => /^[a-z0-9.-]+\.[a-z]+\/v\w+\.ts$/.test(p) && p !== 'coordination.k8s.io/v1.ts').sort();
    assert.equal(paths, expected);
    for (const module of result.modules) {
      assert.fixture(body(module.text), body(fromFiles.get(module.path)!), module.path);
    }
    assert.ok(result.openapi.has('core/v1.openapi.ts'));
    assert.match(result.openapi.get('metal3.io/v1alpha1.openapi.ts')!, /BareMetalHost/);
  } finally {
    transport.close();
  }
});

live.run();
