// Table tests of the simulated BMO's pure decision: every transition, the pause rule, credentials,
// errors and recovery, deletion, power, and whole walks from a new host to provisioned and back.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newBareMetalHost, type BareMetalHost, type BareMetalHostSpec, type BareMetalHostStatus } from '@metal3-ts/generated/metal3.io/v1alpha1';
import type { BmcSecret } from './credentials.ts';
import { ironicNodeId } from './hardware.ts';
import { AT_ONCE_MS, nextHostStatus, UnknownStateError, type HostStep } from './state-machine.ts';
import { resolveTimings, type BmoTimings } from './timings.ts';
import { BMO_FINALIZER, FAIL_ANNOTATION, HARDWARE_ANNOTATION, PAUSED_ANNOTATION, STATUS_ANNOTATION } from './names.ts';

const test = suite('BMO state machine (nextHostStatus)');

const T0 = new Date('2026-03-01T10:00:00.000Z');
const at = (ms: number): Date => new Date(T0.getTime() + ms);
const instant = resolveTimings('instant');
const timed = resolveTimings('bmoTestMode');
const IMAGE = { url: 'http://172.22.0.1/images/node.qcow2', checksum: 'http://172.22.0.1/images/node.qcow2.sha256sum', checksumType: 'sha256' as const, format: 'qcow2' as const };

const secret = (resourceVersion = '7', password = 'cGFzc3dvcmQ='): BmcSecret => ({
  metadata: { name: 'h-bmc', namespace: 'ns', resourceVersion },
  data: { username: 'YWRtaW4=', password },
});
const CREDS = { credentials: { name: 'h-bmc', namespace: 'ns' }, credentialsVersion: '7' };

interface HostOptions {
  state?: string;
  status?: Partial<BareMetalHostStatus>;
  spec?: Partial<BareMetalHostSpec>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  deleting?: boolean;
  noStatus?: boolean;
}

/** A host in `state` as BMO would have left it (registered, finalizer on), unless told otherwise. */
function host(options: HostOptions = {}): BareMetalHost {
  const h = newBareMetalHost({
    metadata: {
      name: 'h',
      namespace: 'ns',
      uid: 'uid-h',
      generation: 1,
      finalizers: options.finalizers ?? [BMO_FINALIZER],
      ...(options.annotations ? { annotations: options.annotations } : {}),
      ...(options.deleting ? { deletionTimestamp: '2026-03-01T09:59:00Z' } : {}),
    },
    spec: { online: false, bmc: { address: 'redfish://bmc/h', credentialsName: 'h-bmc' }, ...options.spec },
  });
  if (options.noStatus) return h;
  h.status = {
    errorCount: 0,
    errorMessage: '',
    operationalStatus: 'OK',
    poweredOn: false,
    lastUpdated: '2026-03-01T09:00:00.000Z',
    goodCredentials: CREDS,
    triedCredentials: CREDS,
    ...options.status,
    provisioning: {
      ID: '',
      state: options.state ?? 'available',
      image: { url: '' },
      ...(options.state === 'available' || options.state === 'ready' || options.state === undefined ? { rootDeviceHints: { deviceName: '/dev/sda' } } : {}),
      ...options.status?.provisioning,
    },
  };
  // The ID the simulator derives, so registration is a no-op unless a test wants otherwise.
  if (!options.status?.provisioning?.ID) h.status.provisioning.ID = ironicNodeId(h);
  return h;
}

const step = (h: BareMetalHost, now: Date = T0, timings: BmoTimings = instant, bmcSecret: BmcSecret | undefined = secret()): HostStep | undefined =>
  nextHostStatus(h, now, timings, { bmcSecret });

function stateAfter(h: BareMetalHost, now?: Date, timings?: BmoTimings): string | undefined {
  return step(h, now, timings)?.status?.provisioning.state;
}

/** Applies a step the way the controller and the apiserver would; returns undefined once the host is gone. */
function applied(h: BareMetalHost, s: HostStep): BareMetalHost | undefined {
  const next = structuredClone(h);
  if (s.addFinalizer) next.metadata.finalizers = [...(next.metadata.finalizers ?? []), BMO_FINALIZER];
  if (s.removeFinalizer) {
    next.metadata.finalizers = next.metadata.finalizers?.filter((f) => f !== BMO_FINALIZER);
    if (next.metadata.deletionTimestamp && next.metadata.finalizers?.length === 0) return undefined;
  }
  for (const key of s.removeAnnotations ?? []) delete next.metadata.annotations?.[key];
  if (s.status) next.status = s.status;
  return next;
}

/** Runs reconciles until nothing is left to do (or `until` holds); returns every state entered, in order. */
function walk(start: BareMetalHost, options: { timings?: BmoTimings; until?: (h: BareMetalHost) => boolean; max?: number } = {}): { states: string[]; host: BareMetalHost | undefined } {
  let h: BareMetalHost | undefined = start;
  let now = T0.getTime();
  const states: string[] = [];
  for (let i = 0; i < (options.max ?? 50) && h; i++) {
    if (options.until?.(h)) break;
    const s = nextHostStatus(h, new Date(now), options.timings ?? instant, { bmcSecret: secret() });
    if (!s) break;
    const state = s.status?.provisioning.state;
    if (state !== undefined && state !== h.status?.provisioning?.state) states.push(state);
    h = applied(h, s);
    now += s.requeueAfterMs ?? 0;
  }
  return { states, host: h };
}

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
  const saved = { provisioning: { state: 'provisioned', ID: 'abc', image: IMAGE }, poweredOn: true, operationalStatus: 'OK', errorMessage: '', errorCount: 0, lastUpdated: '2026-02-01T00:00:00Z' };
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
  const h = host({ state: 'registering', status: { operationalStatus: '', goodCredentials: undefined, triedCredentials: undefined, errorType: 'registration error', errorMessage: 'x', errorCount: 2, provisioning: { ID: '', state: 'registering' } } });
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
  const h = host({ state: 'inspecting', annotations: { [FAIL_ANNOTATION]: 'inspection' }, status: { operationHistory: { inspect: { start: T0.toISOString() } } } });
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

// ---------------------------------------------------------------------------------------------
// provisioning

test('provisioning → provisioned records the image; customDeploy likewise', () => {
  const s = step(host({ state: 'provisioning', spec: { online: true, image: IMAGE }, status: { operationHistory: { provision: { start: T0.toISOString() } } } }));
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
  const custom = host({ state: 'provisioned', spec: { online: true }, status: { poweredOn: true, provisioning: { ID: '', state: 'provisioned', customDeploy: { method: 'm' } } } });
  assert.is(stateAfter(custom), 'deprovisioning');
  assert.is(stateAfter(provisioned({ online: true, image: IMAGE, customDeploy: { method: 'm' } })), undefined, 'adding a method to an image deployment is no change');
});

// ---------------------------------------------------------------------------------------------
// deprovisioning

const deprovisioning = (spec: Partial<BareMetalHostSpec> = {}, extra: HostOptions = {}) =>
  host({
    state: 'deprovisioning',
    spec,
    ...extra,
    status: { poweredOn: true, operationHistory: { deprovision: { start: T0.toISOString() } }, ...extra.status, provisioning: { ID: '', state: 'deprovisioning', image: IMAGE, rootDeviceHints: { deviceName: '/dev/sda' } } },
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
  const retry = step(deprovisioning({}, { status: { errorType: 'provisioning error', errorMessage: 'x', operationalStatus: 'error', errorCount: 1 } }), at(5_000), timed);
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
  assert.is(step(provisioned({ online: false }, { annotations: { 'baremetalhost.metal3.io/detached': '' }, status: { operationalStatus: 'detached' } })), undefined, 'no power change while detached');
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
