// Bad input on a real apiserver: a Metal3Remediation whose Machine, Metal3Machine or host cannot be
// found (RS-5…RS-7) is not acted on, and says why in a Warning event with upstream's words; a
// remediation of a host a user switched off ends in phase Failed (RS-8) without touching the host.
import * as assert from 'uvu/assert';
import { fileURLToPath } from 'node:url';
import { EventResource } from '@metal3-ts/generated/core/v1';
import { Metal3RemediationResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { BareMetalHostResource } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { eventually, type RunningController, startInProcess } from '@metal3-ts/test/testing/controller-runner';
import { controllerSuite } from '@metal3-ts/test/testing/controller-suite';
import { remediationController } from '../src/controller.ts';
import { CONTROLLER_NAME } from '../src/names.ts';
import { createFixture } from './support.ts';

const RBAC = fileURLToPath(new URL('../deploy/rbac.yaml', import.meta.url));
const { test, env, admin, track, namespace } = controllerSuite<RunningController>('Metal3Remediation: bad input on a real apiserver');

const start = async (ns: string) =>
  track(
    await startInProcess(env(), ns, {
      rbac: RBAC,
      user: 'remediation-controller',
      component: 'metal3-ts-remediation',
      controllers: [CONTROLLER_NAME],
      build: (deps) => remediationController({ ...deps, workloadClient: () => Promise.resolve(admin()), config: {} }),
    }),
  );

const warning = (ns: string, text: string) =>
  eventually(`a Warning event saying "${text}"`, async () => {
    const events = await admin().api(EventResource, ns).list();
    return events.items.find((e) => e.type === 'Warning' && e.reason === 'RemediationBlocked' && e.message?.includes(text));
  });

test('RS-5 a remediation without an owner Machine: Warning event "owner Machine not set", nothing else', async () => {
  const ns = await namespace('remediation-bad');
  await start(ns);
  await admin().api(Metal3RemediationResource, ns).create({
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
    kind: 'Metal3Remediation',
    metadata: { name: 'orphan', namespace: ns },
    spec: { strategy: { type: 'Reboot', retryLimit: 1, timeout: '5m' } },
  });
  const event = await warning(ns, "metal3Remediation's owner Machine not set");
  assert.is(event.involvedObject.name, 'orphan');
  assert.is((await admin().api(Metal3RemediationResource, ns).get('orphan')).status?.phase, undefined, 'not started');
});

test('RS-7 a Metal3Machine without its host annotation: Warning event naming it; the host is not powered off', async () => {
  const ns = await namespace('remediation-bad');
  const controller = await start(ns);
  await createFixture(admin(), ns, { hostAnnotation: false });
  await warning(ns, 'unable to find a host for unhealthy machine: unable to get m3m-0 HostAnnotation');
  const host = await admin().api(BareMetalHostResource, ns).get('host-0');
  assert.not.ok(Object.keys(host.metadata.annotations ?? {}).some((a) => a.startsWith('reboot.metal3.io')));
  assert.ok(controller.errors() > 0, 'the reconcile failed (and is retried with backoff)');
});

test('RS-8 the host switched off by a user (spec.online false) ⇒ phase Failed, host untouched', async () => {
  const ns = await namespace('remediation-bad');
  await start(ns);
  await createFixture(admin(), ns, { online: false });
  await eventually('phase Failed', async () => (await admin().api(Metal3RemediationResource, ns).get('worker-0')).status?.phase === 'Failed' || undefined);
  const host = await admin().api(BareMetalHostResource, ns).get('host-0');
  assert.not.ok(Object.keys(host.metadata.annotations ?? {}).some((a) => a.startsWith('reboot.metal3.io')));
});

test.run();
