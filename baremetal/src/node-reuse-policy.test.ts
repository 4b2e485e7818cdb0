import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { nodeReuseFor, nodeReuseForReleasingMachine, releasingMachineTemplate, templatePointedToBy } from './node-reuse-policy.ts';
import { newMetal3Machine, newMetal3MachineTemplate } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { CLONED_FROM_GROUPKIND_ANNOTATION, CLONED_FROM_NAME_ANNOTATION } from '@metal3-ts/shared/meta/cloned-from';

const image = { url: 'http://172.22.0.1/images/node.img', checksum: 'http://172.22.0.1/images/node.img.sha256sum', format: 'raw' as const };

const template = (name: string, spec: { nodeReuse?: boolean } = {}) =>
  newMetal3MachineTemplate({ metadata: { name, namespace: 'ns' }, spec: { ...spec, template: { spec: { image } } } });

/** A machine cloned from template `from` (null: no name annotation) with the groupkind annotation unless null. */
function machine(name: string, options: { from?: string | null; groupKind?: null } = {}) {
  const annotations: Record<string, string> = {};
  const from = options.from === undefined ? 'tmpl' : options.from;
  if (from !== null) annotations[CLONED_FROM_NAME_ANNOTATION] = from;
  if (options.groupKind !== null) annotations[CLONED_FROM_GROUPKIND_ANNOTATION] = 'Metal3MachineTemplate.infrastructure.cluster.x-k8s.io';
  return newMetal3Machine({ metadata: { name, namespace: 'ns', annotations }, spec: { image } });
}

const test = suite('node reuse policy for the Metal3Machine controller (N-1, N-6, N-7, X-10)');

test('N-1: nodeReuse is spec.nodeReuse, false when unset (CRD default) or without a template', () => {
  assert.is(nodeReuseFor(template('t', { nodeReuse: true })), true);
  assert.is(nodeReuseFor(template('t', { nodeReuse: false })), false);
  assert.is(nodeReuseFor(template('t')), false);
  assert.is(nodeReuseFor(undefined), false);
});

test("X-10: the releasing machine's template is named by cloned-from-name alone, in the machine's namespace", () => {
  assert.equal(releasingMachineTemplate(machine('m', { from: 'v1' })), { namespace: 'ns', name: 'v1' });
  assert.equal(releasingMachineTemplate(machine('m', { from: 'v1', groupKind: null })), { namespace: 'ns', name: 'v1' });
  assert.is(releasingMachineTemplate(machine('m', { from: null })), undefined);
  assert.is(releasingMachineTemplate(machine('m', { from: '' })), undefined);
});

test("N-6/N-7: reuse only when the released machine's template still exists with nodeReuse true; lookup errors mean no", async () => {
  const templates = new Map([
    ['ns/reuse', template('reuse', { nodeReuse: true })],
    ['ns/keep', template('keep', { nodeReuse: false })],
  ]);
  const lookup = (key: { namespace: string; name: string }) => templates.get(`${key.namespace}/${key.name}`);
  assert.is(await nodeReuseForReleasingMachine(machine('m', { from: 'reuse' }), lookup), true);
  assert.is(await nodeReuseForReleasingMachine(machine('m', { from: 'keep' }), lookup), false);
  assert.is(await nodeReuseForReleasingMachine(machine('m', { from: 'deleted' }), lookup), false, 'template gone');
  assert.is(await nodeReuseForReleasingMachine(machine('m', { from: null }), lookup), false, 'not cloned');
  assert.is(await nodeReuseForReleasingMachine(machine('m', { from: 'reuse' }), () => Promise.reject(new Error('boom'))), false, 'lookup failed');
  assert.is(await nodeReuseForReleasingMachine(machine('m', { from: 'reuse' }), (key) => Promise.resolve(lookup(key))), true, 'async lookup (a GET)');
});

test('B2-15: the template a KubeadmControlPlane (v1beta2 and v1beta1 paths) or MachineDeployment points to; only a Metal3MachineTemplate', () => {
  const ref = { kind: 'Metal3MachineTemplate', name: 'new' };
  const kcp = (apiVersion: string, machineTemplate: unknown) => ({
    apiVersion,
    kind: 'KubeadmControlPlane',
    metadata: { name: 'kcp' },
    spec: { machineTemplate },
  });
  const rows: [string, Parameters<typeof templatePointedToBy>[0], ReturnType<typeof templatePointedToBy>][] = [
    ['KCP v1beta2', kcp('controlplane.cluster.x-k8s.io/v1beta2', { spec: { infrastructureRef: { ...ref, apiGroup: 'infrastructure.cluster.x-k8s.io' } } }), {
      namespace: 'ns',
      name: 'new',
    }],
    ['KCP v1beta1, in its own namespace', kcp('controlplane.cluster.x-k8s.io/v1beta1', { infrastructureRef: { ...ref, namespace: 'other' } }), {
      namespace: 'other',
      name: 'new',
    }],
    [
      'another infrastructure kind',
      kcp('controlplane.cluster.x-k8s.io/v1beta2', { spec: { infrastructureRef: { kind: 'DockerMachineTemplate', name: 'x' } } }),
      undefined,
    ],
    ['no reference', kcp('controlplane.cluster.x-k8s.io/v1beta2', {}), undefined],
    ['MachineDeployment', {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'MachineDeployment',
      metadata: { name: 'md' },
      spec: { template: { spec: { infrastructureRef: ref } } },
    } as never, { namespace: 'ns', name: 'new' }],
  ];
  for (const [why, owner, want] of rows) assert.equal(templatePointedToBy(owner, 'ns'), want, why);
});

test("B2-15: the template the owner points to decides over the machine's own; without it the machine's own (N-7)", async () => {
  const templates = new Map([['ns/reuse', template('reuse', { nodeReuse: true })], ['ns/keep', template('keep', { nodeReuse: false })]]);
  const lookup = (key: { namespace: string; name: string }) => templates.get(`${key.namespace}/${key.name}`);
  assert.is(await nodeReuseForReleasingMachine(machine('m', { from: 'keep' }), lookup, { namespace: 'ns', name: 'reuse' }), true);
  assert.is(await nodeReuseForReleasingMachine(machine('m', { from: 'reuse' }), lookup, { namespace: 'ns', name: 'keep' }), false);
  assert.is(await nodeReuseForReleasingMachine(machine('m', { from: 'reuse' }), lookup, undefined), true);
});

test.run();
