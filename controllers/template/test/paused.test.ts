// T-3, T-5, E-20 on the real apiserver: `cluster.x-k8s.io/paused` on a template stops propagation
// until it is removed (the removal itself brings the reconcile, no 30 s poll); a paused Metal3Machine
// is left alone until it is unpaused.
import * as assert from 'uvu/assert';
import { Metal3MachineResource, Metal3MachineTemplateResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { freshNamespace } from '@metal3-ts/test/envtest/suite';
import { controllerSuite } from '@metal3-ts/test/testing/controller-suite';
import {
  createMachine,
  createTemplate,
  loggedProblems,
  modesBecome,
  type RunningController,
  setTemplateMode,
  settled,
  sleep,
  startTemplateController,
} from './support.ts';

const { test, env, admin, track } = controllerSuite('Metal3MachineTemplate controller: paused templates and machines');

const PAUSED = 'cluster.x-k8s.io/paused';

let controller: RunningController | undefined;

test('T-3/T-5: a paused template propagates nothing, not even when a machine event reconciles it; unpausing propagates at once', async () => {
  const ns = await freshNamespace(env().admin.client, 'tmpl-paused');
  controller = track(await startTemplateController(env(), ns));
  await createTemplate(admin(), ns, 'workers', { mode: 'metadata' });
  await createMachine(admin(), ns, 'a', { from: 'workers' });
  await modesBecome(admin(), ns, { a: 'metadata' });

  await admin().api(Metal3MachineTemplateResource, ns).mergePatch('workers', { metadata: { annotations: { [PAUSED]: 'true' } } });
  await setTemplateMode(admin(), ns, 'workers', 'disabled');
  // A machine event maps to the paused template: the reconcile runs and writes nothing.
  const before = controller.reconciles();
  await createMachine(admin(), ns, 'b', { from: 'workers', mode: 'metadata' });
  await settled(controller, before);
  await sleep(300);
  assert.equal(await modesBecome(admin(), ns, {}), { a: 'metadata', b: 'metadata' });
  assert.is(controller.counter.count({ verb: 'patch', resource: 'metal3machines' }), 1, 'only the first propagation');

  const unpausedAt = performance.now();
  await admin().api(Metal3MachineTemplateResource, ns).mergePatch('workers', { metadata: { annotations: { [PAUSED]: null } } });
  await modesBecome(admin(), ns, { a: 'disabled', b: 'disabled' });
  const took = performance.now() - unpausedAt;
  assert.ok(took < 5000, `propagated ${took.toFixed(0)} ms after the unpause (CAPM3 polls paused templates every 30 s)`);
});

test("T-3/E-20: a paused Metal3Machine keeps its mode while its siblings get the template's; unpausing it brings the mode", async () => {
  const ns = await freshNamespace(env().admin.client, 'tmpl-m-paused');
  controller = track(await startTemplateController(env(), ns));
  await createMachine(admin(), ns, 'paused', { from: 'workers', mode: 'metadata', annotations: { [PAUSED]: '' } });
  await createMachine(admin(), ns, 'running', { from: 'workers', mode: 'metadata' });
  await createTemplate(admin(), ns, 'workers', { mode: 'disabled' });
  await modesBecome(admin(), ns, { running: 'disabled' });
  await settled(controller, 0);
  assert.equal(await modesBecome(admin(), ns, {}), { paused: 'metadata', running: 'disabled' });

  await admin().api(Metal3MachineResource, ns).mergePatch('paused', { metadata: { annotations: { [PAUSED]: null } } });
  await modesBecome(admin(), ns, { paused: 'disabled' });
});

test('the controller logged no warning or error in these tests (a missing permission would show as Forbidden)', () => {
  assert.equal(loggedProblems(), []);
});

test.run();
