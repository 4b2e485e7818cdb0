// Table tests of the simulated BMO's pure decision, up to an available host: the pause rule, the
// finalizer, status restore, credentials and registration, inspection, preparing, and what an
// available host does (provisioning, power).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ironicNodeId } from './hardware.ts';
import { BMO_FINALIZER, FAIL_ANNOTATION, HARDWARE_ANNOTATION, PAUSED_ANNOTATION, STATUS_ANNOTATION } from './names.ts';
import { AT_ONCE_MS, nextHostStatus } from './state-machine.ts';
import { applied, at, CREDS, host, IMAGE, instant, secret, stateAfter, step, T0, timed } from './testing.ts';

const test = suite('BMO state machine: registration, inspection, available');

// ---------------------------------------------------------------------------------------------
// pause, finalizer, status annotation

test('a paused host gets no step at all, whatever its state, deletion included', () => {
  for (const state of ['', 'registering', 'inspecting', 'available', 'provisioning', 'provisioned', 'deprovisioning', 'deleting']) {
    assert.is(step(host({ state, annotations: { [PAUSED_ANNOTATION]: '' } })), undefined, state);
    assert.is(step(host({ state, deleting: true, annotations: { [PAUSED_ANNOTATION]: 'metal3.io/capm3' } })), undefined, `${state} deleting`);
  }
  assert.is(step(host({ noStatus: true, finalizers: [], annotations: { [PAUSED_ANNOTATION]: 'user' } })), undefined, 'new host: not even the finalizer');
});

test('a new host first gets the finalizer, and nothing else in that step', () => {
  const s = step(host({ noStatus: true, finalizers: [] }));
  assert.equal(s, { addFinalizer: true, requeueAfterMs: AT_ONCE_MS, reason: `finalizer ${BMO_FINALIZER} added` });
});

test('a deleted host BMO never took on (no finalizer) is left alone', () => {
  assert.is(step(host({ state: 'available', finalizers: ['other'], deleting: true })), undefined);
});

test('a host without status gets it back from the status annotation, keeping its lastUpdated', () => {
  const saved = {
    provisioning: { state: 'provisioned', ID: 'abc', image: IMAGE },
    poweredOn: true,
    operationalStatus: 'OK',
    errorMessage: '',
    errorCount: 0,
    lastUpdated: '2026-02-01T00:00:00Z',
  };
  const s = step(host({ noStatus: true, finalizers: [], annotations: { [STATUS_ANNOTATION]: JSON.stringify(saved) } }));
  assert.is(s?.status?.provisioning.state, 'provisioned');
  assert.is(s?.status?.provisioning.ID, 'abc');
  assert.is(s?.status?.lastUpdated, '2026-02-01T00:00:00Z');
  assert.is(s?.addFinalizer, undefined);
});

test('a host with status loses a stale status annotation; an unreadable one is ignored', () => {
  const s = step(host({ state: 'available', annotations: { [STATUS_ANNOTATION]: '{}' } }));
  assert.equal(s?.removeAnnotations, [STATUS_ANNOTATION]);
  assert.is(s?.status, undefined);
  assert.is(step(host({ noStatus: true, finalizers: [], annotations: { [STATUS_ANNOTATION]: 'not json' } }))?.addFinalizer, true);
});

// ---------------------------------------------------------------------------------------------
// registration and credentials

test("'' → registering with BMC details; → unmanaged (discovered) without", () => {
  const s = step(host({ noStatus: true }));
  assert.is(s?.status?.provisioning.state, 'registering');
  assert.is(s?.status?.operationHistory?.register?.start, T0.toISOString());
  assert.is(s?.status?.provisioning.bootMode, 'UEFI');
  assert.is(s?.status?.lastUpdated, T0.toISOString());
  const bare = host({ noStatus: true, spec: { bmc: { address: '', credentialsName: '' } } });
  const u = step(bare);
  assert.is(u?.status?.provisioning.state, 'unmanaged');
  assert.is(u?.status?.operationalStatus, 'discovered');
});

test('unmanaged waits for BMC details, then registers', () => {
  assert.is(step(host({ state: 'unmanaged', spec: { bmc: { address: '', credentialsName: '' } } })), undefined);
  assert.is(stateAfter(host({ state: 'unmanaged' })), 'registering');
});

test('registering without a usable Secret records a registration error (retried after 10 s only when missing)', () => {
  const missing = nextHostStatus(host({ state: 'registering' }), T0, instant, {});
  assert.is(missing?.status?.errorType, 'registration error');
  assert.is(missing?.status?.errorMessage, 'The BMC secret ns/h-bmc does not exist');
  assert.is(missing?.status?.operationalStatus, 'error');
  assert.is(missing?.status?.errorCount, 1);
  assert.is(missing?.requeueAfterMs, 10_000);
  const noRef = step(host({ state: 'registering', spec: { bmc: { address: 'redfish://bmc/h', credentialsName: '' } } }));
  assert.is(noRef?.status?.errorMessage, 'The BMC secret reference is empty');
  assert.is(noRef?.requeueAfterMs, undefined);
  const noPassword = step(host({ state: 'registering' }), T0, instant, secret('7', ''));
  assert.match(noPassword?.status?.errorMessage ?? '', /password/);
  const noAddress = step(host({ state: 'registering', spec: { bmc: { address: '', credentialsName: 'h-bmc' } } }));
  assert.is(noAddress?.status?.errorMessage, "Missing BMC connection detail 'Address'");
});

test('registering records the credentials and the provisioning ID, clears the error, then moves on', () => {
  const h = host({
    state: 'registering',
    status: {
      operationalStatus: '',
      goodCredentials: undefined,
      triedCredentials: undefined,
      errorType: 'registration error',
      errorMessage: 'x',
      errorCount: 2,
      provisioning: { ID: '', state: 'registering' },
    },
  });
  const s = step(h);
  assert.is(s?.status?.provisioning.state, 'registering');
  assert.equal(s?.status?.goodCredentials, CREDS);
  assert.equal(s?.status?.triedCredentials, CREDS);
  assert.is(s?.status?.provisioning.ID, ironicNodeId(h));
  assert.match(s?.status?.provisioning.ID ?? '', /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.is(s?.status?.operationalStatus, 'OK');
  assert.is(s?.status?.errorType, undefined);
  assert.is(s?.status?.errorCount, 2, 'errorCount waits for the state change');
  const next = step(applied(h, s!)!);
  assert.is(next?.status?.provisioning.state, 'inspecting');
  assert.is(next?.status?.errorCount, 0);
});

test('registering → inspecting, → externally provisioned, or → preparing when inspection is disabled', () => {
  const r = host({ state: 'registering', status: { operationHistory: { register: { start: '2026-03-01T09:59:59.000Z' } } } });
  const s = step(r);
  assert.is(s?.status?.provisioning.state, 'inspecting');
  assert.equal(s?.status?.operationHistory, { register: { start: '2026-03-01T09:59:59.000Z', end: T0.toISOString() }, inspect: { start: T0.toISOString() } });
  assert.is(stateAfter(host({ state: 'registering', spec: { externallyProvisioned: true } })), 'externally provisioned');
  assert.is(stateAfter(host({ state: 'registering', annotations: { 'inspect.metal3.io': 'disabled' } })), 'preparing');
  assert.is(stateAfter(host({ state: 'registering', spec: { inspectionMode: 'disabled' } })), 'preparing');
});

test('a new version of the credentials Secret re-registers without leaving the current state', () => {
  const s = step(host({ state: 'provisioned', status: { operationHistory: { register: { start: 'a', end: 'b' } } } }), T0, instant, secret('8'));
  assert.is(s?.status?.provisioning.state, 'provisioned');
  assert.is(s?.status?.goodCredentials?.credentialsVersion, '8');
  assert.equal(s?.status?.operationHistory?.register, { start: T0.toISOString(), end: T0.toISOString() });
});

// ---------------------------------------------------------------------------------------------
// inspection and preparing

test('inspecting reports generated hardware and moves to preparing', () => {
  const s = step(host({ state: 'inspecting', status: { operationHistory: { inspect: { start: T0.toISOString() } } } }));
  assert.is(s?.status?.provisioning.state, 'preparing');
  const hw = s?.status?.hardware;
  assert.is(hw?.hostname, 'h');
  assert.is(hw?.nics?.length, 2);
  assert.match(hw?.nics?.[0]?.mac ?? '', /^52:54:00(:[0-9a-f]{2}){3}$/);
  assert.ok((hw?.ramMebibytes ?? 0) > 0 && (hw?.cpu?.count ?? 0) > 0 && (hw?.storage?.length ?? 0) > 0);
  assert.is(s?.status?.operationHistory?.inspect?.end, T0.toISOString());
});

test('inspecting in timed mode waits out the inspection, measured from its recorded start', () => {
  const h = host({ state: 'inspecting', status: { operationHistory: { inspect: { start: T0.toISOString() } } } });
  assert.equal(step(h, at(500), timed), { reason: 'inspecting', requeueAfterMs: 1_500 });
  assert.is(stateAfter(h, at(2_000), timed), 'preparing');
});

test('inspecting applies the hardware annotation; a malformed one is an inspection error', () => {
  const over = { hostname: 'node-a', ramMebibytes: 4096, nics: [{ name: 'eth0', mac: '00:11:22:33:44:55', ip: '10.0.0.5' }] };
  const s = step(host({ state: 'inspecting', annotations: { [HARDWARE_ANNOTATION]: JSON.stringify(over) } }));
  assert.is(s?.status?.hardware?.hostname, 'node-a');
  assert.is(s?.status?.hardware?.ramMebibytes, 4096);
  assert.equal(s?.status?.hardware?.nics, over.nics);
  assert.ok(s?.status?.hardware?.cpu, 'fields not overridden are kept');
  for (const bad of ['{', '[1]', '{"ram":1}', '{"ramMebibytes":"lots"}']) {
    const e = step(host({ state: 'inspecting', annotations: { [HARDWARE_ANNOTATION]: bad } }));
    assert.is(e?.status?.provisioning.state, 'inspecting', bad);
    assert.is(e?.status?.errorType, 'inspection error', bad);
    assert.match(e?.status?.errorMessage ?? '', HARDWARE_ANNOTATION);
  }
});

test('an inspection fault is recorded with backoff; without it the retry restarts inspection and succeeds', () => {
  const h = host({
    state: 'inspecting',
    annotations: { [FAIL_ANNOTATION]: 'inspection' },
    status: { operationHistory: { inspect: { start: T0.toISOString() } } },
  });
  const failed = step(h, at(2_000), timed);
  assert.is(failed?.status?.errorType, 'inspection error');
  assert.is(failed?.status?.operationalStatus, 'error');
  assert.is(failed?.status?.errorCount, 1);
  assert.is(failed?.requeueAfterMs, 120_000);
  const recovered = applied(h, failed!)!;
  delete recovered.metadata.annotations?.[FAIL_ANNOTATION];
  const restart = step(recovered, at(3_000), timed);
  assert.is(restart?.status?.errorType, undefined);
  assert.is(restart?.status?.operationalStatus, 'OK');
  assert.is(restart?.status?.operationHistory?.inspect?.start, at(3_000).toISOString());
  assert.is(restart?.requeueAfterMs, 2_000);
  const done = step(applied(recovered, restart!)!, at(5_000), timed);
  assert.is(done?.status?.provisioning.state, 'preparing');
  assert.is(done?.status?.errorCount, 0);
});

test('an available host with the inspect annotation is inspected again (the annotation is consumed)', () => {
  const h = host({ state: 'available', annotations: { 'inspect.metal3.io': '' } });
  assert.is(stateAfter(h), 'inspecting');
  const s = step(host({ state: 'inspecting', annotations: { 'inspect.metal3.io': '' } }));
  assert.equal(s?.removeAnnotations, ['inspect.metal3.io']);
});

test('preparing saves the provisioning settings and → available; a preparation fault is recorded', () => {
  const s = step(host({ state: 'preparing', spec: { rootDeviceHints: { deviceName: '/dev/nvme0n1' } } }));
  assert.is(s?.status?.provisioning.state, 'available');
  assert.equal(s?.status?.provisioning.rootDeviceHints, { deviceName: '/dev/nvme0n1' });
  const f = step(host({ state: 'preparing', annotations: { [FAIL_ANNOTATION]: 'preparation' } }));
  assert.is(f?.status?.provisioning.state, 'preparing');
  assert.is(f?.status?.errorType, 'preparation error');
});

// ---------------------------------------------------------------------------------------------
// available: provisioning and power

test('available + online + image (or customDeploy) → provisioning; offline or no image stays available', () => {
  const s = step(host({ state: 'available', spec: { online: true, image: IMAGE } }));
  assert.is(s?.status?.provisioning.state, 'provisioning');
  assert.is(s?.status?.operationHistory?.provision?.start, T0.toISOString());
  assert.is(stateAfter(host({ state: 'available', spec: { online: true, customDeploy: { method: 'install_coreos' } } })), 'provisioning');
  assert.is(stateAfter(host({ state: 'available', spec: { online: false, image: IMAGE } })), undefined);
  assert.is(step(host({ state: 'available', spec: { online: false, image: IMAGE } })), undefined);
});

test('available: poweredOn follows online; a power fault is a power management error', () => {
  const on = step(host({ state: 'available', spec: { online: true } }));
  assert.is(on?.status?.poweredOn, true);
  assert.is(on?.status?.provisioning.state, 'available');
  const off = step(host({ state: 'available', spec: { online: false }, status: { poweredOn: true } }));
  assert.is(off?.status?.poweredOn, false);
  assert.is(step(host({ state: 'available', spec: { online: true }, status: { poweredOn: true } })), undefined, 'in line: nothing to do');
  const f = step(host({ state: 'available', spec: { online: true }, annotations: { [FAIL_ANNOTATION]: 'power' } }));
  assert.is(f?.status?.poweredOn, false);
  assert.is(f?.status?.errorType, 'power management error');
  assert.is(f?.status?.errorCount, 1);
});

test('available goes back to preparing when the settings changed, and to externally provisioned on request', () => {
  assert.is(stateAfter(host({ state: 'available', spec: { rootDeviceHints: { deviceName: '/dev/sdb' } } })), 'preparing');
  assert.is(stateAfter(host({ state: 'available', spec: { externallyProvisioned: true } })), 'externally provisioned');
  assert.is(stateAfter(host({ state: 'ready', spec: { online: true, image: IMAGE } })), 'provisioning', 'ready is the old name of available');
});

test.run();
