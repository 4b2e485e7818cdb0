// T-1, T-2, T-6, N-2, E-15 on the real apiserver: the template's automatedCleaningMode reaches the
// Metal3Machines cloned from it (and only those), machines cloned later pick it up, and a template
// that drops the field leaves its machines alone. The controller runs under deploy/rbac.yaml.
import * as assert from 'uvu/assert';
import { EventResource } from '@metal3-ts/generated/core/v1';
import { Metal3MachineResource, Metal3MachineTemplateResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { freshNamespace } from '@metal3-ts/test/envtest/suite';
import { controllerSuite } from '@metal3-ts/test/testing/controller-suite';
import {
  createMachine,
  createTemplate,
  eventually,
  loggedProblems,
  modesBecome,
  type RunningController,
  setTemplateMode,
  settled,
  sleep,
  startTemplateController,
} from './support.ts';

const { test, env, admin, track } = controllerSuite('Metal3MachineTemplate controller: automatedCleaningMode propagation on the real apiserver');

let controller: RunningController | undefined;

async function setup(prefix: string): Promise<string> {
  const ns = await freshNamespace(env().admin.client, prefix);
  controller = track(await startTemplateController(env(), ns));
  return ns;
}

test('T-1/T-6/N-2/E-15: the mode reaches only the Metal3Machines cloned from the template (name and groupkind), and follows later edits', async () => {
  const ns = await setup('tmpl-prop');
  // Elsewhere: a machine cloned from a template of the same name in another namespace.
  const other = await freshNamespace(env().admin.client, 'tmpl-prop-other');
  await createMachine(admin(), other, 'elsewhere', { from: 'workers' });
  await createMachine(admin(), ns, 'w-unset', { from: 'workers' });
  await createMachine(admin(), ns, 'w-metadata', { from: 'workers', mode: 'metadata' });
  await createMachine(admin(), ns, 'other-template', { from: 'control-plane', mode: 'metadata' });
  await createMachine(admin(), ns, 'other-groupkind', { from: 'workers', groupKind: 'KubeadmConfigTemplate.bootstrap.cluster.x-k8s.io', mode: 'metadata' });
  await createMachine(admin(), ns, 'other-group', { from: 'workers', groupKind: 'Metal3MachineTemplate.example.com' });
  await createMachine(admin(), ns, 'not-cloned');
  await createTemplate(admin(), ns, 'control-plane');
  const created = await createTemplate(admin(), ns, 'workers', { mode: 'disabled' });

  await modesBecome(admin(), ns, { 'w-unset': 'disabled', 'w-metadata': 'disabled' });
  await settled(controller!, 0);
  assert.equal(await modesBecome(admin(), ns, {}), {
    'w-unset': 'disabled',
    'w-metadata': 'disabled',
    'other-template': 'metadata',
    'other-groupkind': 'metadata',
    'other-group': '-',
    'not-cloned': '-',
  });
  assert.is((await admin().api(Metal3MachineResource, other).get('elsewhere')).spec?.automatedCleaningMode, undefined, 'another namespace is untouched');
  assert.is(controller!.writes('metal3machines'), 2, 'one patch per machine that differed');

  // T-7 / 0.1: the template itself is never written: no finalizer, same resourceVersion.
  const template = await admin().api(Metal3MachineTemplateResource, ns).get('workers');
  assert.is(template.metadata.finalizers, undefined);
  assert.is(template.metadata.resourceVersion, created.metadata.resourceVersion);
  assert.is(controller!.writes('metal3machinetemplates'), 0);

  // A Normal event on each machine it changed, written with the controller's own credentials.
  const events = await eventually('events on the machines', async () => {
    const list = (await admin().api(EventResource, ns).list()).items.filter((e) => e.reason === 'AutomatedCleaningModeUpdated');
    return list.length === 2 ? list : undefined;
  });
  assert.equal(events.map((e) => e.involvedObject.name).sort(), ['w-metadata', 'w-unset']);
  assert.ok(events.every((e) => e.type === 'Normal' && e.involvedObject.kind === 'Metal3Machine'));

  // N-2: a later edit of the template's mode reaches the same machines again, and only them.
  await setTemplateMode(admin(), ns, 'workers', 'metadata');
  await modesBecome(admin(), ns, { 'w-unset': 'metadata', 'w-metadata': 'metadata' });
  assert.equal((await modesBecome(admin(), ns, {}))['other-group'], '-');
});

test("T-2: a Metal3Machine cloned after the template changed, or edited away from its mode, gets the template's mode", async () => {
  const ns = await setup('tmpl-later');
  await createTemplate(admin(), ns, 'workers', { mode: 'disabled' });
  await settled(controller!, 0);
  assert.is(controller!.writes(), 0, 'no machines yet: nothing to write');

  // Cloned from an older copy of the template (its spec still says metadata): the machine event maps to the template.
  await createMachine(admin(), ns, 'late', { from: 'workers', mode: 'metadata' });
  await modesBecome(admin(), ns, { late: 'disabled' });

  // Someone edits the machine: the machine's update maps to the template, which wins (as CAPM3 on its next reconcile).
  await admin().api(Metal3MachineResource, ns).mergePatch('late', { spec: { automatedCleaningMode: 'metadata' } });
  await modesBecome(admin(), ns, { late: 'disabled' });

  // A status-only change of a machine does not reconcile the template (the watch's predicate). First
  // let the reconciles of the steps above end: our own write of the mode comes back as a machine event.
  await settled(controller!, 0);
  const before = controller!.reconciles();
  await admin().api(Metal3MachineResource, ns).mergePatchStatus('late', { status: { ready: false } });
  await sleep(500);
  assert.is(controller!.reconciles(), before, 'status writes of machines are not template events');
});

test('T-6/N-2/E-35: removing the mode from the template leaves its machines as they are', async () => {
  const ns = await setup('tmpl-unset');
  await createTemplate(admin(), ns, 'workers', { mode: 'disabled' });
  await createMachine(admin(), ns, 'a', { from: 'workers' });
  await modesBecome(admin(), ns, { a: 'disabled' });
  const before = controller!.reconciles();
  await setTemplateMode(admin(), ns, 'workers', null);
  await settled(controller!, before);
  await createMachine(admin(), ns, 'b', { from: 'workers', mode: 'metadata' });
  await sleep(500);
  assert.equal(await modesBecome(admin(), ns, {}), { a: 'disabled', b: 'metadata' });
});

test('the controller logged no warning or error in these tests (a missing permission would show as Forbidden)', () => {
  assert.equal(loggedProblems(), []);
});

test.run();
