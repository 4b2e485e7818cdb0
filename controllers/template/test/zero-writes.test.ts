// E-35 on the real apiserver: CAPM3 lists every Metal3Machine in the cluster and updates every cloned
// machine on every template reconcile. Here a reconcile reads its machines from an informer index and
// sends nothing for machines that already agree, counted request by request.
import * as assert from 'uvu/assert';
import { Metal3MachineTemplateResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { freshNamespace } from '@metal3-ts/test/envtest/suite';
import { controllerSuite } from '@metal3-ts/test/testing/controller-suite';
import { createMachine, createTemplate, loggedProblems, modesBecome, type RunningController, settled, startTemplateController } from './support.ts';

const { test, env, admin, track } = controllerSuite('Metal3MachineTemplate controller: zero requests for machines in sync (E-35)');

let controller: RunningController | undefined;

const touchTemplate = (ns: string, name: string, value: string) =>
  admin().api(Metal3MachineTemplateResource, ns).mergePatch(name, { metadata: { labels: { touched: value } } });

test('E-35: template and machine events reconcile with zero requests while every machine already has the mode', async () => {
  const ns = await freshNamespace(env().admin.client, 'tmpl-zero');
  await createTemplate(admin(), ns, 'workers', { mode: 'disabled' });
  for (const name of ['a', 'b', 'c']) await createMachine(admin(), ns, name, { from: 'workers', mode: 'disabled' });
  controller = track(await startTemplateController(env(), ns));
  await settled(controller, 0);
  controller.counter.reset();

  let before = controller.reconciles();
  await touchTemplate(ns, 'workers', 'one');
  await settled(controller, before);
  before = controller.reconciles();
  await createMachine(admin(), ns, 'd', { from: 'workers', mode: 'disabled' });
  await settled(controller, before);

  const sent = controller.counter.snapshot().filter((c) => c.verb !== 'watch');
  assert.equal(sent, [], 'no request at all besides the open watches');
});

test('E-35: a change reaches each differing machine with exactly one patch; the reconciles its own writes trigger send nothing', async () => {
  const ns = await freshNamespace(env().admin.client, 'tmpl-once');
  await createTemplate(admin(), ns, 'workers', { mode: 'metadata' });
  for (const name of ['a', 'b', 'c', 'd', 'e']) await createMachine(admin(), ns, name, { from: 'workers', mode: name < 'c' ? 'disabled' : 'metadata' });
  controller = track(await startTemplateController(env(), ns));
  await modesBecome(admin(), ns, { a: 'metadata', b: 'metadata' });
  await settled(controller, 0);
  assert.is(controller.counter.count({ verb: 'patch', resource: 'metal3machines' }), 2, 'a and b only');

  controller.counter.reset();
  const before = controller.reconciles();
  await admin().api(Metal3MachineTemplateResource, ns).mergePatch('workers', { spec: { template: { spec: { automatedCleaningMode: 'disabled' } } } });
  await modesBecome(admin(), ns, { a: 'disabled', b: 'disabled', c: 'disabled', d: 'disabled', e: 'disabled' });
  await settled(controller, before);
  assert.ok(controller.reconciles() - before >= 2, "the machines' own update events reconciled the template again");
  assert.is(controller.counter.count({ verb: 'patch', resource: 'metal3machines' }), 5, 'one patch per machine, none repeated');
  assert.is(controller.counter.count({ verb: 'update' }), 0, 'no full Update (CAPM3 sends one per machine per reconcile)');
  assert.is(controller.counter.count({ verb: 'list' }), 0, 'no list: machines come from the informer index');
  assert.is(controller.counter.count({ resource: 'metal3machinetemplates', verb: 'patch' }), 0);
});

test('the controller logged no warning or error in these tests (a missing permission would show as Forbidden)', () => {
  assert.equal(loggedProblems(), []);
});

test.run();
