// External remediation through CAPM3's Metal3Remediation (issue 19), with the real Cluster API's
// MachineHealthCheck: its `remediationTemplate` names a Metal3RemediationTemplate (manifests/remediation:
// reboot, timeout 100 s, retryLimit 1), so an unhealthy worker gets exactly one Metal3Remediation named
// after its Machine. (1) The kubelet reports NotReady and the power cycle cures it (the test lifts the
// NotReady annotation while the host is off): the host goes off and on, the Node comes back Ready, the
// MHC deletes the remediation, and the Machine is kept. (2) The kubelet stays dead: after the first
// cycle and one retry the controller gives up, sets OwnerRemediated False in v1beta1 and v1beta2 (S-1),
// the MachineSet deletes the Machine and the replacement reclaims the same host (node reuse, N-6).
// The Metal3 objects are written at METAL3_VERSION (support.ts; issue 18).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { fileURLToPath } from 'node:url';
import { type Machine, MachineHealthCheckResource, MachineResource } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { type Metal3Remediation, Metal3RemediationResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { type BareMetalHost, BareMetalHostResource } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { KUBELET_NOT_READY_ANNOTATION, KUBELET_STOPPED_ANNOTATION } from '@metal3-ts/test/sim/workload/index';
import { type Lab, startLab } from '../lab/lab.ts';
import { CAPI, eventually, hostsByMachine, labUntil, METAL3, nodes, running, seconds } from './support.ts';
import { startTimeline } from './timeline.ts';

const MANIFESTS = fileURLToPath(new URL('../../manifests/remediation', import.meta.url));
const MHC_NAME = 'md-0-unhealthy-nodes';
const REBOOT_PREFIX = 'reboot.metal3.io/metal3-remediation-';

const conditions = (cs: readonly { type: string; status: string }[] | undefined) =>
  (cs ?? []).filter((c) => ['HealthCheckSucceeded', 'OwnerRemediated'].includes(c.type)).map((c) => `${c.type}=${c.status}`).join(' ');
const machineLine = (m: Machine) =>
  `${m.status?.phase ?? 'Pending'}${m.metadata.deletionTimestamp ? ' (deleting)' : ''} v1beta1[${conditions(m.status?.conditions)}] v1beta2[${
    conditions(m.status?.v1beta2?.conditions)
  }]`;
const hostLine = (h: BareMetalHost) =>
  `${h.status?.provisioning?.state || 'new'} power=${h.status?.poweredOn ? 'on' : 'off'} consumer=${h.spec?.consumerRef?.name ?? '-'}${
    Object.keys(h.metadata.annotations ?? {}).some((a) => a.startsWith(REBOOT_PREFIX)) ? ' reboot' : ''
  }`;
const remediationLine = (r: Metal3Remediation) =>
  `${r.status?.phase || 'new'} retry=${r.status?.retryCount ?? 0}${r.metadata.deletionTimestamp ? ' (deleting)' : ''}`;

const bothHealthy = (lab: Lab) =>
  eventually('the MachineHealthCheck counting 2 healthy workers', async () => {
    const mhc = await lab.client.api(MachineHealthCheckResource, lab.namespace).get(MHC_NAME);
    return mhc.status?.expectedMachines === 2 && mhc.status.currentHealthy === 2 ? mhc : undefined;
  }, 180_000);

/** The n-th worker (by name) with its Metal3Machine and host. */
async function worker(lab: Lab, n: number) {
  const up = await running(lab, 240_000);
  await bothHealthy(lab);
  const workers = up.machines.filter((m) => m.metadata.labels?.['nodepool'] === 'nodepool-0').sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : 1));
  const machine = workers[n]!;
  const m3m = machine.spec?.infrastructureRef.name ?? '';
  return { machine, m3m, host: hostsByMachine(up).get(m3m)!, originals: new Set(up.machines.map((m) => m.metadata.name)) };
}

function scenario(version: string): void {
  const test = suite(
    `end to end: MachineHealthCheck external remediation by Metal3Remediation, real Cluster API ${version}, Metal3 objects at ${METAL3}`,
  );
  let lab: Lab;
  test.before(async () => {
    lab = await startLab({ hosts: 4, controlPlaneHosts: 1, capi: version, manifests: MANIFESTS, metal3Version: METAL3 });
  });
  test.after(async () => {
    await lab?.stop();
  });

  test(`${version}: RS-1…RS-14 a NotReady Node gets one Metal3Remediation, the host is power-cycled, the Node comes back, the MHC deletes the remediation and the Machine is kept`, async () => {
    const { client, namespace } = lab;
    const victim = await worker(lab, 0);
    const name = victim.machine.metadata.name!;
    const hosts = await startTimeline(client.api(BareMetalHostResource, namespace), hostLine);
    const remediations = await startTimeline(client.api(Metal3RemediationResource, namespace), remediationLine);
    const explain = () => [...hosts.lines(), ...remediations.lines()];
    try {
      const t0 = performance.now();
      await client.api(BareMetalHostResource, namespace).mergePatch(victim.host, { metadata: { annotations: { [KUBELET_NOT_READY_ANNOTATION]: victim.m3m } } });
      await eventually('a Metal3Remediation named after the Machine', () => remediations.find((e) => e.name === name), { timeoutMs: 120_000, explain });
      console.log(`    ${version}: Metal3Remediation ${name} after ${seconds(t0)} s`);
      await eventually('the host powered off', () => hosts.find((e) => e.name === victim.host && e.line.includes('power=off')), { timeoutMs: 60_000, explain });
      // The reboot cures the kubelet.
      await client.api(BareMetalHostResource, namespace).mergePatch(victim.host, { metadata: { annotations: { [KUBELET_NOT_READY_ANNOTATION]: null } } });
      await eventually('the remediation deleted by the MHC (Machine healthy again)', () => remediations.find((e) => e.name === name && e.line === 'deleted'), {
        timeoutMs: 180_000,
        explain,
      });
      console.log(`    ${version}: remediation done, deleted by the MHC after ${seconds(t0)} s`);
      const m = await client.api(MachineResource, namespace).get(name);
      assert.is(m.metadata.uid, victim.machine.metadata.uid, 'the same Machine');
      assert.not.ok(m.metadata.deletionTimestamp, 'the Machine is kept');
      const ofHost = hosts.of(victim.host).map((e) => e.line);
      const off = ofHost.findIndex((l) => l.includes('power=off'));
      assert.ok(off >= 0 && ofHost.slice(off).some((l) => l.includes('power=on') && !l.includes('reboot')), `power-cycled:\n${ofHost.join('\n')}`);
      assert.equal(
        [...new Set(remediations.entries.map((e) => e.name))],
        [name],
        `exactly one Metal3Remediation:\n${remediations.lines().join('\n')}`,
      );
      await eventually(`Node of ${name} Ready`, async () => {
        const n = (await nodes(client, namespace)).find((x) => x.metadata.name === m.status?.nodeRef?.name);
        return n?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ? n : undefined;
      });
      await bothHealthy(lab);
      for (const line of explain()) console.log(`      ${line}`);
    } finally {
      hosts.stop();
      remediations.stop();
    }
  });

  test(`${version}: RS-13/RS-15/RS-18/S-1 the Node never comes back → after retryLimit (1) the Machine gets OwnerRemediated False (v1beta1 and v1beta2), is deleted, and its replacement reclaims the same host (N-6)`, async () => {
    const { client, namespace } = lab;
    const victim = await worker(lab, 1);
    const name = victim.machine.metadata.name!;
    const machines = await startTimeline(client.api(MachineResource, namespace), machineLine);
    const remediations = await startTimeline(client.api(Metal3RemediationResource, namespace), remediationLine);
    const explain = () => [...machines.lines(), ...remediations.lines()];
    try {
      const t0 = performance.now();
      await client.api(BareMetalHostResource, namespace).mergePatch(victim.host, { metadata: { annotations: { [KUBELET_STOPPED_ANNOTATION]: victim.m3m } } });
      await eventually('the retry', () => remediations.find((e) => e.name === name && e.line.includes('retry=1')), { timeoutMs: 240_000, explain });
      console.log(`    ${version}: retry after ${seconds(t0)} s`);
      const handedBack = await eventually(
        'OwnerRemediated False in v1beta2',
        () => machines.find((e) => e.name === name && /v1beta2\[.*OwnerRemediated=False/.test(e.line)),
        { timeoutMs: 240_000, explain },
      );
      console.log(`    ${version}: given up after ${seconds(t0)} s: ${handedBack.line}`);
      assert.match(handedBack.line, /v1beta1\[.*OwnerRemediated=False/);
      await eventually(`Machine ${name} deleted`, () => machines.find((e) => e.name === name && e.line === 'deleted'), { timeoutMs: 120_000, explain });
      const replacement = await eventually('a replacement Machine', () => machines.find((e) => e.line !== 'deleted' && !victim.originals.has(e.name)), {
        timeoutMs: 120_000,
        explain,
      });
      const done = await labUntil(lab, `replacement ${replacement.name} Running`, (s) => {
        const m = s.machines.find((x) => x.metadata.name === replacement.name);
        return m?.status?.phase === 'Running' && !!m.status.nodeRef && hostsByMachine(s).has(m.spec?.infrastructureRef.name ?? '');
      }, 240_000);
      const m = done.machines.find((x) => x.metadata.name === replacement.name)!;
      assert.is(hostsByMachine(done).get(m.spec?.infrastructureRef.name ?? ''), victim.host, 'the replacement reclaimed the host (node reuse)');
      console.log(`    ${version}: replacement ${replacement.name} Running on ${victim.host} after ${seconds(t0)} s`);
      for (const line of explain()) console.log(`      ${line}`);
    } finally {
      machines.stop();
      remediations.stop();
    }
  });

  test.run();
}

if (CAPI !== 'sim') scenario(CAPI);
