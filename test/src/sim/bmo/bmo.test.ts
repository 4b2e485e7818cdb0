// The simulated BMO on the real kube-apiserver: every transition a consumer of BareMetalHosts relies
// on, watched as it happens (a watch from the namespace's resourceVersion sees every status write).
// Each test runs its own simulator, scoped to the test's namespace.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, NotFoundError, Transport } from '@metal3-ts/generated';
import { SecretResource } from '@metal3-ts/generated/core/v1';
import { type BareMetalHost, BareMetalHostResource } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { InformerFactory } from '@metal3-ts/shared/cache/informer-factory';
import { WriteThroughClient } from '@metal3-ts/shared/cache/write-through';
import { realClock } from '@metal3-ts/shared/clock/clock';
import { silentLogger } from '@metal3-ts/shared/log/logger';
import { Registry } from '@metal3-ts/shared/metrics/registry';
import { freshNamespace, withSharedEnv } from '../../envtest/suite.ts';
import { type RunningSimulators, type SimulatorDeps, startSimulators } from '../simulator.ts';
import { type BmoOptions, bmoSimulator } from './controller.ts';
import { simulatedHost, type SimulatedHostOptions } from './fixtures.ts';
import { BMO_FINALIZER, FAIL_ANNOTATION, HARDWARE_ANNOTATION, PAUSED_ANNOTATION, STATUS_ANNOTATION } from './names.ts';
import { sleep } from '../../testing/eventually.ts';

const test = suite('simulated BMO on the real apiserver');
const env = withSharedEnv(test);

let admin: Client;
test.before(() => {
  admin = new Client(Transport.fromConnection(env().admin));
});
test.after(() => admin.transport.close());

const IMAGE = {
  url: 'http://172.22.0.1/images/node.qcow2',
  checksum: 'http://172.22.0.1/images/node.qcow2.sha256sum',
  checksumType: 'sha256' as const,
  format: 'qcow2' as const,
};
const hostsOf = (ns: string) => admin.api(BareMetalHostResource, ns);

/** A BMO simulator whose informers see only `ns`. */
function startBmo(ns: string, options: BmoOptions = {}): Promise<RunningSimulators> {
  const reader = new Client(Transport.fromConnection(env().admin));
  const informers = new InformerFactory(reader, { namespace: ns });
  const deps: SimulatorDeps = {
    client: new WriteThroughClient(reader.transport, informers),
    informers,
    registry: new Registry(),
    log: silentLogger,
    clock: realClock,
  };
  return startSimulators(deps, bmoSimulator(deps, options));
}

/** Runs `body` with a fresh namespace and a BMO simulator on it. */
async function withBmo(options: BmoOptions, body: (ns: string) => Promise<void>): Promise<void> {
  const ns = await freshNamespace(env().admin.client, 'bmo');
  const bmo = await startBmo(ns, options);
  try {
    await body(ns);
  } finally {
    await bmo.stop();
  }
}

async function createHost(ns: string, name: string, options: SimulatedHostOptions = {}): Promise<BareMetalHost> {
  const { host, secret } = simulatedHost(name, { namespace: ns, ...options });
  await admin.api(SecretResource, ns).create(secret);
  return hostsOf(ns).create(host);
}

/** Polls the host until `probe` holds; returns the host. */
async function until(ns: string, name: string, what: string, probe: (h: BareMetalHost) => boolean, timeoutMs = 10_000): Promise<BareMetalHost> {
  const end = performance.now() + timeoutMs;
  let last: BareMetalHost | undefined;
  for (;;) {
    last = await hostsOf(ns).get(name);
    if (probe(last)) return last;
    if (performance.now() > end) throw new Error(`timed out waiting for ${ns}/${name} ${what}; status: ${JSON.stringify(last.status)}`);
    await sleep(25);
  }
}
const inState = (state: string) => (h: BareMetalHost) => h.status?.provisioning?.state === state;

/** Every provisioning state the host passes through (and `<deleted>`), from the namespace's current resourceVersion on. */
interface StateRecorder {
  states(name: string): string[];
  /** Waits until the watch has delivered `state` for `name` (a GET can see it before the watch does), then stops. */
  stopAfter(name: string, state: string): Promise<void>;
  stop(): void;
}

async function recordStates(ns: string): Promise<StateRecorder> {
  const ac = new AbortController();
  const seen = new Map<string, string[]>();
  const { metadata } = await hostsOf(ns).list();
  void (async () => {
    try {
      for await (const event of hostsOf(ns).watch({ resourceVersion: metadata.resourceVersion ?? '0', signal: ac.signal })) {
        if (event.type === 'BOOKMARK') continue;
        const list = seen.get(event.object.metadata.name ?? '') ?? [];
        seen.set(event.object.metadata.name ?? '', list);
        const state = event.type === 'DELETED' ? '<deleted>' : event.object.status?.provisioning?.state;
        if (state !== undefined && list.at(-1) !== state) list.push(state);
      }
    } catch {
      // the test's assertions report what was seen
    }
  })();
  const states = (name: string) => [...(seen.get(name) ?? [])];
  return {
    states,
    stop: () => ac.abort(),
    async stopAfter(name, state) {
      const end = performance.now() + 5_000;
      while (!states(name).includes(state) && performance.now() < end) await sleep(10);
      ac.abort();
    },
  };
}

test('a new host registers, is inspected and becomes available with hardware; finalizer and credentials recorded', () =>
  withBmo({}, async (ns) => {
    const recorder = await recordStates(ns);
    await createHost(ns, 'node-0', { spec: { online: false } });
    const h = await until(ns, 'node-0', 'available', inState('available'));
    await recorder.stopAfter('node-0', 'available');
    assert.equal(recorder.states('node-0'), ['registering', 'inspecting', 'preparing', 'available']);
    assert.equal(h.metadata.finalizers, [BMO_FINALIZER]);
    assert.is(h.status?.operationalStatus, 'OK');
    assert.is(h.status?.errorMessage, '');
    assert.is(h.status?.hardware?.hostname, 'node-0');
    assert.is(h.status?.hardware?.nics?.length, 2);
    assert.ok(h.status?.hardware?.nics?.every((n) => n.name && n.mac && n.ip));
    assert.ok((h.status?.hardware?.cpu?.count ?? 0) > 0 && (h.status?.hardware?.ramMebibytes ?? 0) > 0 && (h.status?.hardware?.storage?.length ?? 0) > 0);
    const secret = await admin.api(SecretResource, ns).get('node-0-bmc-secret');
    assert.equal(h.status?.goodCredentials, { credentials: { name: 'node-0-bmc-secret', namespace: ns }, credentialsVersion: secret.metadata.resourceVersion });
    assert.ok(h.status?.operationHistory?.register?.end && h.status.operationHistory.inspect?.end);
    assert.ok(h.status?.lastUpdated);
    assert.match(h.status?.provisioning.ID ?? '', /^[0-9a-f-]{36}$/);
    assert.is(h.status?.poweredOn, false);
  }));

test('hardware overrides from the annotation land in status.hardware', () =>
  withBmo({}, async (ns) => {
    await createHost(ns, 'big', {
      annotations: {
        [HARDWARE_ANNOTATION]: JSON.stringify({
          hostname: 'big.example',
          ramMebibytes: 1_048_576,
          nics: [{ name: 'eno1', mac: '00:11:22:33:44:55', ip: '192.168.111.20' }],
        }),
      },
    });
    const h = await until(ns, 'big', 'available', inState('available'));
    assert.is(h.status?.hardware?.hostname, 'big.example');
    assert.is(h.status?.hardware?.ramMebibytes, 1_048_576);
    assert.equal(h.status?.hardware?.nics, [{ name: 'eno1', mac: '00:11:22:33:44:55', ip: '192.168.111.20' }]);
  }));

test('without BMC details a host is unmanaged; a missing credentials Secret is a registration error until it appears', () =>
  withBmo({}, async (ns) => {
    const { host } = simulatedHost('bare', { namespace: ns });
    host.spec = { online: false };
    await hostsOf(ns).create(host);
    const bare = await until(ns, 'bare', 'unmanaged', inState('unmanaged'));
    assert.is(bare.status?.operationalStatus, 'discovered');

    const lonely = simulatedHost('lonely', { namespace: ns });
    await hostsOf(ns).create(lonely.host);
    const failing = await until(ns, 'lonely', 'a registration error', (h) => h.status?.errorType === 'registration error');
    assert.is(failing.status?.errorMessage, `The BMC secret ${ns}/lonely-bmc-secret does not exist`);
    assert.is(failing.status?.operationalStatus, 'error');
    assert.ok((failing.status?.errorCount ?? 0) >= 1);
    assert.is(failing.status?.provisioning.state, 'registering');
    // The Secret's arrival wakes the host (BMO alone would wait out its 10 s retry).
    await admin.api(SecretResource, ns).create(lonely.secret);
    const ok = await until(ns, 'lonely', 'available', inState('available'), 5_000);
    assert.is(ok.status?.errorType, undefined);
    assert.is(ok.status?.operationalStatus, 'OK');
  }));

test('image set and online: provisioning → provisioned with status.provisioning.image, powered on', () =>
  withBmo({}, async (ns) => {
    await createHost(ns, 'node-1', { spec: { online: false } });
    await until(ns, 'node-1', 'available', inState('available'));
    const recorder = await recordStates(ns);
    await hostsOf(ns).mergePatch('node-1', { spec: { online: true, image: IMAGE } });
    const h = await until(ns, 'node-1', 'provisioned and on', (x) => inState('provisioned')(x) && x.status?.poweredOn === true);
    await recorder.stopAfter('node-1', 'provisioned');
    assert.equal(recorder.states('node-1'), ['available', 'provisioning', 'provisioned']);
    assert.equal(h.status?.provisioning.image, IMAGE);
    assert.ok(h.status?.operationHistory?.provision?.start && h.status.operationHistory.provision.end);
  }));

test('customDeploy set and online: provisioned with status.provisioning.customDeploy', () =>
  withBmo({}, async (ns) => {
    await createHost(ns, 'node-2', { spec: { online: true, customDeploy: { method: 'install_coreos' } } });
    const h = await until(ns, 'node-2', 'provisioned', inState('provisioned'));
    assert.equal(h.status?.provisioning.customDeploy, { method: 'install_coreos' });
    assert.is(h.status?.provisioning.image?.url, '');
  }));

test('image removed: deprovisioning (with cleaning, and with automatedCleaningMode disabled) → available, powered off', () =>
  withBmo({}, async (ns) => {
    await createHost(ns, 'clean', { spec: { online: true, image: IMAGE } });
    await createHost(ns, 'quick', { spec: { online: true, image: IMAGE, automatedCleaningMode: 'disabled' } });
    await until(ns, 'clean', 'provisioned', inState('provisioned'));
    await until(ns, 'quick', 'provisioned', inState('provisioned'));
    const recorder = await recordStates(ns);
    // What CAPM3 does on release: image and userData gone, online false.
    for (const name of ['clean', 'quick']) await hostsOf(ns).mergePatch(name, { spec: { image: null, online: false } } as never);
    for (const name of ['clean', 'quick']) {
      const h = await until(ns, name, 'available again', (x) => inState('available')(x) && recorder.states(name).includes('available'));
      assert.equal(recorder.states(name).slice(0, 3), ['provisioned', 'deprovisioning', 'available'], name);
      assert.equal(h.status?.provisioning.image, { url: '' }, name);
      assert.is(h.status?.poweredOn, false, name);
      assert.ok(h.status?.operationHistory?.deprovision?.end, name);
    }
    recorder.stop();
  }));

test('a paused host does not move; unpaused, it goes on (a host beside it shows the simulator is alive)', () =>
  withBmo({}, async (ns) => {
    await createHost(ns, 'frozen', { annotations: { [PAUSED_ANNOTATION]: '' } });
    await createHost(ns, 'control', { spec: { online: false } });
    await until(ns, 'control', 'available', inState('available'));
    await sleep(300);
    const frozen = await hostsOf(ns).get('frozen');
    assert.is(frozen.status, undefined);
    assert.is(frozen.metadata.finalizers, undefined, 'not even the finalizer');

    // Paused while available: a new image is not acted on.
    await hostsOf(ns).mergePatch('control', { metadata: { annotations: { [PAUSED_ANNOTATION]: 'metal3.io/capm3' } }, spec: { online: true, image: IMAGE } });
    await sleep(300);
    const held = await hostsOf(ns).get('control');
    assert.is(held.status?.provisioning.state, 'available');
    assert.is(held.status?.poweredOn, false);

    for (const name of ['frozen', 'control']) await hostsOf(ns).mergePatch(name, { metadata: { annotations: { [PAUSED_ANNOTATION]: null } } } as never);
    await until(ns, 'frozen', 'available', inState('available'));
    await until(ns, 'control', 'provisioned', inState('provisioned'));
  }));

test('status.poweredOn follows spec.online on an available and a provisioned host', () =>
  withBmo({}, async (ns) => {
    await createHost(ns, 'pw', { spec: { online: false } });
    await until(ns, 'pw', 'available, off', (h) => inState('available')(h) && h.status?.poweredOn === false);
    await hostsOf(ns).mergePatch('pw', { spec: { online: true } });
    await until(ns, 'pw', 'on', (h) => h.status?.poweredOn === true);
    await hostsOf(ns).mergePatch('pw', { spec: { online: false } });
    await until(ns, 'pw', 'off', (h) => h.status?.poweredOn === false);
    await hostsOf(ns).mergePatch('pw', { spec: { online: true, image: IMAGE } });
    await until(ns, 'pw', 'provisioned, on', (h) => inState('provisioned')(h) && h.status?.poweredOn === true);
    await hostsOf(ns).mergePatch('pw', { spec: { online: false } });
    const off = await until(ns, 'pw', 'provisioned, off', (h) => h.status?.poweredOn === false);
    assert.is(off.status?.provisioning.state, 'provisioned', 'power alone never deprovisions');
  }));

test('injected faults set errorType, errorMessage, operationalStatus error and errorCount; removing them recovers', () =>
  withBmo({}, async (ns) => {
    await createHost(ns, 'insp', { annotations: { [FAIL_ANNOTATION]: 'inspection' } });
    const failed = await until(ns, 'insp', 'an inspection error', (h) => h.status?.errorType === 'inspection error');
    assert.is(failed.status?.provisioning.state, 'inspecting');
    assert.is(failed.status?.operationalStatus, 'error');
    assert.is(failed.status?.errorCount, 1);
    assert.match(failed.status?.errorMessage ?? '', /simulated inspection failure/);
    await sleep(200);
    assert.is((await hostsOf(ns).get('insp')).status?.errorCount, 1, 'retried only after the backoff');
    await hostsOf(ns).mergePatch('insp', { metadata: { annotations: { [FAIL_ANNOTATION]: null } } } as never);
    const recovered = await until(ns, 'insp', 'available', inState('available'));
    assert.is(recovered.status?.operationalStatus, 'OK');
    assert.is(recovered.status?.errorType, undefined);
    assert.is(recovered.status?.errorMessage, '');
    assert.is(recovered.status?.errorCount, 0);
    assert.ok(recovered.status?.hardware);

    // A failed deployment: recorded, then (once the fault is gone) deprovisioned and deployed again.
    const recorder = await recordStates(ns);
    await hostsOf(ns).mergePatch('insp', { metadata: { annotations: { [FAIL_ANNOTATION]: 'provisioning' } }, spec: { online: true, image: IMAGE } });
    const bad = await until(ns, 'insp', 'a provisioning error', (h) => h.status?.errorType === 'provisioning error');
    assert.is(bad.status?.provisioning.state, 'provisioning');
    assert.is(bad.status?.operationalStatus, 'error');
    assert.is(bad.status?.errorCount, 1);
    await hostsOf(ns).mergePatch('insp', { metadata: { annotations: { [FAIL_ANNOTATION]: null } } } as never);
    const good = await until(ns, 'insp', 'provisioned and on', (h) => inState('provisioned')(h) && h.status?.poweredOn === true);
    await recorder.stopAfter('insp', 'provisioned');
    // Deprovisioning clears the saved settings, so the host prepares again before the second attempt (as BMO).
    assert.equal(recorder.states('insp'), [
      'available',
      'provisioning',
      'deprovisioning',
      'available',
      'preparing',
      'available',
      'provisioning',
      'provisioned',
    ]);
    assert.is(good.status?.errorType, undefined);
    assert.is(good.status?.operationalStatus, 'OK');

    // A power fault on a provisioned host.
    await hostsOf(ns).mergePatch('insp', { metadata: { annotations: { [FAIL_ANNOTATION]: 'power' } }, spec: { online: false } });
    const stuck = await until(ns, 'insp', 'a power management error', (h) => h.status?.errorType === 'power management error');
    assert.is(stuck.status?.poweredOn, true);
    await hostsOf(ns).mergePatch('insp', { metadata: { annotations: { [FAIL_ANNOTATION]: null } } } as never);
    const off = await until(ns, 'insp', 'powered off', (h) => h.status?.poweredOn === false);
    assert.is(off.status?.operationalStatus, 'OK');
    assert.is(off.status?.errorCount, 0);
  }));

test('deleting a provisioned host deprovisions it, powers it off, then the finalizer goes and the host is gone', () =>
  withBmo({}, async (ns) => {
    await createHost(ns, 'doomed', { spec: { online: true, image: IMAGE } });
    await until(ns, 'doomed', 'provisioned', inState('provisioned'));
    const recorder = await recordStates(ns);
    await hostsOf(ns).delete('doomed');
    const end = performance.now() + 10_000;
    for (;;) {
      try {
        await hostsOf(ns).get('doomed');
      } catch (error) {
        if (error instanceof NotFoundError) break;
        throw error;
      }
      if (performance.now() > end) throw new Error(`host not deleted; states ${recorder.states('doomed').join(' → ')}`);
      await sleep(25);
    }
    await recorder.stopAfter('doomed', '<deleted>');
    assert.equal(recorder.states('doomed'), ['provisioned', 'deprovisioning', 'powering off before delete', 'deleting', '<deleted>']);
  }));

test('a host recreated without status (clusterctl move) gets it back from the status annotation, which is then dropped', () =>
  withBmo({}, async (ns) => {
    const saved = {
      operationalStatus: 'OK',
      errorMessage: '',
      errorCount: 0,
      poweredOn: true,
      lastUpdated: '2026-01-01T00:00:00Z',
      provisioning: { ID: 'moved-id', state: 'provisioned', image: IMAGE },
    };
    await createHost(ns, 'moved', { spec: { online: true, image: IMAGE }, annotations: { [STATUS_ANNOTATION]: JSON.stringify(saved) } });
    // BMO's order: restore the status, drop the annotation, then add its finalizer.
    const h = await until(ns, 'moved', 'restored, annotation dropped, finalizer on', (x) =>
      inState('provisioned')(x) && x.metadata.annotations?.[STATUS_ANNOTATION] === undefined && x.metadata.finalizers !== undefined);
    assert.equal(h.status?.provisioning.image, IMAGE);
    assert.is(h.status?.poweredOn, true);
    assert.equal(h.metadata.finalizers, [BMO_FINALIZER]);
  }));

test('timed mode: inspection, provisioning and deprovisioning take their configured durations', () =>
  withBmo({ speed: 'bmoTestMode', timings: { inspectionMs: 300, provisioningMs: 400, deprovisioningMs: 300 } }, async (ns) => {
    const recorder = await recordStates(ns);
    await createHost(ns, 'slow', { spec: { online: true, image: IMAGE } });
    const h = await until(ns, 'slow', 'provisioned', inState('provisioned'));
    const span = (op: { start?: string | null; end?: string | null } | undefined) => Date.parse(op?.end ?? '') - Date.parse(op?.start ?? '');
    const inspect = span(h.status?.operationHistory?.inspect);
    const provision = span(h.status?.operationHistory?.provision);
    assert.ok(inspect >= 300 && inspect < 1_500, `inspection took ${inspect} ms`);
    assert.ok(provision >= 400 && provision < 1_500, `provisioning took ${provision} ms`);
    await hostsOf(ns).mergePatch('slow', { spec: { image: null } } as never);
    const back = await until(ns, 'slow', 'available', (x) => inState('available')(x) && x.status?.operationHistory?.deprovision?.end != null);
    await recorder.stopAfter('slow', 'available');
    const deprovision = span(back.status?.operationHistory?.deprovision);
    assert.ok(deprovision >= 300 && deprovision < 1_500, `deprovisioning took ${deprovision} ms`);
    assert.equal(recorder.states('slow').slice(0, 7), ['registering', 'inspecting', 'preparing', 'available', 'provisioning', 'provisioned', 'deprovisioning']);
  }));

test.run();
