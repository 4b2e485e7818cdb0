// Table tests of the simulated BMO's pure decision from provisioning on: provisioned hosts and their
// power, deprovisioning, deletion, detach, registration faults, and whole walks of a host's life.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { BareMetalHostSpec } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { FAIL_ANNOTATION } from './names.ts';
import { nextHostStatus, UnknownStateError } from './state-machine.ts';
import { resolveTimings } from './timings.ts';
import { applied, at, host, type HostOptions, IMAGE, instant, stateAfter, step, T0, timed, walk } from './testing.ts';

const test = suite('BMO state machine: provisioning, deprovisioning, deletion');

// ---------------------------------------------------------------------------------------------
// provisioning

test('provisioning → provisioned records the image; customDeploy likewise', () => {
  const s = step(
    host({ state: 'provisioning', spec: { online: true, image: IMAGE }, status: { operationHistory: { provision: { start: T0.toISOString() } } } }),
  );
  assert.is(s?.status?.provisioning.state, 'provisioned');
  assert.equal(s?.status?.provisioning.image, IMAGE);
  assert.is(s?.status?.operationHistory?.provision?.end, T0.toISOString());
  const c = step(host({ state: 'provisioning', spec: { online: true, customDeploy: { method: 'install_coreos' } } }));
  assert.equal(c?.status?.provisioning.customDeploy, { method: 'install_coreos' });
  assert.is(c?.status?.provisioning.image?.url, '');
});

test('provisioning in timed mode takes provisioningMs', () => {
  const h = host({ state: 'provisioning', spec: { online: true, image: IMAGE }, status: { operationHistory: { provision: { start: T0.toISOString() } } } });
  assert.is(step(h, at(9_000), timed)?.requeueAfterMs, 1_000);
  assert.is(stateAfter(h, at(10_000), timed), 'provisioned');
  const short = resolveTimings('bmoTestMode', { provisioningMs: 300 });
  assert.is(stateAfter(h, at(300), short), 'provisioned');
});

test('a provisioning fault is recorded; the failed deployment is then deprovisioned', () => {
  const h = host({ state: 'provisioning', spec: { online: true, image: IMAGE }, annotations: { [FAIL_ANNOTATION]: 'provisioning' } });
  const f = step(h);
  assert.is(f?.status?.provisioning.state, 'provisioning');
  assert.is(f?.status?.errorType, 'provisioning error');
  assert.is(f?.status?.errorCount, 1);
  assert.is(f?.requeueAfterMs, 120_000);
  assert.is(stateAfter(applied(h, f!)!), 'deprovisioning');
});

test('removing the image while provisioning cancels it (deprovisioning)', () => {
  assert.is(stateAfter(host({ state: 'provisioning', spec: { online: true } })), 'deprovisioning');
});

// ---------------------------------------------------------------------------------------------
// provisioned: power, reboot, deprovisioning triggers

const provisioned = (spec: Partial<BareMetalHostSpec> = { online: true, image: IMAGE }, extra: HostOptions = {}) =>
  host({ state: 'provisioned', spec, ...extra, status: { poweredOn: true, ...extra.status, provisioning: { ID: '', state: 'provisioned', image: IMAGE } } });

test('provisioned: poweredOn follows online', () => {
  assert.is(step(provisioned()), undefined);
  assert.is(step(provisioned({ online: false, image: IMAGE }))?.status?.poweredOn, false);
  assert.is(step(provisioned({ online: true, image: IMAGE }, { status: { poweredOn: false } }))?.status?.poweredOn, true);
});

test('provisioned: a reboot annotation holds the host off; the suffixless one is consumed once off', () => {
  const held = step(provisioned(undefined, { annotations: { 'reboot.metal3.io/capm3-remediation-1': '{"mode":"hard"}' } }));
  assert.is(held?.status?.poweredOn, false);
  assert.is(step(provisioned(undefined, { annotations: { 'reboot.metal3.io/x': '' }, status: { poweredOn: false } })), undefined, 'stays off while present');
  const once = step(provisioned(undefined, { annotations: { 'reboot.metal3.io': '' }, status: { poweredOn: false } }));
  assert.equal(once?.removeAnnotations, ['reboot.metal3.io']);
});

test('provisioned → deprovisioning when the image is removed or changed, or the custom deploy goes', () => {
  assert.is(stateAfter(provisioned({ online: true })), 'deprovisioning');
  assert.is(stateAfter(provisioned({ online: false })), 'deprovisioning');
  assert.is(stateAfter(provisioned({ online: true, image: { ...IMAGE, url: 'http://other' } })), 'deprovisioning');
  const custom = host({
    state: 'provisioned',
    spec: { online: true },
    status: { poweredOn: true, provisioning: { ID: '', state: 'provisioned', customDeploy: { method: 'm' } } },
  });
  assert.is(stateAfter(custom), 'deprovisioning');
  assert.is(
    stateAfter(provisioned({ online: true, image: IMAGE, customDeploy: { method: 'm' } })),
    undefined,
    'adding a method to an image deployment is no change',
  );
});

// ---------------------------------------------------------------------------------------------
// deprovisioning

const deprovisioning = (spec: Partial<BareMetalHostSpec> = {}, extra: HostOptions = {}) =>
  host({
    state: 'deprovisioning',
    spec,
    ...extra,
    status: {
      poweredOn: true,
      operationHistory: { deprovision: { start: T0.toISOString() } },
      ...extra.status,
      provisioning: { ID: '', state: 'deprovisioning', image: IMAGE, rootDeviceHints: { deviceName: '/dev/sda' } },
    },
  });

test('deprovisioning → available clears the deployment and leaves the host off', () => {
  const s = step(deprovisioning());
  assert.is(s?.status?.provisioning.state, 'available');
  assert.equal(s?.status?.provisioning.image, { url: '' });
  assert.is(s?.status?.provisioning.rootDeviceHints, undefined);
  assert.is(s?.status?.poweredOn, false);
  assert.is(s?.status?.operationHistory?.deprovision?.end, T0.toISOString());
});

test('deprovisioning takes deprovisioningMs with cleaning, the shorter time with automatedCleaningMode disabled', () => {
  assert.is(step(deprovisioning({ automatedCleaningMode: 'metadata' }), at(1_000), timed)?.requeueAfterMs, 9_000);
  assert.is(stateAfter(deprovisioning({ automatedCleaningMode: 'disabled' }), at(1_000), timed), 'available');
  assert.is(stateAfter(deprovisioning({}), at(10_000), timed), 'available');
});

test('a deprovisioning fault is a provisioning error; the retry restarts deprovisioning', () => {
  const f = step(deprovisioning({}, { annotations: { [FAIL_ANNOTATION]: 'deprovisioning' } }));
  assert.is(f?.status?.errorType, 'provisioning error');
  assert.is(f?.status?.provisioning.state, 'deprovisioning');
  const retry = step(
    deprovisioning({}, { status: { errorType: 'provisioning error', errorMessage: 'x', operationalStatus: 'error', errorCount: 1 } }),
    at(5_000),
    timed,
  );
  assert.is(retry?.status?.errorType, undefined);
  assert.is(retry?.status?.operationHistory?.deprovision?.start, at(5_000).toISOString());
  assert.is(retry?.requeueAfterMs, 10_000);
});

// ---------------------------------------------------------------------------------------------
// deletion

test('deletion: the first state depends on where the host is', () => {
  const cases: [string, string][] = [
    ['', 'deleting'],
    ['unmanaged', 'deleting'],
    ['registering', 'deleting'],
    ['inspecting', 'powering off before delete'],
    ['preparing', 'powering off before delete'],
    ['available', 'powering off before delete'],
    ['externally provisioned', 'powering off before delete'],
    ['provisioning', 'deprovisioning'],
    ['provisioned', 'deprovisioning'],
  ];
  for (const [from, to] of cases) assert.is(stateAfter(host({ state: from, deleting: true, spec: { online: true, image: IMAGE } })), to, from);
});

test('deletion: deprovisioning ends in powering off before delete, then deleting, then the finalizer goes', () => {
  assert.is(stateAfter(deprovisioning({}, { deleting: true })), 'powering off before delete');
  const off = step(host({ state: 'powering off before delete', deleting: true, status: { poweredOn: true } }));
  assert.is(off?.status?.provisioning.state, 'deleting');
  assert.is(off?.status?.poweredOn, false);
  assert.equal(step(host({ state: 'deleting', deleting: true })), { removeFinalizer: true, reason: 'deleted from the provisioner: finalizer removed' });
});

test('deletion goes on without credentials, and gives up a failing clean-up after three errors', () => {
  assert.is(nextHostStatus(host({ state: 'available', deleting: true }), T0, instant, {})?.status?.provisioning.state, 'powering off before delete');
  const stuck = deprovisioning({}, { deleting: true, annotations: { [FAIL_ANNOTATION]: 'deprovisioning' }, status: { errorCount: 3 } });
  assert.is(stateAfter(stuck), 'powering off before delete');
  const powerStuck = host({ state: 'powering off before delete', deleting: true, annotations: { [FAIL_ANNOTATION]: 'power' }, status: { errorCount: 3 } });
  assert.is(stateAfter(powerStuck), 'deleting');
});

// ---------------------------------------------------------------------------------------------
// detached, registration faults, unknown states

test('the detached annotation sets operationalStatus detached; removing it restores OK', () => {
  const d = step(provisioned(undefined, { annotations: { 'baremetalhost.metal3.io/detached': '' } }));
  assert.is(d?.status?.operationalStatus, 'detached');
  assert.is(d?.status?.provisioning.state, 'provisioned');
  assert.is(
    step(provisioned({ online: false }, { annotations: { 'baremetalhost.metal3.io/detached': '' }, status: { operationalStatus: 'detached' } })),
    undefined,
    'no power change while detached',
  );
  assert.is(step(provisioned(undefined, { status: { operationalStatus: 'detached' } }))?.status?.operationalStatus, 'OK');
  assert.is(stateAfter(provisioned(undefined, { deleting: true, status: { operationalStatus: 'detached' } })), 'deleting');
});

test('a registration fault errors any registered state; its removal clears the error', () => {
  const h = provisioned(undefined, { annotations: { [FAIL_ANNOTATION]: 'registration' } });
  const f = step(h);
  assert.is(f?.status?.errorType, 'registration error');
  assert.is(f?.status?.provisioning.state, 'provisioned');
  const fixed = applied(h, f!)!;
  delete fixed.metadata.annotations?.[FAIL_ANNOTATION];
  const r = step(fixed);
  assert.is(r?.status?.errorType, undefined);
  assert.is(r?.status?.operationalStatus, 'OK');
});

test('externally provisioned: power managed while the flag is set; without it the host is inspected (or prepared)', () => {
  const ep = (spec: Partial<BareMetalHostSpec>, hardware?: object) =>
    host({ state: 'externally provisioned', spec, status: { ...(hardware ? { hardware } : {}), provisioning: { ID: '', state: 'externally provisioned' } } });
  assert.is(step(ep({ externallyProvisioned: true, online: true }))?.status?.poweredOn, true);
  assert.is(step(ep({ externallyProvisioned: true, online: false })), undefined);
  assert.is(stateAfter(ep({})), 'inspecting');
  assert.is(stateAfter(ep({}, { hostname: 'h' })), 'preparing');
});

test('match profile (an older BMO state) moves on to preparing', () => {
  assert.is(stateAfter(host({ state: 'match profile' })), 'preparing');
});

test('an unknown state is an error (BMO has no handler for it)', () => {
  assert.throws(() => step(host({ state: 'servicing-ish' })), (e: unknown) => e instanceof UnknownStateError);
});

// ---------------------------------------------------------------------------------------------
// whole walks

test('instant walk: new host → available with hardware, then provisioned, then back to available', () => {
  const fresh = host({ noStatus: true, finalizers: [], spec: { online: false } });
  const up = walk(fresh);
  assert.equal(up.states, ['registering', 'inspecting', 'preparing', 'available']);
  assert.ok(up.host?.status?.hardware?.nics?.length);
  assert.is(up.host?.status?.operationalStatus, 'OK');
  const claimed = structuredClone(up.host!);
  claimed.spec = { ...claimed.spec!, online: true, image: IMAGE };
  const deployed = walk(claimed);
  assert.equal(deployed.states, ['provisioning', 'provisioned']);
  assert.is(deployed.host?.status?.poweredOn, true);
  const released = structuredClone(deployed.host!);
  delete released.spec!.image;
  released.spec!.online = false;
  const back = walk(released);
  assert.equal(back.states, ['deprovisioning', 'available', 'preparing', 'available']);
  assert.is(back.host?.status?.poweredOn, false);
  assert.equal(Object.keys(back.host?.status?.operationHistory ?? {}).sort(), ['deprovision', 'inspect', 'provision', 'register']);
});

test('instant walk: deleting a provisioned host ends with the finalizer removed', () => {
  const h = provisioned(undefined, { deleting: true });
  const gone = walk(h);
  assert.equal(gone.states, ['deprovisioning', 'powering off before delete', 'deleting']);
  assert.is(gone.host, undefined);
});

test.run();
