// The RBAC write suite's scene of the Metal3Remediation controller (RS-10…RS-13): a worker Machine
// whose Metal3Machine holds a host the simulated BMO keeps powered (externally provisioned, so it
// needs no image and follows the reboot annotation), its Node, the `c-kubeconfig` Secret, and the
// Metal3Remediation a MachineHealthCheck would create. The management apiserver doubles as the
// workload cluster (the Secret holds the admin kubeconfig), as in the controller's own tests.
// The Metal3Machine was cloned from a Metal3MachineTemplate without node reuse. Converged: the first
// power cycle done (phase Waiting, host back on, the Node deleted); the remediation then waits for its
// timeout. giveUpScene moves the case's clock past it twice (RS-13: one retry, then giving up).
import { Buffer } from 'node:buffer';
import type { Client, KubeObject, ResourceDescriptor } from '@metal3-ts/generated';
import { MachineResource, newMachine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { NodeResource, SecretResource } from '@metal3-ts/generated/core/v1';
import {
  Metal3MachineResource,
  Metal3MachineTemplateResource,
  Metal3RemediationResource,
  newMetal3Machine,
  newMetal3MachineTemplate,
  newMetal3Remediation,
} from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { CLONED_FROM_NAME_ANNOTATION } from '@metal3-ts/shared/meta/cloned-from';
import { BareMetalHostResource } from '@metal3-ts/generated/metal3.io/v1alpha1';
import type { TestEnv } from '@metal3-ts/test/envtest/env';
import { bmoSimulator, simulatedHost } from '@metal3-ts/test/sim/bmo/index';
import { simulatorDeps, startSimulators } from '@metal3-ts/test/sim/simulator';
import { eventually } from '@metal3-ts/test/testing/eventually';
import type { SceneClock } from './clock.ts';
import type { Scene } from './scenes.ts';

const CLUSTER = 'c';
const NAME = 'worker-0';
const TEMPLATE = 'workers';
const REBOOT_PREFIX = 'reboot.metal3.io/';
const TIMEOUT_MS = 100_000;
/** The annotation that keeps a host out of selection (CAPM3 v1.13's key); set on giving up unless the template reuses nodes (RS-15). */
const UNHEALTHY = 'capm3.metal3.io/unhealthy';

/** The base scene, which also tells what its last convergence check saw (for a wait that times out). */
export interface RemediationScene extends Scene {
  seen(): string;
}

export async function remediationScene(env: TestEnv, admin: Client, ns: string): Promise<RemediationScene> {
  const deps = simulatorDeps(env.admin);
  const sims = await startSimulators(deps, bmoSimulator(deps, {}));
  const node = `${ns}-${NAME}`;
  const hosts = admin.api(BareMetalHostResource, ns);
  try {
    await admin.api(SecretResource, ns).create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: `${CLUSTER}-kubeconfig`, labels: { 'cluster.x-k8s.io/cluster-name': CLUSTER } },
      type: 'cluster.x-k8s.io/secret',
      data: { value: Buffer.from(env.admin.kubeconfig, 'utf8').toString('base64') },
    });
    const consumerRef = { apiVersion: Metal3MachineResource.apiVersion, kind: 'Metal3Machine', name: NAME, namespace: ns };
    const { host, secret } = simulatedHost('host-0', { namespace: ns, spec: { externallyProvisioned: true, consumerRef } });
    await admin.api(SecretResource, ns).create(secret);
    await hosts.create(host);
    await eventually('the host externally provisioned and powered on', async () => {
      const h = await hosts.get('host-0');
      return h.status?.provisioning?.state === 'externally provisioned' && h.status.poweredOn ? true : undefined;
    }, { timeoutMs: 30_000, pollMs: 200 });
    const machine = await admin.api(MachineResource, ns).create(newMachine({
      metadata: { name: NAME, labels: { 'cluster.x-k8s.io/cluster-name': CLUSTER } },
      spec: {
        clusterName: CLUSTER,
        bootstrap: { dataSecretName: 'bootstrap' },
        infrastructureRef: { apiVersion: Metal3MachineResource.apiVersion, kind: 'Metal3Machine', name: NAME },
      },
    }));
    await admin.api(MachineResource, ns).mergePatchStatus(NAME, { status: { nodeRef: { kind: 'Node', name: node } } });
    const owner = { apiVersion: machine.apiVersion, kind: 'Machine', name: NAME, uid: machine.metadata.uid ?? '' };
    await admin.api(Metal3MachineTemplateResource, ns).create(
      newMetal3MachineTemplate({ metadata: { name: TEMPLATE }, spec: { nodeReuse: false, template: { spec: { customDeploy: { method: 'x' } } } } }),
    );
    const annotations = { 'metal3.io/BareMetalHost': `${ns}/host-0`, [CLONED_FROM_NAME_ANNOTATION]: TEMPLATE };
    await admin.api(Metal3MachineResource, ns).create(newMetal3Machine({
      metadata: { name: NAME, ownerReferences: [owner], annotations },
      spec: { customDeploy: { method: 'x' } },
    }));
    await admin.api(NodeResource).create({ apiVersion: 'v1', kind: 'Node', metadata: { name: node, labels: { zone: 'a' } } });
    await admin.api(Metal3RemediationResource, ns).create(newMetal3Remediation({
      metadata: { name: NAME, ownerReferences: [owner] },
      spec: { strategy: { type: 'Reboot', retryLimit: 1, timeout: `${TIMEOUT_MS / 1000}s` } },
    }));
  } catch (error) {
    await sims.stop();
    throw error;
  }
  let seen = 'nothing yet';
  return {
    descriptor: Metal3RemediationResource as unknown as ResourceDescriptor<KubeObject>,
    name: NAME,
    reported: () => [],
    seen: () => seen,
    converged: async () => {
      const r = await admin.api(Metal3RemediationResource, ns).get(NAME);
      const h = await hosts.get('host-0');
      const rebooting = Object.keys(h.metadata.annotations ?? {}).some((a) => a.startsWith(REBOOT_PREFIX));
      const nodeGone = !(await admin.api(NodeResource).list()).items.some((n) => n.metadata.name === node);
      seen = `phase ${r.status?.phase ?? '-'} retryCount ${r.status?.retryCount ?? 0} finalizers [${r.metadata.finalizers ?? []}]; ` +
        `host ${h.status?.provisioning?.state} poweredOn ${h.status?.poweredOn} reboot annotation ${rebooting}; Node ${nodeGone ? 'gone' : 'present'}`;
      return r.status?.phase === 'Waiting' && !rebooting && h.status?.poweredOn === true && nodeGone;
    },
    stop: () => sims.stop(),
  };
}

/**
 * RS-13/RS-15: the base scene's first power cycle done, the clock moved past the timeout (the one
 * retry: a second power cycle), then past it again: the controller gives up, which hands the Machine
 * back (OwnerRemediated False, S-1), reads the template for node reuse and marks the host unhealthy.
 * Each move is followed by a label change on the remediation, as its requeue runs on the real clock.
 */
export async function giveUpScene(base: RemediationScene, admin: Client, ns: string, clock: SceneClock): Promise<Scene> {
  const remediations = admin.api(Metal3RemediationResource, ns);
  const timeOut = async (n: number) => {
    clock.advance(TIMEOUT_MS + 1_000);
    await remediations.mergePatch(NAME, { metadata: { labels: { 'rbac-suite/timed-out': String(n) } } });
  };
  const cycled = (retries: number) => async () => ((await remediations.get(NAME)).status?.retryCount ?? 0) === retries && (await base.converged()) || undefined;
  const explain = () => [`last seen: ${base.seen()}`];
  await eventually('the first power cycle done', cycled(0), { timeoutMs: 30_000, pollMs: 200, explain });
  await timeOut(1);
  await eventually('the retry power cycle done', cycled(1), { timeoutMs: 30_000, pollMs: 200, explain });
  await timeOut(2);
  return {
    ...base,
    converged: async () => {
      const r = await remediations.get(NAME);
      const m = await admin.api(MachineResource, ns).get(NAME);
      const h = await admin.api(BareMetalHostResource, ns).get('host-0');
      const handedBack = (m.status?.v1beta2?.conditions ?? []).some((c) => c.type === 'OwnerRemediated' && c.status === 'False');
      return r.status?.phase === 'Deleting machine' && handedBack && h.metadata.annotations?.[UNHEALTHY] !== undefined;
    },
  };
}
