// The data controllers in the test process through the shared runner
// (@metal3-ts/test/testing/controller-runner: as main.ts runs them but with credentials bound to
// exactly deploy/rbac.yaml, an exact request counter and the reconcile counters); the suite every
// data test file runs in; plus a scene builder (Cluster, Machine, Metal3Machine, BareMetalHost,
// claim, template, Metal3Data created directly, as the allocation side and Cluster API would) and
// pollers.
import { Buffer } from 'node:buffer';
import { fileURLToPath } from 'node:url';
import * as assert from 'uvu/assert';
import type { Client, KubeObject, ResourceDescriptor } from '@metal3-ts/generated';
import { type Event, EventResource, SecretResource } from '@metal3-ts/generated/core/v1';
import { isNotFound } from '@metal3-ts/generated/runtime/errors';
import { type Cluster, ClusterResource, type Machine, MachineResource, newCluster, newMachine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import {
  type Metal3Data,
  type Metal3DataClaim,
  Metal3DataClaimResource,
  Metal3DataResource,
  type Metal3DataTemplate,
  Metal3DataTemplateResource,
  type Metal3DataTemplateSpec,
  type Metal3Machine,
  Metal3MachineResource,
  newMetal3Data,
  newMetal3DataClaim,
  newMetal3DataTemplate,
  newMetal3Machine,
} from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { type IPPool, IPPoolResource, type IPPoolSpec, newIPPool } from '@metal3-ts/generated/ipam.metal3.io/v1alpha1';
import { type BareMetalHost, BareMetalHostResource, type BareMetalHostStatusHardwareNics, newBareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import type { TestEnv } from '@metal3-ts/test/envtest/env';
import { ipamSimulator, type RunningSimulators, simulatorDeps, startSimulators } from '@metal3-ts/test/sim/index';
import { type RunningController, runningProblems as explain, startInProcess } from '@metal3-ts/test/testing/controller-runner';
import { type ControllerSuite, controllerSuite } from '@metal3-ts/test/testing/controller-suite';
import { objectGone, objectWhen } from '@metal3-ts/test/testing/objects';
import { dataControllers, type DataControllersConfig } from '../src/controller.ts';
import { DATA_CONTROLLER_NAME, DATA_TEMPLATE_CONTROLLER_NAME } from '../src/names.ts';

export const RBAC_MANIFEST = fileURLToPath(new URL('../deploy/rbac.yaml', import.meta.url));

export { eventually, settled } from '@metal3-ts/test/testing/controller-runner';
export { sleep } from '@metal3-ts/test/testing/eventually';

/** Both data controllers (Metal3Data, Metal3DataTemplate) running as one: `reconciles(name)` counts one of them. */
export type RunningControllers = RunningController;

/** Starts both controllers as a fresh user bound to deploy/rbac.yaml, caching only `namespace`. */
export function startDataControllers(env: TestEnv, namespace: string, config: DataControllersConfig = {}): Promise<RunningControllers> {
  return startInProcess(env, namespace, {
    rbac: RBAC_MANIFEST,
    user: 'data-controller',
    component: 'metal3-ts-data',
    controllers: [DATA_CONTROLLER_NAME, DATA_TEMPLATE_CONTROLLER_NAME],
    // DATA_TEST_LOG=1 prints everything the controllers log (for debugging a test).
    verboseEnv: 'DATA_TEST_LOG',
    // A long safety-net requeue: the tests show that watches, not polling, move things along.
    build: (deps) => dataControllers({ ...deps, config: { dataConcurrency: 2, templateConcurrency: 2, requeueAfterMs: 120_000, ...config } }),
  });
}

/** Resolves once `name` is gone (404). */
export function gone<T extends KubeObject>(
  client: Client,
  descriptor: ResourceDescriptor<T>,
  namespace: string,
  name: string,
  timeoutMs = 10_000,
): Promise<true> {
  return objectGone(client, descriptor, namespace, name, { timeoutMs, explain });
}

/** Polls the object until `check` accepts it. */
export function when<T extends KubeObject>(
  client: Client,
  descriptor: ResourceDescriptor<T>,
  namespace: string,
  name: string,
  what: string,
  check: (o: T) => boolean,
  timeoutMs = 10_000,
): Promise<T> {
  return objectWhen(client, descriptor, namespace, name, what, check, { timeoutMs, explain });
}

export const dataWhen = (client: Client, namespace: string, name: string, what: string, check: (d: Metal3Data) => boolean, timeoutMs?: number) =>
  when(client, Metal3DataResource, namespace, name, what, check, timeoutMs);

/** The UTF-8 text under `key` of Secret `name`, or undefined when the Secret does not exist. */
export async function secretText(client: Client, namespace: string, name: string, key: string): Promise<string | undefined> {
  try {
    const secret = await client.api(SecretResource, namespace).get(name);
    const value = secret.data?.[key];
    return value === undefined ? undefined : Buffer.from(value, 'base64').toString('utf8');
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/** Events of `reason` about object `name`. */
export async function eventsFor(client: Client, namespace: string, name: string, reason: string): Promise<Event[]> {
  const list = await client.api(EventResource, namespace).list();
  return list.items.filter((e) => e.involvedObject.name === name && e.reason === reason);
}

const infra = 'infrastructure.cluster.x-k8s.io/v1beta1';
const capiV1 = 'cluster.x-k8s.io/v1beta1';
const ref = (o: KubeObject, controller = true) => ({
  apiVersion: o.apiVersion,
  kind: o.kind,
  name: o.metadata.name!,
  uid: o.metadata.uid!,
  ...(controller ? { controller: true } : {}),
});

/** The names upstream's tests use (research §5.6). */
export const M3M = 'baremetal-testmetal3machine';
export const MACHINE = 'baremetal-testmachine';
export const HOST = 'baremetal-testbaremetalhost';
export const CLUSTER = 'cluster1';
export const TEMPLATE = 'tmpl';
export const DATA = `${TEMPLATE}-0`;

export const NICS: BareMetalHostStatusHardwareNics[] = [
  { name: 'eth0', mac: '00:11:22:33:44:55' },
  { name: 'eth1', mac: '00:11:22:33:44:66' },
];

export interface SceneOptions {
  /** The template's spec beyond clusterName (default: V-2's). */
  readonly template?: Omit<Metal3DataTemplateSpec, 'clusterName'>;
  /** Host NICs (default NICS); null leaves the host without hardware details. */
  readonly nics?: BareMetalHostStatusHardwareNics[] | null;
  readonly hostAnnotations?: Record<string, string>;
  /** The host's spec.bootMACAddress (B2-21); unset when absent. */
  readonly bootMAC?: string;
  /** Leave out parts of the scene, to create them later. */
  readonly without?: readonly ('cluster' | 'host' | 'hostAnnotation' | 'machine' | 'template' | 'data')[];
  /** Extra labels for the Metal3Data. */
  readonly dataLabels?: Record<string, string>;
  /** The template the Metal3Machine's spec.dataTemplate names (default: the scene's). */
  readonly metal3MachineTemplate?: string;
}

export interface Scene {
  readonly namespace: string;
  readonly machine?: Machine;
  readonly metal3Machine: Metal3Machine;
  readonly claim: Metal3DataClaim;
  readonly template?: Metal3DataTemplate;
  readonly data?: Metal3Data;
}

/** V-2's template: one string, one ethernet with a literal MAC. */
export const V2_TEMPLATE: Omit<Metal3DataTemplateSpec, 'clusterName'> = {
  metaData: { strings: [{ key: 'String-1', value: 'String-1' }] },
  networkData: { links: { ethernets: [{ type: 'phy', id: 'eth0', mtu: 1500, macAddress: { string: '12:34:56:78:9A:BC' } }] } },
};

export function createCluster(client: Client, namespace: string, name = CLUSTER, paused = false): Promise<Cluster> {
  return client.api(ClusterResource, namespace).create(newCluster({ metadata: { name }, spec: { paused } }));
}

export function createTemplate(
  client: Client,
  namespace: string,
  spec: Omit<Metal3DataTemplateSpec, 'clusterName'> = V2_TEMPLATE,
  name = TEMPLATE,
  extra: Partial<Metal3DataTemplate['metadata']> = {},
): Promise<Metal3DataTemplate> {
  return client.api(Metal3DataTemplateResource, namespace).create(
    newMetal3DataTemplate({ metadata: { name, ...extra }, spec: { clusterName: CLUSTER, ...spec } }),
  );
}

/** A BareMetalHost whose status carries `nics` (or no hardware details at all). */
export async function createHost(
  client: Client,
  namespace: string,
  nics: BareMetalHostStatusHardwareNics[] | null = NICS,
  annotations: Record<string, string> = {},
  bootMAC?: string,
): Promise<BareMetalHost> {
  const api = client.api(BareMetalHostResource, namespace);
  const spec = { online: true, ...(bootMAC === undefined ? {} : { bootMACAddress: bootMAC }) };
  const host = await api.create(newBareMetalHost({ metadata: { name: HOST, labels: { BMH: 'BMHLabel' }, annotations }, spec }));
  return api.mergePatchStatus(HOST, {
    status: {
      errorCount: 0,
      errorMessage: '',
      operationalStatus: 'OK',
      poweredOn: true,
      provisioning: { ID: host.metadata.uid ?? '', state: 'provisioned' },
      ...(nics ? { hardware: { hostname: HOST, nics } } : {}),
    },
  });
}

/** Sets the host annotation on the Metal3Machine (what the Metal3Machine controller does, M-41). */
export function annotateHost(client: Client, namespace: string): Promise<Metal3Machine> {
  return client.api(Metal3MachineResource, namespace).mergePatch(M3M, { metadata: { annotations: { 'metal3.io/BareMetalHost': `${namespace}/${HOST}` } } });
}

/** The Metal3Data as the allocation side creates it for `claim` (DT-13, without its finalizer). */
export function createData(
  client: Client,
  namespace: string,
  claim: Metal3DataClaim,
  metal3Machine: Metal3Machine,
  labels: Record<string, string> = {},
  index = 0,
): Promise<Metal3Data> {
  return client.api(Metal3DataResource, namespace).create(
    newMetal3Data({
      metadata: {
        name: `${TEMPLATE}-${index}`,
        labels: { 'cluster.x-k8s.io/cluster-name': CLUSTER, ...labels },
        ownerReferences: [
          { apiVersion: infra, kind: 'Metal3DataClaim', name: claim.metadata.name!, uid: claim.metadata.uid! },
          { apiVersion: infra, kind: 'Metal3Machine', name: metal3Machine.metadata.name!, uid: metal3Machine.metadata.uid! },
        ],
      },
      spec: { index, template: { name: TEMPLATE, namespace }, claim: { name: claim.metadata.name!, namespace } },
    }),
  );
}

/**
 * The objects of research V-2 around one Metal3Data: Cluster, Machine owning the Metal3Machine
 * (annotated with its host), the host with NICs, the claim the Metal3Machine owns, the template and
 * the Metal3Data — each optional, to be created later by the test.
 */
export async function createScene(client: Client, namespace: string, options: SceneOptions = {}): Promise<Scene> {
  const without = new Set(options.without ?? []);
  if (!without.has('cluster')) await createCluster(client, namespace);
  const machine = without.has('machine') ? undefined : await client.api(MachineResource, namespace).create(
    newMachine({
      metadata: { name: MACHINE, labels: { 'cluster.x-k8s.io/cluster-name': CLUSTER, Machine: 'MachineLabel' } },
      spec: { clusterName: CLUSTER, bootstrap: { dataSecretName: 'bootstrap' }, infrastructureRef: { apiVersion: infra, kind: 'Metal3Machine', name: M3M } },
    }),
  );
  if (!without.has('host')) await createHost(client, namespace, options.nics === undefined ? NICS : options.nics, options.hostAnnotations, options.bootMAC);
  const metal3Machine = await client.api(Metal3MachineResource, namespace).create(
    newMetal3Machine({
      metadata: {
        name: M3M,
        labels: { 'cluster.x-k8s.io/cluster-name': CLUSTER, M3M: 'Metal3MachineLabel' },
        annotations: without.has('hostAnnotation') ? {} : { 'metal3.io/BareMetalHost': `${namespace}/${HOST}` },
        ownerReferences: machine ? [{ ...ref(machine), apiVersion: capiV1 }] : [],
      },
      spec: {
        image: { url: 'http://172.22.0.1/images/node.img', checksum: 'http://172.22.0.1/images/node.img.sha256sum' },
        dataTemplate: { name: options.metal3MachineTemplate ?? TEMPLATE, namespace },
      },
    }),
  );
  const claim = await client.api(Metal3DataClaimResource, namespace).create(
    newMetal3DataClaim({
      metadata: { name: M3M, labels: { 'cluster.x-k8s.io/cluster-name': CLUSTER }, ownerReferences: [ref(metal3Machine)] },
      spec: { template: { name: TEMPLATE, namespace } },
    }),
  );
  const template = without.has('template') ? undefined : await createTemplate(client, namespace, options.template ?? V2_TEMPLATE);
  const data = without.has('data') ? undefined : await createData(client, namespace, claim, metal3Machine, options.dataLabels);
  return { namespace, ...(machine ? { machine } : {}), metal3Machine, claim, ...(template ? { template } : {}), ...(data ? { data } : {}) };
}

/** A Metal3 IPPool served by the IPAM simulator. */
export function createPool(client: Client, namespace: string, name: string, spec: Omit<IPPoolSpec, 'namePrefix'>): Promise<IPPool> {
  return client.api(IPPoolResource, namespace).create(newIPPool({ metadata: { name }, spec: { namePrefix: name, ...spec } }));
}

export interface DataSuiteOptions {
  /** What the no-failed-reconcile check says when it fails. */
  readonly errorsMessage?: string;
  /** The IPAM simulator runs for the whole file (it answers the IPClaims). */
  readonly ipam?: boolean;
}

/**
 * The suite of a data test file: each controller pair a test started, once stopped, sent no request
 * deploy/rbac.yaml forbids and had no failed reconcile (bad input is status and an event).
 */
export function dataSuite(title: string, options: DataSuiteOptions = {}): ControllerSuite<RunningControllers> {
  const s = controllerSuite<RunningControllers>(title, {
    afterStop(stopped) {
      assert.is(stopped.counter.count({ code: 403 }), 0, 'no request was forbidden by deploy/rbac.yaml');
      assert.is(stopped.errors(), 0, options.errorsMessage);
    },
  });
  if (options.ipam) {
    let sims: RunningSimulators | undefined;
    s.test.before(async () => {
      const deps = simulatorDeps(s.env().admin);
      sims = await startSimulators(deps, ipamSimulator(deps));
    });
    s.test.after(() => sims?.stop());
  }
  return s;
}
