// S-11, storage migration, as an upgrade meets it, against a real apiserver and etcd: our CRDs store
// v1beta1 (the generation before, as CAPM3 v1.12 stores its objects) and hold seeded samples of all
// nine kinds, spec and status; the CRDs are upgraded to store v1beta2 through the conversion webhook
// process, which leaves every object encoded at v1beta1 in etcd and both versions in storedVersions
// (the apiserver then refuses to drop v1beta1 from a CRD). Each controller's storage migration runs in
// the test process as a user bound to exactly its deploy/rbac.yaml: afterwards etcd holds every
// object at v1beta2, each reads back at v1beta1 exactly as written, every CRD's storedVersions is
// [v1beta2] with a Normal event saying so, and v1beta1 may leave a CRD. An object that cannot be
// written (a policy denies it) holds its CRD's trim back, with a Warning event naming it, until it can.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { apiSample } from '@metal3-ts/controller-conversion/convert/testing/samples';
import type { ResourceDescriptor } from '@metal3-ts/generated';
import { resourceName } from '@metal3-ts/shared/meta/resource-name';
import { STORAGE_MIGRATED, STORAGE_MIGRATION_FAILED, storageMigrationController } from '@metal3-ts/shared/storage/controller';
import { type ConversionWebhook, startConversionWebhook, storingV1beta2 } from '@metal3-ts/test/envtest/conversion';
import { type Crd, installCrds, loadOurCrds } from '@metal3-ts/test/envtest/crds';
import { startEnv, type TestEnv } from '@metal3-ts/test/envtest/env';
import type { KubeObject } from '@metal3-ts/test/envtest/http';
import { freshNamespace } from '@metal3-ts/test/envtest/suite';
import { eventually, type RunningController, startInProcess } from '@metal3-ts/test/testing/controller-runner';
import { MIGRATIONS as BY_CONTROLLER } from '../rbac/in-process.ts';
import { type ControllerName, rbacPath } from '../rbac/verbs.ts';
import { canonicalWritten, etcdApiVersion } from './support.ts';

const test = suite('S-11 storage migration: an upgrade from v1beta1 storage, every object rewritten by the controller that writes its kind');
const GROUP = 'infrastructure.cluster.x-k8s.io';
const SAMPLES = 3;
/** Each controller with its controller name and the kinds its entry migrates. */
const MIGRATIONS = Object.entries(BY_CONTROLLER).map(([c, [name, kinds]]) => [c as ControllerName, name, kinds] as const);
const KINDS = MIGRATIONS.flatMap(([, , kinds]) => kinds);
const CRD_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

let env: TestEnv;
let webhook: ConversionWebhook | undefined;
let ns: string;
const running: RunningController[] = [];
/** `plural/name` → the object as read at v1beta1 before the upgrade. */
const before = new Map<string, string>();

test.before(async () => {
  env = await startEnv({ storage: 'v1beta1', crds: { upstream: false } });
  ns = await freshNamespace(env.admin.client, 'storage-migration');
});

test.after(async () => {
  for (const c of running) await c.stop();
  await env?.stop();
  await webhook?.stop();
});

const objectPath = (version: string, plural: string, name?: string) => `/apis/${GROUP}/${version}/namespaces/${ns}/${plural}${name ? `/${name}` : ''}`;
const crdOf = (kind: ResourceDescriptor) => resourceName(kind.plural, kind.group);
const storedVersions = async (kind: ResourceDescriptor) =>
  (await env.admin.client.get<Crd & { status?: { storedVersions?: string[] } }>(`${CRD_PATH}/${crdOf(kind)}`)).status?.storedVersions ?? [];
const list = async (plural: string) => (await env.admin.client.get<{ items: KubeObject[] }>(objectPath('v1beta1', plural))).items;

test('stored at v1beta1: samples of all nine kinds (spec and status), each encoded at v1beta1 in etcd', async () => {
  assert.is(new Set(KINDS.map((k) => k.kind)).size, 9, 'the six controllers migrate all nine kinds between them, none twice');
  assert.is(KINDS.length, 9);
  for (const kind of KINDS) {
    for (let seed = 1; seed <= SAMPLES; seed++) {
      const sample = apiSample(kind.kind, 'v1beta1', seed, `${kind.singular}-${seed}`, ns);
      const { status, ...object } = sample as KubeObject & { status?: unknown };
      const created = await env.admin.client.create(objectPath('v1beta1', kind.plural), object);
      const name = created.metadata!.name!;
      if (status !== undefined) await env.admin.client.replace(`${objectPath('v1beta1', kind.plural, name)}/status`, { ...created, status });
      before.set(`${kind.plural}/${name}`, canonicalWritten(await env.admin.client.get(objectPath('v1beta1', kind.plural, name))));
      assert.is(await etcdApiVersion(env.etcd.url, kind.plural, ns, name), `${GROUP}/v1beta1`);
    }
  }
  assert.is(before.size, 9 * SAMPLES);
});

test('the CRDs upgraded to store v1beta2: objects stay at v1beta1 in etcd, storedVersions lists both, and v1beta1 cannot leave a CRD', async () => {
  webhook = await startConversionWebhook(env.dir, env.authorities.servingCa, 30_000);
  await installCrds(env.admin.client, storingV1beta2(loadOurCrds(), webhook.url, env.authorities.servingCa.certPem));
  for (const kind of KINDS) assert.equal(await storedVersions(kind), ['v1beta1', 'v1beta2'], crdOf(kind));
  const [first] = await list('metal3machines');
  assert.is(await etcdApiVersion(env.etcd.url, 'metal3machines', ns, first!.metadata!.name!), `${GROUP}/v1beta1`, 'not rewritten by the upgrade');
  const refused = await dropV1beta1('metal3machines').then(() => undefined, (error: Error) => error.message);
  assert.match(refused ?? 'accepted', /storedVersions/, 'the apiserver keeps a stored version in the CRD');
});

test('a denied write holds its CRD back with a Warning event naming the object; the others migrate', async () => {
  await denyUpdatesOf('metal3machine-1');
  const [, name, kinds] = MIGRATIONS.find(([c]) => c === 'machine')!;
  running.push(await migrationAs('machine', name, kinds));
  const crd = crdOf(kinds[0]!);
  const warning = await eventually('the Warning event on the Metal3Machine CRD', async () => {
    const events = await crdEvents(crd, STORAGE_MIGRATION_FAILED);
    return events.find((e) => e.message.includes(`${ns}/metal3machine-1`));
  });
  assert.match(warning.message, /could not be rewritten at the storage version/);
  assert.equal(await storedVersions(kinds[0]!), ['v1beta1', 'v1beta2'], 'not trimmed while an object is stored at v1beta1');
  assert.is(await etcdApiVersion(env.etcd.url, 'metal3machines', ns, 'metal3machine-1'), `${GROUP}/v1beta1`);
  assert.is(await etcdApiVersion(env.etcd.url, 'metal3machines', ns, 'metal3machine-2'), `${GROUP}/v1beta2`, 'the others are rewritten');
  await allowUpdates();
});

test('every controller migrates its kinds under exactly its deploy/rbac.yaml: etcd at v1beta2, objects as written, storedVersions [v1beta2], an event each', async () => {
  for (const [controller, name, kinds] of MIGRATIONS) if (controller !== 'machine') running.push(await migrationAs(controller, name, kinds));
  for (const kind of KINDS) {
    await eventually(`${crdOf(kind)} storedVersions [v1beta2]`, async () => ((await storedVersions(kind)).join() === 'v1beta2' ? true : undefined), {
      timeoutMs: 60_000,
    });
  }
  for (const kind of KINDS) {
    for (const object of await list(kind.plural)) {
      const name = object.metadata!.name!;
      assert.is(await etcdApiVersion(env.etcd.url, kind.plural, ns, name), `${GROUP}/v1beta2`, `${kind.plural}/${name} in etcd`);
      assert.is(canonicalWritten(object), before.get(`${kind.plural}/${name}`), `${kind.plural}/${name} reads as written`);
    }
    const [done] = await crdEvents(crdOf(kind), STORAGE_MIGRATED);
    assert.match(
      done?.message ?? 'no event',
      new RegExp(`^${SAMPLES} object\\(s\\) rewritten at v1beta2; storedVersions \\[v1beta1, v1beta2\\] → \\[v1beta2\\]$`),
    );
  }
  assert.equal(running.flatMap((c) => c.problems()).filter((p) => !p.includes('metal3machine-1')), [], 'nothing refused');
});

test('v1beta1 may now leave a CRD, and every object still reads; a restarted migration writes nothing', async () => {
  await dropV1beta1('metal3machines');
  assert.is((await env.admin.client.get<{ items: KubeObject[] }>(objectPath('v1beta2', 'metal3machines'))).items.length, SAMPLES);
  const [, name, kinds] = MIGRATIONS.find(([c]) => c === 'data')!;
  const again = await migrationAs('data', name, kinds);
  running.push(again);
  await eventually('the restarted migration reconciled its CRDs', () => (again.reconciles() >= kinds.length ? true : undefined));
  assert.is(again.writes(), 0, 'storedVersions already [v1beta2]: nothing to write');
});

function migrationAs(controller: ControllerName, name: string, kinds: readonly ResourceDescriptor[]): Promise<RunningController> {
  return startInProcess(env, ns, {
    rbac: rbacPath(controller),
    user: `${controller}-storage-migration`,
    component: `metal3-ts-${controller}`,
    controllers: [`${name}-storage-migration`],
    build: (deps) => storageMigrationController(name, kinds, deps),
  });
}

/** The CRD as installed, without v1beta1: what a later release that stops serving it would apply. */
async function dropV1beta1(plural: string): Promise<void> {
  const installed = await env.admin.client.get<Crd>(`${CRD_PATH}/${plural}.${GROUP}`);
  const { conversion: _, ...spec } = installed.spec;
  await env.admin.client.replace(`${CRD_PATH}/${plural}.${GROUP}`, {
    ...installed,
    spec: { ...spec, conversion: { strategy: 'None' }, versions: installed.spec.versions.filter((v) => v.name !== 'v1beta1') },
  });
}

async function crdEvents(crd: string, reason: string): Promise<{ message: string }[]> {
  const events = await env.admin.client.get<{ items: { reason?: string; message?: string; involvedObject?: { name?: string } }[] }>(
    '/api/v1/namespaces/default/events',
  );
  return events.items.filter((e) => e.reason === reason && e.involvedObject?.name === crd).map((e) => ({ message: e.message ?? '' }));
}

const POLICY = 'storage-migration-test-deny';
const ADMISSION = '/apis/admissionregistration.k8s.io/v1';

/** A ValidatingAdmissionPolicy refusing every update of the Metal3Machine `name` (bad input stand-in). */
async function denyUpdatesOf(name: string): Promise<void> {
  await env.admin.client.create(`${ADMISSION}/validatingadmissionpolicies`, {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name: POLICY },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: { resourceRules: [{ apiGroups: [GROUP], apiVersions: ['*'], operations: ['UPDATE'], resources: ['metal3machines'] }] },
      validations: [{ expression: `object.metadata.name != '${name}'`, message: `${name} is frozen by the test` }],
    },
  });
  await env.admin.client.create(`${ADMISSION}/validatingadmissionpolicybindings`, {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name: POLICY },
    spec: { policyName: POLICY, validationActions: ['Deny'] },
  });
  // A policy takes a moment to reach the admission chain: wait until it refuses (a dry run, which
  // admission judges but etcd never sees, so the object stays encoded as it is).
  await eventually('the policy refusing the update', async () => {
    const probe = env.admin.client.request('PATCH', objectPath('v1beta1', 'metal3machines', name), {
      body: {},
      contentType: 'application/merge-patch+json',
      query: { dryRun: 'All' },
    });
    return (await probe.then(() => false, () => true)) ? true : undefined;
  });
}

async function allowUpdates(): Promise<void> {
  await env.admin.client.delete(`${ADMISSION}/validatingadmissionpolicybindings/${POLICY}`);
  await env.admin.client.delete(`${ADMISSION}/validatingadmissionpolicies/${POLICY}`);
}

test.run();
