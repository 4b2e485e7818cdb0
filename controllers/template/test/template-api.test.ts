// N-1 and bad input at the API: what the apiserver stores for a Metal3MachineTemplate and what the
// Metal3Machine controller reads through nodeReuseFor / nodeReuseForReleasingMachine.
import * as assert from 'uvu/assert';
import { InvalidError, isNotFound } from '@metal3-ts/generated';
import { Metal3MachineTemplateResource, newMetal3MachineTemplate } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { freshNamespace } from '@metal3-ts/test/envtest/suite';
import { controllerSuite } from '@metal3-ts/test/testing/controller-suite';
import { nodeReuseFor, nodeReuseForReleasingMachine } from '@metal3-ts/baremetal/node-reuse-policy';
import { createMachine, createTemplate } from './support.ts';

const { test, env, admin } = controllerSuite('Metal3MachineTemplate API: nodeReuse default and unknown automatedCleaningMode');

test("N-1/N-6/X-10: nodeReuse is stored false by default; the released machine's template decides, looked up with a GET", async () => {
  const ns = await freshNamespace(env().admin.client, 'tmpl-reuse');
  const plain = await createTemplate(admin(), ns, 'plain');
  assert.is(plain.spec?.nodeReuse, false, 'CRD default');
  assert.is(nodeReuseFor(plain), false);
  assert.is(nodeReuseFor(await createTemplate(admin(), ns, 'reuse', { nodeReuse: true })), true);

  const templates = admin().api(Metal3MachineTemplateResource, ns);
  const lookup = async (key: { namespace: string; name: string }) => {
    try {
      return await admin().api(Metal3MachineTemplateResource, key.namespace).get(key.name);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  };
  const released = await createMachine(admin(), ns, 'm', { from: 'reuse' });
  assert.is(await nodeReuseForReleasingMachine(released, lookup), true);
  await templates.delete('reuse');
  assert.is(await nodeReuseForReleasingMachine(released, lookup), false, 'template gone: no reuse label (N-7)');
});

test('bad input (W-14): the apiserver refuses a template with an unknown automatedCleaningMode, naming the field', async () => {
  const ns = await freshNamespace(env().admin.client, 'tmpl-bad');
  const bad = newMetal3MachineTemplate({
    metadata: { name: 'bad' },
    spec: { template: { spec: { image: { url: 'http://x/i.img', checksum: 'http://x/i.img.sha256sum' }, automatedCleaningMode: 'erase' as 'disabled' } } },
  });
  try {
    await admin().api(Metal3MachineTemplateResource, ns).create(bad);
    assert.unreachable('created');
  } catch (error) {
    assert.instance(error, InvalidError);
    assert.match((error as InvalidError).serverMessage, /spec\.template\.spec\.automatedCleaningMode: Unsupported value: "erase"/);
  }
});

test.run();
